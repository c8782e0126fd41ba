//! The scope tree (GE's `ScopeTree` / `Scope`): every `/`-separated prefix
//! of an op name is a scope. GE's rules, kept here:
//! - the root scope is named `root`; every other scope is named by its full
//!   prefix with a trailing `/` (`model/LayerNorm/`);
//! - an op is a *direct* node of its innermost scope (`a/b/c` → `a/b/`), and
//!   counts towards the op-type counts of that scope and every ancestor
//!   (root included), so a scope's counts cover its whole subtree;
//! - `AllNodesMap` = direct nodes plus the direct nodes of every descendant;
//! - `LastName` = the last name component with a trailing `_N` (N > 0)
//!   removed (`conv_2/` → `conv`, `conv_0/` stays `conv_0`).
//!
//! Sub-scopes are kept in first-seen (graph) order, where GE uses a hash map,
//! so matching is deterministic.

use crate::frontend::FrameworkOp;
use crate::name_index::NameIndex;
use rustc_hash::FxHashMap;

/// A scope in a [`ScopeTree`] (an index into it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopeId(pub(crate) usize);

impl ScopeId {
    /// The root scope of every tree.
    pub const ROOT: ScopeId = ScopeId(0);
}

#[derive(Clone, Debug)]
struct ScopeData {
    name: String,
    sub_type: String,
    father: Option<ScopeId>,
    children: Vec<ScopeId>,
    /// Direct nodes: indices into the framework ops, in graph order.
    nodes: Vec<usize>,
    /// Ops of each type (by [`ScopeTree::op_types`] index) in the whole
    /// subtree.
    op_counts: FxHashMap<u32, i32>,
}

impl ScopeData {
    fn new(name: String, father: Option<ScopeId>) -> ScopeData {
        ScopeData {
            name,
            sub_type: String::new(),
            father,
            children: Vec::new(),
            nodes: Vec::new(),
            op_counts: FxHashMap::default(),
        }
    }
}

/// The scopes of one framework graph.
#[derive(Clone, Debug)]
pub struct ScopeTree {
    scopes: Vec<ScopeData>,
    /// Scopes by full name (positions in `scopes`).
    by_name: NameIndex,
    /// Op types, interned: the counts key on an index, so counting an op
    /// in every enclosing scope copies no string.
    op_types: FxHashMap<String, u32>,
}

impl ScopeTree {
    /// Builds the tree of `ops`' names (GE's `AddNodeToScope` for each op).
    ///
    /// Ops in graph order mostly share their scopes with the op before
    /// (`x/Conv2D/ReadVariableOp`, then `x/Conv2D`): only the components
    /// after the name's common prefix with the previous op are looked up.
    /// Each op is counted in its innermost scope; the counts are summed into
    /// every ancestor once, at the end.
    pub fn build(ops: &[FrameworkOp]) -> ScopeTree {
        let mut tree = ScopeTree {
            scopes: vec![ScopeData::new("root".into(), None)],
            by_name: NameIndex::default(),
            op_types: FxHashMap::default(),
        };
        let mut normalized = String::new();
        let mut previous = String::new();
        // The previous name's scopes: (position of the '/' ending it, scope).
        let mut chain: Vec<(usize, ScopeId)> = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            let op_type = tree.intern(&op.op_type);
            // A scope's name is a prefix of the op's name, so it is looked up
            // as a slice of it; only names with empty components (`a//b`,
            // `/c`) are rewritten first.
            let bytes = op.name.as_bytes();
            let name = if bytes.first() == Some(&b'/')
                || bytes.last() == Some(&b'/')
                || bytes.windows(2).any(|w| w == b"//")
            {
                normalized.clear();
                for component in op.name.split('/').filter(|c| !c.is_empty()) {
                    normalized.push_str(component);
                    normalized.push('/');
                }
                normalized.pop();
                normalized.as_str()
            } else {
                op.name.as_str()
            };
            let common = name
                .bytes()
                .zip(previous.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            while chain.last().is_some_and(|&(slash, _)| slash >= common) {
                chain.pop();
            }
            let (start, mut current) = chain
                .last()
                .map_or((0, ScopeId::ROOT), |&(slash, scope)| (slash + 1, scope));
            for (offset, _) in name[start..].match_indices('/') {
                let slash = start + offset;
                current = tree.child_or_insert(current, &name[..=slash]);
                chain.push((slash, current));
            }
            tree.scopes[current.0].nodes.push(index);
            tree.count(current, op_type, 1);
            name.clone_into(&mut previous);
        }
        // A child is created after its father, so in reverse creation order
        // every scope's counts are complete before they are added upwards.
        for child in (1..tree.scopes.len()).rev() {
            let Some(father) = tree.scopes[child].father else {
                continue;
            };
            let counts = std::mem::take(&mut tree.scopes[child].op_counts);
            for (&op_type, &n) in &counts {
                tree.count(father, op_type, n);
            }
            tree.scopes[child].op_counts = counts;
        }
        tree
    }

    fn intern(&mut self, op_type: &str) -> u32 {
        if let Some(&id) = self.op_types.get(op_type) {
            return id;
        }
        let id = u32::try_from(self.op_types.len()).unwrap_or(u32::MAX);
        self.op_types.insert(op_type.to_owned(), id);
        id
    }

    fn count(&mut self, scope: ScopeId, op_type: u32, n: i32) {
        let count = self.scopes[scope.0].op_counts.entry(op_type).or_insert(0);
        *count = count.saturating_add(n);
    }

    fn child_or_insert(&mut self, father: ScopeId, name: &str) -> ScopeId {
        if let Some(id) = self.lookup(name) {
            return id;
        }
        let id = ScopeId(self.scopes.len());
        self.scopes
            .push(ScopeData::new(name.to_owned(), Some(father)));
        self.scopes[father.0].children.push(id);
        let scopes = &self.scopes;
        self.by_name.insert(name, id.0, |p| &scopes[p].name);
        id
    }

    /// A scope other than the root by full name.
    fn lookup(&self, name: &str) -> Option<ScopeId> {
        self.by_name
            .get(name, |p| &self.scopes[p].name)
            .map(ScopeId)
    }

    /// Forgets every sub-type a pattern gave, so the next pass matches on
    /// the same tree as if freshly built.
    pub(crate) fn clear_sub_types(&mut self) {
        for scope in &mut self.scopes {
            scope.sub_type.clear();
        }
    }

    fn data(&self, scope: ScopeId) -> &ScopeData {
        // Ids only come from this tree, so the index is in range.
        &self.scopes[scope.0]
    }

    /// Every scope, root first, then in creation (graph) order
    /// (GE's `GetAllScopes`).
    pub fn all_scopes(&self) -> impl Iterator<Item = ScopeId> + '_ {
        (0..self.scopes.len()).map(ScopeId)
    }

    pub fn len(&self) -> usize {
        self.scopes.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The scope with full name `name` (`a/b/`), if any.
    pub fn find(&self, name: &str) -> Option<ScopeId> {
        if name == "root" {
            return Some(ScopeId::ROOT);
        }
        self.lookup(name)
    }

    /// Full name: `root`, or the prefix with a trailing `/`.
    pub fn name(&self, scope: ScopeId) -> &str {
        &self.data(scope).name
    }

    /// The sub-type a pattern gave the scope ("" when none).
    pub fn sub_type(&self, scope: ScopeId) -> &str {
        &self.data(scope).sub_type
    }

    pub(crate) fn set_sub_type(&mut self, scope: ScopeId, sub_type: &str) {
        if let Some(data) = self.scopes.get_mut(scope.0) {
            sub_type.clone_into(&mut data.sub_type);
        }
    }

    pub fn father(&self, scope: ScopeId) -> Option<ScopeId> {
        self.data(scope).father
    }

    /// Direct sub-scopes in first-seen order.
    pub fn children(&self, scope: ScopeId) -> &[ScopeId] {
        &self.data(scope).children
    }

    /// GE's `GetSubScope`: a full name (`a/b/`), or a path relative to
    /// `scope` without the trailing slash (`b`, `b/c`).
    pub fn sub_scope(&self, scope: ScopeId, name: &str) -> Option<ScopeId> {
        let full = if name.ends_with('/') {
            name.to_owned()
        } else if scope == ScopeId::ROOT {
            format!("{name}/")
        } else {
            format!("{}{name}/", self.name(scope))
        };
        let found = self.lookup(&full)?;
        self.is_within(found, scope)
            .then_some(found)
            .filter(|&f| f != scope)
    }

    /// Whether `scope` is `ancestor` or lies below it.
    pub fn is_within(&self, scope: ScopeId, ancestor: ScopeId) -> bool {
        let mut current = Some(scope);
        while let Some(s) = current {
            if s == ancestor {
                return true;
            }
            current = self.father(s);
        }
        false
    }

    /// Every descendant, depth first in first-seen order (GE's
    /// `GetAllSubScopes`).
    pub fn all_sub_scopes(&self, scope: ScopeId) -> Vec<ScopeId> {
        let mut out = Vec::new();
        let mut stack: Vec<ScopeId> = self.children(scope).iter().rev().copied().collect();
        while let Some(s) = stack.pop() {
            out.push(s);
            stack.extend(self.children(s).iter().rev().copied());
        }
        out
    }

    /// Direct nodes (op indices) in graph order.
    pub fn direct_nodes(&self, scope: ScopeId) -> &[usize] {
        &self.data(scope).nodes
    }

    /// Direct nodes of `scope` and of every descendant, in graph order
    /// (GE's `AllNodesMap`).
    pub fn all_nodes(&self, scope: ScopeId) -> Vec<usize> {
        let mut nodes = self.direct_nodes(scope).to_vec();
        for sub in self.all_sub_scopes(scope) {
            nodes.extend_from_slice(self.direct_nodes(sub));
        }
        nodes.sort_unstable();
        nodes
    }

    /// GE's `GetOpTypeNum`: ops of `op_type` in the subtree, or -1 when
    /// there are none (GE never reports 0).
    pub fn op_type_num(&self, scope: ScopeId, op_type: &str) -> i32 {
        self.op_types
            .get(op_type)
            .and_then(|id| self.data(scope).op_counts.get(id))
            .copied()
            .unwrap_or(-1)
    }

    /// GE's `LastName`.
    pub fn last_name(&self, scope: ScopeId) -> &str {
        last_name(self.name(scope))
    }
}

/// The last component of a scope name, its `_N` index (N > 0) trimmed.
pub fn last_name(name: &str) -> &str {
    let trimmed = name.strip_suffix('/').unwrap_or(name);
    let last = match trimmed.rfind('/') {
        Some(at) if name.ends_with('/') => &trimmed[at + 1..],
        _ if name.ends_with('/') => trimmed,
        // `root` (no multilevel name) is its own last name.
        _ => return name,
    };
    trim_scope_index(last)
}

/// `D_3` → `D`; `D_0`, `D_x`, `D_` and `D` stay as they are (GE's
/// `TrimScopeIndex`).
fn trim_scope_index(name: &str) -> &str {
    let Some(at) = name.rfind('_') else {
        return name;
    };
    let index = &name[at + 1..];
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return name;
    }
    match index.parse::<i32>() {
        Ok(n) if n > 0 => &name[..at],
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::test_graphs::ops;

    fn tree() -> (Vec<FrameworkOp>, ScopeTree) {
        let ops = ops(&[
            ("x", "Placeholder", &[]),
            ("net/ln/moments/mean", "Mean", &["x"]),
            ("net/ln/moments/variance", "Mean", &["x"]),
            (
                "net/ln/batchnorm/Rsqrt",
                "Rsqrt",
                &["net/ln/moments/variance"],
            ),
            ("net/ln_1/batchnorm/Rsqrt", "Rsqrt", &["x"]),
            ("net/out", "Relu", &["net/ln/batchnorm/Rsqrt"]),
        ]);
        let tree = ScopeTree::build(&ops);
        (ops, tree)
    }

    #[test]
    fn every_name_prefix_is_a_scope_with_a_trailing_slash() {
        let (_, tree) = tree();
        let names: Vec<&str> = tree.all_scopes().map(|s| tree.name(s)).collect();
        assert_eq!(
            names,
            [
                "root",
                "net/",
                "net/ln/",
                "net/ln/moments/",
                "net/ln/batchnorm/",
                "net/ln_1/",
                "net/ln_1/batchnorm/"
            ]
        );
        let ln = tree.find("net/ln/").unwrap();
        assert_eq!(tree.father(ln), tree.find("net/"));
        assert_eq!(tree.father(ScopeId::ROOT), None);
        assert_eq!(
            tree.children(ln),
            [
                tree.find("net/ln/moments/").unwrap(),
                tree.find("net/ln/batchnorm/").unwrap()
            ]
        );
    }

    #[test]
    fn direct_nodes_sit_in_the_innermost_scope_and_all_nodes_cover_the_subtree() {
        let (_, tree) = tree();
        assert_eq!(tree.direct_nodes(ScopeId::ROOT), [0]);
        let net = tree.find("net/").unwrap();
        assert_eq!(tree.direct_nodes(net), [5]);
        assert_eq!(tree.all_nodes(net), [1, 2, 3, 4, 5]);
        let moments = tree.find("net/ln/moments/").unwrap();
        assert_eq!(tree.all_nodes(moments), [1, 2]);
    }

    #[test]
    fn op_counts_cover_the_subtree_and_absent_types_count_minus_one() {
        let (_, tree) = tree();
        assert_eq!(tree.op_type_num(ScopeId::ROOT, "Mean"), 2);
        assert_eq!(tree.op_type_num(tree.find("net/").unwrap(), "Rsqrt"), 2);
        assert_eq!(tree.op_type_num(tree.find("net/ln/").unwrap(), "Rsqrt"), 1);
        assert_eq!(tree.op_type_num(tree.find("net/ln/").unwrap(), "Relu"), -1);
    }

    #[test]
    fn last_name_trims_a_positive_index() {
        assert_eq!(last_name("root"), "root");
        assert_eq!(last_name("a/"), "a");
        assert_eq!(last_name("net/ln_1/"), "ln");
        assert_eq!(last_name("net/ln_0/"), "ln_0");
        assert_eq!(last_name("net/ln_x/"), "ln_x");
        assert_eq!(last_name("net/ln_/"), "ln_");
        assert_eq!(
            last_name("net/batch_normalization_1_2/"),
            "batch_normalization_1"
        );
        assert_eq!(last_name("net/ln_99999999999/"), "ln_99999999999");
    }

    #[test]
    fn sub_scopes_by_full_or_relative_name() {
        let (_, tree) = tree();
        let net = tree.find("net/").unwrap();
        let ln = tree.find("net/ln/").unwrap();
        assert_eq!(tree.sub_scope(net, "ln"), Some(ln));
        assert_eq!(tree.sub_scope(net, "net/ln/"), Some(ln));
        assert_eq!(
            tree.sub_scope(net, "ln/moments"),
            tree.find("net/ln/moments/")
        );
        assert_eq!(tree.sub_scope(ScopeId::ROOT, "net"), Some(net));
        assert_eq!(tree.sub_scope(ln, "net/ln_1/"), None, "not below ln");
        assert_eq!(tree.sub_scope(net, "missing"), None);
        let all: Vec<&str> = tree
            .all_sub_scopes(net)
            .into_iter()
            .map(|s| tree.name(s))
            .collect();
        assert_eq!(
            all,
            [
                "net/ln/",
                "net/ln/moments/",
                "net/ln/batchnorm/",
                "net/ln_1/",
                "net/ln_1/batchnorm/"
            ]
        );
    }

    #[test]
    fn ops_may_return_to_a_scope_left_before() {
        // Runs of ops in one scope, interleaved: each op still lands in its
        // own innermost scope and counts in every enclosing one.
        let ops = ops(&[
            ("a/x", "Relu", &[]),
            ("a/y", "Relu", &[]),
            ("b/y", "Neg", &[]),
            ("a/b/z", "Neg", &[]),
            ("a/w", "Relu", &[]),
            ("top", "Relu", &[]),
            ("b/v", "Relu", &[]),
        ]);
        let tree = ScopeTree::build(&ops);
        let (a, b, ab) = (
            tree.find("a/").unwrap(),
            tree.find("b/").unwrap(),
            tree.find("a/b/").unwrap(),
        );
        assert_eq!(tree.direct_nodes(a), [0, 1, 4]);
        assert_eq!(tree.direct_nodes(b), [2, 6]);
        assert_eq!(tree.direct_nodes(ab), [3]);
        assert_eq!(tree.direct_nodes(ScopeId::ROOT), [5]);
        assert_eq!(tree.father(ab), Some(a));
        assert_eq!(tree.op_type_num(a, "Relu"), 3);
        assert_eq!(tree.op_type_num(a, "Neg"), 1);
        assert_eq!(tree.op_type_num(b, "Relu"), 1);
        assert_eq!(tree.op_type_num(ScopeId::ROOT, "Relu"), 5);
        assert_eq!(tree.op_type_num(ScopeId::ROOT, "Neg"), 2);
    }

    /// A scope as the reference builds it.
    struct RefScope {
        name: String,
        father: Option<usize>,
        direct: Vec<usize>,
        counts: Vec<(String, i32)>,
    }

    /// GE's `AddNodeToScope` as written: every prefix of every op looked up
    /// from the root, the op counted in each scope on the way down.
    fn reference(ops: &[FrameworkOp]) -> Vec<RefScope> {
        let scope = |name: String, father| RefScope {
            name,
            father,
            direct: Vec::new(),
            counts: Vec::new(),
        };
        let mut scopes = vec![scope("root".into(), None)];
        let count = |s: &mut RefScope, t: &str| match s.counts.iter_mut().find(|c| c.0 == t) {
            Some(c) => c.1 += 1,
            None => s.counts.push((t.to_owned(), 1)),
        };
        for (index, op) in ops.iter().enumerate() {
            let components: Vec<&str> = op.name.split('/').filter(|c| !c.is_empty()).collect();
            let mut current = 0;
            count(&mut scopes[0], &op.op_type);
            let mut prefix = String::new();
            for component in &components[..components.len().saturating_sub(1)] {
                prefix.push_str(component);
                prefix.push('/');
                current = match scopes.iter().position(|s| s.name == prefix) {
                    Some(at) => at,
                    None => {
                        scopes.push(scope(prefix.clone(), Some(current)));
                        scopes.len() - 1
                    }
                };
                count(&mut scopes[current], &op.op_type);
            }
            scopes[current].direct.push(index);
        }
        scopes
    }

    #[test]
    fn the_incremental_build_matches_adding_every_prefix_from_the_root() {
        let mut state = 7u64;
        let mut below = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let parts = ["a", "b", "ab", "a_1", ""];
        let types = ["Relu", "Add", "Mean"];
        for _ in 0..300 {
            let specs: Vec<(String, String)> = (0..1 + below(12))
                .map(|_| {
                    let depth = 1 + below(4) as usize;
                    let name = (0..depth)
                        .map(|_| parts[below(parts.len() as u64) as usize])
                        .collect::<Vec<_>>()
                        .join("/");
                    let name = if name.split('/').all(str::is_empty) {
                        "n".to_owned()
                    } else {
                        name
                    };
                    (name, types[below(3) as usize].to_owned())
                })
                .collect();
            let list: Vec<(&str, &str, &[&str])> = specs
                .iter()
                .map(|(n, t)| (n.as_str(), t.as_str(), &[][..]))
                .collect();
            let ops = ops(&list);
            let tree = ScopeTree::build(&ops);
            let expected = reference(&ops);
            assert_eq!(tree.len(), expected.len(), "{specs:?}");
            for (id, want) in tree.all_scopes().zip(&expected) {
                assert_eq!(tree.name(id), want.name, "{specs:?}");
                assert_eq!(tree.father(id).map(|f| f.0), want.father, "{specs:?}");
                assert_eq!(tree.direct_nodes(id), want.direct.as_slice(), "{specs:?}");
                for t in types {
                    let n = want.counts.iter().find(|c| c.0 == t).map_or(-1, |c| c.1);
                    assert_eq!(tree.op_type_num(id, t), n, "{} {t} in {specs:?}", want.name);
                }
            }
        }
    }

    #[test]
    fn empty_name_components_are_skipped() {
        let ops = ops(&[
            ("a//b", "Relu", &[]),
            ("/c", "Relu", &[]),
            ("a/d/", "Relu", &[]),
        ]);
        let tree = ScopeTree::build(&ops);
        let a = tree.find("a/").unwrap();
        assert_eq!(tree.direct_nodes(a), [0, 2]);
        assert_eq!(tree.direct_nodes(ScopeId::ROOT), [1]);
        assert_eq!(tree.find("a/d/"), None);
        assert_eq!(tree.op_type_num(ScopeId::ROOT, "Relu"), 3);
    }
}
