"""The physical table, turned into events: it knows nothing of the rules' scoring.

- `hardware.gpio` (parts in `hardware.table`): the buttons and seat lights on gpiozero,
  the pin factory injected; presses go onto a queue.
- `hardware.camera`: frame sources (Pi camera, webcam, recorded frames) and, beside them,
  `hardware.demo_camera`: bundled photos that follow the game, for `companion demo`.
- `hardware.vision`: the OpenCV dice reader and the ready-to-read state machine.
- The camera wing: `hardware.reveal` (the thread that owns the camera and offers
  readings to the table), `hardware.camera_setup` (the host panel's camera page) and
  `hardware.calibration` (what that page keeps in the data directory).

Nothing here imports `web` or `companion.appliance`, and nothing opens a device at import.
"""
