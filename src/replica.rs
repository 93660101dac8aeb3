//! Replica types (`ps`, `worker`, ...) and [`TypeMap`], the map keyed by them that the job, its
//! status and its scale plans hold. Re-exported by `api`, whose types use them.

#[cfg(feature = "schema")]
use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The role of a replica. The serialised strings are the upstream ones.
///
/// The order of the variants is the order in which the core plans: the master first, then the
/// parameter servers the workers connect to, the chief, the workers, the evaluator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ReplicaType {
    /// The DLRover job master, which plans the job's scaling.
    #[serde(rename = "dlrover-master")]
    DlroverMaster,
    /// A TensorFlow parameter server.
    #[serde(rename = "ps")]
    Ps,
    /// The TensorFlow chief (at most one).
    #[serde(rename = "chief")]
    Chief,
    /// A TensorFlow worker.
    #[serde(rename = "worker")]
    Worker,
    /// The TensorFlow evaluator (at most one).
    #[serde(rename = "evaluator")]
    Evaluator,
}

impl ReplicaType {
    /// The task types (everything but the master), in planning order.
    pub const TASKS: [ReplicaType; 4] =
        [ReplicaType::Ps, ReplicaType::Chief, ReplicaType::Worker, ReplicaType::Evaluator];

    /// Every replica type, in planning order.
    pub const ALL: [ReplicaType; 5] =
        [ReplicaType::DlroverMaster, ReplicaType::Ps, ReplicaType::Chief, ReplicaType::Worker, ReplicaType::Evaluator];

    /// The upstream string: `worker`, `ps`, `chief`, `evaluator` or `dlrover-master`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplicaType::DlroverMaster => "dlrover-master",
            ReplicaType::Ps => "ps",
            ReplicaType::Chief => "chief",
            ReplicaType::Worker => "worker",
            ReplicaType::Evaluator => "evaluator",
        }
    }

    /// Parses an upstream string.
    pub fn parse(s: &str) -> Option<ReplicaType> {
        ReplicaType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Whether TensorFlow allows at most one task of this type in a cluster.
    pub fn is_singleton(self) -> bool {
        matches!(self, ReplicaType::Chief | ReplicaType::Evaluator | ReplicaType::DlroverMaster)
    }
}

/// Read as a string (not as an enum), so a bad map key keeps its place in error paths:
/// `spec.replicaSpecs.workers`.
impl<'de> Deserialize<'de> for ReplicaType {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ReplicaType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a replica type")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ReplicaType, E> {
                ReplicaType::parse(s)
                    .ok_or_else(|| E::unknown_variant(s, &["worker", "ps", "chief", "evaluator", "dlrover-master"]))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl fmt::Display for ReplicaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Replica type to `V`: what a `BTreeMap<ReplicaType, V>` holds, in the same order (the types'
/// planning order), read and written as the same JSON object and described by the same JSON
/// Schema. A slot a type, so each value type costs the WebAssembly modules a few small
/// functions where a B-tree costs several kilobytes (docs/benchmarks.md). Each value is boxed,
/// as a tree's are in its nodes, so the map is as small in the structs that hold it.
#[derive(Clone, PartialEq, Eq)]
pub struct TypeMap<V>([Option<Box<V>>; 5]);

/// The types in slot order ([`pick`]'s), for the keys the iterators lend out.
static SLOT_TYPES: [ReplicaType; 5] = ReplicaType::ALL;

/// A borrowed entry's iterator, as `BTreeMap::iter` lends them out.
pub type TypeMapIter<'a, V> = std::iter::FilterMap<
    std::iter::Zip<std::slice::Iter<'static, ReplicaType>, std::slice::Iter<'a, Option<Box<V>>>>,
    fn((&'static ReplicaType, &'a Option<Box<V>>)) -> Option<(&'static ReplicaType, &'a V)>,
>;

/// A mutably borrowed entry's iterator, as `BTreeMap::iter_mut` lends them out.
pub type TypeMapIterMut<'a, V> = std::iter::FilterMap<
    std::iter::Zip<std::slice::Iter<'static, ReplicaType>, std::slice::IterMut<'a, Option<Box<V>>>>,
    fn((&'static ReplicaType, &'a mut Option<Box<V>>)) -> Option<(&'static ReplicaType, &'a mut V)>,
>;

/// An owned entry's iterator, as `BTreeMap::into_iter` gives them.
pub type TypeMapIntoIter<V> = std::iter::FilterMap<
    std::iter::Zip<std::array::IntoIter<ReplicaType, 5>, std::array::IntoIter<Option<Box<V>>, 5>>,
    fn((ReplicaType, Option<Box<V>>)) -> Option<(ReplicaType, V)>,
>;

impl<V> TypeMap<V> {
    /// An empty map.
    pub const fn new() -> Self {
        TypeMap([None, None, None, None, None])
    }

    fn slot(&self, t: ReplicaType) -> &Option<Box<V>> {
        pick(self.0.each_ref(), t)
    }

    fn slot_mut(&mut self, t: ReplicaType) -> &mut Option<Box<V>> {
        pick(self.0.each_mut(), t)
    }

    /// The value of a type.
    pub fn get(&self, t: &ReplicaType) -> Option<&V> {
        self.slot(*t).as_deref()
    }

    /// The value of a type, to change.
    pub fn get_mut(&mut self, t: &ReplicaType) -> Option<&mut V> {
        self.slot_mut(*t).as_deref_mut()
    }

    /// Whether the map holds a type.
    pub fn contains_key(&self, t: &ReplicaType) -> bool {
        self.get(t).is_some()
    }

    /// Sets a type's value, giving back the one it replaces.
    pub fn insert(&mut self, t: ReplicaType, value: V) -> Option<V> {
        self.slot_mut(t).replace(Box::new(value)).map(|v| *v)
    }

    /// Takes a type's value out.
    pub fn remove(&mut self, t: &ReplicaType) -> Option<V> {
        self.slot_mut(*t).take().map(|v| *v)
    }

    /// A type's slot, to fill when empty.
    pub fn entry(&mut self, t: ReplicaType) -> TypeEntry<'_, V> {
        TypeEntry(self.slot_mut(t))
    }

    /// How many types the map holds.
    pub fn len(&self) -> usize {
        self.0.iter().filter(|v| v.is_some()).count()
    }

    /// Whether the map holds no type.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// The entries, in the types' order.
    pub fn iter(&self) -> TypeMapIter<'_, V> {
        SLOT_TYPES.iter().zip(self.0.iter()).filter_map(|(t, v)| Some((t, v.as_deref()?)))
    }

    /// The entries, in the types' order, to change.
    pub fn iter_mut(&mut self) -> TypeMapIterMut<'_, V> {
        SLOT_TYPES.iter().zip(self.0.iter_mut()).filter_map(|(t, v)| Some((t, v.as_deref_mut()?)))
    }

    /// The types held, in order.
    pub fn keys(&self) -> impl Iterator<Item = &'static ReplicaType> + '_ {
        self.iter().map(|(t, _)| t)
    }

    /// The values, in the types' order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().flatten().map(|v| &**v)
    }

    /// The values, in the types' order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().flatten().map(|v| &mut **v)
    }
}

/// The slot of `t` among a map's, in [`SLOT_TYPES`]' order.
fn pick<S>(slots: [S; 5], t: ReplicaType) -> S {
    let [master, ps, chief, worker, evaluator] = slots;
    match t {
        ReplicaType::DlroverMaster => master,
        ReplicaType::Ps => ps,
        ReplicaType::Chief => chief,
        ReplicaType::Worker => worker,
        ReplicaType::Evaluator => evaluator,
    }
}

/// A type's slot in a [`TypeMap`], as `BTreeMap::entry` gives it.
pub struct TypeEntry<'a, V>(&'a mut Option<Box<V>>);

impl<'a, V> TypeEntry<'a, V> {
    /// The value, `value` put in first when the slot is empty.
    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    /// The value, the default put in first when the slot is empty.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// The value, `make`'s put in first when the slot is empty.
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        self.0.get_or_insert_with(|| Box::new(make()))
    }
}

impl<V> Default for TypeMap<V> {
    fn default() -> Self {
        TypeMap::new()
    }
}

impl<V: fmt::Debug> fmt::Debug for TypeMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V> FromIterator<(ReplicaType, V)> for TypeMap<V> {
    fn from_iter<I: IntoIterator<Item = (ReplicaType, V)>>(entries: I) -> Self {
        let mut map = TypeMap::new();
        map.extend(entries);
        map
    }
}

impl<V> Extend<(ReplicaType, V)> for TypeMap<V> {
    fn extend<I: IntoIterator<Item = (ReplicaType, V)>>(&mut self, entries: I) {
        for (t, value) in entries {
            self.insert(t, value);
        }
    }
}

impl<'a, V> IntoIterator for &'a TypeMap<V> {
    type Item = (&'static ReplicaType, &'a V);
    type IntoIter = TypeMapIter<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, V> IntoIterator for &'a mut TypeMap<V> {
    type Item = (&'static ReplicaType, &'a mut V);
    type IntoIter = TypeMapIterMut<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<V> IntoIterator for TypeMap<V> {
    type Item = (ReplicaType, V);
    type IntoIter = TypeMapIntoIter<V>;
    fn into_iter(self) -> Self::IntoIter {
        SLOT_TYPES.into_iter().zip(self.0).filter_map(|(t, v)| Some((t, *v?)))
    }
}

impl<V: Serialize> Serialize for TypeMap<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// Read as serde reads a `BTreeMap`: key by key, a later key replacing an earlier one.
impl<'de, V: Deserialize<'de>> Deserialize<'de> for TypeMap<V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visitor<V> {
            type Value = TypeMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<TypeMap<V>, A::Error> {
                let mut map = TypeMap::new();
                while let Some((t, value)) = access.next_entry()? {
                    map.insert(t, value);
                }
                Ok(map)
            }
        }
        deserializer.deserialize_map(Visitor(std::marker::PhantomData))
    }
}

/// The schema of a `BTreeMap<ReplicaType, V>`, which the map reads and writes as.
#[cfg(feature = "schema")]
impl<V: schemars::JsonSchema> schemars::JsonSchema for TypeMap<V> {
    fn inline_schema() -> bool {
        <BTreeMap<ReplicaType, V>>::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <BTreeMap<ReplicaType, V>>::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        <BTreeMap<ReplicaType, V>>::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <BTreeMap<ReplicaType, V>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Entries in no order, with a type given twice (the last value wins, as in a tree).
    const ENTRIES: [(ReplicaType, i32); 5] = [
        (ReplicaType::Worker, 3),
        (ReplicaType::DlroverMaster, 1),
        (ReplicaType::Evaluator, 5),
        (ReplicaType::Ps, 2),
        (ReplicaType::Worker, 4),
    ];

    #[test]
    fn holds_what_a_tree_holds_in_its_order() {
        let map: TypeMap<i32> = ENTRIES.into_iter().collect();
        let tree: BTreeMap<ReplicaType, i32> = ENTRIES.into_iter().collect();
        assert_eq!(map.iter().collect::<Vec<_>>(), tree.iter().collect::<Vec<_>>());
        assert_eq!(map.keys().collect::<Vec<_>>(), tree.keys().collect::<Vec<_>>());
        assert_eq!(map.values().collect::<Vec<_>>(), tree.values().collect::<Vec<_>>());
        assert_eq!(map.clone().into_iter().collect::<Vec<_>>(), tree.clone().into_iter().collect::<Vec<_>>());
        assert_eq!((map.len(), map.is_empty()), (4, false));
        assert_eq!(format!("{map:?}"), format!("{tree:?}"));
        for t in ReplicaType::ALL {
            assert_eq!(map.get(&t), tree.get(&t), "{t}");
            assert_eq!(map.contains_key(&t), tree.contains_key(&t), "{t}");
        }
    }

    #[test]
    fn changes_as_a_tree_changes() {
        let mut map: TypeMap<i32> = ENTRIES.into_iter().collect();
        let mut tree: BTreeMap<ReplicaType, i32> = ENTRIES.into_iter().collect();
        assert_eq!(map.insert(ReplicaType::Chief, 7), tree.insert(ReplicaType::Chief, 7));
        assert_eq!(map.insert(ReplicaType::Ps, 8), tree.insert(ReplicaType::Ps, 8));
        assert_eq!(map.remove(&ReplicaType::Evaluator), tree.remove(&ReplicaType::Evaluator));
        assert_eq!(map.remove(&ReplicaType::Evaluator), None);
        *map.entry(ReplicaType::Evaluator).or_default() += 1;
        *tree.entry(ReplicaType::Evaluator).or_default() += 1;
        *map.entry(ReplicaType::Worker).or_insert(0) += 10;
        *tree.entry(ReplicaType::Worker).or_insert(0) += 10;
        for (_, v) in &mut map {
            *v *= 2;
        }
        tree.values_mut().for_each(|v| *v *= 2);
        if let Some(v) = map.get_mut(&ReplicaType::DlroverMaster) {
            *v = -1;
        }
        tree.insert(ReplicaType::DlroverMaster, -1);
        assert_eq!(map.iter().collect::<Vec<_>>(), tree.iter().collect::<Vec<_>>());
        assert!(TypeMap::<i32>::new().is_empty());
        assert_eq!(TypeMap::<i32>::default().iter().count(), 0);
    }

    #[test]
    fn reads_and_writes_the_json_of_a_tree() {
        let map: TypeMap<i32> = ENTRIES.into_iter().collect();
        let tree: BTreeMap<ReplicaType, i32> = ENTRIES.into_iter().collect();
        let text = serde_json::to_string(&tree).unwrap();
        assert_eq!(serde_json::to_string(&map).unwrap(), text);
        assert_eq!(serde_json::from_str::<TypeMap<i32>>(&text).unwrap(), map);
        let twice = r#"{"worker": 1, "ps": 2, "worker": 3}"#;
        let read: TypeMap<i32> = serde_json::from_str(twice).unwrap();
        let tree: BTreeMap<ReplicaType, i32> = serde_json::from_str(twice).unwrap();
        assert_eq!(read.iter().collect::<Vec<_>>(), tree.iter().collect::<Vec<_>>());
        let wrong = |text| serde_json::from_str::<TypeMap<i32>>(text).unwrap_err().to_string();
        let tree_wrong = |text| serde_json::from_str::<BTreeMap<ReplicaType, i32>>(text).unwrap_err().to_string();
        for text in [r#"{"workers": 1}"#, r#"{"worker": "one"}"#, "[1]", "3"] {
            assert_eq!(wrong(text), tree_wrong(text), "{text}");
        }
    }

    #[cfg(feature = "schema")]
    #[test]
    fn has_the_schema_of_a_tree() {
        assert_eq!(schemars::schema_for!(TypeMap<i32>), schemars::schema_for!(BTreeMap<ReplicaType, i32>));
    }
}
