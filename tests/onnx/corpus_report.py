"""Prints the ONNX conformance corpus as the README's table: every model
(``tests/onnx/data``, exported by its own tool via ``generators/``) with its
exporter, opset, node and value counts, and how opgraph's inferred values
compare with onnxruntime's real ones at free input dims, by the buckets of
``onnx_model_records`` (the comparison the tests assert; a value no graph
output needs is pruned, not missing), plus where opgraph
or ``onnx.shape_inference`` (strict, with data propagation) is the more
precise of the two::

    python tests/onnx/corpus_report.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_model_records import (
    Comparison,
    compare,
    dead_values,
    fixed_input_shapes,
    load_record,
    model_file,
    model_names,
    opgraph_values,
)

COLUMNS = (
    "model",
    "exporter",
    "opset",
    "nodes",
    "values",
    "equal",
    "unknown-justified",
    "unknown-unverified",
    "unknown at free dims only",
    "wrong",
    "missing",
    "pruned",
    "wrong at fixed shapes",
    "opgraph more precise",
    "onnx more precise",
)


def row(name: str, directory: Path) -> tuple[list[str], Comparison, Comparison]:
    record = load_record(name)
    path = model_file(name, directory)
    dead = dead_values(path)
    free = compare(record, opgraph_values(path, None), fixed=False, dead=dead)
    fixed = compare(record, opgraph_values(path, fixed_input_shapes(record)), fixed=True, dead=dead)
    cells = [
        name,
        record["exporter"],
        str(record["opset"]),
        str(record["nodes"]),
        str(len(record["tensors"])),
        str(len(free.equal)),
        str(len(free.unknown_justified)),
        str(len(free.unknown_unverified)),
        str(len(free.unknown_free_only)),
        str(len(free.wrong)),
        str(len(free.missing)),
        str(len(free.pruned)),
        str(len(fixed.wrong) + len(fixed.missing)),
        str(len(free.opgraph_more_precise)),
        str(len(free.onnx_more_precise)),
    ]
    return cells, free, fixed


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in model_names():
            try:
                rows.append(row(name, Path(tmp)))
            except Exception as e:
                message = f"{type(e).__name__}: {e}".splitlines()[0][:120]
                print(f"{name}: load failed: {message}", file=sys.stderr)
                record = load_record(name)
                failed = Comparison(missing=list(record["tensors"]))
                cells = [name, record["exporter"], str(record["opset"]), str(record["nodes"])]
                cells += [str(len(record["tensors"])), "0", "0", "0", "0", "0", str(len(record["tensors"]))]
                cells += ["0", "-", "0", "0"]
                rows.append((cells, failed, failed))
    print("| " + " | ".join(COLUMNS) + " |")
    print("|---|---|---:|" + "---:|" * (len(COLUMNS) - 3))
    for cells, _, _ in rows:
        print("| " + " | ".join(cells) + " |")
    values = sum(int(c[4]) for c, _, _ in rows)
    equal = sum(len(f.equal) for _, f, _ in rows)
    justified = sum(len(f.unknown_justified) for _, f, _ in rows)
    unverified = sum(len(f.unknown_unverified) for _, f, _ in rows)
    free_only = sum(len(f.unknown_free_only) for _, f, _ in rows)
    bad = [(len(f.wrong) + len(f.missing), c[0]) for c, f, _ in rows]
    fixed_bad = sum(len(x.wrong) + len(x.missing) for _, _, x in rows)
    pruned = sum(len(f.pruned) for _, f, _ in rows)
    more = sum(len(f.opgraph_more_precise) for _, f, _ in rows)
    less = sum(len(f.onnx_more_precise) for _, f, _ in rows)
    print(
        f"\n{len(rows)} models, {values} values: {equal} equal, {justified} unknown where they really vary, "
        f"{unverified} unknown below a data-dependent op where the runs kept the size, "
        f"{free_only} unknown at free input dims only (exact once input_shapes fixes them), "
        f"{sum(b for b, _ in bad)} wrong or missing at free input dims, {fixed_bad} at fixed input shapes, "
        f"{pruned} pruned because no output needs them; "
        f"opgraph more precise than onnx.shape_inference on {more} values, less on {less}"
    )
    if rows:
        worst, name = max(bad)
        print(f"worst model: {name} ({worst} wrong or missing)")


if __name__ == "__main__":
    main()
