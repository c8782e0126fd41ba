"""``check-op --attr NAME=SPEC`` and ``--shape PORT=DIMS``: attribute and
input-shape strategies from the command line.

SPEC is one of

- ``LO..HI``: integers from LO to HI inclusive (floats when either bound has
  a ``.``, e.g. ``0.0..1.0``);
- ``A,B,C``: one of the listed values (ints, floats, ``true``/``false`` or
  text), e.g. ``pad_mode=SAME,VALID``;
- ``[SPEC]``: a list of 1 to 4 values drawn from SPEC, e.g.
  ``ksize=[1..5]``;
- a single value: that value, always.

DIMS is a comma-separated list of dims, each ``N`` or ``LO..HI``, e.g.
``--shape x=1..2,3,4..16,4..16`` (a rank-4 input with 3 channels)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hypothesis import strategies as st

from .usage import UsageError

Scalar = int | float | bool | str

MAX_LIST = 4
"""The longest list a ``[SPEC]`` draws."""


def _scalar(text: str) -> Scalar:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text.strip()


def _range(text: str, argument: str) -> st.SearchStrategy[int] | st.SearchStrategy[float]:
    low_text, _, high_text = text.partition("..")
    try:
        if "." in low_text or "." in high_text:
            low, high = float(low_text), float(high_text)
            strategy: st.SearchStrategy[int] | st.SearchStrategy[float] = st.floats(
                low, high, allow_nan=False
            )
        else:
            low, high = int(low_text), int(high_text)
            strategy = st.integers(low, high)
    except ValueError:
        raise UsageError(f"{argument}: {text!r} is not a range LO..HI of numbers") from None
    if low > high:
        raise UsageError(f"{argument}: range {text!r} is empty (LO is above HI)")
    return strategy


def _values(text: str, argument: str) -> st.SearchStrategy[object]:
    if text.startswith("[") and text.endswith("]"):
        return st.lists(_values(text[1:-1], argument), min_size=1, max_size=MAX_LIST)
    if ".." in text:
        return _range(text, argument)
    if "," in text:
        return st.sampled_from([_scalar(part) for part in text.split(",")])
    return st.just(_scalar(text))


def parse_attr_options(options: Sequence[str]) -> dict[str, st.SearchStrategy[object]]:
    """``["kernel=1..5", "pad=0..3"]`` as attribute strategies by name."""
    strategies: dict[str, st.SearchStrategy[object]] = {}
    for option in options:
        name, sep, spec = option.partition("=")
        argument = f"--attr {option!r}"
        if not sep or not name.strip() or not spec.strip():
            raise UsageError(f"{argument} is not NAME=SPEC (e.g. kernel=1..5)")
        if name.strip() in strategies:
            raise UsageError(f"{argument}: attribute {name.strip()!r} is given twice")
        strategies[name.strip()] = _values(spec.strip(), argument)
    return strategies


def checked_strategies(value: object, argument: str) -> dict[str, st.SearchStrategy[object]]:
    """A module-level strategy object (``--strategies MODULE:NAME``): a mapping
    of attribute names to strategies or fixed values."""
    if not isinstance(value, Mapping):
        raise UsageError(
            f"{argument} is of type {type(value).__name__}, expected a mapping of attribute "
            "names to hypothesis strategies"
        )
    strategies: dict[str, st.SearchStrategy[object]] = {}
    for name, strategy in value.items():
        if not isinstance(name, str):
            raise UsageError(f"{argument}: key {name!r} is not an attribute name")
        strategies[name] = strategy if isinstance(strategy, st.SearchStrategy) else st.just(strategy)
    return strategies


def parse_shape_options(options: Sequence[str]) -> st.SearchStrategy[dict[str, tuple[int, ...]]] | None:
    """``["x=1..2,3,4..16,4..16"]`` as a strategy of shapes by input name
    (None without options)."""
    if not options:
        return None
    ports: dict[str, st.SearchStrategy[tuple[int, ...]]] = {}
    for option in options:
        name, sep, spec = option.partition("=")
        argument = f"--shape {option!r}"
        if not sep or not name.strip():
            raise UsageError(f"{argument} is not PORT=DIMS (e.g. x=1..2,3,4..16,4..16)")
        dims: list[st.SearchStrategy[int]] = []
        for part in filter(None, (p.strip() for p in spec.split(","))):
            low_text, _, high_text = part.partition("..")
            try:
                low, high = int(low_text), int(high_text or low_text)
            except ValueError:
                raise UsageError(f"{argument}: dim {part!r} is not N or LO..HI (ints)") from None
            if low > high or low < 0:
                raise UsageError(f"{argument}: dim range {part!r} is empty or negative")
            dims.append(st.integers(low, high))
        ports[name.strip()] = st.tuples(*dims)
    return st.fixed_dictionaries(ports)
