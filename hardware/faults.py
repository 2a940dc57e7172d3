"""What can go wrong with the table's hardware, as typed errors a player can read.

The service catches `HardwareFault` around every device it opens or reads and falls back
to the host panel (virtual buttons, manual dice entry); the message is meant to be shown
there as it is, so it says what happened and what to check.
"""

from __future__ import annotations


class HardwareFault(Exception):
    """Base of every hardware error; `str(error)` is a message for the host."""


class GpioUnavailable(HardwareFault):
    """No usable GPIO here (not a Raspberry Pi, pin library missing, pin busy)."""


class WiringError(HardwareFault, ValueError):
    """The `[gpio]` section of the config file describes an impossible wiring."""


class CameraUnavailable(HardwareFault):
    """No frames can be had: the camera is missing, unplugged, or the recording is over."""


class CameraConfigError(HardwareFault, ValueError):
    """The `[camera]` section of the config file is not understood."""


class RecordingEnded(CameraUnavailable):
    """A recorded-frames source (demo, tests) has shown its last frame and does not loop."""
