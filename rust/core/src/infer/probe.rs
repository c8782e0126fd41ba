//! Bounds on dynamic dims by probing: infer the graph again at a few fixed
//! sizes of its ranged inputs and read each unknown dim as a monomial in
//! those sizes.
//!
//! Interval arithmetic loses what ties dims together. A transformer's
//! attention `Reshape(x: [B, S, 128], [B, S, -1, 32])` has a `-1` of
//! exactly 4, but from the ranges alone it lies anywhere up to
//! `max(B·S·128) / min(B·S·32)`. ONNX Runtime's symbolic shape inference and
//! TVM's symbolic shapes keep the dims as expressions instead; this module
//! gets the same answer for the common case, dims that are a product
//! `c · s1^e1 · s2^e2 · …` of the input sizes `s` (the symbols), by
//! evaluating the graph rather than every op symbolically:
//!
//! - probe `top`: every symbol at its maximum;
//! - per symbol, probes with it at its minimum, the size above that, its
//!   middle and the size below its maximum, the others at their maximum —
//!   the exponent comes from one of them, the others check it (two
//!   neighbouring sizes make a periodic size, such as a pad to a multiple
//!   of a window, fail);
//! - with several symbols, probes with all of them at their minimum and all
//!   at their middle, to check the product's cross terms.
//!
//! When sizes between the ends do not infer (a YOLO detector takes only
//! multiples of 32), the sizes are probed on a grid instead ([`on_grid`]),
//! and the factor `c` may be a fraction (`H·W·21/1024` anchors) as long as
//! the product is whole at every probe.
//!
//! A dim whose product holds at every probe is bounded by the product at
//! the symbols' minimum and maximum (a product of non-negative powers grows
//! with each symbol); one that does not (`S + 1`, `1024 - S`,
//! `min(S, 256)`, a size that depends on data) keeps the range interval
//! inference gave it, and so does one whose product falls outside that
//! range (evidence the fit is wrong). A fitted range only ever narrows the
//! interval one. This is evidence, not proof: a size that agrees with a
//! product at every probed point but not between them would be misread.

use super::{infer_graph, InferFailure, InferOptions};
use crate::graph::{Graph, NodeId};
use crate::op::OpRegistry;
use crate::ops::ranges;
use crate::types::Shape;
use std::sync::Arc;

/// One size of the inputs: the ranged input dims that share it (an ONNX
/// `dim_param`, or one dim alone) and its inclusive range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimSymbol {
    /// A name for messages: the `dim_param`, or `input[dim]`.
    pub name: String,
    /// `(graph input node, dim)` of every input dim that has this size.
    pub dims: Vec<(NodeId, usize)>,
    pub min: i64,
    pub max: i64,
    /// Probed sizes are `min` plus multiples of this (1: every size). A
    /// detector that concatenates maps up-sampled from stride 32 with
    /// stride-8 ones takes only multiples of 32 (see [`on_grid`]).
    pub step: i64,
}

impl DimSymbol {
    /// The sizes probed besides the maximum: the minimum, the size above
    /// it, the middle and the size below the maximum (a step apart, on the
    /// step's grid), ascending and distinct.
    fn lower_sizes(&self) -> Vec<i64> {
        let (lo, hi, step) = (self.min, self.max, self.step.max(1));
        let mut sizes = vec![
            lo,
            lo.saturating_add(step),
            self.middle(),
            hi.saturating_sub(step),
        ];
        sizes.retain(|&s| s >= lo && s < hi);
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }

    /// The middle of the range, rounded down onto the step's grid.
    fn middle(&self) -> i64 {
        let step = self.step.max(1);
        let half = self.max.saturating_sub(self.min) / 2;
        self.min.saturating_add(half / step * step)
    }
}

/// The steps of the grids tried, finest first.
pub const GRID_STEPS: [i64; 6] = [2, 4, 8, 16, 32, 64];

/// The names of the symbols a probe at `failed` sizes (per symbol name) had
/// moved off their maximum: the sizes to blame when it did not infer.
pub fn moved_sizes(symbols: &[DimSymbol], failed: &[(String, i64)]) -> Vec<String> {
    symbols
        .iter()
        .filter(|s| {
            failed
                .iter()
                .any(|(name, size)| *name == s.name && *size != s.max)
        })
        .map(|s| s.name.clone())
        .collect()
}

/// `symbols` with the `moved` ones probed on a grid of `step` (a power of
/// two dividing both ends of their range; the others keep step 1), or None
/// when no moved symbol takes that step. A detector whose feature maps are
/// concatenated across strides takes only multiples of 32: tried finest
/// first ([`GRID_STEPS`]), its first grid that infers is the 32 one, and a
/// size periodic within a coarser step (a pad to a multiple of 8 in a model
/// that takes any even size) is still seen between neighbouring probes.
pub fn on_grid(symbols: &[DimSymbol], moved: &[String], step: i64) -> Option<Vec<DimSymbol>> {
    let fits = |s: &DimSymbol| {
        step >= 2
            && s.min >= step
            && s.min % step == 0
            && s.max % step == 0
            && moved.contains(&s.name)
    };
    let grid: Vec<DimSymbol> = symbols
        .iter()
        .map(|s| DimSymbol {
            step: if fits(s) { step } else { 1 },
            ..s.clone()
        })
        .collect();
    grid.iter().any(|s| s.step > 1).then_some(grid)
}

/// What probing did to the graph's ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeSummary {
    /// Inferences run (each a copy of the graph at fixed input sizes).
    pub probes: usize,
    /// Unknown dims of node outputs, in bodies too (the graph's inputs
    /// excluded).
    pub unknown_dims: usize,
    /// Of those, the dims that fit a product of the sizes at every probe
    /// (and whose product lies in their interval range).
    pub fitted: usize,
    /// Of those, the dims whose range became narrower (or bounded at all).
    pub narrowed: usize,
}

/// A probe whose inference failed: the sizes it used and the failures.
#[derive(Debug)]
pub struct ProbeFailure {
    pub sizes: Vec<(String, i64)>,
    pub failures: Vec<InferFailure>,
}

/// An unknown dim: the bodies leading to its graph (caller node, body
/// index; empty for the root graph), then node, output and dim.
#[derive(Clone, Debug)]
struct DimAt {
    path: Vec<(NodeId, usize)>,
    node: NodeId,
    out: usize,
    dim: usize,
}

/// The graph `path` leads to from `root`, if the bodies are there.
fn graph_at<'g>(root: &'g Graph, path: &[(NodeId, usize)]) -> Option<&'g Graph> {
    path.iter().try_fold(root, |g, &(caller, body)| {
        g.nodes()
            .get(caller.index())?
            .subgraphs
            .get(body)
            .map(|s| &*s.graph)
    })
}

/// The graph `path` leads to, made this call site's own on the way (a
/// body shared with other call sites is copied first).
fn graph_at_mut<'g>(root: &'g mut Graph, path: &[(NodeId, usize)]) -> Option<&'g mut Graph> {
    let mut g = root;
    for &(caller, body) in path {
        if caller.index() >= g.len() {
            return None;
        }
        let sub = g.node_mut(caller).subgraphs.get_mut(body)?;
        g = Arc::make_mut(&mut sub.graph);
    }
    Some(g)
}

/// The graph's ranged input dims as symbols: dims named alike in `names`
/// (per input node, one name per dim, `""` for none) share a symbol, whose
/// range is the intersection of theirs; every other ranged dim is its own.
/// `Err` names an unknown input dim without an upper bound (nothing to probe).
pub fn input_symbols(
    graph: &Graph,
    names: &[(NodeId, Vec<String>)],
) -> Result<Vec<DimSymbol>, String> {
    let mut symbols: Vec<DimSymbol> = Vec::new();
    for &input in graph.inputs() {
        let node = graph.node(input);
        let Some(desc) = node.outputs.first() else {
            continue;
        };
        let Some(rank) = desc.shape().rank() else {
            return Err(format!("input '{}' has an unknown rank", node.name));
        };
        let ranges = desc.shape_range.as_deref().filter(|r| r.len() == rank);
        let dim_names = names.iter().find(|(id, _)| *id == input).map(|(_, n)| n);
        for (dim, &size) in desc.shape().dims().iter().enumerate() {
            if size >= 0 {
                continue;
            }
            let (min, max) = match ranges.map(|r| r[dim]) {
                Some((lo, hi)) if lo >= 0 && hi >= lo => (lo, hi),
                _ => {
                    return Err(format!(
                        "input '{}' dim {dim} has no upper bound",
                        node.name
                    ))
                }
            };
            let named = dim_names.and_then(|n| n.get(dim)).filter(|n| !n.is_empty());
            match named.and_then(|n| symbols.iter_mut().find(|s| &s.name == n)) {
                Some(shared) => {
                    shared.dims.push((input, dim));
                    shared.min = shared.min.max(min);
                    shared.max = shared.max.min(max);
                }
                None => symbols.push(DimSymbol {
                    name: named
                        .cloned()
                        .unwrap_or_else(|| format!("{}[{dim}]", node.name)),
                    dims: vec![(input, dim)],
                    min,
                    max,
                    step: 1,
                }),
            }
        }
    }
    if let Some(empty) = symbols.iter().find(|s| s.max < s.min) {
        return Err(format!(
            "the inputs sharing '{}' give it ranges that do not overlap",
            empty.name
        ));
    }
    Ok(symbols)
}

/// `symbols` with those of equal ranges merged: the second attempt when
/// sizes probed apart do not infer (two inputs' batch dims that must agree
/// but carry no shared name). That they are equal is an assumption, so
/// probe merged symbols with `only_unbounded`.
pub fn merge_equal_ranges(symbols: &[DimSymbol]) -> Vec<DimSymbol> {
    let mut merged: Vec<DimSymbol> = Vec::new();
    for symbol in symbols {
        match merged
            .iter_mut()
            .find(|m| (m.min, m.max) == (symbol.min, symbol.max))
        {
            Some(m) => {
                m.dims.extend_from_slice(&symbol.dims);
                m.name = format!("{}={}", m.name, symbol.name);
            }
            None => merged.push(symbol.clone()),
        }
    }
    merged
}

/// Probes `graph` (inferred with its input ranges) at the sizes of
/// `symbols` and narrows the range of every unknown dim (bodies included) that
/// fits a product of them; with `only_unbounded`, only dims that interval
/// inference left without an upper bound (when the symbols rest on an
/// assumption, as merged ones do). The graph's descriptors change only in
/// their shape ranges. A failed probe changes nothing and is returned.
pub fn narrow_by_probes(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: InferOptions,
    symbols: &[DimSymbol],
    only_unbounded: bool,
) -> Result<ProbeSummary, ProbeFailure> {
    let targets = unknown_dims(graph);
    let mut summary = ProbeSummary {
        unknown_dims: targets.len(),
        ..ProbeSummary::default()
    };
    if targets.is_empty() || symbols.is_empty() {
        return Ok(summary);
    }
    let probes = probe_sizes(symbols);
    let mut seen = Vec::with_capacity(probes.len());
    for sizes in &probes {
        seen.push(probe(graph, registry, options, symbols, sizes, &targets)?);
        summary.probes += 1;
    }
    let lowest: Vec<i64> = symbols.iter().map(|s| s.min).collect();
    for (t, at) in targets.iter().enumerate() {
        let dims: Vec<i64> = seen.iter().map(|d| d[t]).collect();
        let Some(fit) = fit_product(symbols, &probes, &dims) else {
            continue;
        };
        let Some(low) = fit.at(&lowest) else {
            continue;
        };
        // probes[0] is the top: every symbol at its maximum.
        match narrowed(graph, at, (low, dims[0]), only_unbounded) {
            Narrowing::Contradicts => {}
            Narrowing::Same => summary.fitted += 1,
            Narrowing::To(range) => {
                summary.fitted += 1;
                summary.narrowed += 1;
                set_range(graph, at, range);
            }
        }
    }
    Ok(summary)
}

/// The sizes of every probe, the top (every symbol at its maximum) first,
/// without repeats.
fn probe_sizes(symbols: &[DimSymbol]) -> Vec<Vec<i64>> {
    let top: Vec<i64> = symbols.iter().map(|s| s.max).collect();
    let mut probes = vec![top.clone()];
    for (i, symbol) in symbols.iter().enumerate() {
        for size in symbol.lower_sizes() {
            let mut sizes = top.clone();
            sizes[i] = size;
            probes.push(sizes);
        }
    }
    if symbols.len() > 1 {
        probes.push(symbols.iter().map(|s| s.min).collect());
        probes.push(symbols.iter().map(DimSymbol::middle).collect());
    }
    let mut distinct: Vec<Vec<i64>> = Vec::with_capacity(probes.len());
    for sizes in probes {
        if !distinct.contains(&sizes) {
            distinct.push(sizes);
        }
    }
    distinct
}

/// Every unknown dim of a node output, in the root graph and the bodies
/// its nodes call (the root's inputs excluded: their ranges are what is
/// probed).
fn unknown_dims(graph: &Graph) -> Vec<DimAt> {
    let mut found = Vec::new();
    collect_unknown(graph, &mut Vec::new(), &mut found);
    found
}

fn collect_unknown(graph: &Graph, path: &mut Vec<(NodeId, usize)>, found: &mut Vec<DimAt>) {
    let inputs = graph.inputs();
    for id in graph.node_ids() {
        let node = graph.node(id);
        if path.is_empty() && inputs.contains(&id) {
            continue;
        }
        for (out, desc) in node.outputs.iter().enumerate() {
            if desc.shape().is_unknown_rank() {
                continue;
            }
            for (dim, &size) in desc.shape().dims().iter().enumerate() {
                if size < 0 {
                    found.push(DimAt {
                        path: path.clone(),
                        node: id,
                        out,
                        dim,
                    });
                }
            }
        }
        for (body, sub) in node.subgraphs.iter().enumerate() {
            path.push((id, body));
            collect_unknown(&sub.graph, path, found);
            path.pop();
        }
    }
}

/// The size of every target dim (-1 where still unknown) in a copy of
/// `graph` inferred with the symbols at `sizes`.
fn probe(
    graph: &Graph,
    registry: &OpRegistry,
    options: InferOptions,
    symbols: &[DimSymbol],
    sizes: &[i64],
    targets: &[DimAt],
) -> Result<Vec<i64>, ProbeFailure> {
    let mut copy = graph.clone();
    for (symbol, &size) in symbols.iter().zip(sizes) {
        for &(input, dim) in &symbol.dims {
            // `input_symbols` found each of these dims on the input's output.
            let Some(desc) = copy.node_mut(input).outputs.first_mut() else {
                continue;
            };
            let mut dims = desc.shape().dims().to_vec();
            if let Some(d) = dims.get_mut(dim) {
                *d = size;
            }
            desc.set_shape(Shape::from_dims(&dims));
        }
    }
    for &input in graph.inputs() {
        if let Some(desc) = copy.node_mut(input).outputs.first_mut() {
            if desc.shape().is_static() {
                desc.shape_range = None;
            }
        }
    }
    let options = InferOptions {
        collect_errors: false,
        ..options
    };
    infer_graph(&mut copy, registry, options).map_err(|failures| ProbeFailure {
        sizes: symbols
            .iter()
            .zip(sizes)
            .map(|(s, &v)| (s.name.clone(), v))
            .collect(),
        failures,
    })?;
    Ok(targets
        .iter()
        .map(|t| {
            graph_at(&copy, &t.path)
                .and_then(|g| g.nodes().get(t.node.index()))
                .and_then(|n| n.outputs.get(t.out))
                .and_then(|d| d.shape().dims().get(t.dim).copied())
                .unwrap_or(-1)
        })
        .collect())
}

/// `c · Π s_i^{e_i}`: a dim as a product of powers of the symbols, with a
/// rational `c = numerator / denominator` (a YOLO head's anchor count is
/// `H·W·21/1024`: the maps at strides 8, 16 and 32 concatenated).
#[derive(Debug, PartialEq, Eq)]
struct Product {
    numerator: i128,
    denominator: i128,
    /// One exponent per symbol (0 for a symbol that does not vary).
    powers: Vec<u32>,
}

impl Product {
    /// The product at these symbol sizes; `None` when it overflows i64 or
    /// is no whole number there.
    fn at(&self, sizes: &[i64]) -> Option<i64> {
        let mut value = self.numerator;
        for (&size, &power) in sizes.iter().zip(&self.powers) {
            value = value.checked_mul(i128::from(size).checked_pow(power)?)?;
        }
        if value.checked_rem(self.denominator)? != 0 {
            return None;
        }
        i64::try_from(value.checked_div(self.denominator)?).ok()
    }
}

/// Largest exponent tried: a dim is at most i64::MAX and a size that
/// varies is at least 2 at its maximum.
const MAX_POWER: u32 = 63;

/// The product `c · Π s_i^{e_i}` that gives `dims[p]` at the sizes of every
/// probe `p` (`probes[0]` the top), or `None`. Each exponent comes from the
/// top and the probe with that symbol alone at its smallest non-zero size
/// below the maximum; every probe then checks the product.
fn fit_product(symbols: &[DimSymbol], probes: &[Vec<i64>], dims: &[i64]) -> Option<Product> {
    let (top_sizes, top) = (probes.first()?, *dims.first()?);
    if dims.iter().any(|&d| d < 0) {
        return None;
    }
    let mut powers = vec![0u32; symbols.len()];
    let mut divisor: i128 = 1;
    for (i, symbol) in symbols.iter().enumerate() {
        let high = i128::from(symbol.max);
        // The probe that moves only this symbol, to its smallest size >= 1.
        let alone = probes.iter().zip(dims).find(|(sizes, _)| {
            sizes[i] >= 1
                && sizes[i] < symbol.max
                && sizes
                    .iter()
                    .zip(top_sizes)
                    .enumerate()
                    .all(|(j, (s, t))| j == i || s == t)
        });
        if let Some((sizes, &lowered)) = alone {
            let low = i128::from(sizes[i]);
            // top · low^e == lowered · high^e; past an overflow nothing fits.
            let sides = |e: u32| -> Option<(i128, i128)> {
                let lhs = i128::from(top).checked_mul(low.checked_pow(e)?)?;
                let rhs = i128::from(lowered).checked_mul(high.checked_pow(e)?)?;
                Some((lhs, rhs))
            };
            // The smallest power that fits: a dim of 0 fits every power.
            powers[i] = (0..=MAX_POWER).find(|&e| sides(e).is_some_and(|(l, r)| l == r))?;
        }
        divisor = divisor.checked_mul(high.checked_pow(powers[i])?)?;
    }
    if divisor == 0 {
        return None;
    }
    let top = i128::from(top);
    let common = gcd(top, divisor).max(1);
    let fit = Product {
        numerator: top / common,
        denominator: divisor / common,
        powers,
    };
    let holds = probes
        .iter()
        .zip(dims)
        .all(|(sizes, &d)| fit.at(sizes) == Some(d));
    holds.then_some(fit)
}

/// The greatest common divisor of two non-negative numbers.
fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What a fitted range does to a dim's recorded one.
#[derive(Debug, PartialEq, Eq)]
enum Narrowing {
    /// The fitted range misses the recorded one: the fit is wrong.
    Contradicts,
    /// The recorded range is already as narrow.
    Same,
    To(Vec<(i64, i64)>),
}

/// The dim's ranges with `fitted` intersected into its own (read only: a
/// body shared with other call sites is copied only to change it).
fn narrowed(graph: &Graph, at: &DimAt, fitted: (i64, i64), only_unbounded: bool) -> Narrowing {
    let Some(desc) = graph_at(graph, &at.path)
        .and_then(|g| g.nodes().get(at.node.index()))
        .and_then(|n| n.outputs.get(at.out))
    else {
        return Narrowing::Same;
    };
    let Some(mut ranges) = ranges::of_desc(desc) else {
        return Narrowing::Same;
    };
    let Some(&(old_lo, old_hi)) = ranges.get(at.dim) else {
        return Narrowing::Same;
    };
    if only_unbounded && old_hi >= 0 {
        return Narrowing::Same;
    }
    let lo = old_lo.max(fitted.0);
    let hi = if old_hi < 0 {
        fitted.1
    } else {
        old_hi.min(fitted.1)
    };
    if hi < lo {
        return Narrowing::Contradicts;
    }
    if (lo, hi) == (old_lo, old_hi) {
        return Narrowing::Same;
    }
    ranges[at.dim] = (lo, hi);
    Narrowing::To(ranges)
}

fn set_range(graph: &mut Graph, at: &DimAt, ranges: Vec<(i64, i64)>) {
    let desc = graph_at_mut(graph, &at.path)
        .filter(|g| at.node.index() < g.len())
        .and_then(|g| g.node_mut(at.node).outputs.get_mut(at.out));
    if let Some(desc) = desc {
        desc.shape_range = Some(ranges.into());
    }
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
