"""The appliance: the one place that wires hardware and the web app to the table.

`companion.appliance.service` is the composition root (config, store, table, buttons,
camera wing, web app and the production WSGI server), `companion.appliance.cli` the
`companion` command, `companion.appliance.config` the config file and data directory,
`companion.appliance.http_guard` the waitress server's defences. The rest of `companion` (the
referee and the table) imports none of this, nor cv2, numpy, hardware, web, flask or
waitress.
"""
