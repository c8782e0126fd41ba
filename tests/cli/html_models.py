"""Models for the report.html tests: a corpus ONNX model ready to compile,
a synthetic scoped ONNX model of any size (written with the ``onnx``
package), and a graph whose names try to break out of HTML."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS / "onnx") not in sys.path:
    sys.path.append(str(TESTS / "onnx"))

from onnx_model_records import fixed_input_shapes, load_record, model_file  # noqa: E402

import opgraph  # noqa: E402
from opgraph import DataType  # noqa: E402
from opgraph.cli.compile import CompileOptions, CompileResult  # noqa: E402
from opgraph.cli.profiles import Profile  # noqa: E402
from opgraph.cost import BatchCost, estimate_cost  # noqa: E402
from opgraph.errors import OpgraphError  # noqa: E402
from opgraph.memory import plan_memory  # noqa: E402

#: A corpus model with 800 nodes (DenseNet-121: deep scopes, wide concats).
REAL_MODEL = "densenet121_ts13"
#: Each block of the synthetic model: h -> Relu -> Sigmoid -> Mul -> Add(h, .).
BLOCK_OPS = 4
#: A name no HTML page may turn into markup.
HOSTILE = "x</script><img src=y onerror=alert(1)>&amp;\"'[/bold]"


def real_model(directory: Path) -> tuple[Path, str]:
    """The corpus model's file and its ``--input-shape`` argument."""
    shapes = fixed_input_shapes(load_record(REAL_MODEL))
    shape_arg = ";".join(f"{name}:{','.join(map(str, dims))}" for name, dims in shapes.items())
    return model_file(REAL_MODEL, directory), shape_arg


def synthetic_onnx(path: Path, stages: int, blocks: int) -> Path:
    """An ONNX model of ``stages * blocks * BLOCK_OPS`` nodes on a [1, 64]
    float input, named ``/stage{s}/block{b}/{Op}`` as PyTorch's exporter
    names scopes."""
    import onnx
    from onnx import TensorProto, helper

    nodes = []
    h = "x"
    for s in range(stages):
        for b in range(blocks):
            scope = f"/stage{s}/block{b}"
            nodes += [
                helper.make_node("Relu", [h], [f"{scope}/r"], name=f"{scope}/Relu"),
                helper.make_node("Sigmoid", [f"{scope}/r"], [f"{scope}/s"], name=f"{scope}/Sigmoid"),
                helper.make_node("Mul", [f"{scope}/r", f"{scope}/s"], [f"{scope}/m"], name=f"{scope}/Mul"),
                helper.make_node("Add", [h, f"{scope}/m"], [f"{scope}/a"], name=f"{scope}/Add"),
            ]
            h = f"{scope}/a"
    graph = helper.make_graph(
        nodes,
        "synthetic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info(h, TensorProto.FLOAT, [1, 64])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))
    return path


def hostile_result(soc: str = "Ascend310P3") -> CompileResult:
    """A compiled two-node graph whose node names are :data:`HOSTILE`, with
    a warning and an error naming it and two batch-size profiles."""
    graph = opgraph.Graph(HOSTILE)
    x = graph.add_input(f"{HOSTILE}/in", DataType.FLOAT, [1, 16])
    y = graph.add_node("Relu", f"{HOSTILE}/relu", [x])
    graph.set_outputs([y])
    opgraph.infer(graph)
    options = CompileOptions(model=Path(f"{HOSTILE}.onnx"), framework="onnx", soc=soc)
    memory, cost = plan_memory(graph), estimate_cost(graph, soc)
    return CompileResult(
        options,
        graph,
        memory=memory,
        cost=cost,
        warnings=[f"a warning naming {HOSTILE}"],
        errors=[OpgraphError(f"an error naming {HOSTILE}")],
        profiles=[
            Profile(f"batch {b}", {"x": [b, 3, 8, 8]}, b, memory, BatchCost(b, cost.total_us * b))
            for b in (1, 4)
        ],
    )
