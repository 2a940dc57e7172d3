"""The small learned models, loaded once and run through ONNX Runtime, or OpenCV's dnn
where ONNX Runtime has no wheel (32-bit Raspberry Pi OS). No torch at run time.

dice_centres.onnx finds die centres and sizes; die_faces.onnx and its twin
die_faces_twin.onnx read a top-face crop together (faces.first_reading), and
die_faces_second.onnx gives a second opinion on it (faces.settle); face_embed.onnx
describes a spike die's symbol; chance_colour.onnx tells a chance cube's colour. All
are trained by scripts/vision/ (see docs/vision.md for provenance). Each output is read
by the name its ONNX graph gives it, never by a layer's name or kind, which importers
change (tests/test_vision_networks.py holds every model, on each runtime installed, to
stored numbers).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import threading
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).parent / "models"
_lock = threading.Lock()

#: ONNX Runtime runs these nets 1.7-2.2x faster than OpenCV's dnn on one core (docs/decisions.md,
#: 2026-12-07); where it has no wheel, OpenCV's dnn runs them, to the same numbers (1e-4).
HAS_ONNXRUNTIME = importlib.util.find_spec("onnxruntime") is not None
#: "onnxruntime" where it is installed, else "opencv"; COMPANION_VISION_RUNTIME=opencv
#: picks OpenCV's dnn anyway (to compare the two; ONNX Runtime, 17 MB, is then not loaded).
RUNTIME = "onnxruntime" if HAS_ONNXRUNTIME and os.environ.get("COMPANION_VISION_RUNTIME") != "opencv" else "opencv"


# OpenCV 5 reads ONNX with a new engine by default; for these small convolutional nets its
# older one (the only one in OpenCV 4) is faster on one core (measured at 1280x960 frames:
# centre model 7.3 -> 5.7 ms, face model 3.8 -> 1.5 ms for five crops, embedding 1.6 ->
# 1.0 ms for six) and gives the same outputs to 1e-5.
ENGINE = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


def _path(name: str) -> Path:
    path = MODELS / name
    if not path.exists():
        raise FileNotFoundError(f"vision model {path} is missing; reinstall the package or run scripts/vision/")
    return path


@lru_cache(maxsize=None)
def _net(name: str) -> cv2.dnn.Net:
    path = _path(name)
    if ENGINE is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=ENGINE)


@lru_cache(maxsize=None)
def _session(name: str):
    """An ONNX Runtime session on the CPU, with as many threads as OpenCV uses
    (cv2.getNumThreads() when the model is first loaded: one, where a benchmark asks for
    one core), which sleep between runs rather than spin (the Pi's cores serve the slate
    too). Without the memory arena: it would keep the largest frame's buffers (RSS 358 MB
    against 114 MB after a 1280x1280 look) for about 8% of the time."""
    import onnxruntime  # here, not at the top: only where it runs the models

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, cv2.getNumThreads())
    options.inter_op_num_threads = 1
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(_path(name)), options, providers=["CPUExecutionProvider"])


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits, in their own float type."""
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


#: The output a face model's graph declares for its features (the input of its last
#: layer), named by scripts/vision/onnx_features.py: read by that name, not by the kind or
#: name of the layer that makes it, which differ between OpenCV releases (5.1 fuses each
#: ReLU into the layer before it).
FEATURES = "features"


@lru_cache(maxsize=None)
def _outputs(name: str, runtime: str) -> tuple[str, ...]:
    with _lock:
        if runtime == "onnxruntime":
            return tuple(o.name for o in _session(name).get_outputs())
        return tuple(_net(name).getUnconnectedOutLayersNames())


@lru_cache(maxsize=None)
def _main_output(name: str, runtime: str) -> str:
    """The one output of the model's graph that is not FEATURES (its logits, centres or
    embedding). Named outright, because a bare forward() returns whichever output the
    importer lists first, and OpenCV 4 and 5 list them in different orders."""
    outputs = [o for o in _outputs(name, runtime) if o != FEATURES]
    if len(outputs) != 1:
        raise ValueError(f"vision model {name} declares outputs {outputs}, not one result")
    return outputs[0]


def _forward(name: str, blob: np.ndarray, output: str) -> np.ndarray:
    blob = np.ascontiguousarray(blob, dtype=np.float32)
    with _lock:  # cv2.dnn nets are not re-entrant, so calls are serialised
        if RUNTIME == "onnxruntime":
            session = _session(name)
            return session.run([output], {session.get_inputs()[0].name: blob})[0]
        net = _net(name)
        net.setInput(blob)
        return net.forward(output)


def run(name: str, blob: np.ndarray) -> np.ndarray:
    """The model's result for one blob."""
    return _forward(name, blob, _main_output(name, RUNTIME))


def features(name: str, blob: np.ndarray) -> np.ndarray:
    """The net's features for each row of the blob: the output its graph declares as
    FEATURES (its last hidden layer)."""
    if FEATURES not in _outputs(name, RUNTIME):
        raise ValueError(f"vision model {name} declares no {FEATURES!r} output; "
                         "rewrite it with scripts/vision/onnx_features.py")
    return _forward(name, blob, FEATURES).reshape(len(blob), -1)


#: The centre model meets the largest input of all (a whole frame at the finest look).
_FRAME_MODEL = "dice_centres.onnx"


def release() -> None:
    """Give back the memory a reading's largest forward took, once the reading is done.

    cv2.dnn keeps each net's working buffers sized for the last input, and a reading that
    looked hard (the frame's own pixels) leaves the centre model holding tens of MB until
    the next; the freed memory then stays with the process (glibc keeps it). So the centre
    model is run once on a tiny input (OpenCV's dnn; ONNX Runtime, its arena off, keeps
    no buffers), and glibc asked to return what is free (malloc_trim), about 7 ms a
    reading (figures: docs/decisions.md). A no-op where nothing was loaded, and the trim
    where there is no glibc."""
    with _lock:
        if RUNTIME == "opencv" and _net.cache_info().currsize:
            try:
                net = _net(_FRAME_MODEL)
            except FileNotFoundError:
                net = None
            if net is not None:
                net.setInput(np.zeros((1, 3, 32, 32), np.float32))
                net.forward()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to ask
        return None
