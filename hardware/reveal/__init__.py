"""The reveal flow: camera frames in, a reading offered to the table out.

- `desk.RevealDesk`: the one thread that owns the camera and carries out what the step
  decides; `step.RevealStep`: those decisions, one frame at a time, with no thread and no
  clock (when to read, a nudge that is not a new throw, a covered table, what to offer).
- `sight`: what the reader saw (`Sight`), a nudge told from a new throw (`same_throw`),
  the photo the slate shows (`encode_photo`), and the reader, ready-signal and table
  interfaces the desk is given. Whether a reading fits the game (how many dice, which
  faces) is the rules' to say: `DiceRequest.misfit`.
- `vision_reader.VisionReader`: hardware.vision behind those interfaces;
  `settled.SettledScene`: a plain still-picture check when the vision cannot load.
- `jobs`: what other threads ask of the camera thread.
"""

from hardware.reveal.desk import RevealDesk
from hardware.reveal.jobs import Ask, CameraJob, CameraJobFailed
from hardware.reveal.settled import SettledScene
from hardware.reveal.step import Outcome, RevealStep, Watch
from hardware.reveal.sight import (
    CAMERA_KINDS,
    PHOTO_WIDTH,
    DiceReader,
    ReadySignal,
    RevealTable,
    Sight,
    encode_photo,
    same_throw,
)
from hardware.reveal.vision_reader import VisionReader, empty_table_of

__all__ = [
    "CAMERA_KINDS",
    "PHOTO_WIDTH",
    "Ask",
    "CameraJob",
    "CameraJobFailed",
    "DiceReader",
    "Outcome",
    "ReadySignal",
    "RevealDesk",
    "RevealStep",
    "RevealTable",
    "SettledScene",
    "Sight",
    "VisionReader",
    "Watch",
    "empty_table_of",
    "encode_photo",
    "same_throw",
]
