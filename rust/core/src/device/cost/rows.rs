//! Where a cost walk puts its rows: records (`Vec<NodeCost>`, the Rust
//! report) or columns ([`ColumnRows`](super::ColumnRows), the report
//! Python receives, built without a record per node).

use super::report::NodeCost;

/// What the walk does with rows: append, revisit a caller's row once its
/// bodies are walked, sum a body's time, and merge a branch walked apart.
pub trait Rows: Default {
    fn reserve(&mut self, n: usize);
    fn push(&mut self, row: NodeCost);
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn set_note_and_count(&mut self, i: usize, note: String, count: f64);
    /// The total time of the rows from `i` on.
    fn time_from(&self, i: usize) -> f64;
    fn append(&mut self, other: Self);
}

impl Rows for Vec<NodeCost> {
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }

    fn push(&mut self, row: NodeCost) {
        Vec::push(self, row);
    }

    fn len(&self) -> usize {
        Vec::len(self)
    }

    fn set_note_and_count(&mut self, i: usize, note: String, count: f64) {
        self[i].note = Some(note);
        self[i].count = count;
    }

    fn time_from(&self, i: usize) -> f64 {
        self[i..].iter().map(|r| r.time_us).sum()
    }

    fn append(&mut self, other: Self) {
        self.extend(other);
    }
}
