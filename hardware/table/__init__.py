"""The physical table: seat buttons, shared buttons and seat lights (gpiozero).

Import the public names from `hardware.gpio`.
"""
