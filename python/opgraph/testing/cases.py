"""One drawn test case of an op: its inputs (dtype, shape, array, whether it
is fed as a graph input or as a constant), its attributes, and a readable
rendering for failure messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..dtype import DataType
from ..format import Format
from ..opdef import ParamType
from ..shape import Shape


@dataclass(frozen=True, eq=False)
class TensorCase:
    """One input instance.

    ``shape`` is the concrete shape of ``array``; ``declared_shape`` is what
    the graph input declares (equal to ``shape``, or with some dims ``-1``
    when unknown dims are drawn). ``const`` inputs are fed as a ``Const``
    holding ``array`` so a value-depend input sees its value."""

    name: str
    dtype: DataType
    array: npt.NDArray[Any]
    declared_shape: Shape
    format: Format = Format.ND
    const: bool = False

    @property
    def shape(self) -> Shape:
        """The concrete shape of :attr:`array`."""
        return tuple(int(d) for d in self.array.shape)

    def describe(self) -> str:
        """``FLOAT[2, 3]``, plus where it comes from (``Data`` / ``Const``)."""
        dims = ", ".join(str(d) for d in self.declared_shape)
        text = f"{self.dtype.name}[{dims}]"
        if self.format != Format.ND:
            text += f" {self.format.name}"
        if self.const:
            value = np.array2string(self.array, threshold=16, separator=", ").replace("\n", "")
            return f"{text} Const {value}"
        if self.declared_shape != self.shape:
            return f"{text} Data (concrete shape {list(self.shape)})"
        return f"{text} Data"


@dataclass(frozen=True, eq=False)
class PortCase:
    """The instances one prototype input receives: one for REQUIRED, zero or
    one for OPTIONAL (zero = absent), any number for DYNAMIC."""

    name: str
    param_type: ParamType
    instances: tuple[TensorCase, ...]

    @property
    def absent(self) -> bool:
        """Whether this is an OPTIONAL input left out of the case."""
        return self.param_type == ParamType.OPTIONAL and not self.instances

    def reference_arg(self) -> npt.NDArray[Any] | list[npt.NDArray[Any]] | None:
        """What the reference receives for this port: an array, ``None``
        for an absent optional input, or a list of arrays for a dynamic one."""
        if self.param_type == ParamType.DYNAMIC:
            return [t.array for t in self.instances]
        return self.instances[0].array if self.instances else None


@dataclass(frozen=True, eq=False)
class OpCase:
    """A drawn case: ``inputs`` in prototype order, ``attrs`` as set on the
    node (optional attributes left out use their defaults), ``defaults`` the
    prototype's defaults of the attributes left out."""

    op_type: str
    inputs: tuple[PortCase, ...]
    attrs: Mapping[str, object]
    defaults: Mapping[str, object] = field(default_factory=dict)

    def reference_args(self) -> list[npt.NDArray[Any] | list[npt.NDArray[Any]] | None]:
        """One positional argument per prototype input."""
        return [port.reference_arg() for port in self.inputs]

    def reference_attrs(self) -> dict[str, object]:
        """Every attribute's effective value (defaults filled in)."""
        return {**self.defaults, **self.attrs}

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Every present input instance's array by name (dynamic instances
        are ``<port><k>``, as in the engine's messages)."""
        return {t.name: t.array for port in self.inputs for t in port.instances}

    def describe(self) -> str:
        """Multi-line listing of the inputs and attributes."""
        width = max((len(p.name) for p in self.inputs), default=0)
        lines: list[str] = []
        for port in self.inputs:
            label = f"{port.name:<{width}} = "
            if port.absent:
                lines.append(label + "absent (optional)")
            elif port.param_type == ParamType.DYNAMIC:
                items = ", ".join(t.describe() for t in port.instances)
                lines.append(label + f"[{items}] ({len(port.instances)} instances)")
            else:
                lines.append(label + port.instances[0].describe())
        if not lines:
            lines.append("(none)")
        text = "  inputs:    " + "\n             ".join(lines)
        attrs = ", ".join(f"{k}={_short(v)}" for k, v in self.attrs.items())
        defaults = ", ".join(f"{k}={_short(v)}" for k, v in self.defaults.items())
        text += f"\n  attrs:     {attrs or '(none set)'}"
        if defaults:
            text += f"\n  defaults:  {defaults}"
        return text

    def __repr__(self) -> str:
        shapes = ", ".join(
            f"{p.name}={'absent' if p.absent else [t.describe() for t in p.instances]}" for p in self.inputs
        )
        return f"OpCase({self.op_type}: {shapes}; attrs={dict(self.attrs)!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Hypothesis's "Falsifying example" line uses this short form."""
        printer.text(repr(self))


def _short(value: object) -> str:
    if isinstance(value, DataType | Format):
        return value.name
    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=16, separator=", ").replace("\n", "")
    return repr(value)
