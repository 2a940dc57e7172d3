"""The table's buttons and lights: the import path for the service.

    events = queue.Queue()
    wiring = Wiring.from_mapping(config.get("gpio", {}))
    factory = make_pin_factory(wiring.pin_factory)      # GpioUnavailable off a Pi
    buttons = TableButtons(wiring, events, pin_factory=factory)
    lights = SeatLights(wiring, pin_factory=factory)
    ...
    lights.show({1: LightState.TURN, 3: LightState.CALL_IN})
    press = events.get()                                 # Press(seat=3, button=ButtonKind.GREEN)

Nothing here opens a pin at import time.
"""

from hardware.faults import GpioUnavailable, HardwareFault, WiringError
from hardware.table.buttons import TableButtons
from hardware.table.lights import LightState, SeatLights
from hardware.table.pins import make_pin_factory, pin_factory_names
from hardware.table.presses import ButtonKind, Press
from hardware.table.wiring import HEADER_PIN, SeatWiring, Wiring, describe_pin

__all__ = [
    "ButtonKind",
    "GpioUnavailable",
    "HEADER_PIN",
    "HardwareFault",
    "LightState",
    "Press",
    "SeatLights",
    "SeatWiring",
    "TableButtons",
    "Wiring",
    "WiringError",
    "describe_pin",
    "make_pin_factory",
    "pin_factory_names",
]
