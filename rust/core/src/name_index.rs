//! An index from names to positions in a list that already stores the
//! names (ops, scopes): the hash table holds positions only, and a lookup
//! compares against the list, so no name is copied into a key.

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

    /// Files `position` under `name`, replacing the position it had (the
    /// last one wins, as in a map).
    pub(crate) fn insert<'a>(
        &mut self,
        name: &str,
        position: usize,
        name_at: impl Fn(usize) -> &'a str,
    ) {
        let key = hash(name);
        match self.positions.find_mut(key, |&p| name_at(p) == name) {
            Some(slot) => *slot = position,
            None => {
                self.positions
                    .insert_unique(key, position, |&p| hash(name_at(p)));
            }
        }
    }
}
