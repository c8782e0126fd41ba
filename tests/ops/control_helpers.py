"""Builders for the control-flow tests: bodies whose Data nodes take the
caller's inputs, one-node graphs of If / Case / While / Merge, and an
independent statement of GE's merge rule to check the op against."""

from __future__ import annotations

from collections.abc import Sequence

from opgraph import DataType, Graph, TensorDesc, TensorRef

F = DataType.FLOAT


def body(name: str, indices: Sequence[int], outputs: Sequence[int | str] | None = None) -> Graph:
    """A body whose Data nodes ``a{k}`` take caller input ``indices[k]``.

    ``outputs`` picks the body outputs: an int ``k`` is Data node ``a{k}``
    itself, ``"sum{k}"`` is ``Add(a{k}, a{k})``; by default every Data node
    is returned as is."""
    g = Graph(name)
    args = [g.add_node("Data", f"a{k}", [], {"index": i}) for k, i in enumerate(indices)]
    picked: list[TensorRef] = []
    for out in range(len(args)) if outputs is None else outputs:
        if isinstance(out, int):
            picked.append(args[out])
        else:
            k = int(out.removeprefix("sum"))
            picked.append(g.add_node("Add", f"{out}_{len(picked)}", [args[k], args[k]]))
    g.set_outputs(picked)
    return g


def if_graph(
    cond: TensorDesc,
    inputs: Sequence[TensorDesc],
    then_branch: Graph,
    else_branch: Graph,
    outputs: int,
    op_type: str = "If",
) -> tuple[Graph, TensorRef]:
    """``op_type(cond, inputs)`` with the two branches."""
    g = Graph("g")
    c = g.add_input("cond", cond.dtype, cond.shape)
    xs = [g.add_input(f"x{k}", d.dtype, d.shape) for k, d in enumerate(inputs)]
    node = g.add_node(
        op_type,
        "node",
        [c, xs],
        subgraphs={"then_branch": then_branch, "else_branch": else_branch},
        dynamic_outputs=[("output", outputs)],
    )
    return g, node


def merge_reference(shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """GE's merge rule, stated independently of the implementation: same
    rank everywhere → each dim kept where all agree, else -1; otherwise
    (ranks differ, or any rank unknown) unknown rank ``(-2,)``."""
    if any(tuple(s) == (-2,) for s in shapes) or len({len(s) for s in shapes}) != 1:
        return (-2,)
    return tuple(col[0] if len(set(col)) == 1 else -1 for col in zip(*shapes, strict=True))


def generalises(merged: Sequence[int], shape: Sequence[int]) -> bool:
    """True when ``shape`` is an instance of ``merged``: unknown rank covers
    everything; otherwise same rank and every known dim equal."""
    if tuple(merged) == (-2,):
        return True
    if tuple(shape) == (-2,) or len(merged) != len(shape):
        return False
    return all(m == -1 or m == s for m, s in zip(merged, shape, strict=True))
