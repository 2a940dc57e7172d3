"""`companion read`: read dice from photos, one JSON line per image.

Every image gets a line, in order; a missing or broken file gives a flagged line with
a reason and the rest are still read. Exit code 0 when every image could be opened,
1 when at least one could not, 2 for a bad profile or config.
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
    parser.add_argument("--config", help="companion config TOML; its [vision] section gives defaults")


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

    from hardware.vision import SpikeProfile, UnreadableFrame, annotate, read_dice
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
    out_dir = Path(args.annotate) if args.annotate else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    failures = 0
    for path in args.images:
        frame = None
        try:
            frame = load_picture(path)
            reading = read_dice(frame, dice, profile=profile, roi=roi, min_confidence=config.min_confidence)
        except UnreadableFrame as exc:
            failures += 1
            reading = Reading.unreadable(str(exc))
        print(json.dumps({"image": path, **reading.to_json()}), flush=True)
        if out_dir and frame is not None:
            cv2.imwrite(str(out_dir / (Path(path).stem + ".annotated.png")),
                        annotate(frame, reading, config.min_confidence))
    return 1 if failures else 0
