#!/bin/bash
# Train face models on a lent GPU machine (16 cores, one GPU), several at
# once, each for MINUTES of wall time after its pools are drawn. Crops and scenes are drawn
# by worker processes (the cores are the limit, not the GPU); see docs/vision.md.
#
#   scripts/vision/lent_machine.sh prepare   # here: copy the training split to .lab/ (~50 MB)
#   OUT=/some/dir MINUTES=5 scripts/vision/lent_machine.sh run   # there, with .lab carried
#   OUT=/some/dir MINUTES=5 FROM_WIDE=.lab/wide.onnx scripts/vision/lent_machine.sh wide   # the face model
#   OUT=/some/dir MINUTES=5 [KEEP=1] scripts/vision/lent_machine.sh more   # the shipped face model, trained on
#   OUT=/some/dir MINUTES=5 scripts/vision/lent_machine.sh finder   # centre models shown boards and steep dice
#   OUT=/some/dir MINUTES=5 scripts/vision/lent_machine.sh wider   # the shipped face model kept, widths 2 and 3
#   (DEVICE=cpu SYNTH=200 OBLIQUE=200 MINUTES=0.2: a quick try of the script here)
#
# `prepare` copies only what training reads: the training split of byler, matteop and
# rendered-dev (their manifests whole) and the 600 tomitomi3 crops paste_scenes picks. Never
# the test-only sets. The models and a log land in $OUT.
set -eu
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); fi  # before the cd below
cd "$(dirname "$0")/../.."
LAB=.lab

if [ "${1:-}" = prepare ]; then
    python=${PYTHON:-.venv/bin/python}
    rm -rf "$LAB/datasets"
    "$python" - <<'EOF'
import json, random, shutil, sys
from pathlib import Path
sys.path.insert(0, "scripts/vision")
import dataset
import paste_scenes
dest = Path(".lab/datasets")
for name, root in dataset.SETS.items():
    to = dest / root.relative_to(dataset.DATASETS)
    (to / "images").mkdir(parents=True)
    for f in ("manifest.json", "SOURCE.txt", "README.md"):
        if (root / f).exists():
            shutil.copy(root / f, to / f)
    for item in dataset.load(name):
        if not item.held_out or item.kind.endswith("enrol"):
            shutil.copy(item.path, to / item.path.relative_to(root))
tomi = paste_scenes.TOMI
to = dest / tomi.relative_to(dataset.DATASETS)
(to / "images").mkdir(parents=True)
shutil.copy(tomi / "manifest.json", to)
shutil.copy(tomi / "SOURCE.txt", to)
names = json.loads((tomi / "manifest.json").read_text())
for e in random.Random(3).sample(names, 600):  # load_sprites' own pick (limit_tomi, seed)
    shutil.copy(tomi / e["image"], to / e["image"])
EOF
    # the width-1 face model the `run` jobs train on (die_faces.onnx until the width-2 model)
    git show 8a607ea:hardware/vision/models/die_faces.onnx > "$LAB/die_faces_w1.onnx.part" ||
        { rm -f "$LAB/die_faces_w1.onnx.part"; echo "prepare needs the git history (commit 8a607ea)" >&2; exit 1; }
    mv "$LAB/die_faces_w1.onnx.part" "$LAB/die_faces_w1.onnx"
    grep -qx '/.lab/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo /.lab/ >> .git/info/exclude; }
    du -sh "$LAB"
    exit 0
fi

case "${1:-}" in run|wide|more|finder|wider) ;; *) echo "usage: $0 prepare|run|wide|more|finder|wider" >&2; exit 2 ;; esac
: "${OUT:?set OUT to the folder the models go to}"
W1=$LAB/die_faces_w1.onnx  # the width-1 face model the `run` jobs start from, written by `prepare`
[ "$1" != run ] || [ -f "$W1" ] || { echo "$W1 is missing: run $0 prepare first" >&2; exit 2; }
PY=${PYTHON:-python3} MINUTES=${MINUTES:-5} DEVICE=${DEVICE:-cuda} SYNTH=${SYNTH:-20000} OBLIQUE=${OBLIQUE:-40000}
export COMPANION_DATASETS="$PWD/$LAB/datasets" PYTHONUNBUFFERED=1
"$PY" -c "import torch, cv2, onnx; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'cv2', cv2.__version__)"
nvidia-smi -L || true
SPRITES=/tmp/sprites.pkl
"$PY" -c "import sys; from pathlib import Path; sys.path.insert(0, 'scripts/vision'); import paste_scenes; \
print(len(paste_scenes.load_sprites(cache=Path('$SPRITES'))), 'sprites')"

F=(scripts/vision/train_faces.py --device "$DEVICE" --no-held-out --minutes "$MINUTES" --batch 256 --per-epoch 102400
   --upright 15 --synth "$SYNTH" --synth-share 0.2 --oblique "$OBLIQUE" --oblique-share 0.4 --sprites-cache "$SPRITES"
   --pools /tmp/pools)
REAL=(--oblique-real 0.3 --oblique-boards 0.15)
LOW=(--low-res 0.4)
WIDE=("${F[@]}" "${REAL[@]}" --oblique-common 0.5 "${LOW[@]}")  # the shipped face model's kinds of crops

finish() {  # wait for the jobs in `pids`, show the end of each log, exit 1 if any failed
    local status=0 pid f
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    for f in "$OUT"/*.log; do echo "== $f"; grep -v Warning "$f" | grep -v "torch.onnx.export" | tail -n 4; done
    exit $status
}

if [ "$1" = wide ]; then
    # The face model: FROM_WIDE, the width-2 export of the CPU run in docs/vision.md,
    # trained on with the second model's kinds of crops and the common dice. At most 8
    # files come back from a lent machine: write only the model and its log.
    : "${FROM_WIDE:?set FROM_WIDE to the width-2 export to go on from (carried in .lab)}"
    "$PY" "${WIDE[@]}" --seed 21 --workers 16 --pools-only  # the job's seed: it loads this pool, not its own
    status=0
    "$PY" "${WIDE[@]}" --workers "${WORKERS:-4}" --width 2 --from-onnx "$FROM_WIDE" --lr 3e-4 --seed 21 \
        --out "$OUT/faces_wide.onnx" > "$OUT/faces_wide.log" 2>&1 || status=$?
    grep -v Warning "$OUT/faces_wide.log" | tail -n 3
    exit $status
fi

if [ "$1" = finder ]; then
    # Centre models, two side by side (half the cores each), the finder's pasted scenes
    # thrown onto printed boards (boards.py) and with dice seen at an angle among them:
    # the shipped model trained on, and one trained afresh (more epochs than the CPU gives).
    # The dice epanemu's held reveals miss are on a Catan board or close and steep
    # (docs/decisions.md, nineteenth session). Models and logs only in $OUT.
    D=(scripts/vision/train_detector.py --device "$DEVICE" --minutes "$MINUTES" --batch 64 --per-epoch 2560
       --paste 0.5 --boards 0.35 --oblique "${OBLIQUE_DICE:-3000}" --die-range "9,44" --sprites-cache "$SPRITES"
       --workers "${WORKERS:-7}")
    pids=()
    "$PY" "${D[@]}" --from-onnx hardware/vision/models/dice_centres.onnx --lr 5e-4 --seed 41 \
        --out "$OUT/centres_boards.onnx" > "$OUT/centres_boards.log" 2>&1 &
    pids+=($!)
    "$PY" "${D[@]}" --lr 3e-3 --seed 43 --out "$OUT/centres_boards_fresh.onnx" > "$OUT/centres_boards_fresh.log" 2>&1 &
    pids+=($!)
    finish
fi

if [ "$1" = wider ]; then
    # The shipped face model trained on with --keep (its right readings kept), two jobs side
    # by side (half the cores each): at its own width 2 and widened to 3, with crops off their
    # die's centre and of other sizes than the die's (as the reader's boxes are). Models and
    # logs only in $OUT. SEED: another draw of crops and pools.
    K=("${F[@]}" "${REAL[@]}" --oblique-common 0.7 --oblique-share 0.45 --low-res 0.3
       --off-centre 0.15 --size-spread 0.25 --lr 3e-4 --seed "${SEED:-51}"
       --from-onnx hardware/vision/models/die_faces.onnx --keep hardware/vision/models/die_faces.onnx
       --workers "${WORKERS:-7}")
    "$PY" "${K[@]}" --workers 16 --pools-only
    pids=()
    for w in ${WIDTHS:-2 3}; do  # WIDTHS=2 WORKERS=15: one job, every core drawing its crops
        "$PY" "${K[@]}" --width "$w" --out "$OUT/faces_keep$w.onnx" > "$OUT/faces_keep$w.log" 2>&1 &
        pids+=($!)
    done
    finish
fi

if [ "$1" = more ]; then
    # The shipped face model trained on with the `wide` job's crops, two jobs side by side
    # (half the cores each): the same shares, and a bigger share of dice seen at an angle
    # (the dice that stay unsure: steep views, light pips on a busy board). Models and logs
    # only in $OUT (at most 8 files come back).
    # KEEP=1: both also keep the shipped model's right readings (train_faces.py --keep), so
    # that what it reads now is not traded for what they learn
    W=("${WIDE[@]}" --width 2 --lr 3e-4 --from-onnx hardware/vision/models/die_faces.onnx
       --workers "${WORKERS:-7}")
    [ -z "${KEEP:-}" ] || W+=(--keep hardware/vision/models/die_faces.onnx)
    # one seed for both: a pool is kept under its seed, so both load the one drawn here
    "$PY" "${WIDE[@]}" --seed 31 --workers 16 --pools-only
    pids=()
    "$PY" "${W[@]}" --seed 31 --out "$OUT/faces_more.onnx" > "$OUT/faces_more.log" 2>&1 &
    pids+=($!)
    "$PY" "${W[@]}" --seed 31 --oblique-share 0.55 --out "$OUT/faces_more_oblique.onnx" \
        > "$OUT/faces_more_oblique.log" 2>&1 &
    pids+=($!)
    finish
fi

# the face jobs' pools, drawn first with every core (drawn by each job at once, they took minutes)
"$PY" "${F[@]}" "${REAL[@]}" --workers 16 --pools-only
"$PY" "${F[@]}" --workers 16 --pools-only
# faces, each with a share of photographed crops shown as far dice (--low-res): the width-1
# model trained on with and without photographed top faces on the oblique dice, and width 2
# from scratch; and, given FROM_W2 (an earlier width-2 export), that one trained on
pids=()
"$PY" "${F[@]}" "${LOW[@]}" --from-onnx "$W1" --lr 3e-4 --workers 4 --out "$OUT/faces_low.onnx" \
    > "$OUT/faces_low.log" 2>&1 &
pids+=($!)
"$PY" "${F[@]}" "${REAL[@]}" "${LOW[@]}" --from-onnx "$W1" --lr 3e-4 --workers 4 --out "$OUT/faces_low_real.onnx" \
    > "$OUT/faces_low_real.log" 2>&1 &
pids+=($!)
"$PY" "${F[@]}" "${REAL[@]}" "${LOW[@]}" --width 2 --workers 4 --out "$OUT/faces_w2_low.onnx" > "$OUT/faces_w2_low.log" 2>&1 &
pids+=($!)
if [ -n "${FROM_W2:-}" ]; then
    "$PY" "${F[@]}" "${REAL[@]}" "${LOW[@]}" --width 2 --from-onnx "$FROM_W2" --lr 4e-4 --workers 4 \
        --out "$OUT/faces_w2_more_low.onnx" > "$OUT/faces_w2_more_low.log" 2>&1 &
    pids+=($!)
fi
finish
