"""The cost model against published Ascend throughput
(``../shared/calibration/ascend_published.tsv``).

- The calibration arithmetic is the cost model's: fitted constants mean
  what ``estimate_cost`` and ``opgraph compile`` compute.
- Held out: every model x SoC group predicted by constants fitted without
  it, against the issue's targets: the row targets (met) as plain
  assertions, the batch-sweep target (not met) as ``xfail(strict)``, so
  meeting it is noticed.
- In sample: the shipped presets on the rows they were fitted to: a
  calibration regression test, not evidence of accuracy.
"""

from __future__ import annotations

import math
from pathlib import Path

import calibrate
import numpy as np
import published
import pytest
from calibrate import Sample

import opgraph
from opgraph import DeviceSpec
from opgraph.cli.compile import CompileOptions, run

pytestmark = pytest.mark.skipif(
    not published.available(),
    reason=f"needs ../shared/calibration/ascend_published.tsv beside the checkout (not at {published.TSV})",
)


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    directory = tmp_path_factory.mktemp("calibration")
    presets = {s.name for s in DeviceSpec.presets()}
    rows = [r for r in published.rows() if r.soc in presets]
    return [Sample(r, published.terms(published.load(r, directory), r.soc)) for r in rows]


@pytest.fixture(scope="module")
def held_out(samples: list[Sample]) -> calibrate.Summary:
    summary = calibrate.summarise(calibrate.leave_one_model_out(samples))
    print(summary)
    return summary


def test_every_published_row_has_a_graph() -> None:
    rows = published.rows()
    assert len(rows) >= 66
    assert {r.soc for r in rows} >= {"Ascend310", "Ascend310P3", "Ascend310B1"}
    for row in rows:
        assert row.batch >= 1 and row.images_per_s > 0
        assert all(d > 0 for shape in row.input_shapes().values() for d in shape), row


def test_the_terms_reproduce_estimate_cost(tmp_path: Path) -> None:
    """A row's ``Terms`` under the shipped constants give ``estimate_cost``'s total."""
    checked = 0
    for row in published.rows():
        if row.batch not in (1, 4) or row.soc not in {s.name for s in DeviceSpec.presets()}:
            continue
        graph = published.load(row, tmp_path)
        spec = DeviceSpec.preset(row.soc)
        eff = published.efficiencies(spec)
        terms = published.terms(graph, row.soc)
        expected = opgraph.estimate_cost(graph, spec, precision=published.PRECISION).total_us
        got = terms.total_us(eff["cube"], eff["vector"], eff["memory"], spec.task_launch_us)
        assert got == pytest.approx(expected, rel=1e-9), row
        checked += 1
    assert checked >= 15


def test_a_fit_recovers_constants_that_generated_the_data(samples: list[Sample]) -> None:
    """Rows whose 'measurements' are the model's own predictions under known
    constants are fitted back to those constants."""
    truth = calibrate.Constants(0.8, 0.6, 0.7, {calibrate.scheduler(s.row.soc): 5.0 for s in samples})
    fake = []
    for s in samples:
        us = truth.predict(s.row, s.terms)
        row = published.Row(
            s.row.model, s.row.graph, s.row.input, s.row.soc, s.row.batch, 1e6 * s.row.batch / us, ""
        )
        fake.append(Sample(row, s.terms))
    fitted, loss = calibrate.fit(fake)
    assert loss < 1e-3
    for name in ("cube", "vector", "memory"):
        assert getattr(fitted, name) == pytest.approx(getattr(truth, name), abs=0.02), name
    for group, us in fitted.launch_us.items():
        assert us == pytest.approx(5.0, abs=0.2), group


@pytest.mark.xfail(
    strict=True,
    reason=(
        "issue 15: 2 of the 9 held-out batch sweeps are off by more than 25% (GPT-2 at batch 1, ShuffleNetV2)"
    ),
)
def test_every_held_out_batch_sweep_is_within_25_percent(held_out: calibrate.Summary) -> None:
    assert held_out.sweeps_within_25 == held_out.sweeps


def test_held_out_rows_meet_the_targets(held_out: calibrate.Summary) -> None:
    """Issue 15's row targets: >= 80% of rows within +-25%, median
    |log(predicted / measured)| <= 0.15 (both met, README)."""
    assert held_out.within_25 >= 0.80
    assert held_out.median_abs_log <= 0.15


def test_the_shipped_constants_are_the_fit_of_all_rows(samples: list[Sample]) -> None:
    """Calibration regression: the presets hold the constants a fit of every
    published row gives (rounded as the presets store them)."""
    fitted, _ = calibrate.fit(samples)
    for soc in {s.row.soc for s in samples}:
        launch = fitted.launch_us[calibrate.scheduler(soc)]
        spec = DeviceSpec.preset(soc)
        eff = published.efficiencies(spec)
        assert eff == pytest.approx(
            {"cube": fitted.cube, "vector": fitted.vector, "memory": fitted.memory}, abs=0.011
        )
        assert spec.task_launch_us == pytest.approx(launch, abs=0.06), soc


def test_in_sample_error_is_no_larger_than_held_out(
    samples: list[Sample], held_out: calibrate.Summary
) -> None:
    fitted, _ = calibrate.fit(samples)
    errors = [abs(math.log(fitted.predict(s.row, s.terms) / s.row.measured_us)) for s in samples]
    assert float(np.median(errors)) <= held_out.median_abs_log + 1e-9


def test_the_same_network_is_faster_on_the_bigger_chip(tmp_path: Path) -> None:
    row = next(r for r in published.rows() if r.model == "resnet50" and r.soc == "Ascend310")
    times = {}
    for soc in ("Ascend310", "Ascend310P3", "Ascend910A", "Ascend910B2"):
        graph = published.load(published.Row(row.model, row.graph, row.input, soc, 1, 1.0, ""), tmp_path)
        times[soc] = opgraph.estimate_cost(graph, soc, precision=published.PRECISION).total_us
    assert times["Ascend310"] > times["Ascend310P3"] > times["Ascend910B2"]
    assert times["Ascend310"] > times["Ascend910A"]


def test_the_command_line_predicts_what_is_calibrated(tmp_path: Path) -> None:
    row = next(r for r in published.rows() if r.model == "resnet18" and r.batch == 8)
    calibrated = opgraph.estimate_cost(published.load(row, tmp_path), row.soc, precision=published.PRECISION)
    options = CompileOptions(
        model=published.onnx_file(row.model, tmp_path),
        framework="onnx",
        input_shapes=row.input_shapes(),
        soc=row.soc,
        precision=published.PRECISION,
    )
    cost = run(options).cost
    assert cost is not None
    assert cost.total_us == pytest.approx(calibrated.total_us, rel=1e-9)
