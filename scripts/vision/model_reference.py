"""Make tests/fixtures/model_reference.npz: what each shipped vision model gives for a few
real inputs, as stored numbers that tests/test_vision_networks.py compares every OpenCV
release with (to 1e-4).

Run it with the oldest OpenCV the project supports (pyproject's floor), after a model
changes, from the repository root:

    python scripts/vision/model_reference.py

The inputs are uint8 pictures cut from a bundled demo photo (decoded once, here, so a
JPEG decoder's version never moves them); the test standardises them as the reader does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hardware.demo_camera import load_manifest  # noqa: E402
from hardware.vision import networks  # noqa: E402
from hardware.vision.detect import standardise, shrink  # noqa: E402
from hardware.vision.chance import CHANCE_SIDE  # noqa: E402
from hardware.vision.faces import CROP_FACTOR, FACE_SIDE, cut, standardise_crops  # noqa: E402
from hardware.vision.spike import SIDE as SPIKE_SIDE  # noqa: E402

PHOTO = ROOT / "hardware/data/demo/pips-2-0009.jpg"
CUBES = ROOT / "hardware/data/demo/chance-5-0040.jpg"  # five chance cubes, boxed in the demo manifest
OUT = ROOT / "tests/fixtures/model_reference.npz"
FRAME = (256, 192)  # the centre model's input, w x h (its strides divide both)


def pictures() -> dict[str, np.ndarray]:
    """The uint8 inputs: a shrunk frame, and face and spike crops on a grid over the photo;
    for the chance model, the five cubes of a chance photo as the reader cuts them, then
    four of the grid's crops (no cube)."""
    img = cv2.imread(str(PHOTO))
    h, w = img.shape[:2]
    side = min(h, w) // 4
    spots = [(int(w * fx), int(h * fy)) for fy in (0.3, 0.5, 0.7) for fx in (0.3, 0.5, 0.7)]
    crops = [img[y - side // 2:y + side // 2, x - side // 2:x + side // 2] for x, y in spots]
    return {
        "frame": shrink(img, *FRAME),
        "faces": np.stack([cv2.resize(c, (FACE_SIDE, FACE_SIDE), interpolation=cv2.INTER_AREA) for c in crops]),
        "spikes": np.stack([cv2.resize(c, (SPIKE_SIDE, SPIKE_SIDE), interpolation=cv2.INTER_AREA) for c in crops]),
        "cubes": np.stack(_cubes() + [cv2.resize(c, (CHANCE_SIDE, CHANCE_SIDE), interpolation=cv2.INTER_AREA)
                                      for c in crops[:4]]),
    }


def _cubes() -> list[np.ndarray]:
    scene = next(s for s in load_manifest(CUBES.parent)["scenes"] if s["file"] == CUBES.name)
    img = cv2.imread(str(CUBES))
    return [cut(img, (x1 + x2) / 2, (y1 + y2) / 2, CROP_FACTOR * max(x2 - x1, y2 - y1), CHANCE_SIDE)
            for x1, y1, x2, y2 in scene["boxes"]]


def inputs(pics: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each model's input blob, made from `pics` as the reader makes it."""
    faces = standardise_crops(list(pics["faces"]))
    return {"dice_centres.onnx": standardise(pics["frame"])[None],
            "face_embed.onnx": standardise_crops(list(pics["spikes"])),
            "die_faces.onnx": faces, "die_faces_twin.onnx": faces, "die_faces_second.onnx": faces,
            "chance_colour.onnx": standardise_crops(list(pics["cubes"]))}


def outputs(pics: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every model's result (and the features the table memory reads) for `pics`."""
    blobs = inputs(pics)
    out = {model: networks.run(model, blob) for model, blob in blobs.items()}
    out["die_faces_second.onnx:features"] = networks.features("die_faces_second.onnx", blobs["die_faces_second.onnx"])
    return out


def main() -> int:
    pics = pictures()
    out = outputs(pics)
    np.savez_compressed(OUT, opencv=np.array(cv2.__version__), **{f"in:{k}": v for k, v in pics.items()},
                        **{f"out:{k}": v for k, v in out.items()})
    print(f"{OUT.relative_to(ROOT)}: {len(out)} outputs under OpenCV {cv2.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
