"""`companion teach spike --face N --profile FILE IMAGE...`: teach the reader one spike face.

Show one or more dice all turned to face N, in a few photos; every die found becomes an
example of N. Each run adds to the profile (created when missing); a picture that cannot
be read stops the run and leaves the profile as it was.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=["spike"], help="what to teach (spike dice)")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photos of dice all showing face N")
    parser.add_argument("--face", type=int, required=True, choices=range(1, 7), metavar="N", help="face value 1..6")
    parser.add_argument("--profile", required=True, metavar="FILE", help="profile file to add to (created if missing)")


def run(args: argparse.Namespace) -> int:
    from hardware.vision import SpikeProfile, UnreadableFrame, teach_spike
    from hardware.vision.pictures import load_picture
    from hardware.vision.spike import SpikeProfileError

    try:
        profile = SpikeProfile.load_or_empty(args.profile)
        frames = [load_picture(path) for path in args.images]
        profile, added = teach_spike(profile, args.face, frames)
        profile.save(args.profile)
    except (UnreadableFrame, SpikeProfileError, OSError) as exc:
        print(f"companion teach: {exc}; profile unchanged", file=sys.stderr)
        return 1
    faces = ", ".join(str(f) for f in profile.taught)
    print(f"taught face {args.face} from {added} dice in {len(frames)} pictures; {args.profile} knows faces {faces}")
    if profile.pip_faces:
        print(f"pip faces (their pips, counted, check each reading): {', '.join(map(str, sorted(profile.pip_faces)))}")
    untaught = profile.untaught
    if untaught:
        print(f"still to teach: {', '.join(map(str, untaught))} (spike reads are flagged until all six are taught)")
    return 0
