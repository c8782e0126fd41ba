"""``report.html``: one self-contained page to explore a compiled model (the
graph by name scope, a node's tensors, memory and cost, the memory timeline,
the cost charts, profiles, warnings and errors). It needs no network: the
layout library (``html/vendor``), opgraph's scripts and styles (``html/``)
and the data are inlined.

The data goes in as JSON inside ``<script type="application/json">`` with
``<``, ``>`` and ``&`` written as ``\\u`` escapes, so no name in a model can
close the element; the scripts put every name into the page as text
(``textContent``), never as markup."""

from __future__ import annotations

import html
import json
import re
from os import PathLike
from pathlib import Path
from typing import Any

from .compile import CompileResult
from .html_data import view_data
from .report import build_report

ASSETS = Path(__file__).with_name("html")
#: Inlined in this order: the layout library, then ours (each uses the ones before).
SCRIPTS = ("vendor/dagre.min.js", "format.js", "scopes.js", "graph_view.js", "charts.js", "page.js")
STYLES = ("report.css",)

_JSON_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)


def json_for_script(data: Any) -> str:
    """``data`` as JSON that is safe inside a script element."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_UNSAFE[m.group()], text)


def script_text(source: str) -> str:
    """JavaScript made safe to inline: ``</script`` (in a string or a
    regular expression) becomes ``<\\/script``, which means the same to JS."""
    return _SCRIPT_END.sub(r"<\\/\1", source).replace("<!--", "<\\!--")


def render_html(data: dict[str, Any]) -> str:
    """The page for :func:`~.html_data.view_data`'s ``data``."""
    title = f"opgraph report: {data['model']['name']}"
    # CSS cannot hold "</style" legitimately; escaping "</" keeps a stray one inert.
    styles = "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in STYLES).replace("</", "<\\/")
    scripts = "\n".join(
        f"<script>\n{script_text((ASSETS / name).read_text(encoding='utf-8'))}\n</script>" for name in SCRIPTS
    )
    body = (ASSETS / "body.html").read_text(encoding="utf-8")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{styles}\n</style>\n"
        f"</head>\n<body>\n{body}\n"
        f'<script type="application/json" id="report-data">{json_for_script(data)}</script>\n'
        f"{scripts}\n</body>\n</html>\n"
    )


def write_html_report(
    result: CompileResult, path: str | PathLike[str], *, report: dict[str, Any] | None = None
) -> Path:
    """Writes ``report.html`` for ``result`` to ``path`` (``report``: the
    :func:`~.report.build_report` dict, when the caller has built it
    already) and returns it as a Path. Raises :class:`OSError` when the file
    cannot be written."""
    if report is None:
        report = build_report(result)
    path = Path(path)
    path.write_text(render_html(view_data(result, report)), encoding="utf-8")
    return path
