"""The hostile-input suite (issue 12): every case built by ``generate.py``
runs through the Python API and through ``opgraph compile``, each in a
subprocess under a memory cap and a timeout. Every run must end OK or with a
typed OpgraphError other than InternalError: no signal, no timeout, no
Python traceback from the CLI, a bounded message. Cases TensorFlow or Caffe
reject (``must_fail``) must end in a typed error.

The runs go two at a time (``HOSTILE_WORKERS``), all of them on the first
test, so the suite takes a few minutes whatever the selection order.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("grpc_tools", reason="the hostile suite builds models with grpcio-tools' protoc")

import generate

# The first test's set-up runs every case (each under its own TIMEOUT_S): 269-332 s on a loaded
# 2-core machine, beyond the default per-test limit of 300 s.
pytestmark = pytest.mark.timeout(1200)

MEMORY_CAP_BYTES = 3 << 30
TIMEOUT_S = float(os.environ.get("HOSTILE_TIMEOUT", "30"))
WORKERS = int(os.environ.get("HOSTILE_WORKERS", "2"))
# The CLI prints one paragraph per error; a few messages at most.
MAX_STDERR_BYTES = 16384
MAX_MESSAGE_BYTES = 8192
EXIT_INTERNAL = 3
RUN_CASE = Path(__file__).with_name("run_case.py")
MODES = ("api", "cli")


@dataclass
class Outcome:
    returncode: int | None  # None: timed out
    stdout: str
    stderr: str


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def _command(case: generate.Case, mode: str) -> list[str]:
    if mode == "api":
        return [sys.executable, str(RUN_CASE), json.dumps(asdict(case))]
    command = [sys.executable, "-m", "opgraph", "compile", case.model, "-q", "--framework", case.framework]
    if case.weights:
        command += ["--weights", case.weights]
    if case.custom_protos:
        command += ["--custom-proto", *case.custom_protos]
    if case.cli_input_shape:
        command += ["--input-shape", case.cli_input_shape]
    return command


def _run(case: generate.Case, mode: str) -> Outcome:
    env = {**os.environ, "OPGRAPH_TRACEBACK": ""}
    try:
        done = subprocess.run(
            _command(case, mode),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TIMEOUT_S,
            preexec_fn=_cap_memory,
            env=env,
        )
    except subprocess.TimeoutExpired as expired:
        return Outcome(None, str(expired.stdout or ""), str(expired.stderr or ""))
    return Outcome(done.returncode, done.stdout, done.stderr)


CASE_NAMES = generate.case_names()


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, generate.Case]:
    return {c.name: c for c in generate.generate(tmp_path_factory.mktemp("hostile"))}


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, cases: dict[str, generate.Case]
) -> dict[tuple[str, str], Outcome]:
    """Every selected (case, mode) run, in parallel, once per session."""
    selected: list[tuple[str, str]] = []
    for item in request.session.items:
        if isinstance(item, pytest.Function) and item.module is request.module and hasattr(item, "callspec"):
            name, mode = item.callspec.params["name"], item.callspec.params["mode"]
            assert isinstance(name, str) and isinstance(mode, str)
            selected.append((name, mode))
    # The big models first, so no long run starts last and stretches the suite.
    selected.sort(key=lambda key: -_weight(cases[key[0]]))
    with ThreadPoolExecutor(WORKERS) as pool:
        futures = {key: pool.submit(_run, cases[key[0]], key[1]) for key in selected}
        return {key: future.result() for key, future in futures.items()}


def _weight(case: generate.Case) -> int:
    """Heavy cases first, then by the size of the files."""
    files = [case.model, *([case.weights] if case.weights else [])]
    return (1 << 40) * case.heavy + sum(Path(f).stat().st_size for f in files)


def _check_api(case: generate.Case, outcome: Outcome) -> None:
    assert outcome.returncode == 0, f"the process died (exit {outcome.returncode}): {outcome.stderr[-600:]}"
    result: dict[str, Any] = json.loads(outcome.stdout.strip().splitlines()[-1])
    assert result["outcome"] != "untyped", f"an untyped {result['class']}: {result['message']}"
    if result["outcome"] == "error":
        assert not result["internal"], f"an InternalError: {result['message']}"
        assert result["message_bytes"] <= MAX_MESSAGE_BYTES, f"a {result['message_bytes']}-byte message"
    elif case.must_fail:
        pytest.fail("accepted, but TensorFlow / Caffe reject this model: expected a typed error")


def _check_cli(case: generate.Case, outcome: Outcome) -> None:
    assert outcome.returncode is not None
    assert outcome.returncode >= 0, f"killed by signal {-outcome.returncode}: {outcome.stderr[-600:]}"
    assert "Traceback (most recent call last)" not in outcome.stderr, outcome.stderr[-1500:]
    assert outcome.returncode != EXIT_INTERNAL, f"an internal error: {outcome.stderr[-600:]}"
    assert outcome.returncode in (0, 1, 2), f"exit {outcome.returncode}: {outcome.stderr[-600:]}"
    assert len(outcome.stderr.encode()) <= MAX_STDERR_BYTES, f"{len(outcome.stderr)} bytes on stderr"
    if case.must_fail:
        assert outcome.returncode != 0, "compiled, but TensorFlow / Caffe reject this model"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CASE_NAMES)
def test_hostile_case(
    name: str, mode: str, cases: dict[str, generate.Case], outcomes: dict[tuple[str, str], Outcome]
) -> None:
    case, outcome = cases[name], outcomes[(name, mode)]
    assert outcome.returncode is not None, f"no result within {TIMEOUT_S:.0f} s"
    if mode == "api":
        _check_api(case, outcome)
    else:
        _check_cli(case, outcome)


def test_every_issue_class_has_cases() -> None:
    """The classes of issue 12, by the names their cases carry."""
    names = " ".join(CASE_NAMES)
    for marker in (
        "truncated",
        "bitflip",
        "doubling_if",
        "doubling_call",
        "function_chain_100k",
        "identity_chains_1000x1000",
        "depthtospace_block",
        "input_shape",
        "conv2d_zero",
        "float_ref",
        "const_dtype_mismatch",
        "bad_string_content",
        "global_pooling",
        "custom_proto_message_twice",
        "custom_proto_stock_field_number",
        "overlong_packed_blob",
        "placeholder_rank_1m",
        "cycle_100k",
        "einsum_non_ascii",
        "splat_const",
    ):
        assert marker in names, marker


def test_every_onnx_class_has_cases() -> None:
    """The ONNX frontend's classes (issue 14), by the names their cases carry."""
    names = " ".join(CASE_NAMES)
    for marker in (
        "truncated33_onnx",
        "bitflip1_onnx",
        "onnx_nested_if",
        "onnx_doubling_functions",
        "onnx_recursive_functions",
        "onnx_function_branch_copies",
        "onnx_function_name_of_counts",
        "onnx_shared_names",
        "onnx_external_dotdot",
        "onnx_external_absolute",
        "onnx_cycle",
        "onnx_constant_of_shape_1tib",
        "onnx_reshape_overflow",
        "onnx_resize_nan_scales",
    ):
        assert marker in names, marker
