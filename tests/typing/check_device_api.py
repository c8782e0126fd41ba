"""Exercises the device-format API with precise annotations; must pass
``mypy --strict`` (run from the repository root, so the pyproject's
``mypy_path = "python"`` applies). ``main()`` also runs it.

It builds a small convolution network, prepares it for a target (with and
without the fp16 policy), reads the report and the storage views, checks
the result with ``check_formats``, computes storage shapes directly, and
handles a DeviceError.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

import opgraph
from opgraph import (
    SOC_VERSIONS,
    DataType,
    DeviceError,
    Format,
    Graph,
    PrepareReport,
    TensorDesc,
    check_formats,
    prepare,
    storage_shape,
)


def network() -> Graph:
    g = Graph("typed")
    x = g.add_input("x", DataType.FLOAT, [1, 3, 16, 16], Format.NCHW)
    w = g.add_const("w", np.zeros((8, 3, 3, 3), dtype=np.float32), Format.NCHW)
    attrs = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "data_format": "NCHW"}
    conv = g.add_node("Conv2D", "conv", [x, w], attrs)
    relu = g.add_node("Relu", "relu", [conv])
    g.set_outputs([relu])
    opgraph.infer(g)
    return g


def storage_of(g: Graph, name: str) -> tuple[Format, tuple[int, ...]]:
    desc: TensorDesc = g.node(name).outputs[0]
    return Format(desc.storage_format), desc.storage_shape


def main() -> None:
    socs: tuple[str, ...] = SOC_VERSIONS
    assert "Ascend910B1" in socs

    g = network()
    report: PrepareReport = prepare(g, "Ascend310P3")
    by_format: Mapping[Format, int] = report.tensors_by_format
    inserted: int = report.trans_data_inserted
    assert inserted == 2 and report.family == "Ascend310P"
    assert by_format[Format.NC1HWC0] == report.tensors_in(Format.NC1HWC0) == 3
    assert storage_of(g, "conv") == (Format.NC1HWC0, (1, 1, 16, 16, 16))
    assert storage_of(g, "w") == (Format.FRACTAL_Z, (9, 1, 16, 16))
    problems: list[str] = check_formats(g, "Ascend310P3")
    assert problems == []

    half = network()
    fp16: PrepareReport = opgraph.prepare(half, allow_fp32_to_fp16=True)
    assert fp16.casts_inserted == 2 and fp16.weights_cast_to_fp16 == 1

    dims: tuple[int, ...] = storage_shape([64, 3, 7, 7], Format.NCHW, Format.FRACTAL_Z, DataType.FLOAT16)
    assert dims == (49, 4, 16, 16)
    assert storage_shape([100, 70], "ND", "FRACTAL_NZ", DataType.INT8, soc="Ascend910A") == (3, 7, 16, 32)

    try:
        prepare(network(), "Ascend920")
    except DeviceError as e:
        node: str | None = e.node
        assert node is None and "Ascend910B4" in str(e)
    else:
        raise AssertionError("an unknown soc must raise DeviceError")
    try:
        prepare(g)
    except DeviceError as e:
        assert "freshly inferred" in str(e)
    else:
        raise AssertionError("a prepared graph must be refused")


if __name__ == "__main__":
    main()
