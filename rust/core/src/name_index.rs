//! An index from names to positions in a list that already stores the
//! names (ops, scopes): the hash table holds positions only, and a lookup
//! compares against the list, so no name is copied into a key.

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

#[derive(Clone, Debug, Default)]
pub(crate) struct NameIndex {
    positions: HashTable<usize>,
}

fn hash(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

impl NameIndex {
    pub(crate) fn with_capacity(capacity: usize) -> NameIndex {
        NameIndex {
            positions: HashTable::with_capacity(capacity),
        }
    }

    /// The position of `name`; `name_at(p)` is the name at position `p`.
    pub(crate) fn get<'a>(&self, name: &str, name_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        self.positions
            .find(hash(name), |&p| name_at(p) == name)
            .copied()
    }

    /// Files `position` under `name` unless the name is filed already
    /// (then false, and the index is unchanged). One probe of the table.
    pub(crate) fn insert_new<'a>(
        &mut self,
        name: &str,
        position: usize,
        name_at: impl Fn(usize) -> &'a str,
    ) -> bool {
        match self
            .positions
            .entry(hash(name), |&p| name_at(p) == name, |&p| hash(name_at(p)))
        {
            Entry::Occupied(_) => false,
            Entry::Vacant(slot) => {
                slot.insert(position);
                true
            }
        }
    }

    /// Files `position` under `name`, replacing the position it had (the
    /// last one wins, as in a map).
    pub(crate) fn insert<'a>(
        &mut self,
        name: &str,
        position: usize,
        name_at: impl Fn(usize) -> &'a str,
    ) {
        match self
            .positions
            .entry(hash(name), |&p| name_at(p) == name, |&p| hash(name_at(p)))
        {
            Entry::Occupied(mut slot) => *slot.get_mut() = position,
            Entry::Vacant(slot) => {
                slot.insert(position);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_new_files_each_name_once_and_lookups_compare_the_list() {
        let names = ["a", "b", "a", "c"];
        let at = |p: usize| names[p];
        let mut index = NameIndex::with_capacity(names.len());
        let filed: Vec<bool> = (0..names.len())
            .map(|p| index.insert_new(names[p], p, at))
            .collect();
        assert_eq!(filed, [true, true, false, true]);
        assert_eq!(index.get("a", at), Some(0));
        assert_eq!(index.get("c", at), Some(3));
        assert_eq!(index.get("d", at), None);
        index.insert("a", 2, at);
        assert_eq!(index.get("a", at), Some(2));
    }
}
