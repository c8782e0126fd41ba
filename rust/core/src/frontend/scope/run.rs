//! Running one pass over the framework ops (GE's `ScopeBasePassImpl::Run`
//! followed by the parser's splicing): define patterns → match batches →
//! last match → one fusion result per choice → splice.
//!
//! Unlike GE, which builds one scope graph for all passes and splices every
//! pass's results at the end, each pass here sees the graph as the passes
//! before it left it (a fresh tree, no sub-types carried over), so two
//! passes can never claim the same op.

use super::graph::ScopeGraph;
use super::pass::RegisteredScopePass;
use super::pattern::match_all_groups;
use super::pattern::ScopeFusionPatterns;
use super::report::{DeclinedScope, FusionCheck};
use super::result::{FusionScopesResult, ScopesResult, SCOPE_INVALID_TYPE};
use super::splice::{plan, Splice};
use super::tree::{ScopeId, ScopeTree};
use super::FusionRecord;
use crate::frontend::{FrameworkOp, PluginError};
use rustc_hash::FxHashSet;
use std::sync::Arc;

/// What a pass fused, and what it matched but declined.
pub type PassOutcome = (Vec<FusionRecord>, Vec<DeclinedScope>);

/// Runs `entry` over `ops`; the ops come back unchanged on failure.
/// `tree` is `ops`' scope tree when the caller has one (built when not);
/// it is left there for the next pass when this one changed nothing.
/// With `check`, a many-to-one result whose fused op it rejects is declined.
pub fn run_pass(
    ops: Vec<FrameworkOp>,
    tree: &mut Option<ScopeTree>,
    entry: &RegisteredScopePass,
    check: Option<FusionCheck<'_>>,
) -> (Vec<FrameworkOp>, Result<PassOutcome, PluginError>) {
    let mut pass = match (entry.factory)() {
        Ok(pass) => pass,
        Err(e) => return (ops, Err(e)),
    };
    let groups = match pass.define_patterns() {
        Ok(groups) => groups,
        Err(e) => return (ops, Err(e)),
    };
    // A pattern needing an op type the graph lacks matches no scope: when
    // no pattern can match, skip building the tree (most graphs, most passes).
    if tree.is_none() && !could_match(&groups, &ops) {
        return (ops, Ok(PassOutcome::default()));
    }
    // GE's batch matching on the tree alone (it leaves the sub-types on
    // it): most passes match nothing, and then the name index and consumer
    // lists a pass would read are never built.
    let mut matched_tree = tree.take().unwrap_or_else(|| ScopeTree::build(&ops));
    matched_tree.clear_sub_types();
    if match_all_groups(&mut matched_tree, &ops, &groups).is_empty() {
        *tree = Some(matched_tree);
        return (ops, Ok(PassOutcome::default()));
    }
    let graph = Arc::new(ScopeGraph::with_tree(ops, matched_tree));
    let results = fusion_results(pass.as_mut(), &graph);
    // A Python pass may hold views of the graph; let it go first.
    drop(pass);
    let ops = match Arc::try_unwrap(graph) {
        Ok(graph) => graph.into_ops(),
        Err(shared) => shared.ops().to_vec(),
    };
    let planned = results.and_then(|results| {
        let (declined, results) = split_declined(results);
        let (splice, (records, rejected)) = plan_checked(&ops, results, &entry.name, check)?;
        Ok((
            splice,
            (records, declined.into_iter().chain(rejected).collect()),
        ))
    });
    match planned {
        Ok((Some(splice), outcome)) => (splice.apply(ops), Ok(outcome)),
        Ok((None, outcome)) => (ops, Ok(outcome)),
        Err(e) => (ops, Err(e)),
    }
}

/// Whether some pattern of `groups` could match a scope of `ops`: every op
/// type it needs to find (a count above zero, or a count modulo a step)
/// occurs in the graph.
fn could_match(groups: &[ScopeFusionPatterns], ops: &[FrameworkOp]) -> bool {
    let present: FxHashSet<&str> = ops.iter().map(|op| op.op_type.as_str()).collect();
    groups.iter().flatten().flatten().any(|pattern| {
        let needed_by_counts = pattern
            .node_op_type_features
            .iter()
            .filter(|f| f.step != 0 || f.num > 0)
            .map(|f| f.op_type.as_str());
        let needed_by_attrs = pattern
            .node_attr_features
            .iter()
            .map(|f| f.op_type.as_str());
        needed_by_counts
            .chain(needed_by_attrs)
            .all(|t| present.contains(t))
    })
}

/// How `results` splice into `ops`, less those whose fused op `check`
/// rejects; none when nothing is left to splice (`ops` stand).
fn plan_checked(
    ops: &[FrameworkOp],
    mut results: Vec<FusionScopesResult>,
    pass: &str,
    check: Option<FusionCheck<'_>>,
) -> Result<(Option<Splice>, PassOutcome), PluginError> {
    if results.is_empty() {
        return Ok((None, PassOutcome::default()));
    }
    let mut splice = plan(ops, &results, pass)?;
    let Some(check) = check else {
        let records = std::mem::take(&mut splice.records);
        return Ok((Some(splice), (records, Vec::new())));
    };
    let mut declined = Vec::new();
    let mut keep = Vec::with_capacity(results.len());
    for (result, replacement) in results.iter().zip(&splice.replacements) {
        // A many-to-one result has one op; many-to-many ones are not checked.
        let verdict = match replacement.as_slice() {
            [fused] if !result.is_many_to_many() => check(fused),
            _ => Ok(()),
        };
        if let Err(reason) = &verdict {
            declined.push(DeclinedScope {
                name: result.name.clone(),
                op_type: result.op_type.clone(),
                scopes: result.scopes.iter().chain(&result.nodes).cloned().collect(),
                reason: reason.clone(),
            });
        }
        keep.push(verdict.is_ok());
    }
    if !declined.is_empty() {
        let mut kept = keep.iter();
        results.retain(|_| *kept.next().unwrap_or(&false));
        if results.is_empty() {
            return Ok((None, (Vec::new(), declined)));
        }
        // A declined region stays as it was, so the results that read it
        // are planned again against its original ops.
        splice = plan(ops, &results, pass)?;
    }
    let records = std::mem::take(&mut splice.records);
    Ok((Some(splice), (records, declined)))
}

/// The results the pass declined itself (reported, not spliced), and the
/// rest.
fn split_declined(
    results: Vec<FusionScopesResult>,
) -> (Vec<DeclinedScope>, Vec<FusionScopesResult>) {
    let (declined, kept): (Vec<_>, Vec<_>) =
        results.into_iter().partition(|r| r.declined.is_some());
    let declined = declined
        .into_iter()
        .map(|r| DeclinedScope {
            reason: r.declined.clone().unwrap_or_default(),
            scopes: r.scopes.iter().chain(&r.nodes).cloned().collect(),
            name: r.name,
            op_type: r.op_type,
        })
        .collect();
    (declined, kept)
}

/// The pass's final choices, each described by `generate_fusion_result`.
fn fusion_results(
    pass: &mut dyn super::ScopeFusionPass,
    graph: &Arc<ScopeGraph>,
) -> Result<Vec<FusionScopesResult>, PluginError> {
    let mut chosen: Vec<ScopesResult> = Vec::new();
    if !pass.last_match_scopes_and_ops(graph, &mut chosen)? {
        return Ok(Vec::new());
    }
    let mut results = Vec::with_capacity(chosen.len());
    for choice in &chosen {
        let scopes = choice
            .scopes
            .iter()
            .map(|name| {
                graph.tree().find(name).ok_or_else(|| {
                    PluginError::new(format!(
                        "last_match_scopes_and_ops chose scope '{name}', which is not a scope of the graph"
                    ))
                })
            })
            .collect::<Result<Vec<ScopeId>, _>>()?;
        let mut result = FusionScopesResult::new(choice);
        pass.generate_fusion_result(graph, &scopes, &mut result)?;
        if result.op_type == SCOPE_INVALID_TYPE {
            // GE stops at an abandoned result and keeps the ones before it.
            break;
        }
        results.push(result);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::could_match;
    use crate::frontend::scope::{NodeAttrFeature, ScopeAttrValue, ScopePattern};
    use crate::frontend::test_graphs::op;

    #[test]
    fn a_pattern_needing_an_absent_op_type_cannot_match() {
        let ops = vec![op("a/mean", "Mean", &[], &[]), op("a/x", "Relu", &[], &[])];
        let needs = |t: &str, num: i32, step: i32| {
            vec![vec![vec![ScopePattern::new("s").op_type(t, num, step)]]]
        };
        assert!(could_match(&needs("Mean", 1, 0), &ops));
        assert!(!could_match(&needs("SquaredDifference", 1, 0), &ops));
        assert!(
            !could_match(&needs("SquaredDifference", 0, 2), &ops),
            "a step needs the type present"
        );
        assert!(
            could_match(&needs("Squeeze", -1, 0), &ops),
            "-1 asks for none"
        );
        let by_attr = ScopePattern::new("s").attr(NodeAttrFeature::new(
            "Conv2D",
            "k",
            ScopeAttrValue::Int(1),
        ));
        assert!(!could_match(&[vec![vec![by_attr]]], &ops));
        // One pattern that could match is enough.
        let either = vec![vec![vec![
            ScopePattern::new("s").op_type("Conv2D", 1, 0),
            ScopePattern::new("t").op_type("Relu", 1, 0),
        ]]];
        assert!(could_match(&either, &ops));
    }
}
