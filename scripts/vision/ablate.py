"""Read the benchmark's photos with one of the reader's rules taken out (issue 65, ruling 3:
a rule stays only if taking it out loses on the test-only sets).

    python scripts/vision/ablate.py --without surest_throw -- --split heldout --speed 0 --budget-ms 60000

Everything after `--` goes to benchmarks/vision.py as it is. `--without` takes a comma-separated
list of the names below (`--list` prints them); each replaces one step of hardware/vision
with "do nothing" (the step's input passed on unchanged), in this process only. Run it
unbounded (`--budget-ms 60000`) so that a rule's figures do not depend on the machine's load.

`--spy FILE` takes nothing out: it notes, for each read, which steps changed what they were
given, so that only those reads need reading again without a step: `--reread
DETAILS:SPY --without STEP` (docs/decisions.md, 2026-12-06, thirty-seventh session, has
the figures this gave).
"""

from __future__ import annotations

import argparse
import atexit
import json
import runpy
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.vision import faces, reader  # noqa: E402


def _keep_all(kept, probs, values, confidences, *rest, **kw):
    """A cull of `_settled` that takes nothing out."""
    return kept, probs, values, confidences


def _take_out(name: str) -> None:
    if name.startswith("without_") and hasattr(reader, name):
        setattr(reader, name, _keep_all)
    elif name == "harder":  # every harder look (the levels, lower cut-offs, grown, grouped; _surer too)
        reader.HARDER = ()
    elif name == "grown":  # the looks that grow or group candidates
        reader.HARDER = tuple(look for look in reader.HARDER if not look.grown)
    elif name == "merged":
        reader.HARDER = tuple(look for look in reader.HARDER if not look.merged)
    elif name == "surer":
        reader._surer = lambda *a: a[9]
    elif name == "more_cubes":
        reader.more_cubes = lambda kept, probs, *a: (kept, probs)
    elif name == "missed_at_size":
        reader.missed_at_size = lambda *a: []
    elif name == "at_throw_size":
        reader._at_throw_size = lambda frame, kept, probs, values, confidences, *a, **kw: (kept, probs, values,
                                                                                           confidences)
    elif name == "read_whole":
        reader.read_whole = lambda kept, probs, values, confidences, *a: (probs, values, confidences)
    elif name == "surest_throw":
        reader.surest_throw = lambda *a: None
    elif name == "dice_inside":
        reader.dice_inside = lambda *a, **kw: None
    elif name == "piece_of_bigger":
        reader.piece_of_bigger = lambda *a, **kw: None
    elif name == "unnested":
        reader.unnested = lambda cands, *a: cands
    elif name == "twin":  # the face model alone, without its twin's mean
        faces.TWIN_BELOW = 0.0
    elif name == "second_opinion":
        faces.settle = lambda p, q, sure=None: p
    elif name == "agreeing_views":
        faces.agreeing_views = lambda blob, p, sure: p
    elif name == "second_looks":  # the unsure die's views (mirrored, turned, sized) averaged
        faces.SECOND_LOOKS = 0
    else:
        raise SystemExit(f"no rule named {name!r}: see --list")


def _fired(name: str, before: tuple, after) -> bool:
    """Whether a step changed what it was given (for --spy)."""
    if name in ("dice_inside", "piece_of_bigger", "surest_throw"):
        return after is not None
    if name == "missed_at_size":
        return bool(after)
    if name == "more_cubes" or name.startswith("without_"):
        return len(after[0]) != len(before[0])
    if name == "at_throw_size":
        return after[0] is not before[1] or after[1] is not before[2]
    if name == "read_whole":
        return not np.array_equal(after[0], before[1])
    if name == "surer":
        return after is not before[9]
    return False


SPIED = ("dice_inside", "piece_of_bigger", "surest_throw", "missed_at_size", "more_cubes", "at_throw_size",
         "read_whole", "surer", "without_misfits", "without_strays", "without_odd_sizes",
         "without_smaller_doubts", "without_unsure_cubes", "without_strangers")
ATTRS = {"at_throw_size": "_at_throw_size", "surer": "_surer"}


def spy(path: str) -> None:
    """Note, for each read (in the benchmark's order: one per --details line, the timed reads
    having lines of their own), which of SPIED changed what it was given; written to `path`
    as JSON lines at exit."""
    fired: list[dict] = []
    reads = [-1]
    real_read = reader._read

    def counted(*a, **kw):
        reads[0] += 1
        return real_read(*a, **kw)
    reader._read = counted
    for name in SPIED:
        attr = ATTRS.get(name, name)
        real = getattr(reader, attr)

        def watched(*a, _real=real, _name=name, **kw):
            out = _real(*a, **kw)
            if _fired(_name, a, out):
                fired.append({"read": reads[0], "rule": _name})
            return out
        setattr(reader, attr, watched)
    atexit.register(lambda: Path(path).write_text("".join(json.dumps(f) + "\n" for f in fired)))


NAMES = ("harder", "grown", "merged", "surer", "more_cubes", "missed_at_size", "at_throw_size", "read_whole",
         "surest_throw", "dice_inside", "piece_of_bigger", "unnested", "twin", "second_opinion",
         "agreeing_views", "second_looks", "without_misfits", "without_strays",
         "without_odd_sizes", "without_smaller_doubts", "without_unsure_cubes", "without_strangers")


def _outcome(flagged: bool, exact: bool) -> str:
    """A read as the benchmark scores it: held, else right or silent."""
    return "held" if flagged else "right" if exact else "silent"


def reread(pairs: list[str], steps: set[str]) -> None:
    """Read again, with the --without steps taken out, each read that a spy run saw one of
    them change. `pairs`: DETAILS.jsonl:SPY.jsonl, the --details and --spy files of one
    run (same order). Prints each read whose outcome changes, then the counts of
    (before, after) outcomes: right, held, silent. Read unbounded."""
    import importlib.util
    from collections import Counter

    import cv2
    spec = importlib.util.spec_from_file_location("benchmark", ROOT / "benchmarks" / "vision.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    profiles: dict = {}
    counts: Counter = Counter()
    for pair in pairs:
        details_path, spy_path = pair.split(":")
        details = [json.loads(line) for line in Path(details_path).read_text().splitlines()]
        fired = {f["read"] for line in Path(spy_path).read_text().splitlines()
                 if (f := json.loads(line))["rule"] in steps}
        for d in (details[i] for i in sorted(fired) if i < len(details)):
            picture, _ = bench.shifted(cv2.imread(d["image"]), [], d["shift"] or "")
            root = Path(d["image"]).parents[1]
            if d["kind"] == "spike-A" and root not in profiles:
                profiles[root] = bench.teach_profile(json.loads((root / "manifest.json").read_text()), root)
            reading = bench.read_dice(picture, bench.MODE[d["kind"]], profile=profiles.get(root),
                                      min_confidence=bench.DEFAULT_MIN_CONFIDENCE, expect=len(d["truth"]),
                                      budget_ms=60000)
            values = [die["value"] for die in reading.to_json()["dice"]]
            before = _outcome(d["flagged"], d["exact"])
            after = _outcome(reading.flagged, Counter(values) == Counter(d["truth"]))
            counts[(before, after)] += 1
            if before != after:
                print(f"{d['image']} {d['shift'] or 'plain'}: {before} -> {after}", flush=True)
    print(", ".join(f"{b} -> {a}: {n}" for (b, a), n in sorted(counts.items())) or "no read to read again")


def main() -> None:
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    ours = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--without", default="", help="comma-separated rules to take out")
    ap.add_argument("--list", action="store_true", help="print the rules' names")
    ap.add_argument("--spy", metavar="FILE", help="note which rules change each read (JSON lines), taking none out")
    ap.add_argument("--reread", metavar="DETAILS:SPY", action="append", default=[],
                    help="instead of a benchmark run: read again, without the --without steps, the reads a "
                         "--spy run saw them change (its --details and --spy files)")
    args = ap.parse_args(ours)
    if args.list:
        print("\n".join(NAMES))
        return
    if args.spy:
        spy(args.spy)
    steps = set(filter(None, args.without.split(",")))
    for name in steps:
        _take_out(name)
    if args.reread:
        reread(args.reread, steps)
        return
    sys.argv = [str(ROOT / "benchmarks" / "vision.py"), *rest]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
