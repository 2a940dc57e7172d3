"""`companion read`: read dice from photos, one JSON line per image.

Every image gets a line, in order; a missing or broken file gives a flagged line with
a reason and the rest are still read. With an empty-table photo in the config (companion
calibrate), a photo where something big covers the table is flagged. With --annotate DIR
each photo read gets DIR/PHOTO.annotated.png (PHOTO-2.annotated.png, ... for a name
already used in the run).
Exit code 0 when every image could be opened (and its copy written), 1 when at least one
could not, 2 for a bad profile, config or --annotate folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photos to read")
    parser.add_argument("--dice", choices=["pips", "chance", "spike"], help="kind of dice (default pips, or the config's)")
    parser.add_argument("--profile", help="spike profile made by `companion teach spike`")
    parser.add_argument("--annotate", metavar="DIR", help="also write each image with the dice boxed and labelled here")
    parser.add_argument("--roi", help="only look inside x1,y1,x2,y2 (pixels)")
    parser.add_argument("--expect", type=_count, metavar="N",
                        help="how many dice are in play: the reader looks harder before it reads another count, "
                             "and flags a reading that still finds another")
    parser.add_argument("--die-size", type=_pixels, metavar="PX",
                        help="a die's side in the photo's pixels, when known (default: the config's, else searched)")
    parser.add_argument("--config", help="companion config TOML; its [vision] section gives defaults")


def _bounded(parse, what: str, kind: str, lo: float, hi: float):
    """An argparse type: `parse` the text, and refuse it unless lo <= value <= hi."""
    def check(text: str):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} is {kind}, {lo} to {hi}, not {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} is {kind}, {lo} to {hi}, not {text}")
        return value
    return check


_count = _bounded(int, "a count of dice", "a whole number", 0, 100)
_pixels = _bounded(float, "a die's size", "a number of pixels", 6, 4000)


def _settings(args):
    from hardware.vision import VisionConfig
    from hardware.vision.config import parse_roi

    section = {}
    if args.config:
        section = tomllib.loads(Path(args.config).read_text()).get("vision", {})
    config = VisionConfig.from_mapping(section)
    dice = args.dice or config.dice
    roi = parse_roi(args.roi) if args.roi else config.roi
    profile_path = args.profile or config.spike_profile
    return config, dice, roi, profile_path


def run(args: argparse.Namespace) -> int:
    import cv2

    from hardware.vision import EmptyTable, SpikeProfile, UnreadableFrame, annotate, read_dice
    from hardware.vision.config import VisionConfigError
    from hardware.vision.pictures import load_picture
    from hardware.vision.reading import Reading
    from hardware.vision.spike import SpikeProfileError

    try:
        config, dice, roi, profile_path = _settings(args)
        profile = None
        if dice == "spike":
            if not profile_path:
                raise SpikeProfileError("--dice spike needs --profile FILE (made by `companion teach spike`)")
            profile = SpikeProfile.load(profile_path)
            if not profile.taught:
                raise SpikeProfileError(f"{profile_path} has no taught faces yet")
    except (OSError, tomllib.TOMLDecodeError, VisionConfigError, SpikeProfileError) as exc:
        print(f"companion read: {exc}", file=sys.stderr)
        return 2
    empty_table = None
    if config.empty_table:
        try:
            empty_table = EmptyTable.load(config.empty_table, roi)
        except UnreadableFrame as exc:
            print(f"companion read: the config's empty-table photo: {exc}; reading without it "
                  "(a hand or the cup over the dice is then not noticed)", file=sys.stderr)
    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"companion read: cannot make the --annotate folder {out_dir}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    failures = 0
    names = _AnnotatedNames()
    for path in args.images:
        frame = None
        try:
            frame = load_picture(path)
            reading = read_dice(frame, dice, profile=profile, roi=roi, min_confidence=config.min_confidence,
                                empty_table=empty_table, occluder_fraction=config.occluder_fraction,
                                expect=getattr(args, "expect", None),
                                die_px=getattr(args, "die_size", None) or config.die_size,
                                budget_ms=config.read_budget_ms)
        except UnreadableFrame as exc:
            failures += 1
            reading = Reading.unreadable(str(exc))
        print(json.dumps({"image": path, **reading.to_json()}), flush=True)
        if out_dir and frame is not None:
            target = out_dir / names.take(path)
            if not cv2.imwrite(str(target), annotate(frame, reading, config.min_confidence)):
                failures += 1
                print(f"companion read: could not write {target}", file=sys.stderr)
    return 1 if failures else 0


class _AnnotatedNames:
    """PHOTO.annotated.png for each photo, made unique within one run: photos of the same
    name from different folders (a/1.jpg, b/1.jpg) get 1.annotated.png, 1-2.annotated.png."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, path: str) -> str:
        stem = Path(path).stem
        name, n = f"{stem}.annotated.png", 1
        while name in self._taken:
            n += 1
            name = f"{stem}-{n}.annotated.png"
        self._taken.add(name)
        if n > 1:
            print(f"companion read: {path} annotated as {name} (an earlier photo has the same name)", file=sys.stderr)
        return name
