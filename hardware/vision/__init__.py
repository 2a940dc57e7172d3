"""The camera's eye: read pip dice, chance cubes and taught spike dice from a frame.

Public names (others code against these):
read_dice, Reading, DieReading, UnreadableFrame, load_picture, annotate, ReadyToRead,
ReadyState, EmptyTable, SpikeProfile, teach_spike, VisionConfig, TableMemory (the pip dice a
table has read surely), release (after a reading: its working memory goes back).
"""

from hardware.vision.annotate import annotate
from hardware.vision.config import VisionConfig, VisionConfigError
from hardware.vision.memory import TableMemory
from hardware.vision.networks import release
from hardware.vision.pictures import load_picture
from hardware.vision.reader import read_dice
from hardware.vision.reading import DieReading, Reading, UnreadableFrame
from hardware.vision.ready import EmptyTable, ReadyState, ReadyToRead
from hardware.vision.spike import SpikeProfile, SpikeProfileError
from hardware.vision.teaching import teach_spike

__all__ = [
    "DieReading", "EmptyTable", "Reading", "ReadyState", "ReadyToRead", "SpikeProfile", "SpikeProfileError",
    "TableMemory",
    "UnreadableFrame", "VisionConfig", "VisionConfigError", "annotate", "load_picture", "read_dice",
    "release", "teach_spike",
]
