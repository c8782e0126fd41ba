"""report.html without a browser: self-contained, names escaped, the data a
page shows, the vendored layout library shipped with its license, and
graph.dot clustered by scope."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from html_models import HOSTILE, hostile_result

import opgraph
from opgraph.cli.graph_dot import to_dot
from opgraph.cli.html_data import attr_text, view_data
from opgraph.cli.html_report import SCRIPTS, json_for_script, render_html, script_text, write_html_report
from opgraph.cli.report import build_report

HTML_DIR = Path(opgraph.__file__).parent / "cli" / "html"
DATA_ELEMENT = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def page_data(page: str) -> dict[str, object]:
    found = DATA_ELEMENT.search(page)
    assert found is not None, "no report-data element"
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    page = write_html_report(hostile_result(), tmp_path / "report.html").read_text()
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", page, re.I)
    assert "@import" not in page and "url(http" not in page
    # Every script is inline: the layout library's and ours.
    assert page.count("<script>") == len(SCRIPTS)
    assert "dagre" in page


def test_hostile_names_stay_text(tmp_path: Path) -> None:
    page = write_html_report(hostile_result(), tmp_path / "report.html").read_text()
    # The only element ends are the page's own: the name closes nothing.
    assert page.count("</script>") == len(SCRIPTS) + 1
    assert "<img" not in page
    assert HOSTILE not in page  # only its escaped forms are
    data = page_data(page)
    nodes = data["nodes"]
    assert isinstance(nodes, list)
    assert {n["name"] for n in nodes} == {f"{HOSTILE}/in", f"{HOSTILE}/relu"}
    assert data["warnings"] == [f"a warning naming {HOSTILE}"]
    errors = data["errors"]
    assert isinstance(errors, list) and errors[0]["message"] == f"an error naming {HOSTILE}"
    profiles = data["profiles"]
    assert isinstance(profiles, list) and [p["batch"] for p in profiles] == [1, 4]
    title = re.search(r"<title>(.*)</title>", page)
    assert title is not None and "&lt;/script&gt;" in title.group(1)


def test_json_for_script_escapes_what_could_end_the_element() -> None:
    text = json_for_script({"a": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}
    assert script_text('x = "</SCRIPT>"; y = "<!--"') == 'x = "<\\/SCRIPT>"; y = "<\\!--"'


def test_the_page_holds_each_nodes_memory_and_cost() -> None:
    result = hostile_result()
    data = view_data(result, build_report(result))
    relu = next(n for n in data["nodes"] if n["op"] == "Relu")
    assert result.memory is not None and result.cost is not None
    planned = result.memory.tensor(f"{HOSTILE}/relu:0")
    size, offset, first, last, region, view_of = relu["outputs"][0]["memory"]
    assert (size, offset, first, last, region, view_of) == (
        planned.size,
        planned.offset,
        planned.first_step,
        planned.last_step,
        planned.region,
        planned.view_of,
    )
    cost = result.cost.node(f"{HOSTILE}/relu")
    assert relu["cost"][:2] == [cost.time_us, cost.bound]
    assert data["memory"]["arena"] == result.memory.arena_bytes
    assert data["cost"]["roofline"]["points"], "the roofline has the Relu"


def test_attribute_values_are_short_text() -> None:
    import numpy as np

    assert attr_text(list(range(100))).endswith("\u2026 (100 items)]")
    assert attr_text(np.zeros((3, 4), dtype=np.float32)) == "tensor float32 [3, 4]"
    assert attr_text(opgraph.DataType.FLOAT16) == "FLOAT16"
    assert len(attr_text("x" * 1000)) == 160


def test_render_html_is_deterministic() -> None:
    result = hostile_result()
    data = view_data(result, build_report(result))
    assert render_html(data) == render_html(data)


def test_the_layout_library_is_vendored_with_its_license() -> None:
    vendor = HTML_DIR / "vendor"
    library = (vendor / "dagre.min.js").read_text()
    assert 'version:"0.8.5"' in library
    license_text = (vendor / "LICENSE").read_text()
    assert "Permission is hereby granted, free of charge" in license_text
    assert "Chris Pettitt" in license_text and "OpenJS Foundation" in license_text
    readme = (vendor / "README.md").read_text()
    assert "node-dagre-layout" in readme and "0.8.5" in readme
    for name in SCRIPTS:
        assert (HTML_DIR / name).is_file(), name


def test_graph_dot_clusters_nodes_by_scope() -> None:
    graph = opgraph.Graph("scoped")
    x = graph.add_input("x", opgraph.DataType.FLOAT, [1, 8])
    a = graph.add_node("Relu", "block1/conv/relu", [x])
    b = graph.add_node("Relu", "block1/act", [a])
    c = graph.add_node("Relu", "block2/relu", [b])
    graph.set_outputs([c])
    dot = to_dot(graph)
    assert dot.count("subgraph cluster_") == 3  # block1, block1/conv, block2
    block1 = dot.index('label="block1"')
    conv = dot.index('label="conv"')
    assert block1 < conv < dot.index('"block1/conv/relu" [label=')
    assert '"block1/conv/relu" -> "block1/act";' in dot


@pytest.mark.parametrize("stray", ["</style>", "</script>"])
def test_no_asset_can_end_its_element(stray: str) -> None:
    for path in HTML_DIR.rglob("*"):
        if path.suffix in (".js", ".css") and path.parent.name != "vendor":
            assert stray not in path.read_text().lower(), path


def test_non_finite_numbers_become_null() -> None:
    """JSON.parse refuses Infinity: a non-finite figure must not break the page."""
    result = hostile_result()
    assert result.cost is not None
    result.cost.total_us = float("inf")
    data = view_data(result, build_report(result))
    assert json.loads(json_for_script(data))["cost"]["total_us"] is None


def test_atc_output_with_report_html_writes_the_page_beside_the_json(tmp_path: Path) -> None:
    from opgraph.cli.main import main

    target = tmp_path / "om" / "lenet_bs1"
    assert main(["compile", "--example", "lenet", f"--output={target}", "--report", "html", "-q"]) == 0
    report = json.loads(target.with_suffix(".json").read_text())
    data = page_data(target.with_suffix(".html").read_text())
    nodes = data["nodes"]
    assert isinstance(nodes, list)
    assert {n["name"] for n in nodes} <= {n["name"] for n in report["nodes"]}
    assert main(["compile", "--example", "lenet", f"--output={tmp_path / 'plain'}", "-q"]) == 0
    assert (tmp_path / "plain.json").exists() and not (tmp_path / "plain.html").exists()


def test_the_page_may_be_given_as_a_string_path(tmp_path: Path) -> None:
    """As the README writes the call; a str failed inside with AttributeError."""
    written = write_html_report(hostile_result(), str(tmp_path / "report.html"))
    assert written == tmp_path / "report.html" and "<html" in written.read_text()
