"""companion demo [--config FILE] [--data-dir DIR] [--port 8000] [--host ADDR]

The table service on a laptop: mock pins stand in for the buttons (use the virtual
buttons on the host panel) and bundled photos stand in for the camera. It listens on
every network interface, like `companion serve`, so a tablet can open the slate: it
says so, and how to keep it to this computer (--host 127.0.0.1). Prints the URLs and
the host PIN; stops cleanly on SIGTERM or Ctrl-C. Demo games are kept apart from
real ones (a "demo" folder in the data directory) unless --data-dir says otherwise.
"""

from __future__ import annotations

import argparse

from companion.appliance.cli import serve


def add_arguments(parser: argparse.ArgumentParser) -> None:
    serve.add_arguments(parser, demo=True)


def run(args: argparse.Namespace) -> int:
    return serve.run_service(args, demo=True)
