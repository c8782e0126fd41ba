"""The bundled example (README command 1) runs and prints the shapes the
README shows."""

from __future__ import annotations

import pytest

from opgraph.examples import custom_op


def test_custom_op_example_prints_inferred_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    custom_op.main()
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split(maxsplit=2)[2] for line in lines[1:]}
    assert rows["conv1"] == "FLOAT [-1, 32, 112, 112] NCHW"
    assert rows["s2d"] == "FLOAT [-1, 512, 28, 28] NCHW"
    assert rows["flat"] == "FLOAT [-1, 401408] ND"
