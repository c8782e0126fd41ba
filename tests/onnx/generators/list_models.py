"""Prints the corpus's model table for ``README.md`` from the records alone
(no tools needed)::

    python tests/onnx/generators/list_models.py
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


def main() -> None:
    print("| model | exporter | opset | source | N | V | D | U | W | S |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for path in sorted(DATA.glob("*.json.gz")):
        r = json.loads(gzip.decompress(path.read_bytes()))
        values = r["tensors"].values()
        data = sum(1 for v in values if any(v["data_varies"]) or v.get("rank_data_varies"))
        unknown = sum(1 for v in r["onnx_inference"].values() if v is None or v["shape"] is None)
        stored = (DATA / r["file"]).stat().st_size // 1024
        print(
            f"| {r['name']} | {r['exporter']} | {r['opset']} | {r['source']} | {r['nodes']} | "
            f"{len(r['tensors'])} | {data} | {unknown} | {r['weights_bytes'] / 1e6:.1f} | {stored} |"
        )


if __name__ == "__main__":
    main()
