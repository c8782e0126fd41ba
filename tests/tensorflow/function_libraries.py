"""GraphDefs with function libraries built for scale tests, written as
protobuf text format (``.pbtxt``), which opgraph decodes with its protobuf
library like the ``.pbtxt`` fixtures beside them.

- :func:`doubling_library`: ``f0 … f{depth-1}``, each calling the next
  twice (an ``If`` whose branches are both the next function, or two nested
  ``PartitionedCall``\\ s); the last reduces its input with ``Mean`` over
  axis 0. Inlined, it has about ``2**depth`` copies of the last function.
- :func:`call_chain`: ``f0 … f{n-1}``, each calling the next once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

# The dimension Mean removes in every leaf body.
REDUCED_AXIS = 0


def _dtype_attr(key: str, dtype: str) -> str:
    return f'attr {{ key: "{key}" value {{ type: {dtype} }} }}'


def _types_attr(key: str, dtypes: Sequence[str]) -> str:
    types = " ".join(f"type: {t}" for t in dtypes)
    return f'attr {{ key: "{key}" value {{ list {{ {types} }} }} }}'


def _func_attr(key: str, function: str) -> str:
    return f'attr {{ key: "{key}" value {{ func {{ name: "{function}" }} }} }}'


def _node(block: str, name: str, op: str, inputs: Sequence[str], attrs: Sequence[str]) -> str:
    lines = [f'{block} {{ name: "{name}" op: "{op}"']
    lines += [f'  input: "{i}"' for i in inputs]
    lines += [f"  {a}" for a in attrs]
    return "\n".join(lines) + "\n}"


def _placeholder(name: str, dtype: str, shape: Sequence[int]) -> str:
    dims = " ".join(f"dim {{ size: {d} }}" for d in shape)
    return _node(
        "node",
        name,
        "Placeholder",
        [],
        [_dtype_attr("dtype", dtype), f'attr {{ key: "shape" value {{ shape {{ {dims} }} }} }}'],
    )


def _if(block: str, name: str, cond: str, inputs: Sequence[str], function: str) -> str:
    attrs = [
        _dtype_attr("Tcond", "DT_BOOL"),
        _types_attr("Tin", ["DT_BOOL", "DT_FLOAT"]),
        _types_attr("Tout", ["DT_FLOAT"]),
        _func_attr("then_branch", function),
        _func_attr("else_branch", function),
    ]
    return _node(block, name, "If", [cond, *inputs], attrs)


def _call(block: str, name: str, inputs: Sequence[str], function: str) -> str:
    attrs = [
        _types_attr("Tin", ["DT_BOOL", "DT_FLOAT"]),
        _types_attr("Tout", ["DT_FLOAT"]),
        _func_attr("f", function),
    ]
    return _node(block, name, "PartitionedCall", inputs, attrs)


def _function(name: str, body: Sequence[str], returns: str) -> str:
    signature = (
        f'signature {{ name: "{name}" input_arg {{ name: "c" type: DT_BOOL }} '
        'input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }'
    )
    return (
        "function {\n" + signature + "\n" + "\n".join(body) + f'\nret {{ key: "y" value: "{returns}" }}\n}}'
    )


def _relu_leaf(name: str) -> str:
    relu = _node("node_def", "relu", "Relu", ["x"], [_dtype_attr("T", "DT_FLOAT")])
    return _function(name, [relu], "relu:activations:0")


def _mean_leaf(name: str) -> str:
    axis = _node(
        "node_def",
        "axis",
        "Const",
        [],
        [
            _dtype_attr("dtype", "DT_INT32"),
            'attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } '
            f"int_val: {REDUCED_AXIS} }} }} }}",
        ],
    )
    mean = _node(
        "node_def",
        "mean",
        "Mean",
        ["x", "axis:output:0"],
        [
            _dtype_attr("T", "DT_FLOAT"),
            _dtype_attr("Tidx", "DT_INT32"),
            'attr { key: "keep_dims" value { b: false } }',
        ],
    )
    return _function(name, [axis, mean], "mean:output:0")


def _doubling_function(name: str, callee: str, via: str) -> str:
    if via == "If":
        return _function(name, [_if("node_def", "call", "c", ["c", "x"], callee)], "call:output:0")
    inner = _call("node_def", "inner", ["c", "x"], callee)
    outer = _call("node_def", "outer", ["c", "inner:output:0"], callee)
    return _function(name, [inner, outer], "outer:output:0")


def _graph(nodes: Sequence[str], functions: Iterator[str]) -> str:
    return "\n".join(nodes) + "\nlibrary {\n" + "\n".join(functions) + "\n}\n"


def doubling_library(
    path: Path, depth: int, *, via: str = "If", inputs: Sequence[Sequence[int]] = ((2, 3, 4),)
) -> Path:
    """Writes the doubling library of ``depth`` functions, ``f0`` called
    once per shape in ``inputs`` (Placeholders ``x0``, ``x1`` … and the
    shared condition ``c``; calls ``y0``, ``y1`` …). With ``via="If"``
    each function calls the next through both If branches; with
    ``via="PartitionedCall"`` through two calls in a row (the second on the
    first's result), the last function applying ``Relu``."""
    assert via in ("If", "PartitionedCall")
    nodes = [_placeholder("c", "DT_BOOL", [])]
    for k, shape in enumerate(inputs):
        nodes.append(_placeholder(f"x{k}", "DT_FLOAT", shape))
        if via == "If":
            nodes.append(_if("node", f"y{k}", "c", ["c", f"x{k}"], "f0"))
        else:
            nodes.append(_call("node", f"y{k}", ["c", f"x{k}"], "f0"))

    def functions() -> Iterator[str]:
        for i in range(depth - 1):
            yield _doubling_function(f"f{i}", f"f{i + 1}", via)
        yield _mean_leaf(f"f{depth - 1}") if via == "If" else _relu_leaf(f"f{depth - 1}")

    path.write_text(_graph(nodes, functions()))
    return path


def _chain_function(name: str, callee: str) -> str:
    # As small as a calling function gets: one argument, one call, whose
    # `f` is all the depth check reads (the text decoder's cost grows with
    # the file).
    return (
        f'function {{ signature {{ name: "{name}" input_arg {{ name: "x" type: DT_FLOAT }} '
        'output_arg { name: "y" type: DT_FLOAT } } '
        f'node_def {{ name: "call" op: "PartitionedCall" input: "x" {_func_attr("f", callee)} }} '
        'ret { key: "y" value: "call:output:0" } }'
    )


def call_chain(path: Path, length: int, *, call: str = "f0") -> Path:
    """Writes a chain of ``length`` functions ``f0 … f{length-1}``, each
    calling the next once through a PartitionedCall, and a last function
    ``leaf`` applying Relu; the graph calls ``call`` (``"leaf"``: the same
    library, called shallowly)."""
    nodes = [
        _placeholder("x", "DT_FLOAT", [2, 3]),
        _node(
            "node",
            "y",
            "PartitionedCall",
            ["x"],
            [_types_attr("Tin", ["DT_FLOAT"]), _types_attr("Tout", ["DT_FLOAT"]), _func_attr("f", call)],
        ),
    ]

    def functions() -> Iterator[str]:
        for i in range(length):
            yield _chain_function(f"f{i}", f"f{i + 1}" if i + 1 < length else "leaf")
        relu = _node("node_def", "relu", "Relu", ["x"], [_dtype_attr("T", "DT_FLOAT")])
        yield (
            'function { signature { name: "leaf" input_arg { name: "x" type: DT_FLOAT } '
            f'output_arg {{ name: "y" type: DT_FLOAT }} }}\n{relu}\n'
            'ret { key: "y" value: "relu:activations:0" } }'
        )

    path.write_text(_graph(nodes, functions()))
    return path
