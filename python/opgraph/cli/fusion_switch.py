"""ATC's ``--fusion_switch_file``: fusion passes turned on or off, as JSON
(``{"Switch": {"GraphFusion": {"NAME": "on"|"off", "ALL": ...},
"UBFusion": {...}}}``) or as ``NAME:on|off`` lines (older CANN).

opgraph's counterparts: ``UBFusion`` ``ALL`` off turns off the cost
model's UB fusion (element-wise ops no longer join the kernel that feeds
them); a GraphFusion name that is one of opgraph's TensorFlow scope-fusion
passes enables or disables that pass. Every other name gets a note."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import _core
from ..errors import AtcConfigError

OPTION = "--fusion_switch_file"


@dataclass
class FusionSwitches:
    """What the file changes in opgraph's pipeline."""

    ub_fusion: bool = True
    enable_scope_passes: list[str] = field(default_factory=list)
    disable_scope_passes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _switch(path: Path, name: str, value: object) -> bool:
    text = str(value).strip().lower()
    if text not in ("on", "off"):
        raise AtcConfigError(
            f"{OPTION} {str(path)!r}: {name} is {value!r}; expected on or off", path=str(path), field=name
        )
    return text == "on"


def _entries(path: Path, text: str) -> list[tuple[str, str, bool]]:
    """(group, pass name, on) for every switch in the file."""
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise AtcConfigError(
                f"{OPTION} {str(path)!r} is not valid JSON: {error}", path=str(path)
            ) from None
        groups = data.get("Switch") if isinstance(data, dict) else None
        if not isinstance(groups, dict):
            raise AtcConfigError(
                f"{OPTION} {str(path)!r}: expected "
                '{"Switch": {"GraphFusion": {...}, "UBFusion": {...}}}',
                path=str(path),
                field="Switch",
            )
        entries = []
        for group, switches in groups.items():
            if group not in ("GraphFusion", "UBFusion") or not isinstance(switches, dict):
                raise AtcConfigError(
                    f"{OPTION} {str(path)!r}: Switch.{group} is not GraphFusion or UBFusion {{NAME: on|off}}",
                    path=str(path),
                    field=group,
                )
            entries += [
                (group, name, _switch(path, f"{group}.{name}", value)) for name, value in switches.items()
            ]
        return entries
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise AtcConfigError(
                f"{OPTION} {str(path)!r} line {number}: {line!r} is not NAME:on|off",
                path=str(path),
                field=f"line {number}",
            )
        entries.append(("GraphFusion", name.strip(), _switch(path, name.strip(), value)))
    return entries


def read_fusion_switches(path: Path) -> FusionSwitches:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AtcConfigError(f"{OPTION} {str(path)!r} cannot be read: {error}", path=str(path)) from None
    scope_passes = {name for name, *_ in _core.registered_scope_fusion_passes()}
    switches = FusionSwitches()
    unmatched: list[str] = []
    for group, name, on in _entries(path, text):
        if group == "UBFusion" and name == "ALL":
            switches.ub_fusion = on
        elif group == "GraphFusion" and name in scope_passes:
            (switches.enable_scope_passes if on else switches.disable_scope_passes).append(name)
        else:
            unmatched.append(f"{group}.{name}")
    if unmatched:
        switches.notes.append(
            f"{OPTION}: {', '.join(unmatched)} have no counterpart in opgraph and do not change its result "
            "(UBFusion ALL maps to the cost model's fusion, GraphFusion names of scope-fusion passes "
            "to those)"
        )
    return switches
