"""`companion calibrate`: set the table region (ROI) and an optional empty-table photo.

Writes the [vision] section of the config TOML, keeping every other section and every
other [vision] setting as they were. Without --roi, a photo's full frame is used.

What the host sets on the host panel's camera page (kept in the service's data directory)
takes precedence over the config file; when it sets what this run just wrote, a note says
so, with how to let the config file's value apply.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

from hardware.files import replace_file

SECTION = re.compile(r"^\s*\[\s*vision\s*\]\s*(#.*)?$")
ANY_SECTION = re.compile(r"^\s*\[")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="config TOML to update (created if missing)")
    parser.add_argument("--roi", help="table region x1,y1,x2,y2 in camera pixels")
    parser.add_argument("--empty-table", metavar="IMAGE", help="photo of the empty table, as the camera sees it")
    parser.add_argument("--data-dir", type=Path, metavar="DIR",
                        help="the service's data directory, to check for the host panel's own calibration "
                             f"(default: the service's own default, $STATE_DIRECTORY or the user data "
                             f"directory, and {APPLIANCE_DATA_DIR})")


#: Where the Raspberry Pi appliance keeps its data (systemd/game-companion.service).
APPLIANCE_DATA_DIR = Path("/var/lib/game-companion")


def panel_overrides(data_dir: Path, keys) -> list[str]:
    """Which of `keys` the host panel's calibration in `data_dir` sets (and so overrides)."""
    from hardware.calibration import CALIBRATION_FILE

    try:
        saved = json.loads((data_dir / CALIBRATION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none there, or one the service itself will set aside
        return []
    return [k for k in keys if isinstance(saved, dict) and saved.get(k) is not None]


def _service_data_dirs(given: Path | None) -> list[Path]:
    """Where the service may keep its data: the given folder, else its default
    (companion.appliance.config.default_data_dir) and the appliance's."""
    from companion.appliance.config import default_data_dir

    if given is not None:
        return [given]
    return list(dict.fromkeys([default_data_dir(), APPLIANCE_DATA_DIR]))


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # JSON string escapes are valid TOML basic strings


def write_vision_section(path: Path, values: dict) -> None:
    """Replace (or append) the [vision] table, merging `values` into what it already held."""
    text = path.read_text() if path.exists() else ""
    current = tomllib.loads(text).get("vision", {})  # also refuses a broken file before we touch it
    merged = {**current, **values}
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if SECTION.match(line)), None)
    block = ["[vision]\n"] + [f"{k} = {_toml_value(v)}\n" for k, v in merged.items()]
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines += (["\n"] if lines else []) + block
    else:
        end = next((j for j in range(start + 1, len(lines)) if ANY_SECTION.match(lines[j])), len(lines))
        tail = ["\n"] if end < len(lines) else []
        lines[start:end] = block + tail
    new_text = "".join(lines)
    tomllib.loads(new_text)
    replace_file(path, new_text.encode())


def run(args: argparse.Namespace) -> int:
    from hardware.vision import UnreadableFrame, VisionConfig
    from hardware.vision.config import VisionConfigError, parse_roi
    from hardware.vision.pictures import load_picture

    values: dict = {}
    try:
        frame = None
        if args.empty_table:
            try:
                frame = load_picture(args.empty_table)
            except UnreadableFrame as exc:
                raise VisionConfigError(f"the empty-table photo: {exc}") from None
            values["empty_table"] = str(Path(args.empty_table).resolve())
        if args.roi:
            roi = parse_roi(args.roi)
            if frame is not None and (roi[2] > frame.shape[1] or roi[3] > frame.shape[0]):
                raise VisionConfigError(f"roi {args.roi} reaches outside the {frame.shape[1]}x{frame.shape[0]} photo")
            values["roi"] = list(roi)
        elif frame is not None:
            values["roi"] = [0, 0, int(frame.shape[1]), int(frame.shape[0])]
        if not values:
            raise VisionConfigError("nothing to calibrate: give --roi and/or --empty-table")
        path = Path(args.config)
        existing = tomllib.loads(path.read_text()).get("vision", {}) if path.exists() else {}
        VisionConfig.from_mapping({**existing, **values})  # refuse to write a section we could not load
        write_vision_section(path, values)
    except (VisionConfigError, tomllib.TOMLDecodeError, OSError) as exc:
        print(f"companion calibrate: {exc}; config unchanged", file=sys.stderr)
        return 1
    print(f"[vision] in {args.config}: " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in values.items()))
    for data_dir in _service_data_dirs(getattr(args, "data_dir", None)):
        overridden = panel_overrides(data_dir, values)
        if overridden:
            print(f"note: the host panel's camera page has set {' and '.join(overridden)} (in "
                  f"{data_dir}/calibration.json), which the service uses instead of the config file; press "
                  "\"Forget this page's region and photo\" there for these to apply", file=sys.stderr)
    return 0
