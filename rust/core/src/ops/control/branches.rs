//! If / StatelessIf / Case: run one of several bodies. Each output is the
//! merge (see `merge_rule`) of that output over every branch, since which
//! branch runs is only known at run time, each merged dim bounded by the
//! hull of the branches' ranges; an If whose condition or a Case whose
//! branch index is a known scalar takes its outputs from the branch that
//! runs (GE's CondRemovePass replaces such a node by that branch, and the
//! memory plan and cost model count only it: [`taken_body`]). Every branch
//! is still inferred (the engine infers every body before the node).
//!
//! Input 0 (`cond` / `branch_index`) is the node's first input instance, so
//! a branch's Data node with `index` k takes input instance k: the branch's
//! own arguments start at index 1 (GE's parent-node index for the branches
//! of If and Case likewise counts the selector).

use super::body::{body_outputs, check_output_count, set_output};
use super::merge_rule::merge_all;
use crate::bail;
use crate::graph::{Graph, Node};
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{DataType, HostTensor, TensorDesc};

/// Prefix of Case's dynamic body names: `branches0`, `branches1`, ...
const CASE_BRANCH_PREFIX: &str = "branches";

pub(super) fn schemas() -> Vec<OpSchema> {
    let if_op = |op_type: &str| {
        OpSchema::new(op_type)
            // The branch a known condition takes is the only one that runs.
            .input(PortDef::new("cond", ParamType::Required).value_depend(ValueDepend::Optional))
            .input(PortDef::new("input", ParamType::Dynamic))
            .output(PortDef::new("output", ParamType::Dynamic))
            .infer_dtype(op_fn(infer_if))
            .infer_shape(op_fn(infer_if))
    };
    let case = OpSchema::new("Case")
        .input(
            PortDef::new("branch_index", ParamType::Required)
                .dtype_list(&[DataType::Int32])
                .value_depend(ValueDepend::Optional),
        )
        .input(PortDef::new("input", ParamType::Dynamic))
        .output(PortDef::new("output", ParamType::Dynamic))
        .verify(op_fn(verify_case))
        .infer_dtype(op_fn(infer_case))
        .infer_shape(op_fn(infer_case));
    vec![if_op("If"), if_op("StatelessIf"), if_op("_If"), case]
}

fn infer_if(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    match known_condition(ctx) {
        Some(true) => merge_branches(ctx, &["then_branch".into()]),
        Some(false) => merge_branches(ctx, &["else_branch".into()]),
        None => merge_branches(ctx, &["then_branch".into(), "else_branch".into()]),
    }
}

/// The condition when it is a known scalar bool or integer (non-zero is
/// true). A condition of another shape is decided by its size, not its
/// contents (TensorFlow's and GE's rule: non-empty is true), so its value
/// says nothing here.
fn known_condition(ctx: &OpContext<'_>) -> Option<bool> {
    condition_of(ctx.input_value(0)?)
}

fn condition_of(value: &HostTensor) -> Option<bool> {
    if value.shape().rank() != Some(0) {
        return None;
    }
    value
        .to_bool_scalar()
        .or_else(|| match value.to_ints()?[..] {
            [c] => Some(c != 0),
            _ => None,
        })
}

/// The branch a Case with `count` branches runs for a known scalar index:
/// one out of range runs the last (TensorFlow's rule, kept by GE).
fn case_branch_of(value: &HostTensor, count: usize) -> Option<usize> {
    let last = count.checked_sub(1)?;
    if value.shape().rank() != Some(0) {
        return None;
    }
    let [index] = value.to_ints()?[..] else {
        return None;
    };
    Some(
        usize::try_from(index)
            .ok()
            .filter(|&i| i < count)
            .unwrap_or(last),
    )
}

/// The body of If / Case `node` (in `graph`, inferred) that runs when its
/// selector's value is known, as an index into `node.subgraphs`; None when
/// it is not a branch op, its selector is not known or the body is absent.
pub(crate) fn taken_body(graph: &Graph, node: &Node) -> Option<usize> {
    let selector = graph.tensor((*node.inputs.first()?)?).value.as_ref()?;
    let name = match node.op_type.as_str() {
        "If" | "StatelessIf" | "_If" => match condition_of(selector)? {
            true => "then_branch".to_owned(),
            false => "else_branch".to_owned(),
        },
        "Case" => {
            let count = node
                .subgraphs
                .iter()
                .filter(|b| b.name.starts_with(CASE_BRANCH_PREFIX))
                .count();
            format!("{CASE_BRANCH_PREFIX}{}", case_branch_of(selector, count)?)
        }
        _ => return None,
    };
    node.subgraphs.iter().position(|b| b.name == name)
}

/// TensorFlow's Case takes a scalar selector.
fn verify_case(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let shape = ctx.input_shape(0)?;
    if matches!(shape.rank(), Some(r) if r != 0) {
        bail!("branch_index must be a scalar, got shape {shape}");
    }
    case_branches(ctx).map(|_| ())
}

fn infer_case(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mut names = case_branches(ctx)?;
    if let Some(taken) = ctx
        .input_value(0)
        .and_then(|index| case_branch_of(index, names.len()))
    {
        names = vec![names.swap_remove(taken)];
    }
    merge_branches(ctx, &names)
}

/// Case's bodies `branches0` .. `branches{n-1}`, in order; at least one,
/// and no gaps.
fn case_branches(ctx: &OpContext<'_>) -> Result<Vec<String>, OpError> {
    let mut indices: Vec<usize> = ctx
        .subgraph_names()
        .filter_map(|n| n.strip_prefix(CASE_BRANCH_PREFIX)?.parse().ok())
        .collect();
    indices.sort_unstable();
    if indices.is_empty() {
        bail!(
            "it has no branches (bodies named {CASE_BRANCH_PREFIX}0, {CASE_BRANCH_PREFIX}1, ...)"
        );
    }
    if let Some((k, _)) = indices.iter().enumerate().find(|(k, &i)| *k != i) {
        bail!(
            "its branches must be numbered from 0 without gaps; {CASE_BRANCH_PREFIX}{k} is missing"
        );
    }
    Ok(indices
        .iter()
        .map(|i| format!("{CASE_BRANCH_PREFIX}{i}"))
        .collect())
}

/// Every output is the merge of that output over the branches `names`.
fn merge_branches(ctx: &mut OpContext<'_>, names: &[String]) -> Result<(), OpError> {
    let mut branches = Vec::with_capacity(names.len());
    for name in names {
        let outputs = body_outputs(ctx, name)?;
        check_output_count(ctx, ctx.op_type(), name, &outputs)?;
        branches.push(outputs);
    }
    for i in 0..ctx.output_count() {
        let merged = merge_all(branches.iter().map(|b| b[i])).map_err(|(b, why)| {
            OpError::new(format!(
                "output {i} of branch '{}' does not match the branches before it: {why}",
                names[b]
            ))
        })?;
        if let Some(desc) = merged {
            set_output(ctx, i, &desc)?;
            if desc.shape_range.is_none() {
                if let Some(hull) = range_hull(branches.iter().map(|b| b[i])) {
                    ranges::set_if_bounded(ctx, i, hull)?;
                }
            }
        }
    }
    Ok(())
}

/// Per dim, the hull of every branch's range (a known dim `d` is
/// `(d, d)`), so a merged output is bounded wherever every branch is; None
/// when some branch's rank is unknown or differs. Only If and Case take the
/// hull: a loop's merge across iterations would widen it on every pass.
fn range_hull<'a>(branches: impl Iterator<Item = &'a TensorDesc>) -> Option<Vec<ranges::Range>> {
    let mut hull: Option<Vec<ranges::Range>> = None;
    for branch in branches {
        let r = ranges::of_desc(branch)?;
        hull = Some(match hull {
            None => r,
            Some(h) if h.len() == r.len() => h
                .into_iter()
                .zip(r)
                .map(|(a, b)| ranges::hull(a, b))
                .collect(),
            Some(_) => return None,
        });
    }
    hull
}
