//! Splicing one pass's fusion results into the framework ops, with GE's
//! rules (`TensorFlowModelParser::UpdateAllNodeOpContext` and friends):
//!
//! - a result fuses every op under its scopes (name prefix) plus its listed
//!   ops; `Const` ops among them stay in the graph (their edges into the
//!   fused region are rewired like any outside producer's) and are removed
//!   when nothing reads them any more;
//! - an edge from outside into fused op `c`'s data input `k` becomes fused
//!   input `input_map(c)[k]`, or is dropped when the map has no such entry
//!   (or a disabled one) — that is how a pass says "not an input";
//! - a read of fused op `c`'s output `p` from outside becomes fused output
//!   `output_map(c)[p]`; an unmapped one is an error here (GE would cut the
//!   edge and leave the reader short of an input);
//! - control edges across the region boundary move to the fused op;
//! - many-to-one: one op (result name and type) at the place of the first
//!   fused op, its `fused_ops` = every fused op (Consts too) in graph order;
//!   many-to-many: the inner nodes (see [`super::inner`]).

use super::inner::{build_inner_nodes, inner_outputs, InnerOutputs};
use super::result::{is_disabled, names_op, FusionScopesResult};
use super::FusionRecord;
use crate::frontend::{FrameworkInput, FrameworkOp, PluginError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use thin_vec::ThinVec;

/// Which region an op belongs to, and whether it is a kept Const.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Member {
    region: usize,
    kept_const: bool,
}

struct Splicer<'a> {
    ops: &'a [FrameworkOp],
    results: &'a [FusionScopesResult],
    by_name: FxHashMap<&'a str, usize>,
    members: Vec<Option<Member>>,
    /// Per region, its ops (kept Consts too) in graph order.
    regions: Vec<Vec<usize>>,
    /// Per many-to-many region: which inner node provides each output.
    inner: Vec<Option<InnerOutputs>>,
}

/// One pass's results spliced into the ops: worked out on the ops as they
/// stand, where it can fail, then applied by moving them, which cannot. A
/// pass fuses a few regions of a large graph; the ops outside them move
/// into the new list rather than being copied.
pub struct Splice {
    /// Per result, the op(s) standing for its region.
    pub replacements: Vec<Vec<FrameworkOp>>,
    pub records: Vec<FusionRecord>,
    /// Per original op, what becomes of it.
    fates: Vec<Fate>,
}

/// What splicing does to one original op.
enum Fate {
    /// Moves as it is: it reads nothing fused.
    Keep,
    /// Moves with new data and control inputs: it read a fused op.
    Rewired(Vec<FrameworkInput>, Vec<String>),
    /// The first op of region `r`: the region's replacement goes here.
    Region(usize),
    /// Fused but not first, or a kept Const nothing reads any more.
    Drop,
}

/// Works out how `results` (all from pass `pass`) apply to `ops`.
pub fn plan(
    ops: &[FrameworkOp],
    results: &[FusionScopesResult],
    pass: &str,
) -> Result<Splice, PluginError> {
    let splicer = Splicer::new(ops, results)?;
    let replacements = (0..results.len())
        .map(|r| splicer.replacement(r))
        .collect::<Result<Vec<_>, _>>()?;
    let records = (0..results.len())
        .map(|r| splicer.record(r, &replacements[r], pass))
        .collect();
    let fates = splicer.fates(&replacements)?;
    Ok(Splice {
        replacements,
        records,
        fates,
    })
}

impl Splice {
    /// The new op list, from the `ops` the plan was made on: each region's
    /// replacement at the place of its first fused op, the other ops moved
    /// (rewired where they read a fused op), unread kept Consts dropped.
    pub fn apply(mut self, ops: Vec<FrameworkOp>) -> Vec<FrameworkOp> {
        debug_assert_eq!(ops.len(), self.fates.len());
        let mut out = Vec::with_capacity(ops.len());
        for (mut op, fate) in ops.into_iter().zip(self.fates) {
            match fate {
                Fate::Keep => out.push(op),
                Fate::Rewired(inputs, controls) => {
                    op.inputs = inputs;
                    op.control_inputs = controls.into();
                    out.push(op);
                }
                Fate::Region(r) => out.append(&mut self.replacements[r]),
                Fate::Drop => {}
            }
        }
        out
    }
}

impl<'a> Splicer<'a> {
    fn new(
        ops: &'a [FrameworkOp],
        results: &'a [FusionScopesResult],
    ) -> Result<Splicer<'a>, PluginError> {
        let by_name: FxHashMap<&str, usize> = ops
            .iter()
            .enumerate()
            .map(|(i, op)| (op.name.as_str(), i))
            .collect();
        let mut members: Vec<Option<Member>> = vec![None; ops.len()];
        let mut scope_owner: FxHashMap<&str, usize> = FxHashMap::default();
        let mut inner = Vec::with_capacity(results.len());
        for (r, result) in results.iter().enumerate() {
            check_result(result)?;
            for node in &result.nodes {
                let &i = by_name.get(node.as_str()).ok_or_else(|| {
                    PluginError::new(format!(
                        "fusion result '{}' lists op '{node}', which is not in the graph",
                        result.name
                    ))
                })?;
                claim(&mut members, ops, results, i, r)?;
            }
            for scope in &result.scopes {
                if !scope.ends_with('/') {
                    return Err(PluginError::new(format!(
                        "fusion result '{}' lists scope '{scope}'; only named scopes (`a/b/`) can be fused, not the root",
                        result.name
                    )));
                }
                scope_owner.entry(scope.as_str()).or_insert(r);
            }
            inner.push(if result.is_many_to_many() {
                Some(inner_outputs(result)?)
            } else {
                None
            });
        }
        // Every op under a chosen scope: look its name prefixes up, those of
        // a length some chosen scope has (most prefixes have none).
        let mut scope_length = Vec::new();
        for scope in scope_owner.keys() {
            if scope_length.len() <= scope.len() {
                scope_length.resize(scope.len() + 1, false);
            }
            scope_length[scope.len()] = true;
        }
        for (i, op) in ops.iter().enumerate() {
            if scope_owner.is_empty() {
                break;
            }
            // '/' is ASCII, so every position found is a character boundary.
            let slashes = op.name.bytes().enumerate().filter(|&(_, b)| b == b'/');
            let prefixes = slashes
                .filter(|&(at, _)| scope_length.get(at + 1) == Some(&true))
                .map(|(at, _)| &op.name[..=at]);
            for prefix in prefixes {
                if let Some(&r) = scope_owner.get(prefix) {
                    claim(&mut members, ops, results, i, r)?;
                }
            }
        }
        let mut regions: Vec<Vec<usize>> = vec![Vec::new(); results.len()];
        for (i, member) in members.iter().enumerate() {
            if let Some(m) = member {
                regions[m.region].push(i);
            }
        }
        if let Some(r) = regions.iter().position(Vec::is_empty) {
            let result = &results[r];
            return Err(PluginError::new(format!(
                "fusion result '{}' covers no op (scopes {:?}, ops {:?})",
                result.name, result.scopes, result.nodes
            )));
        }
        Ok(Splicer {
            ops,
            results,
            by_name,
            members,
            regions,
            inner,
        })
    }

    /// The region op `name` was fused into (kept Consts are not).
    fn fused_into(&self, name: &str) -> Option<usize> {
        let member = self.by_name.get(name).and_then(|&i| self.members[i])?;
        (!member.kept_const).then_some(member.region)
    }

    /// The ops fused by region `r` (kept Consts too), in graph order.
    fn fused_ops(&self, r: usize) -> impl Iterator<Item = &'a FrameworkOp> + '_ {
        self.regions[r].iter().map(|&i| &self.ops[i])
    }

    /// The tensor that replaces output `input.index` of fused op
    /// `input.node` (in region `r`) for `reader`.
    fn provider(
        &self,
        r: usize,
        input: &FrameworkInput,
        reader: &str,
    ) -> Result<FrameworkInput, PluginError> {
        let result = &self.results[r];
        let port = result
            .output_map(&input.node)
            .and_then(|m| m.get(input.index as usize))
            .filter(|&&j| !is_disabled(j));
        let Some(&j) = port else {
            return Err(PluginError::new(format!(
                "'{reader}' reads output {} of '{}', which is fused into '{}' without an output index map for it (insert_outputs)",
                input.index, input.node, result.name
            )));
        };
        let j = j as u32;
        match &self.inner[r] {
            None => Ok(FrameworkInput::new(result.name.clone(), j)),
            Some(inner) => inner.providers.get(&j).cloned().ok_or_else(|| {
                PluginError::new(format!(
                    "'{reader}' needs output {j} of many-to-many fusion '{}', but no inner node declares insert_output(OutputToFusionScope, {j})",
                    result.name
                ))
            }),
        }
    }

    /// `input` as seen once every region is replaced.
    fn resolve(&self, input: &FrameworkInput, reader: &str) -> Result<FrameworkInput, PluginError> {
        match self.fused_into(&input.node) {
            Some(r) => self.provider(r, input, reader),
            None => Ok(input.clone()),
        }
    }

    /// Control dependencies on `name` once every region is replaced.
    fn resolve_control(&self, name: &str) -> Vec<String> {
        match self.fused_into(name) {
            Some(r) => match &self.inner[r] {
                Some(inner) => inner.control_sources.clone(),
                None => vec![self.results[r].name.clone()],
            },
            None => vec![name.to_owned()],
        }
    }

    /// The op(s) standing for region `r`.
    fn replacement(&self, r: usize) -> Result<Vec<FrameworkOp>, PluginError> {
        let result = &self.results[r];
        let (inputs, controls) = self.fused_inputs(r)?;
        if result.is_many_to_many() {
            return build_inner_nodes(result, &inputs, &controls);
        }
        Ok(vec![FrameworkOp {
            name: result.name.clone(),
            op_type: result.op_type.as_str().into(),
            inputs: inputs.into_values().collect(),
            control_inputs: controls.into(),
            attrs: result.attrs.clone(),
            fused_ops: self.fused_ops(r).cloned().collect(),
            params: ThinVec::new(),
        }])
    }

    /// Fused input index → its source (0..n without gaps), and the control
    /// inputs reaching into the region.
    fn fused_inputs(
        &self,
        r: usize,
    ) -> Result<(BTreeMap<u32, FrameworkInput>, Vec<String>), PluginError> {
        let result = &self.results[r];
        let mut inputs: BTreeMap<u32, FrameworkInput> = BTreeMap::new();
        let mut controls: Vec<String> = Vec::new();
        let inside = Some(Member {
            region: r,
            kept_const: false,
        });
        let fused = || {
            self.regions[r]
                .iter()
                .filter(move |&&c| self.members[c] == inside)
                .map(|&c| self.ops[c].name.as_str())
        };
        // A map for an op the scope does not hold (a typo) would be ignored,
        // and the fused op left short of inputs with a misleading message.
        for (name, _) in result.input_maps() {
            if !fused().any(|n| names_op(name, n)) {
                let names: Vec<&str> = fused().collect();
                return Err(PluginError::new(format!(
                    "insert_inputs of '{}' names '{name}', which is not an op of the fused scope \
                     (its ops: {})",
                    result.name,
                    crate::message::capped_list(&names, ", ")
                )));
            }
        }
        for &c in &self.regions[r] {
            let op = &self.ops[c];
            if self.members[c] != inside {
                continue;
            }
            let map = result.input_map(&op.name).unwrap_or(&[]);
            for (k, input) in op.inputs.iter().enumerate() {
                if self.fused_into(&input.node) == Some(r) {
                    continue;
                }
                let Some(&target) = map.get(k).filter(|&&t| !is_disabled(t)) else {
                    continue;
                };
                let source = self.resolve(input, &op.name)?;
                let target = target as u32;
                if let Some(existing) = inputs.get(&target) {
                    if *existing != source {
                        return Err(PluginError::new(format!(
                            "fused input {target} of '{}' is fed both by '{}:{}' and by '{}:{}'",
                            result.name, existing.node, existing.index, source.node, source.index
                        )));
                    }
                }
                inputs.insert(target, source);
            }
            for control in &op.control_inputs {
                if self.fused_into(control) != Some(r) {
                    for source in self.resolve_control(control) {
                        push_unique(&mut controls, source);
                    }
                }
            }
        }
        let gap = (0u32..)
            .zip(inputs.keys())
            .find(|(i, k)| i != *k)
            .map(|(i, _)| i);
        if let Some(gap) = gap {
            return Err(PluginError::new(format!(
                "fused input {gap} of '{}' has no source: no insert_inputs entry sends an outside input there (fused inputs found: {:?})",
                result.name,
                inputs.keys().collect::<Vec<_>>()
            )));
        }
        Ok((inputs, controls))
    }

    /// What becomes of each op; checks that the new list's names are unique.
    fn fates(&self, replacements: &[Vec<FrameworkOp>]) -> Result<Vec<Fate>, PluginError> {
        let mut emitted = vec![false; replacements.len()];
        let mut fates = Vec::with_capacity(self.ops.len());
        for (i, op) in self.ops.iter().enumerate() {
            if let Some(Member {
                region,
                kept_const: false,
            }) = self.members[i]
            {
                fates.push(if emitted[region] {
                    Fate::Drop
                } else {
                    emitted[region] = true;
                    Fate::Region(region)
                });
                continue;
            }
            fates.push(self.rewired(op)?);
        }
        self.drop_unread_consts(&mut fates, replacements);
        self.check_unique_names(&fates, replacements)?;
        Ok(fates)
    }

    /// `Keep` for an op reading nothing fused, else its inputs rewired.
    fn rewired(&self, op: &FrameworkOp) -> Result<Fate, PluginError> {
        let reads_fused = op
            .inputs
            .iter()
            .map(|input| input.node.as_str())
            .chain(op.control_inputs.iter().map(String::as_str))
            .any(|name| self.fused_into(name).is_some());
        if !reads_fused {
            return Ok(Fate::Keep);
        }
        let inputs = op
            .inputs
            .iter()
            .map(|input| self.resolve(input, &op.name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut controls = Vec::new();
        for control in &op.control_inputs {
            for source in self.resolve_control(control) {
                push_unique(&mut controls, source);
            }
        }
        Ok(Fate::Rewired(inputs, controls))
    }

    /// Marks `Drop` the kept Consts that no op of the new list reads.
    fn drop_unread_consts(&self, fates: &mut [Fate], replacements: &[Vec<FrameworkOp>]) {
        let is_kept_const = |i: usize| self.members[i].is_some_and(|m| m.kept_const);
        if !(0..self.ops.len()).any(is_kept_const) {
            return;
        }
        // Reads are looked up in the existing name index rather than
        // collected into a new set of names.
        let mut read = vec![false; self.ops.len()];
        let mut mark = |inputs: &[FrameworkInput], controls: &[String]| {
            let names = inputs.iter().map(|i| i.node.as_str());
            for name in names.chain(controls.iter().map(String::as_str)) {
                if let Some(&i) = self.by_name.get(name) {
                    read[i] = true;
                }
            }
        };
        for (op, fate) in self.ops.iter().zip(fates.iter()) {
            match fate {
                Fate::Keep => mark(&op.inputs, &op.control_inputs),
                Fate::Rewired(inputs, controls) => mark(inputs, controls),
                Fate::Region(_) | Fate::Drop => {}
            }
        }
        for op in replacements.iter().flatten() {
            mark(&op.inputs, &op.control_inputs);
        }
        for (i, fate) in fates.iter_mut().enumerate() {
            if is_kept_const(i) && !read[i] {
                *fate = Fate::Drop;
            }
        }
    }

    fn check_unique_names(
        &self,
        fates: &[Fate],
        replacements: &[Vec<FrameworkOp>],
    ) -> Result<(), PluginError> {
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        seen.reserve(self.ops.len());
        let mut add = |name| {
            if seen.insert(name) {
                return Ok(());
            }
            Err(PluginError::new(format!(
                "the fused graph would have two ops named '{name}'; give the fusion result another name"
            )))
        };
        for (op, fate) in self.ops.iter().zip(fates) {
            match fate {
                Fate::Keep | Fate::Rewired(..) => add(op.name.as_str())?,
                Fate::Region(r) => {
                    for op in &replacements[*r] {
                        add(op.name.as_str())?;
                    }
                }
                Fate::Drop => {}
            }
        }
        Ok(())
    }

    fn record(&self, r: usize, replacement: &[FrameworkOp], pass: &str) -> FusionRecord {
        let result = &self.results[r];
        FusionRecord {
            pass: pass.to_owned(),
            name: result.name.clone(),
            op_type: result.op_type.clone(),
            description: result.description.clone(),
            replaced: self.fused_ops(r).map(|op| op.name.clone()).collect(),
            inner_nodes: if result.is_many_to_many() {
                replacement.iter().map(|op| op.name.clone()).collect()
            } else {
                Vec::new()
            },
        }
    }
}

fn claim(
    members: &mut [Option<Member>],
    ops: &[FrameworkOp],
    results: &[FusionScopesResult],
    i: usize,
    r: usize,
) -> Result<(), PluginError> {
    if let Some(m) = members[i] {
        if m.region != r {
            let (first, second) = (m.region.min(r), m.region.max(r));
            return Err(PluginError::new(format!(
                "op '{}' is claimed by two fusion results, '{}' and '{}'",
                ops[i].name, results[first].name, results[second].name
            )));
        }
    }
    members[i] = Some(Member {
        region: r,
        kept_const: ops[i].op_type == "Const",
    });
    Ok(())
}

fn check_result(result: &FusionScopesResult) -> Result<(), PluginError> {
    if result.name.is_empty() {
        return Err(PluginError::new(format!(
            "a fusion result of type '{}' has no name (call set_name)",
            result.op_type
        )));
    }
    if result.op_type.is_empty() {
        return Err(PluginError::new(format!(
            "fusion result '{}' has no type (call set_type)",
            result.name
        )));
    }
    if !result.is_many_to_many() && !result.inner_nodes.is_empty() {
        return Err(PluginError::new(format!(
            "fusion result '{}' adds inner nodes but has type '{}'; a many-to-many result has type ScopeToMultiNodes",
            result.name, result.op_type
        )));
    }
    Ok(())
}

fn push_unique(list: &mut Vec<String>, name: String) {
    if !list.contains(&name) {
        list.push(name);
    }
}
