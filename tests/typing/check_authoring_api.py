"""The typed attribute API of parser plugins (issue 18 item 1) with exact
types: must pass ``mypy --strict`` (run from the repository root); the
``assert_type`` lines fail mypy if an overload widens or narrows a type.
``main()`` also runs it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

from opgraph import DataType
from opgraph.caffe import AttrInput, EnumValue, FrameworkOp, Operator, ParamValue


def read(src: FrameworkOp) -> None:
    assert_type(src.get_int("n"), int)
    assert_type(src.get_int("n", 1), int)
    assert_type(src.get_int("missing", None), int | None)
    assert_type(src.get_float("f"), float)
    assert_type(src.get_float("missing", None), float | None)
    assert_type(src.get_bool("b", False), bool)
    assert_type(src.get_str("s"), str)
    assert_type(src.get_ints("li", []), list[int])
    assert_type(src.get_floats("lf"), list[float])
    assert_type(src.get_strs("ls", None), list[str] | None)
    assert_type(src.get_shape("shape"), list[int])
    assert_type(src.get_dtype("T"), DataType)
    assert_type(src.get_tensor("value"), npt.NDArray[np.generic])
    assert_type(src.has_attr("n"), bool)


def write(dst: Operator, value: AttrInput) -> None:
    dst.set_int("i", 1)
    dst.set_float("f", 1)  # an int is a float here
    dst.set_bool("b", True)
    dst.set_str("s", "x")
    dst.set_ints("li", (1, 2))
    dst.set_floats("lf", [1.0])
    dst.set_bools("lb", [True])
    dst.set_strs("ls", ["a"])
    dst.set_dtype("d", DataType.FLOAT)
    dst.set_tensor("t", np.zeros(2, np.float32))
    dst.set_attr("any", value)


def param_int(src: FrameworkOp, path: str) -> int:
    value: ParamValue = src.param_path(path, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{path} is {value!r}")
    return value


def main() -> None:
    src = FrameworkOp(
        "n",
        "T",
        attrs={
            "n": 2,
            "f": 0.5,
            "b": True,
            "s": "x",
            "li": [1],
            "lf": [1.0],
            "ls": ["a"],
            "shape": [1, -1],
            "T": DataType.FLOAT16,
            "value": np.ones(2, np.float32),
        },
    )
    read(src)
    write(Operator("n", "UnregisteredOp"), [1, 2])
    assert param_int(src, "no_param.x") == 0
    assert EnumValue("MAX", 0).name == "MAX"
    assert src.param("no_param", {}) == {}


if __name__ == "__main__":
    main()
