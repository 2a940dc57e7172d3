"""The shipped vision models give the same numbers on every OpenCV release we install
(4.x, 5.0, 5.1...) and on ONNX Runtime: a stored reference, made by
scripts/vision/model_reference.py, is compared with what each runtime installed computes,
to 1e-4."""

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import networks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import model_reference  # noqa: E402  (the inputs, made as the reference was made)

REFERENCE = model_reference.OUT


RUNTIMES = ["opencv"] + (["onnxruntime"] if networks.HAS_ONNXRUNTIME else [])


@pytest.fixture(params=RUNTIMES)
def runtime(request, monkeypatch):
    """Each runtime the reader may run its models on here: ONNX Runtime where installed,
    OpenCV's dnn where it is not (32-bit Raspberry Pi OS)."""
    monkeypatch.setattr(networks, "RUNTIME", request.param)
    return request.param


def test_onnx_runtime_is_used_where_installed():
    if not networks.HAS_ONNXRUNTIME:
        pytest.skip("onnxruntime is not installed here")
    import os

    assert networks.RUNTIME == ("opencv" if os.environ.get("COMPANION_VISION_RUNTIME") == "opencv" else "onnxruntime")


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE) as ref:
        return {k: ref[k] for k in ref.files}


def _inputs(ref):
    return model_reference.inputs({k[3:]: v for k, v in ref.items() if k.startswith("in:")})


@pytest.mark.parametrize("model", ["dice_centres.onnx", "face_embed.onnx", "die_faces.onnx",
                                   "die_faces_twin.onnx", "die_faces_second.onnx", "chance_colour.onnx"])
def test_each_model_gives_the_stored_numbers_on_each_runtime(reference, model, runtime):
    got = networks.run(model, _inputs(reference)[model])
    want = reference[f"out:{model}"]
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-4, f"{runtime} (OpenCV {cv2.__version__}) against {reference['opencv']}"


def test_the_table_memory_reads_the_features_the_graph_declares(reference, runtime):
    faces = _inputs(reference)["die_faces_second.onnx"]
    got = networks.features("die_faces_second.onnx", faces)
    want = reference["out:die_faces_second.onnx:features"]
    assert got.shape == (len(faces), want.shape[1])
    assert np.abs(got - want).max() < 1e-4
    # they are the hidden layer the logits come from, not the logits again
    assert got.shape[1] != reference["out:die_faces_second.onnx"].shape[1]
    assert (got >= 0).all() and (got > 0).any()


def test_a_model_without_declared_features_is_refused_with_the_fix(runtime):
    with pytest.raises(ValueError, match="onnx_features.py"):
        networks.features("face_embed.onnx", np.zeros((1, 3, 32, 32), np.float32))
