//! `narrow_ranges(graph, symbols)`: the core's probing of dynamic dims
//! (`opgraph_core::infer::probe`), with a user's infer functions called
//! under the GIL and a failed probe described in one sentence.

use crate::errors::{
    failure_to_py, guard_panics, guard_panics_detached, interruption, is_internal,
};
use crate::graph::PyGraph;
use crate::graph_inputs::find_node;
use crate::infer::uses_user_ops;
use opgraph_core::graph::{Graph, NodeId};
use opgraph_core::infer::probe::{
    input_symbols, merge_equal_ranges, moved_sizes, narrow_by_probes, on_grid, DimSymbol,
    ProbeFailure, ProbeSummary, GRID_STEPS,
};
use opgraph_core::infer::{InferOptions, DEFAULT_FOLD_LIMIT};
use opgraph_core::op::{global_registry, OpRegistry};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::{HashMap, HashSet};

/// `(probes, unknown dims, fitted, narrowed, [(symbol, min, max)], merged,
/// why nothing was probed, [(symbol, step)] of sizes probed on a grid)`.
type Outcome = (
    usize,
    usize,
    usize,
    usize,
    Vec<(String, i64, i64)>,
    bool,
    Option<String>,
    Vec<(String, i64)>,
);

/// Narrows the shape ranges of an inferred graph by inferring copies of it
/// at fixed sizes of its ranged inputs (`symbols`: per input, one name per
/// dim, `""` for none; dims named alike share a size).
#[pyfunction]
#[pyo3(signature = (graph, symbols = None))]
pub fn narrow_ranges(
    py: Python<'_>,
    graph: &mut PyGraph,
    symbols: Option<HashMap<String, Vec<String>>>,
) -> PyResult<Outcome> {
    graph.usable(py)?;
    let mut names: Vec<(NodeId, Vec<String>)> = Vec::new();
    for (input, dims) in symbols.unwrap_or_default() {
        names.push((find_node(py, &graph.graph, &input)?, dims));
    }
    let found = match input_symbols(&graph.graph, &names) {
        Ok(found) => found,
        Err(why) => return Ok((0, 0, 0, 0, Vec::new(), false, Some(why), Vec::new())),
    };
    let registry = global_registry();
    let mut prober = Prober {
        py,
        user_ops: uses_user_ops(&graph.graph, &registry, &mut HashSet::new()),
        graph: &mut graph.graph,
        registry: &registry,
        only_unbounded: false,
    };
    let mut merged = false;
    let mut attempt = found.clone();
    let mut result = prober.probe_or_grid(&found)?;
    if result.is_err() {
        let together = merge_equal_ranges(&found);
        if together.len() < found.len() {
            // Probed apart, the sizes do not infer: assume those of equal
            // ranges are one size, and trust that only where intervals
            // give no bound at all.
            merged = true;
            attempt = together;
            prober.only_unbounded = true;
            result = prober.probe_or_grid(&attempt)?;
        }
    }
    let (attempt, result) = match result {
        Ok((probed, summary)) => (probed, Ok(summary)),
        Err(failure) => (attempt, Err(failure)),
    };
    let listed = attempt
        .iter()
        .map(|s| (s.name.clone(), s.min, s.max))
        .collect();
    let steps = attempt
        .iter()
        .filter(|s| s.step > 1)
        .map(|s| (s.name.clone(), s.step))
        .collect();
    match result {
        Ok(s) => Ok((
            s.probes,
            s.unknown_dims,
            s.fitted,
            s.narrowed,
            listed,
            merged,
            None,
            steps,
        )),
        Err(failure) => Ok((0, 0, 0, 0, listed, merged, Some(describe(failure)), steps)),
    }
}

/// The symbols probed (those asked for or a grid of them) with what they
/// narrowed, or the first probe's failure.
type Probed = Result<(Vec<DimSymbol>, ProbeSummary), ProbeFailure>;

/// Infers copies of one graph at fixed sizes of its dynamic dims.
struct Prober<'a, 'py> {
    py: Python<'py>,
    graph: &'a mut Graph,
    registry: &'a OpRegistry,
    /// The graph calls a user's (Python) infer function: probes hold the GIL.
    user_ops: bool,
    /// Narrow only the ranges intervals leave unbounded (the probe's sizes
    /// are an assumption, not the whole range).
    only_unbounded: bool,
}

impl Prober<'_, '_> {
    /// Probes `symbols`; where sizes between do not infer, probes the sizes
    /// the failed probe moved on a grid instead (finest first). A failure
    /// returned is the model's: opgraph's own bug or an interrupt is raised,
    /// never retried.
    fn probe_or_grid(&mut self, symbols: &[DimSymbol]) -> PyResult<Probed> {
        let failure = match self.run(symbols)? {
            Ok(summary) => return Ok(Ok((symbols.to_vec(), summary))),
            Err(failure) => not_a_bug(self.py, failure)?,
        };
        let grid = self.first_grid_that_infers(symbols, &failure)?;
        Ok(grid.ok_or(failure))
    }

    /// The first of `symbols`' grids after `failure` (finest first) whose
    /// probes all infer, with what it narrowed. The sizes on a grid are
    /// those a failed probe moved off their maximum; a grid's own failure
    /// may blame another size, which then joins at the same step. An
    /// interrupt or opgraph's own bug in a probe is raised, not retried.
    fn first_grid_that_infers(
        &mut self,
        symbols: &[DimSymbol],
        failure: &ProbeFailure,
    ) -> PyResult<Option<(Vec<DimSymbol>, ProbeSummary)>> {
        let mut moved = moved_sizes(symbols, &failure.sizes);
        for step in GRID_STEPS {
            while let Some(grid) = on_grid(symbols, &moved, step) {
                match self.run(&grid)? {
                    Ok(summary) => return Ok(Some((grid, summary))),
                    Err(other) => {
                        let other = not_a_bug(self.py, other)?;
                        let blamed = moved_sizes(symbols, &other.sizes);
                        let new: Vec<String> =
                            blamed.into_iter().filter(|b| !moved.contains(b)).collect();
                        if new.is_empty() {
                            break;
                        }
                        moved.extend(new);
                    }
                }
            }
        }
        Ok(None)
    }

    /// One attempt; an internal error in a probe is raised (a copy failed,
    /// so the graph itself is intact and stays usable).
    fn run(&mut self, symbols: &[DimSymbol]) -> PyResult<Result<ProbeSummary, ProbeFailure>> {
        let options = InferOptions {
            collect_errors: false,
            fold_limit: DEFAULT_FOLD_LIMIT,
        };
        let during = "probing the graph's dynamic dims";
        let (graph, registry, only_unbounded) =
            (&mut *self.graph, self.registry, self.only_unbounded);
        let probe = || narrow_by_probes(graph, registry, options, symbols, only_unbounded);
        if self.user_ops {
            guard_panics(self.py, during, probe)
        } else {
            guard_panics_detached(self.py, during, probe)
        }
    }
}

/// The failure back when it is the model's; opgraph's own bug (an internal
/// failure) or a user's interrupt is raised instead, never retried.
fn not_a_bug(py: Python<'_>, failure: ProbeFailure) -> PyResult<ProbeFailure> {
    if let Some(interrupt) = interruption(py, &failure.failures) {
        return Err(interrupt);
    }
    match failure.failures.iter().position(is_internal) {
        Some(bug) => Err(failure
            .failures
            .into_iter()
            .nth(bug)
            .map(|f| failure_to_py(py, f))
            .unwrap_or_else(|| PyRuntimeError::new_err("unreachable"))),
        None => Ok(failure),
    }
}

/// `at batch=8, seq=512: <the first failure>`.
fn describe(failure: ProbeFailure) -> String {
    let sizes: Vec<String> = failure
        .sizes
        .iter()
        .map(|(name, size)| format!("{name}={size}"))
        .collect();
    match failure.failures.first() {
        Some(first) => format!("at {}: {first}", sizes.join(", ")),
        None => format!("at {}: inference failed", sizes.join(", ")),
    }
}
