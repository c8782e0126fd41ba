//! `DeviceSpec` (device descriptions) and `estimate_cost` (the cost model).
//! The report crosses as columns (numpy arrays and string tables) that
//! `opgraph.cost` wraps; per-node objects are built there on demand.

use crate::budget::{bytes_per_node, ensure_room};
use crate::columns::set_str_column;
use crate::errors::{exception, guard_panics_detached};
use crate::graph::PyGraph;
use numpy::PyArray1;
use opgraph_core::device::cost::{
    estimate_cost_into, Bound as CostBound, ColumnRows, CostError, CostOptions, CostReport,
    PrecisionMode,
};
use opgraph_core::device::spec::{DeviceSpec, SpecError};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn class<'py>(py: Python<'py>, name: &'static str) -> PyResult<&'py Bound<'py, PyType>> {
    static COST: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    static SPEC: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let cell = if name == "CostError" { &COST } else { &SPEC };
    cell.import(py, "opgraph.errors", name)
}

fn spec_err(py: Python<'_>, e: SpecError) -> PyErr {
    exception(class(py, "DeviceSpecError"), e.to_string())
}

fn cost_err(py: Python<'_>, e: CostError) -> PyErr {
    let node = match &e {
        CostError::UnknownShape { node, .. }
        | CostError::Overflow { node }
        | CostError::MissingInput { node, .. }
        | CostError::Unsupported { node, .. } => Some(node.clone()),
        CostError::Cycle { .. } => None,
    };
    let make = || -> PyResult<PyErr> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("node", node)?;
        Ok(crate::errors::new_error(
            class(py, "CostError")?,
            e.to_string(),
            Some(&kwargs),
        ))
    };
    make().unwrap_or_else(|err| err)
}

/// The figures of one Ascend SoC the cost model uses, each with its source.
#[pyclass(module = "opgraph._core", name = "DeviceSpec", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyDeviceSpec {
    pub spec: DeviceSpec,
}

#[pymethods]
impl PyDeviceSpec {
    /// Every built-in preset: Ascend310, Ascend310P3, Ascend310B1, Ascend910A, Ascend910B2.
    #[staticmethod]
    fn presets() -> Vec<PyDeviceSpec> {
        DeviceSpec::presets()
            .into_iter()
            .map(|spec| PyDeviceSpec { spec })
            .collect()
    }

    /// The preset ATC calls `name` (`Ascend310`, `Ascend310P3` / `Ascend310P`,
    /// `Ascend310B1` / `Ascend310B`, `Ascend910A` / `Ascend910`, `Ascend910B2`;
    /// case and spaces ignored).
    #[staticmethod]
    fn preset(py: Python<'_>, name: &str) -> PyResult<PyDeviceSpec> {
        DeviceSpec::preset(name)
            .map(|spec| PyDeviceSpec { spec })
            .map_err(|e| spec_err(py, e))
    }

    /// A description from a TOML file, or JSON when the name ends in `.json`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyDeviceSpec> {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            PyOSError::new_err(format!(
                "cannot read device description {}: {e}",
                path.display()
            ))
        })?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let spec = if is_json {
            DeviceSpec::from_json(&text)
        } else {
            DeviceSpec::from_toml(&text)
        };
        spec.map(|spec| PyDeviceSpec { spec })
            .map_err(|e| spec_err(py, e))
    }

    /// A description from TOML text; :class:`~opgraph.DeviceSpecError` when it is invalid.
    #[staticmethod]
    fn from_toml(py: Python<'_>, text: &str) -> PyResult<PyDeviceSpec> {
        DeviceSpec::from_toml(text)
            .map(|spec| PyDeviceSpec { spec })
            .map_err(|e| spec_err(py, e))
    }

    /// A description from JSON text; :class:`~opgraph.DeviceSpecError` when it is invalid.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<PyDeviceSpec> {
        DeviceSpec::from_json(text)
            .map(|spec| PyDeviceSpec { spec })
            .map_err(|e| spec_err(py, e))
    }

    /// This description as TOML text, which :meth:`from_toml` reads back.
    fn to_toml(&self) -> String {
        self.spec.to_toml()
    }

    /// This description as JSON text, which :meth:`from_json` reads back.
    fn to_json(&self) -> String {
        self.spec.to_json()
    }

    /// The preset's or description's name (e.g. ``Ascend910B2``).
    #[getter]
    fn name(&self) -> String {
        self.spec.name.clone()
    }
    /// Other names :meth:`preset` accepts for it.
    #[getter]
    fn aliases(&self) -> Vec<String> {
        self.spec.aliases.clone()
    }
    /// Number of AI Cores (each with a Cube unit).
    #[getter]
    fn ai_cores(&self) -> u32 {
        self.spec.ai_cores
    }
    /// Cores that run vector ops (the AI Cores, or split vector cores).
    #[getter]
    fn vector_cores(&self) -> u32 {
        self.spec.vector_cores
    }
    /// Core clock in MHz.
    #[getter]
    fn clock_mhz(&self) -> f64 {
        self.spec.clock_mhz
    }
    /// Off-chip (DDR / HBM) bandwidth of the whole chip, in GB/s.
    #[getter]
    fn memory_gb_per_s(&self) -> f64 {
        self.spec.memory_gb_per_s
    }
    /// Fixed cost of one AI Core task (launch, scalar set-up, pipeline fill), in microseconds.
    #[getter]
    fn task_launch_us(&self) -> f64 {
        self.spec.task_launch_us
    }
    /// Peak Cube FLOP/s in fp16 (2 per multiply-add).
    #[getter]
    fn peak_fp16_flops(&self) -> f64 {
        2.0 * self
            .spec
            .peak_macs_per_s(self.spec.cube_fp16_macs_per_cycle)
    }
    /// Peak Cube OP/s in int8.
    #[getter]
    fn peak_int8_ops(&self) -> f64 {
        2.0 * self
            .spec
            .peak_macs_per_s(self.spec.cube_int8_macs_per_cycle)
    }
    /// Off-chip bytes per second the model assumes (bandwidth x memory efficiency).
    #[getter]
    fn sustained_bytes_per_s(&self) -> f64 {
        self.spec.memory_gb_per_s * 1e9 * self.spec.efficiency.memory
    }
    /// Cube FLOP/s the model assumes in fp16 (peak x Cube efficiency).
    #[getter]
    fn sustained_fp16_flops(&self) -> f64 {
        self.peak_fp16_flops() * self.spec.efficiency.cube
    }
    /// Where each figure comes from, keyed by field name.
    #[getter]
    fn sources(&self) -> BTreeMap<String, String> {
        self.spec.sources.clone()
    }
    /// Whether published measurements validate this description's times; a
    /// cost report on one that is not carries a flag saying so.
    #[getter]
    fn validated(&self) -> bool {
        self.spec.validated
    }
    /// What validates the times, or why nothing does.
    #[getter]
    fn validation(&self) -> String {
        self.spec.validation.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "DeviceSpec('{}': {} AI cores at {} MHz, {:.1} TFLOPS fp16, {} GB/s)",
            self.spec.name,
            self.spec.ai_cores,
            self.spec.clock_mhz,
            self.peak_fp16_flops() / 1e12,
            self.spec.memory_gb_per_s
        )
    }
}

/// The report as plain data: totals, `critical_path` (a `StrColumn`'s
/// `_data` / `_offsets`), and per node (in row order) `names` (the same),
/// float64 arrays `time_us`, `flops`, `padded_flops`, `bytes`, `l2_bytes`,
/// `compute_us`, `memory_us`, `overhead_us`, `count`, uint8 `bound_codes`
/// into `bound_names`, and int32 codes into string tables: `op_type_codes`
/// into `op_types`, `fused_into_codes` into `fused_into` (a `StrColumn`'s
/// parts: one anchor per fused pair), `note_codes` into `notes` (-1: none). The walk built the columns.
fn report_columns(py: Python<'_>, report: CostReport<ColumnRows>) -> PyResult<Py<PyDict>> {
    let c = report.nodes.finish();
    let out = PyDict::new(py);
    out.set_item("device", report.device)?;
    out.set_item("precision", report.precision)?;
    out.set_item("total_us", report.total_us)?;
    out.set_item("critical_path_us", report.critical_path_us)?;
    set_str_column(
        &out,
        "critical_path",
        report.critical_path.iter().map(String::as_str),
    )?;
    out.set_item("task_count", report.task_count)?;
    out.set_item("flags", report.flags)?;
    let bounds: Vec<&str> = CostBound::ALL.iter().map(|b| b.name()).collect();
    out.set_item("bound_names", bounds)?;
    set_str_column(&out, "names", c.names.iter().map(String::as_str))?;
    drop(c.names);
    out.set_item("op_types", c.op_types)?;
    set_str_column(&out, "fused_into", c.fused_into.iter().map(String::as_str))?;
    out.set_item("notes", c.notes)?;
    out.set_item("bound_codes", PyArray1::from_vec(py, c.bound_codes))?;
    for (key, codes) in [
        ("op_type_codes", c.op_type_codes),
        ("fused_into_codes", c.fused_into_codes),
        ("note_codes", c.note_codes),
    ] {
        out.set_item(key, PyArray1::from_vec(py, codes))?;
    }
    for (key, values) in [
        ("time_us", c.time_us),
        ("flops", c.flops),
        ("padded_flops", c.padded_flops),
        ("bytes", c.bytes),
        ("l2_bytes", c.l2_bytes),
        ("compute_us", c.compute_us),
        ("cube_us", c.cube_us),
        ("vector_us", c.vector_us),
        ("memory_us", c.memory_us),
        ("overhead_us", c.overhead_us),
        ("count", c.count),
    ] {
        out.set_item(key, PyArray1::from_vec(py, values))?;
    }
    Ok(out.unbind())
}

/// The cost report of `graph` on `spec`, as columns (see `report_columns`).
#[pyfunction]
#[pyo3(signature = (graph, spec, precision = "force_fp16", fuse = true, loop_trip_count = None, l2_residency = true, at_upper_bounds = false))]
#[allow(
    clippy::too_many_arguments,
    reason = "the Python signature, keyword by keyword"
)]
pub fn estimate_cost(
    py: Python<'_>,
    graph: PyRef<'_, PyGraph>,
    spec: &PyDeviceSpec,
    precision: &str,
    fuse: bool,
    loop_trip_count: Option<u64>,
    l2_residency: bool,
    at_upper_bounds: bool,
) -> PyResult<Py<PyDict>> {
    let precision = PrecisionMode::from_name(precision).ok_or_else(|| {
        let known: Vec<_> = PrecisionMode::ALL.iter().map(|m| m.name()).collect();
        PyValueError::new_err(format!(
            "unknown precision mode '{precision}'; expected one of {}",
            known.join(", ")
        ))
    })?;
    let options = CostOptions {
        precision,
        fuse,
        loop_trip_count,
        l2_residency,
        at_upper_bounds,
    };
    graph.usable(py)?;
    let g = &graph.graph;
    ensure_room(py, "estimate_cost", g.len(), bytes_per_node::ESTIMATE_COST)?;
    let spec = &spec.spec;
    let result = guard_panics_detached(py, "the cost model", || {
        estimate_cost_into::<ColumnRows>(g, spec, &options)
    });
    let result = graph.poison_on_panic(py, result)?;
    result.map_err(|e| cost_err(py, e)).and_then(|mut report| {
        // Said first: it qualifies every time in the report.
        // (Belongs in the core's estimate_cost once its calibration rewrite lands.)
        if let Some(flag) = spec.validation_flag() {
            report.flags.insert(0, flag);
        }
        report_columns(py, report)
    })
}
