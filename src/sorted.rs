//! Sorted maps and sets built by inserting their entries one by one.
//!
//! `collect` into a `BTreeMap` or a `BTreeSet` sorts the entries with the standard library's
//! stable sort and then bulk-builds the tree, and both are compiled anew for each type of entry:
//! about 4 KB of each WebAssembly module's raw code for every type collected (docs/benchmarks.md,
//! "Where the modules' bytes go"). Inserting uses the tree's `insert`, compiled once for each type
//! the core keeps anyway. The result is the same: for equal keys, the last value is kept, as
//! `collect` keeps it.
//!
//! A set of names only asked whether it holds a name (the pods' names in a pass, one a pod, the
//! services' names, a plan's removed pods) is a [`Names`]: a sorted list, sorted when first asked
//! by the one sort of the core ([`crate::error::sort_by`]), rather than a tree of `&str` with its
//! own sort to collect it.

use std::cell::{Cell, OnceCell};
use std::collections::{BTreeMap, BTreeSet};

use crate::error::sort_by;

/// The map of `entries`, as `entries.into_iter().collect()` makes it.
pub(crate) fn map<K: Ord, V>(entries: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(entries);
    map
}

/// The map of one entry, as `BTreeMap::from([(key, value)])` makes it (which sorts its array).
pub(crate) fn one<K: Ord, V>(key: K, value: V) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.insert(key, value);
    map
}

/// The set of `items`, as `items.into_iter().collect()` makes it.
pub(crate) fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

/// A set of names: a sorted list without repeats, searched by halves, sorted when first asked (a
/// pass that makes no pod asks nothing of its pods' names).
pub(crate) struct Names<'a> {
    /// The names as given, until the list is sorted.
    given: Cell<Vec<&'a str>>,
    sorted: OnceCell<Vec<&'a str>>,
}

impl<'a> Names<'a> {
    /// The set of `names`.
    pub(crate) fn of(names: impl IntoIterator<Item = &'a str>) -> Names<'a> {
        Names { given: Cell::new(names.into_iter().collect()), sorted: OnceCell::new() }
    }

    /// Whether the set holds `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        let sorted = self.sorted.get_or_init(|| {
            let mut list = self.given.take();
            sort_by(&mut list, |a, b| a.cmp(b));
            list.dedup();
            list
        });
        sorted.binary_search(&name).is_ok()
    }
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
        assert_eq!(one("k", 1), BTreeMap::from([("k", 1)]));
    }

    #[test]
    fn names_hold_what_a_set_holds() {
        let given = ["w-10", "w-2", "", "w-1", "w-2", "ps-0", "w-10/x", "W-1"];
        let names = Names::of(given);
        let set: BTreeSet<&str> = given.into_iter().collect();
        for probe in given.into_iter().chain(["w-3", "w", "w-100", "x", " w-1"]) {
            assert_eq!(names.contains(probe), set.contains(probe), "{probe:?}");
        }
        assert_eq!(names.sorted.get(), Some(&set.iter().copied().collect::<Vec<_>>()));
        assert!(!Names::of([]).contains(""));
    }
}
