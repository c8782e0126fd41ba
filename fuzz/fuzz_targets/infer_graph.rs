//! Random small graphs of built-in ops through `infer_graph`: no panic, no
//! caught panic (`Stage::Internal`), and every inferred shape consistent with
//! its op's rule. See `opgraph_fuzz::oracle` for the full list.

#![no_main]

use libfuzzer_sys::fuzz_target;
use opgraph_core::prelude::OpRegistry;
use opgraph_fuzz::{builder::build_plan, oracle::check_inference, plan::Plan};
use std::sync::LazyLock;

/// Built once: registering the built-ins is not what is being fuzzed.
static REGISTRY: LazyLock<OpRegistry> = LazyLock::new(OpRegistry::with_builtins);

fuzz_target!(|plan: Plan| {
    let graph = build_plan(&REGISTRY, &plan);
    check_inference(graph, &REGISTRY, plan.collect_errors);
});
