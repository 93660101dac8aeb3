//! Sorted maps and sets built by inserting their entries one by one.
//!
//! `collect` into a `BTreeMap` or a `BTreeSet` sorts the entries with the standard library's
//! stable sort and then bulk-builds the tree, and both are compiled anew for each type of entry:
//! about 4 KB of each WebAssembly module's raw code for every type collected (docs/benchmarks.md,
//! "Where the modules' bytes go"). Inserting uses the tree's `insert`, compiled once for each type
//! the core keeps anyway. The result is the same: for equal keys, the last value is kept, as
//! `collect` keeps it. A tree of one entry a pod is still collected (the planner's `names`): for
//! 10,000 entries a sort then a bulk build is faster than inserting each.

use std::collections::{BTreeMap, BTreeSet};

/// The map of `entries`, as `entries.into_iter().collect()` makes it.
pub(crate) fn map<K: Ord, V>(entries: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(entries);
    map
}

/// The set of `items`, as `items.into_iter().collect()` makes it.
pub(crate) fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_collect() {
        let entries = [(3, "c"), (1, "a"), (3, "last"), (2, "b"), (1, "again")];
        assert_eq!(map(entries), entries.into_iter().collect::<BTreeMap<_, _>>());
        assert_eq!(map(entries).get(&3), Some(&"last"));
        let items = [5, 1, 5, 3, 1];
        assert_eq!(set(items), items.into_iter().collect::<BTreeSet<_>>());
        assert!(map(Vec::<(i32, i32)>::new()).is_empty());
    }
}
