//! Before any op is mapped: every origin op type without a plugin, over the
//! ops conversion will visit (the kept ops and the function bodies they
//! reach), reported at once; and where function references live in attrs.

use super::resolve::PluginResolver;
use super::MAX_FUNCTION_DEPTH;
use crate::frontend::error::UnsupportedOp;
use crate::frontend::framework::OPAQUE_TENSOR;
use crate::frontend::{FrameworkOp, FrontendError, FunctionIndex};
use crate::types::{AttrValue, Attrs};
use rustc_hash::{FxHashMap, FxHashSet};

/// Origin op types conversion handles itself: function arguments become
/// Data nodes; NoOp (control only) is dropped, its control inputs passed on
/// to its control consumers.
pub(super) fn is_structural(op_type: &str) -> bool {
    matches!(op_type, "_Arg" | "NoOp")
}

/// A function a node's attribute calls, and the body name it gets in the IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FunctionRef {
    /// The IR subgraph name: the attribute's name (`then_branch`, `body`,
    /// `f` ...); for a list of functions (Case's `branches`), the name and
    /// the position (`branches0`, `branches1` ...).
    pub subgraph: String,
    pub function: String,
}

/// The function references in `attrs`: every `func` attribute (a named
/// attrs value with a name), and every list of strings that all name
/// library functions (how a `list(func)` attribute is decoded).
pub(super) fn function_refs(attrs: &Attrs, library: &FunctionIndex<'_>) -> Vec<FunctionRef> {
    let mut refs = Vec::new();
    for (name, value) in attrs.iter() {
        match value {
            // A string constant's value is a named attrs value too.
            AttrValue::NamedAttrs(f) if !f.name.is_empty() && f.name != OPAQUE_TENSOR => {
                refs.push(FunctionRef {
                    subgraph: name.to_owned(),
                    function: f.name.clone(),
                })
            }
            AttrValue::ListStr(fs) if !fs.is_empty() && fs.iter().all(|f| library.contains(f)) => {
                refs.extend(fs.iter().enumerate().map(|(i, f)| FunctionRef {
                    subgraph: format!("{name}{i}"),
                    function: f.clone(),
                }));
            }
            _ => {}
        }
    }
    refs
}

/// One call in a function-reference attribute: who calls what, through which attribute.
struct Call<'f> {
    caller: &'f str,
    attr: &'f str,
    function: &'f str,
}

/// The calls `op`'s attributes make (any name; non-functions are skipped later).
fn calls_of<'f>(op: &'f FrameworkOp, out: &mut Vec<Call<'f>>) {
    for (attr, value) in op.attrs.iter() {
        let call = |function: &'f str| Call {
            caller: &op.name,
            attr,
            function,
        };
        match value {
            AttrValue::NamedAttrs(f) => out.push(call(&f.name)),
            AttrValue::ListStr(fs) => out.extend(fs.iter().map(|f| call(f))),
            _ => {}
        }
    }
}

/// A function being walked: the calls its ops make and the next to follow.
struct Frame<'f> {
    function: &'f str,
    calls: Vec<Call<'f>>,
    next: usize,
}

/// Every origin op type in `kept` (and in the library functions they call,
/// transitively) that has no plugin for the graph's framework, with a count
/// and one node. Calls are followed depth first along the call path, so a
/// chain nested deeper than [`MAX_FUNCTION_DEPTH`] is refused after that
/// many levels, however long it is; a function is walked again only when
/// reached deeper than before (so at most `MAX_FUNCTION_DEPTH` times).
/// Recursion is left to conversion, which names the cycle.
pub(super) fn check_supported<'f>(
    library: &FunctionIndex<'f>,
    kept: impl Iterator<Item = &'f FrameworkOp>,
    plugins: &PluginResolver<'f>,
) -> Result<(), FrontendError> {
    let mut missing: Vec<UnsupportedOp> = Vec::new();
    let mut at: FxHashMap<&str, usize> = FxHashMap::default();
    let mut count_op = |op: &'f FrameworkOp| {
        if !is_structural(&op.op_type) && plugins.get(&op.op_type).is_none() {
            match at.get(op.op_type.as_str()) {
                Some(&k) => missing[k].count += 1,
                None => {
                    at.insert(&op.op_type, missing.len());
                    missing.push(UnsupportedOp {
                        op_type: op.op_type.to_string(),
                        count: 1,
                        example_node: op.name.clone(),
                    });
                }
            }
        }
    };
    let mut top_calls = Vec::new();
    for op in kept {
        count_op(op);
        calls_of(op, &mut top_calls);
    }
    // The deepest each function was walked at (its ops are counted once),
    // and the functions on the current call path.
    let mut walked_at: FxHashMap<&str, usize> = FxHashMap::default();
    let mut on_path: FxHashSet<&str> = FxHashSet::default();
    let mut path: Vec<Frame<'f>> = vec![Frame {
        function: "",
        calls: top_calls,
        next: 0,
    }];
    while let Some(frame) = path.last_mut() {
        let Some(call) = frame.calls.get(frame.next) else {
            let done = path.pop().expect("a frame");
            on_path.remove(done.function);
            continue;
        };
        frame.next += 1;
        let (caller, attr) = (call.caller, call.attr);
        // Names that are not functions (plain string lists) are skipped here;
        // a missing function is reported when its caller is converted.
        let Some(function) = library.get(call.function) else {
            continue;
        };
        let depth = path.len();
        if on_path.contains(function.name.as_str()) {
            continue;
        }
        if depth > MAX_FUNCTION_DEPTH {
            return Err(FrontendError::Graph(format!(
                "node '{caller}' attribute '{attr}' calls function '{}' nested {depth} deep; opgraph converts at most {MAX_FUNCTION_DEPTH} levels",
                function.name
            )));
        }
        let first_walk = match walked_at.get(function.name.as_str()) {
            Some(&deepest) if deepest >= depth => continue,
            Some(_) => false,
            None => true,
        };
        walked_at.insert(&function.name, depth);
        let mut calls = Vec::new();
        for op in &function.ops {
            if first_walk {
                count_op(op);
            }
            calls_of(op, &mut calls);
        }
        on_path.insert(&function.name);
        path.push(Frame {
            function: &function.name,
            calls,
            next: 0,
        });
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(FrontendError::Unsupported(missing))
    }
}
