"""Regenerates every number and picture in the README, from one command.

    python scripts/readme_numbers.py                 # counts, figures, benchmarks
    python scripts/readme_numbers.py counts          # only the op counts (seconds)
    python scripts/readme_numbers.py counts --check  # exit 1 if the README's counts are stale
    python scripts/readme_numbers.py benchmarks --out bench-logs/

- counts: the op-type counts the README states, computed from the registries
  of a fresh interpreter (IR op types, TensorFlow and Caffe built-in parser
  plugins, the ONNX standard op types with a built-in plugin out of all of
  them), and written into the README's sentences in place (`--check` only
  compares; tests/test_readme_numbers.py runs it).
- figures: the scripts that draw the README's pictures (they write under docs/).
- benchmarks: every benchmark and report command the README quotes
  (`cargo bench ...`, `python tests/benchmarks/...`, the corpus reports
  `python tests/{tensorflow,onnx}/corpus_report.py`), found in the README
  itself so the list cannot drift, each run from the repository root with its output saved to
  --out/NAME.txt. Their figures are measurements with prose around them: they
  are read off these logs into the README by hand, with the date measured.
  Their optional dependencies are the `bench` dependency group and the
  packages the quoted `pip install` names (tensorflow-cpu for (d)); a command
  whose imports are missing is reported and skipped, the others still run.

The benchmarks take about 20 minutes on the 2-core CI machine, and want it
otherwise idle.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# Each count: the README sentence's pattern (one group: the number) and the
# Python that prints the true value (run in a fresh interpreter: tests and
# plugins register more types into the process-wide registries).
COUNTS: dict[str, tuple[str, str]] = {
    "IR op types": (
        r"built-in op library has (\d+) op types",
        "import opgraph; print(len(opgraph.registered_op_types()))",
    ),
    "TensorFlow op types with a built-in plugin": (
        r"What the built-ins cover: (\d+) TensorFlow op types",
        "from opgraph.tensorflow import registered_plugins as r; "
        "print(len({p.origin_op_type for p in r() if p.builtin}))",
    ),
    "Caffe layer types with a built-in plugin": (
        r"built-in plugins for (\d+) Caffe layer types",
        "from opgraph.caffe import registered_plugins as r; "
        "print(len({p.origin_op_type for p in r() if p.builtin}))",
    ),
    "ONNX standard op types with a built-in plugin": (
        r"built-in plugins cover (\d+) of the \d+ op types of the standard operator set",
        "from opgraph.onnx import registered_plugins as r; "
        # origin op types are spelt "ai.onnx::OPSET::Op" (GE's domain::opset::op_type)
        "print(len({p.origin_op_type.rsplit('::', 1)[-1] for p in r() "
        "if p.builtin and p.origin_op_type.startswith('ai.onnx::')}))",
    ),
    "ONNX standard op types (onnx's schemas)": (
        r"built-in plugins cover \d+ of the (\d+) op types of the standard operator set",
        "import onnx.defs; print(len({s.name for s in onnx.defs.get_all_schemas() if s.domain == ''}))",
    ),
}
# The count that needs the onnx package (not a dependency of opgraph itself).
NEEDS_ONNX = {"ONNX standard op types (onnx's schemas)"}

# The scripts that draw the README's pictures.
FIGURES = [["python", "tests/benchmarks/make_memory_plot.py"]]


def true_counts() -> dict[str, int | None]:
    counts: dict[str, int | None] = {}
    for name, (_, code) in COUNTS.items():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if done.returncode != 0 and name in NEEDS_ONNX and "No module named 'onnx'" in done.stderr:
            counts[name] = None  # not checkable here
            continue
        if done.returncode != 0:
            raise SystemExit(f"counting {name} failed:\n{done.stderr}")
        counts[name] = int(done.stdout)
    return counts


def counts(check: bool) -> int:
    text = README.read_text(encoding="utf-8")
    stale = 0
    for name, value in true_counts().items():
        pattern = COUNTS[name][0]
        found = re.search(pattern, text)
        if found is None:
            print(f"{name}: the README has no sentence matching {pattern!r}")
            stale += 1
            continue
        if value is None:
            print(f"{name}: README {found[1]}, not checked (needs the onnx package)")
            continue
        same = int(found[1]) == value
        print(f"{name}: README {found[1]}, registries {value}{'' if same else '  <- stale'}")
        if not same:
            stale += 1
            text = text[: found.start(1)] + str(value) + text[found.end(1) :]
    if check:
        return 1 if stale else 0
    if stale:
        README.write_text(text, encoding="utf-8")
        print(f"README.md: {stale} count(s) updated")
    return 0


def quoted_commands() -> list[str]:
    """The README's backticked benchmark and report commands, in order."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```\w*\n(.*?)```", text, flags=re.DOTALL)
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    # Inline `spans` of the prose (a span may wrap across lines), and the lines of code blocks.
    candidates = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    candidates += [line.strip() for block in blocks for line in block.splitlines()]
    found: list[str] = []
    for command in candidates:
        if re.search(r"(^|&& )(python tests/\S+\.py|cargo bench )", command):
            command = command.split("&& ")[-1]  # `pip install X && ...`: X is a prerequisite
            if command not in found:
                found.append(command)
    return found


def run_all(commands: list[str], out: Path | None) -> int:
    failed = 0
    for command in commands:
        start = time.monotonic()
        print(f"\n=== {command}", flush=True)
        argv = [sys.executable if word == "python" else word for word in command.split()]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        print(done.stdout + done.stderr, end="")
        print(f"=== exit {done.returncode}, {time.monotonic() - start:.0f} s", flush=True)
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^A-Za-z0-9]+", "_", command).strip("_")
            (out / f"{name}.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
        failed += done.returncode != 0
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", nargs="*", help="counts, figures, benchmarks (default: all three)")
    parser.add_argument("--check", action="store_true", help="counts: compare only, exit 1 if stale")
    parser.add_argument("--out", type=Path, help="benchmarks: save each command's output here")
    args = parser.parse_args()
    what = args.what or ["counts", "figures", "benchmarks"]
    unknown = set(what) - {"counts", "figures", "benchmarks"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    status = 0
    if "counts" in what:
        status |= counts(args.check)
    if "figures" in what:
        status |= run_all([" ".join(f) for f in FIGURES], None)
    if "benchmarks" in what:
        commands = [c for c in quoted_commands() if c not in {" ".join(f) for f in FIGURES}]
        status |= run_all(commands, args.out)
    return status


if __name__ == "__main__":
    sys.exit(main())
