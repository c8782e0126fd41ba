"""Regenerates the README's report.html screenshot (``docs/report_html.png``)
and prints the figures the README quotes: for the corpus DenseNet-121
(ONNX, 800 nodes) and the browser test's synthetic 5,001-node model, each
compiled with ``opgraph compile --soc Ascend310P3 --out``, the size of
report.html and the time from opening it in headless Chromium to the graph
drawn (median of ``--runs``), and the dagre layout's share::

    python tests/benchmarks/make_report_screenshot.py [--out docs/report_html.png] [--runs 3]

Needs Chromium and Playwright (``bash .ci/install_browser.sh``)."""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "tests" / "cli"))

from html_models import real_model, synthetic_onnx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

#: The node the screenshot searches for and shows in the panel.
SHOWN = "/features/denseblock2/denselayer3/conv2/Conv"


def compile_out(model: Path, out: Path, *args: str) -> Path:
    command = [sys.executable, "-m", "opgraph", "compile", str(model), *args, "--soc", "Ascend310P3"]
    subprocess.run([*command, "--out", str(out), "-q"], check=True, capture_output=True)
    return out / "report.html"


def open_page(browser: Any, page_path: Path) -> tuple[Any, float, float]:
    """The page, seconds to the graph drawn, and the layout's milliseconds."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    started = time.perf_counter()
    page.goto(page_path.as_uri())
    page.wait_for_function("window.opgraphReport && window.opgraphReport.ready", timeout=120_000)
    seconds = time.perf_counter() - started
    layout_ms: float = page.evaluate("opgraphReport.view.layoutMs")
    return page, seconds, layout_ms


def measure(browser: Any, name: str, page_path: Path, runs: int) -> None:
    timings = []
    for _ in range(runs):
        page, seconds, layout_ms = open_page(browser, page_path)
        timings.append((seconds, layout_ms))
        page.close()
    seconds = statistics.median(t for t, _ in timings)
    layout = statistics.median(ms for _, ms in timings)
    size = page_path.stat().st_size / 2**20
    print(f"{name}: report.html {size:.2f} MiB, drawn in {seconds:.2f} s (dagre layout {layout:.0f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "report_html.png")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        work = Path(tmp)
        model, shapes = real_model(work)
        real = compile_out(model, work / "densenet", "--input-shape", shapes)
        large = compile_out(synthetic_onnx(work / "large.onnx", 25, 50), work / "large")
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        measure(browser, "DenseNet-121 (800 nodes)", real, args.runs)
        measure(browser, "synthetic (5,001 nodes)", large, args.runs)
        page, _, _ = open_page(browser, real)
        page.fill("#search", SHOWN)
        page.click("#search-results div[data-id]")
        page.screenshot(path=str(args.out))
        browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
