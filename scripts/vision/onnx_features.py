"""Declare a classifier's features as an output of its own ONNX graph.

The reader takes a face model's features (the table memory, hardware/vision/memory.py)
from the tensor that feeds its last layer. An importer may fuse or rename the layers
around that tensor (OpenCV 5.1 fuses each ReLU into the layer before it), so the tensor
is renamed FEATURES and listed among the graph's outputs: every OpenCV reads it by that
name. The numbers are unchanged; running it twice changes nothing.

    python scripts/vision/onnx_features.py hardware/vision/models/die_faces*.onnx

train_faces.py calls `declare_features` on every export.
"""

from __future__ import annotations

import argparse
import sys

FEATURES = "features"  # the name hardware/vision/networks.py reads (networks.FEATURES)


def declare_features(path: str) -> bool:
    """Rename the input of the graph's last node FEATURES and declare it an output, in
    place. False when the graph declared it already."""
    import onnx
    from onnx import helper, shape_inference

    model = onnx.load(path)
    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        return False
    if len(graph.output) != 1:
        raise ValueError(f"{path}: expected one output (the classifier's), found {len(graph.output)}")
    last = next(n for n in reversed(graph.node) if graph.output[0].name in n.output)
    hidden = last.input[0]
    if any(i.name == hidden for i in graph.initializer) or hidden == graph.input[0].name:
        raise ValueError(f"{path}: the last layer's input {hidden!r} is not a hidden layer")
    for node in graph.node:
        node.input[:] = [FEATURES if x == hidden else x for x in node.input]
        node.output[:] = [FEATURES if x == hidden else x for x in node.output]
    width = _width(shape_inference.infer_shapes(model).graph, FEATURES)
    batch = graph.input[0].type.tensor_type.shape.dim[0]
    graph.output.append(helper.make_tensor_value_info(
        FEATURES, onnx.TensorProto.FLOAT, [batch.dim_param or batch.dim_value, width]))
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return True


def _width(graph, name: str) -> int:
    """The features' width, from the shape the graph infers for them."""
    for info in graph.value_info:
        if info.name == name:
            dims = info.type.tensor_type.shape.dim
            if len(dims) == 2 and dims[1].dim_value:
                return dims[1].dim_value
    raise ValueError(f"the features {name!r} are not a (batch, width) tensor")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help="ONNX files to rewrite in place")
    args = ap.parse_args(argv)
    for path in args.models:
        print(f"{path}: {'features declared' if declare_features(path) else 'already declared'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
