"""Prints the TensorFlow conformance corpus as the README's table: every
fixture model (``tests/tensorflow/data/model_*``, written by TensorFlow via
``generators/make_models.py``) with its node count, and how opgraph's
inferred tensors compare with TensorFlow's at a dynamic and a fixed batch,
by the buckets of ``tf_model_records`` (the comparison the tests assert)::

    python tests/tensorflow/corpus_report.py

A tensor matches when it is equal, refined (opgraph knows more and the real
run agrees), fused, or passed through; the rate is matched / compared.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tf_model_records import (
    Comparison,
    compare,
    load_model,
    load_record,
    model_file,
    model_names,
    opgraph_tensors,
)


def counts(result: Comparison) -> tuple[int, int]:
    """(matched, compared) tensors."""
    matched = len(result.equal) + len(result.refined) + len(result.fused) + len(result.passed_through)
    return matched, matched + len(result.wrong)


def rate(result: Comparison) -> str:
    matched, compared = counts(result)
    return f"{matched}/{compared} ({100 * matched / compared:.1f}%)" if compared else "-"


def main() -> None:
    rows: list[tuple[str, int, int, Comparison, Comparison]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in model_names():
            record = load_record(name)
            path = model_file(name, "pb", Path(tmp))
            dynamic, replaced = load_model(path)
            fixed, fixed_replaced = load_model(path, record["fixed"]["input_shapes"])
            runtime = record["runtime"]["shapes"]
            ours = compare(record, record["tensors"], opgraph_tensors(dynamic, record), runtime, replaced)
            fixed_runtime = record["fixed"]["runtime"]["shapes"]
            got = opgraph_tensors(fixed, record, bodies=False)
            at_fixed = compare(record, record["fixed"]["tensors"], got, fixed_runtime, fixed_replaced)
            rows.append((name, len(record["nodes"]), len(record["tensors"]), ours, at_fixed))
    print("| model | nodes | tensors | dynamic batch | fixed batch |")
    print("|---|---:|---:|---|---|")
    for name, nodes, tensors, ours, at_fixed in rows:
        print(f"| {name} | {nodes} | {tensors} | {rate(ours)} | {rate(at_fixed)} |")
    per_row = [(counts(ours), counts(at_fixed)) for *_, ours, at_fixed in rows]
    total = [sum(c[k][i] for c in per_row) for k in (0, 1) for i in (0, 1)]
    print(
        f"\n{len(rows)} models, {sum(r[2] for r in rows)} tensors; matched "
        f"{total[0]}/{total[1]} at a dynamic batch and {total[2]}/{total[3]} at a fixed one"
    )


if __name__ == "__main__":
    main()
