//! `opgraph._core`: the PyO3 bindings of opgraph-core. Conversions, error
//! mapping and callbacks only; the logic lives in the core crate.

mod budget;
mod columns;
mod context;
mod convert;
mod cost;
mod device;
mod errors;
mod frontend;
mod graph;
mod graph_inputs;
mod infer;
mod insert_op;
mod memory;
mod probe;
mod registry;
mod scope;
mod tensor_desc;

use pyo3::prelude::*;

/// mimalloc (allocation-heavy passes over large graphs run ~2x faster than
/// on glibc malloc), counted so a pass can stop with MemoryLimitError before
/// an allocation fails: a failed allocation aborts the process.
#[global_allocator]
static ALLOCATOR: opgraph_core::budget::CountingAllocator<opgraph_core::allocator::MiMalloc> =
    opgraph_core::budget::CountingAllocator(opgraph_core::allocator::MiMalloc);

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Panic locations for InternalError messages (see opgraph_core::internal).
    opgraph_core::internal::install_panic_hook();
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<graph::TensorRef>()?;
    m.add_class::<tensor_desc::PyTensorDesc>()?;
    m.add_class::<graph::PyNode>()?;
    m.add_class::<convert::PyNamedAttrs>()?;
    m.add_class::<context::PyOpContext>()?;
    m.add_class::<context::PyVerifyContext>()?;
    m.add_class::<context::PyInferDataTypeContext>()?;
    m.add_class::<context::PyInferShapeContext>()?;
    m.add_class::<cost::PyDeviceSpec>()?;
    m.add_function(wrap_pyfunction!(cost::estimate_cost, m)?)?;
    m.add_function(wrap_pyfunction!(infer::infer, m)?)?;
    m.add_function(wrap_pyfunction!(probe::narrow_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(infer::data_type_table, m)?)?;
    m.add_function(wrap_pyfunction!(infer::format_table, m)?)?;
    m.add_function(wrap_pyfunction!(device::prepare, m)?)?;
    m.add_function(wrap_pyfunction!(device::check_formats, m)?)?;
    m.add_function(wrap_pyfunction!(device::storage_shape, m)?)?;
    m.add_function(wrap_pyfunction!(device::soc_versions, m)?)?;
    m.add_function(wrap_pyfunction!(registry::register_op, m)?)?;
    m.add_function(wrap_pyfunction!(registry::registered_op_types, m)?)?;
    m.add_function(wrap_pyfunction!(registry::op_schema, m)?)?;
    m.add_function(wrap_pyfunction!(registry::_register_panicking_op, m)?)?;
    m.add_function(wrap_pyfunction!(insert_op::parse_insert_op_config, m)?)?;
    m.add_function(wrap_pyfunction!(memory::plan_memory, m)?)?;
    m.add_function(wrap_pyfunction!(memory::plan_lifetimes, m)?)?;
    m.add_function(wrap_pyfunction!(memory::check_placement, m)?)?;
    m.add_function(wrap_pyfunction!(memory::memory_strategies, m)?)?;
    m.add_function(wrap_pyfunction!(memory::check_alignment, m)?)?;
    frontend::add_to_module(m)?;
    scope::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
