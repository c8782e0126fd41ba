//! The whole pipeline on a TensorFlow `.pb` or an ONNX `.onnx` without
//! Python, for profilers
//! (`perf`, `valgrind --tool=dhat`): load, infer, prepare, plan_memory and
//! estimate_cost, each timed. It allocates as the extension does (mimalloc,
//! counted); give it the extension's settings to match its profile:
//!
//!     MIMALLOC_ARENA_EAGER_COMMIT=1 MIMALLOC_PURGE_DELAY=250 \
//!         cargo run --release -p opgraph-core --example pipeline -- model.pb [load]
//!
//! With `load` as the second argument it stops after loading; a third
//! argument repeats the load that many times (for sampling profilers on
//! small models). Each stage prints its time and the peak of the bytes
//! opgraph held while it ran (sampled every 200 µs), and what it left held.

use opgraph_core::allocator::MiMalloc;
use opgraph_core::budget::{live_bytes, CountingAllocator};
use opgraph_core::device::cost::{estimate_cost_into, ColumnRows, CostOptions};
use opgraph_core::device::formats::{prepare, PrepareOptions};
use opgraph_core::device::memory::{plan_memory, PlanOptions};
use opgraph_core::device::soc::Soc;
use opgraph_core::device::spec::DeviceSpec;
use opgraph_core::frontend::convert::ConvertOptions;
use opgraph_core::frontend::tensorflow::{load, LoadOptions};
use opgraph_core::frontend::{onnx, PluginRegistry};
use opgraph_core::graph::Graph;
use opgraph_core::infer::{infer_graph, InferOptions};
use opgraph_core::op::OpRegistry;
use std::error::Error;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: CountingAllocator<MiMalloc> = CountingAllocator(MiMalloc);

const DEVICE: &str = "Ascend310";

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: pipeline MODEL.pb [load]")?);
    let load_only = args.next().as_deref() == Some("load");
    let repeats: usize = args.next().map_or(Ok(1), |n| n.parse())?;
    let plugins = PluginRegistry::with_builtins();
    let ops = OpRegistry::with_builtins();
    // Peak live bytes per stage, sampled (the allocator counts live bytes only).
    static PEAK: AtomicUsize = AtomicUsize::new(0);
    std::thread::spawn(|| loop {
        PEAK.fetch_max(live_bytes(), Ordering::Relaxed);
        std::thread::sleep(Duration::from_micros(200));
    });
    let mib = |bytes: usize| bytes as f64 / 1048576.0;
    let timed = |stage: &str, start: Instant| {
        let peak = PEAK.swap(live_bytes(), Ordering::Relaxed);
        eprintln!(
            "{stage:>13} {:>9.3} s, peak live {:>6.1} MiB, live after {:>6.1} MiB",
            start.elapsed().as_secs_f64(),
            mib(peak),
            mib(live_bytes())
        );
    };

    let is_onnx = path.extension().is_some_and(|e| e == "onnx");
    let load_once = || -> Result<Graph, Box<dyn Error>> {
        Ok(if is_onnx {
            onnx::load(&path, &ConvertOptions::default(), &plugins, &ops)?
        } else {
            load(&path, &LoadOptions::default(), &plugins, &ops)?
        })
    };
    let start = Instant::now();
    let mut graph = load_once()?;
    for _ in 1..repeats {
        graph = load_once()?;
    }
    timed("load", start);
    if load_only {
        return Ok(());
    }
    let start = Instant::now();
    infer_graph(&mut graph, &ops, InferOptions::default())
        .map_err(|failures| format!("{} nodes failed inference", failures.len()))?;
    timed("infer", start);
    let start = Instant::now();
    prepare(
        &mut graph,
        &ops,
        &PrepareOptions::new(Soc::from_name(DEVICE)?),
    )?;
    timed("prepare", start);
    let start = Instant::now();
    let plan = plan_memory(&graph, &ops, &PlanOptions::default())?;
    timed("plan_memory", start);
    eprintln!(
        "{:>13} {} B, lower bound {} B ({:.4}x)",
        "arena",
        plan.arena_bytes(),
        plan.lower_bound_bytes(),
        plan.arena_bytes() as f64 / plan.lower_bound_bytes().max(1) as f64
    );
    let start = Instant::now();
    // As the extension does: the rows go straight into columns.
    estimate_cost_into::<ColumnRows>(
        &graph,
        &DeviceSpec::preset(DEVICE)?,
        &CostOptions::default(),
    )?
    .nodes
    .finish();
    timed("estimate_cost", start);
    eprintln!("{} nodes", graph.len());
    Ok(())
}
