//! The memory planner: `plan_memory(graph)` and `plan_lifetimes(...)` as
//! plain data (numpy columns and totals) that `opgraph.memory` wraps, and
//! the placement checker. Planning runs without the GIL.

use crate::budget::{bytes_per_node, ensure_room};
use crate::columns::{set_str_column, shared_str_list};
use crate::errors::{cycle_error, guard_panics_detached, memory_plan_error, new_error};
use crate::graph::PyGraph;
use numpy::{PyArray1, PyReadonlyArray1};
use opgraph_core::device::memory::{
    check_placement as core_check, plan_lifetimes as core_plan_lifetimes,
    plan_memory as core_plan_memory, ArenaOptions, ArenaPlan, Lifetime, MemoryError, PlanOptions,
    ScheduleKind, Strategy, MAX_ALIGNMENT,
};
use opgraph_core::op::global_registry;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList};

fn strategy_from(name: Option<&str>) -> PyResult<Option<Strategy>> {
    name.map(|n| {
        Strategy::from_name(n).ok_or_else(|| {
            let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
            PyValueError::new_err(format!(
                "unknown strategy '{n}'; the strategies are {}",
                known.join(", ")
            ))
        })
    })
    .transpose()
}

/// `auto` (every order, the lowest peak kept) or one order by name.
fn schedule_from(name: &str) -> PyResult<Option<ScheduleKind>> {
    if name == "auto" {
        return Ok(None);
    }
    ScheduleKind::from_name(name).map(Some).ok_or_else(|| {
        let known: Vec<&str> = ScheduleKind::ALL.iter().map(|k| k.name()).collect();
        PyValueError::new_err(format!(
            "unknown schedule '{name}'; the schedules are auto, {}",
            known.join(", ")
        ))
    })
}

fn memory_err(py: Python<'_>, e: MemoryError) -> PyErr {
    let result = (|| {
        let kwargs = PyDict::new(py);
        let class = match &e {
            MemoryError::Cycle(cycle) => {
                kwargs.set_item("nodes", &cycle.nodes)?;
                cycle_error(py)?
            }
            MemoryError::UnknownSize { tensor, .. }
            | MemoryError::RangeNotUsed { tensor, .. }
            | MemoryError::UnknownWeightSize { tensor, .. }
            | MemoryError::NotInferred { tensor }
            | MemoryError::SizeOverflow { tensor, .. } => {
                kwargs.set_item("tensor", tensor)?;
                memory_plan_error(py)?
            }
            _ => memory_plan_error(py)?,
        };
        Ok(new_error(class, e.to_string(), Some(&kwargs)))
    })();
    result.unwrap_or_else(|e| e)
}

/// The `alignment` argument in bytes: a power of two up to `MAX_ALIGNMENT`
/// (the core rejects 0 too, for Rust callers; this says it for every bad
/// int, in the planner's words rather than a conversion's).
fn alignment_arg(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        let repr = value.repr().map(|r| r.to_string()).unwrap_or_default();
        return Err(PyTypeError::new_err(format!(
            "the alignment is a whole number of bytes, got {repr}"
        )));
    }
    match value.extract::<u64>() {
        Ok(alignment) if alignment.is_power_of_two() && alignment <= MAX_ALIGNMENT => Ok(alignment),
        _ => Err(new_error(
            memory_plan_error(py)?,
            format!(
                "the alignment must be a power of two from 1 byte to 2**{} bytes, got {value}",
                MAX_ALIGNMENT.trailing_zeros()
            ),
            None,
        )),
    }
}

/// Runs `f` without the GIL, turning a panic into an InternalError.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    guard_panics_detached(py, "the memory planner", f)
}

fn to_i64(value: u64, what: &str) -> PyResult<i64> {
    i64::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{what} ({value}) exceeds int64")))
}

/// Totals and per-strategy results shared by both entries.
fn arena_summary<'py>(
    py: Python<'py>,
    arena: &ArenaPlan,
    out: &Bound<'py, PyDict>,
) -> PyResult<()> {
    out.set_item("arena_bytes", arena.arena_bytes)?;
    out.set_item("lower_bound_bytes", arena.lower_bound_bytes)?;
    out.set_item("chosen", arena.chosen.name())?;
    out.set_item("alignment", arena.alignment)?;
    let strategies = PyList::empty(py);
    for r in &arena.strategies {
        strategies.append((r.strategy.name(), r.arena_bytes, r.elapsed.as_secs_f64()))?;
    }
    out.set_item("strategies", strategies)
}

/// Raises what `plan_memory` raises for `alignment` when it is not a power
/// of two from 1 byte to 2**30; for callers that must know before other work.
#[pyfunction]
pub fn check_alignment(py: Python<'_>, alignment: &Bound<'_, PyAny>) -> PyResult<()> {
    alignment_arg(py, alignment).map(drop)
}

/// The strategy names, in reporting order.
#[pyfunction]
pub fn memory_strategies() -> Vec<&'static str> {
    Strategy::ALL.iter().map(|s| s.name()).collect()
}

/// Plans the memory of an inferred graph. Returns per-tensor columns
/// (`names` as a `StrColumn`'s `names_data` / `names_offsets`, `regions`,
/// and int64 arrays `sizes`, `offsets`, `first_steps`,
/// `last_steps`, `view_of`, with -1 for none) and the totals.
#[pyfunction]
#[pyo3(signature = (graph, strategy, alignment, use_shape_ranges = true, allow_dynamic = false, schedule = "auto"))]
pub fn plan_memory<'py>(
    py: Python<'py>,
    graph: &PyGraph,
    strategy: Option<&str>,
    alignment: &Bound<'py, PyAny>,
    use_shape_ranges: bool,
    allow_dynamic: bool,
    schedule: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let options = PlanOptions {
        arena: ArenaOptions {
            alignment: alignment_arg(py, alignment)?,
            strategy: strategy_from(strategy)?,
        },
        use_shape_ranges,
        allow_dynamic,
        schedule: schedule_from(schedule)?,
    };
    let registry = global_registry();
    graph.usable(py)?;
    let g = &graph.graph;
    ensure_room(py, "plan_memory", g.len(), bytes_per_node::PLAN_MEMORY)?;
    let plan = graph
        .poison_on_panic(
            py,
            detached(py, || core_plan_memory(g, &registry, &options)),
        )?
        .map_err(|e| memory_err(py, e))?;
    let none = -1i64;
    let column = |f: &dyn Fn(&opgraph_core::device::memory::PlannedTensor) -> PyResult<i64>| {
        plan.tensors.iter().map(f).collect::<PyResult<Vec<i64>>>()
    };
    let out = PyDict::new(py);
    set_str_column(&out, "names", plan.tensors.iter().map(|t| t.name.as_str()))?;
    let regions = shared_str_list(py, plan.tensors.iter().map(|t| t.region.name()))?;
    out.set_item("regions", regions)?;
    let sizes = column(&|t| t.size.map_or(Ok(none), |s| to_i64(s, "a tensor size")))?;
    let offsets = column(&|t| t.offset.map_or(Ok(none), |o| to_i64(o, "an offset")))?;
    let firsts = column(&|t| Ok(i64::from(t.first_step)))?;
    let lasts = column(&|t| Ok(i64::from(t.last_step)))?;
    let views = column(&|t| Ok(t.view_of.map_or(none, i64::from)))?;
    out.set_item("sizes", PyArray1::from_vec(py, sizes))?;
    out.set_item("offsets", PyArray1::from_vec(py, offsets))?;
    out.set_item("first_steps", PyArray1::from_vec(py, firsts))?;
    out.set_item("last_steps", PyArray1::from_vec(py, lasts))?;
    out.set_item("view_of", PyArray1::from_vec(py, views))?;
    out.set_item("weights_bytes", plan.weights_bytes)?;
    out.set_item("input_bytes", plan.input_bytes)?;
    out.set_item("output_bytes", plan.output_bytes)?;
    out.set_item("steps", plan.steps)?;
    out.set_item("schedule", plan.schedule.name())?;
    let peaks = PyList::empty(py);
    for (kind, peak) in &plan.schedule_peaks {
        peaks.append((kind.name(), *peak))?;
    }
    out.set_item("schedule_peaks", peaks)?;
    out.set_item("any_order_bound_bytes", plan.any_order_bound_bytes)?;
    arena_summary(py, &plan.arena, &out)?;
    Ok(out)
}

/// Lifetimes from three int64 columns, checked.
fn lifetimes(
    sizes: &PyReadonlyArray1<'_, i64>,
    firsts: &PyReadonlyArray1<'_, i64>,
    lasts: &PyReadonlyArray1<'_, i64>,
) -> PyResult<Vec<Lifetime>> {
    let (sizes, firsts, lasts) = (sizes.as_slice()?, firsts.as_slice()?, lasts.as_slice()?);
    if sizes.len() != firsts.len() || sizes.len() != lasts.len() {
        return Err(PyValueError::new_err(format!(
            "sizes, firsts and lasts must have the same length, got {}, {} and {}",
            sizes.len(),
            firsts.len(),
            lasts.len()
        )));
    }
    let step = |i: usize, value: i64, what: &str| {
        u32::try_from(value).map_err(|_| {
            PyValueError::new_err(format!(
                "{what}[{i}] is {value}; steps must be in 0..{}",
                u32::MAX
            ))
        })
    };
    (0..sizes.len())
        .map(|i| {
            let size = u64::try_from(sizes[i]).map_err(|_| {
                PyValueError::new_err(format!("sizes[{i}] is {}; sizes must be >= 0", sizes[i]))
            })?;
            Ok(Lifetime::new(
                size,
                step(i, firsts[i], "firsts")?,
                step(i, lasts[i], "lasts")?,
            ))
        })
        .collect()
}

/// Plans a bare lifetime set (int64 columns): offsets (int64 array) and totals.
#[pyfunction]
#[pyo3(signature = (sizes, firsts, lasts, strategy, alignment))]
pub fn plan_lifetimes<'py>(
    py: Python<'py>,
    sizes: PyReadonlyArray1<'py, i64>,
    firsts: PyReadonlyArray1<'py, i64>,
    lasts: PyReadonlyArray1<'py, i64>,
    strategy: Option<&str>,
    alignment: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = ArenaOptions {
        alignment: alignment_arg(py, alignment)?,
        strategy: strategy_from(strategy)?,
    };
    let set = lifetimes(&sizes, &firsts, &lasts)?;
    let arena =
        detached(py, || core_plan_lifetimes(&set, &options))?.map_err(|e| memory_err(py, e))?;
    let offsets = arena
        .offsets
        .iter()
        .map(|&o| to_i64(o, "an offset"))
        .collect::<PyResult<Vec<i64>>>()?;
    let out = PyDict::new(py);
    out.set_item("offsets", PyArray1::from_vec(py, offsets))?;
    arena_summary(py, &arena, &out)?;
    Ok(out)
}

/// The checker: problems of placing the lifetimes at `offsets` (-1: not
/// placed) in an arena of `arena_bytes`; empty when valid.
#[pyfunction]
#[pyo3(signature = (sizes, firsts, lasts, offsets, arena_bytes, alignment))]
pub fn check_placement<'py>(
    py: Python<'py>,
    sizes: PyReadonlyArray1<'py, i64>,
    firsts: PyReadonlyArray1<'py, i64>,
    lasts: PyReadonlyArray1<'py, i64>,
    offsets: PyReadonlyArray1<'py, i64>,
    arena_bytes: u64,
    alignment: &Bound<'py, PyAny>,
) -> PyResult<Vec<String>> {
    let alignment = alignment_arg(py, alignment)?;
    let set = lifetimes(&sizes, &firsts, &lasts)?;
    let offsets: Vec<Option<u64>> = offsets
        .as_slice()?
        .iter()
        .map(|&o| u64::try_from(o).ok())
        .collect();
    detached(py, || core_check(&set, &offsets, arena_bytes, alignment))
}
