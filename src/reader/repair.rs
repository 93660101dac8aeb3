//! Reading on past shape problems, so that one wrong field does not hide the problems of the
//! others: each problem is noted, the value at its place is replaced by one of the kind the type
//! asks for (`0`, `""`, `false`, `[]`, `{}`, the first name of an enum) or taken away, and the
//! document is read again, up to [`MAX_REPAIRS`] times. A wrong map key (`workers:` among the
//! replica types) is taken away with its value; a missing required field is put in as `null` and
//! mended the same way.
//!
//! Only the first problem at a place is reported: what a repair itself causes there is not. The
//! caller learns which places were repaired, so it can leave out the rule problems that follow
//! from a stand-in value (a job whose `metadata.name` was a number is not also "missing its name").

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Hint, Kind, MAX_DEPTH, Outcome, Place, ReadError, nested_too_deep, read_within_depth};
use crate::error::{Code, Step, field_path};

/// The most repairs one read makes before it gives up: each costs a read of the whole document.
pub(crate) const MAX_REPAIRS: usize = 64;

/// A document read past its shape problems.
pub(crate) struct Recovered<T> {
    /// The value, once every problem was mended; `None` when one could not be.
    pub value: Option<T>,
    /// Every shape problem: path, code, message, in the order found.
    pub problems: Vec<(String, Code, String)>,
    /// The places repaired, so rule problems under them can be left out ([`under`]).
    pub repaired: Vec<Vec<Step>>,
    /// The paths of fields the type does not know.
    pub unknown: Vec<String>,
}

/// Reads a `T` from `value`, going on past shape problems (see the module docs).
pub(crate) fn read_recovering<T: DeserializeOwned>(value: Value) -> Recovered<T> {
    // Only the read is generic: the bookkeeping and the repairs are compiled once.
    let mut repairs = Repairs { value, problems: Vec::new(), repaired: Vec::new(), attempts: Vec::new() };
    if repairs.too_deep() {
        return repairs.finish(None, Vec::new());
    }
    for _ in 0..=MAX_REPAIRS {
        let outcome: Outcome<T> = read_within_depth(repairs.value.clone());
        match outcome.result {
            Ok(read) => return repairs.finish(Some(read), outcome.unknown),
            Err(error) => {
                if !repairs.mend(error, outcome.place) {
                    break;
                }
            }
        }
    }
    repairs.finish(None, Vec::new())
}

/// The document being mended, and what was found and done so far.
struct Repairs {
    value: Value,
    /// Each problem's place, code and message.
    problems: Vec<(Vec<Step>, Code, String)>,
    repaired: Vec<Vec<Step>>,
    /// How often each place was repaired (a missing field apart from a wrong value): a second
    /// repair of a value takes it away, a third gives up. A list: at most [`MAX_REPAIRS`] places.
    attempts: Vec<(Vec<Step>, bool, u8)>,
}

impl Repairs {
    fn finish<T>(self, value: Option<T>, unknown: Vec<String>) -> Recovered<T> {
        let problems = self.problems.into_iter().map(|(steps, code, message)| (field_path(&steps), code, message));
        Recovered { value, problems: problems.collect(), repaired: self.repaired, unknown }
    }

    /// Each read takes a copy, and copying recurses as deep as the value nests: a value nesting
    /// deeper than the reader reads is refused before it is copied, with the place where it does.
    #[inline(never)]
    fn too_deep(&mut self) -> bool {
        let Some(place) = nested_too_deep(&self.value) else { return false };
        let message = format!("arrays and objects nest deeper than {MAX_DEPTH} levels here");
        self.problems.push((place.clone(), Code::TooLarge, message));
        self.repaired.push(place);
        true
    }

    /// Notes the problem (unless a repair caused it) and mends its place; `false` when it cannot.
    #[inline(never)]
    fn mend(&mut self, error: ReadError, place: Place) -> bool {
        let mut target = place.steps.clone();
        let missing = matches!(error.kind, Kind::MissingField(_));
        if let Kind::MissingField(field) = error.kind {
            target.push(Step::Key(field.to_owned()));
        }
        let attempt = match self.attempts.iter_mut().find(|(steps, m, _)| *steps == target && *m == missing) {
            Some((_, _, attempt)) => {
                *attempt += 1;
                *attempt
            }
            None => {
                self.attempts.push((target.clone(), missing, 1));
                1
            }
        };
        let caused_by_repair = self.repaired.iter().any(|r| place.steps.starts_with(r));
        let seen = self.problems.iter().any(|(steps, _, message)| *steps == place.steps && *message == error.message);
        if !caused_by_repair && !seen {
            self.problems.push((place.steps.clone(), error.code, error.message));
        }
        if !self.repaired.contains(&target) {
            self.repaired.push(target);
        }
        let (value, steps) = (&mut self.value, &place.steps);
        match error.kind {
            _ if place.at_key => remove(value, steps),
            Kind::MissingField(field) => attempt <= 2 && insert_null(value, steps, field),
            Kind::UnknownVariant(Some(first)) if attempt == 1 => set(value, steps, Value::String(first.to_owned())),
            _ if attempt == 1 => match place.hint.and_then(stand_in) {
                Some(stand_in) => set(value, steps, stand_in),
                None => remove(value, steps) || set(value, steps, Value::Null),
            },
            _ if attempt == 2 => remove(value, steps),
            _ => false,
        }
    }
}

/// Whether the problem at `path` (a rule's, written by [`field_path`]) is at `place` or inside it.
pub(crate) fn under(path: &str, place: &[Step]) -> bool {
    if place.is_empty() {
        return true;
    }
    let place = field_path(place);
    path.strip_prefix(place.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// A value of the kind a frame asked for, the most neutral there is.
fn stand_in(hint: Hint) -> Option<Value> {
    Some(match hint {
        Hint::Any => return None,
        Hint::Bool => Value::Bool(false),
        Hint::Int | Hint::Float => Value::from(0),
        Hint::Str => Value::String(String::new()),
        Hint::Seq => Value::Array(Vec::new()),
        Hint::Map => Value::Object(serde_json::Map::new()),
        Hint::Unit => Value::Null,
        Hint::Enum(variants) => Value::String((*variants.first()?).to_owned()),
    })
}

fn at<'v>(value: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    steps.iter().try_fold(value, |v, step| match step {
        Step::Key(key) => v.as_object_mut()?.get_mut(key),
        Step::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

fn set(value: &mut Value, steps: &[Step], new: Value) -> bool {
    at(value, steps).map(|v| *v = new).is_some()
}

/// Takes an object's key and value away; an array item cannot be (the items after it would move).
fn remove(value: &mut Value, steps: &[Step]) -> bool {
    let Some((Step::Key(key), parent)) = steps.split_last() else { return false };
    at(value, parent).and_then(Value::as_object_mut).and_then(|o| o.remove(key)).is_some()
}

fn insert_null(value: &mut Value, steps: &[Step], field: &str) -> bool {
    at(value, steps).and_then(Value::as_object_mut).map(|o| o.insert(field.to_owned(), Value::Null)).is_some()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::podspec::{Container, PodSpec};
    use serde_json::json;

    use super::*;

    fn problems<T: DeserializeOwned>(value: Value) -> (bool, Vec<(String, Code)>, Vec<String>) {
        let r = read_recovering::<T>(value);
        let repaired = r.repaired.iter().map(|steps| field_path(steps)).collect();
        (r.value.is_some(), r.problems.into_iter().map(|(p, c, _)| (p, c)).collect(), repaired)
    }

    #[test]
    fn every_wrong_field_is_reported() {
        let spec = json!({"containers": [
            {"name": 1, "image": ["x"], "ports": [{"containerPort": "http"}]},
            {"name": "b", "stdin": "yes"}]});
        let (read, found, _) = problems::<PodSpec>(spec);
        assert!(read);
        assert_eq!(
            found,
            [
                ("containers[0].image".to_owned(), Code::InvalidType),
                ("containers[0].name".to_owned(), Code::InvalidType),
                ("containers[0].ports[0].containerPort".to_owned(), Code::InvalidType),
                ("containers[1].stdin".to_owned(), Code::InvalidType),
            ]
        );
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Named {
        name: String,
        #[serde(default)]
        size: u32,
    }

    #[test]
    fn a_missing_required_field_is_reported_once() {
        let (read, found, repaired) = problems::<Vec<Named>>(json!([{"size": 1}, {"name": "b", "size": -1}]));
        assert!(read);
        assert_eq!(found, [("[0]".to_owned(), Code::Required), ("[1].size".to_owned(), Code::InvalidValue)]);
        assert_eq!(repaired, ["[0].name", "[1].size"]);
    }

    #[test]
    fn a_removed_value_that_was_required_is_not_reported_again() {
        // A quantity that is not a string: replaced by "", then taken away, then given up on.
        let (_, found, _) = problems::<Container>(json!({"name": "m", "resources": {"limits": {"cpu": []}}}));
        assert_eq!(found.first(), Some(&("resources.limits.cpu".to_owned(), Code::InvalidType)));
        assert_eq!(found.len(), 1, "{found:?}");
    }

    /// A map key read from a string, as the replica types are.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Role {
        Ps,
        Worker,
    }

    impl<'de> serde::Deserialize<'de> for Role {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            match String::deserialize(d)?.as_str() {
                "ps" => Ok(Role::Ps),
                "worker" => Ok(Role::Worker),
                other => Err(serde::de::Error::unknown_variant(other, &["ps", "worker"])),
            }
        }
    }

    #[test]
    fn a_wrong_key_goes_with_its_value() {
        let (read, found, _) = problems::<BTreeMap<Role, u32>>(json!({"workers": 1, "ps": "two", "worker": 3}));
        assert!(read);
        assert_eq!(found, [("ps".to_owned(), Code::InvalidType), ("workers".to_owned(), Code::InvalidValue)]);
    }

    #[test]
    fn a_document_of_the_wrong_kind_is_one_problem() {
        let (read, found, repaired) = problems::<Container>(json!([1, 2]));
        assert!(read);
        assert_eq!(found, [(String::new(), Code::InvalidType)]);
        assert_eq!(repaired, [String::new()]);
        let key = |k: &str| Step::Key(k.to_owned());
        assert!(under("anything", &[]));
        let ab = [key("a"), key("b")];
        assert!(under("a.b[0]", &ab) && under("a.b.c", &ab) && !under("a.bc", &ab));
        // An empty key at the top is a place of its own, not the whole document.
        assert!(under(".c", &[key("")]) && !under("c", &[key("")]));
    }

    #[test]
    fn empty_keys_at_the_top_hide_no_later_problem() {
        // The reader once wrote the place of `5` as [Key(""), Key("."), Index(0)]: the repair aimed
        // at a place that does not exist, and every later problem went unreported.
        type Nested = BTreeMap<String, BTreeMap<String, Vec<String>>>;
        let doc = json!({"": {"": [5], "b": [6]}, "c": {"": [true]}, "d": 7});
        let (read, found, repaired) = problems::<Nested>(doc);
        assert!(read);
        assert_eq!(
            found,
            [
                (".[0]".to_owned(), Code::InvalidType),
                (".b[0]".to_owned(), Code::InvalidType),
                ("c.[0]".to_owned(), Code::InvalidType),
                ("d".to_owned(), Code::InvalidType),
            ]
        );
        assert_eq!(repaired, [".[0]", ".b[0]", "c.[0]", "d"]);
        // A wrong value at the top-level empty key is its own place: the later ones still count.
        let (_, found, _) = problems::<BTreeMap<String, String>>(json!({"": 5, "b": 6}));
        assert_eq!(found, [(String::new(), Code::InvalidType), ("b".to_owned(), Code::InvalidType)]);
    }

    #[test]
    fn a_value_nesting_too_deep_is_refused_before_it_is_copied() {
        // Copying a value 10,000 deep would overflow a test thread's stack.
        let deep = (1..10_000).fold(json!([]), |v, _| Value::Array(vec![v]));
        // (Put in place by hand: `json!` would copy it by serialising it.)
        let mut container = json!({"name": "m", "args": [{}]});
        container["args"][0]["a"] = deep;
        let r = read_recovering::<Container>(container);
        let path = format!("args[0].a{}", "[0]".repeat(MAX_DEPTH - 3));
        assert!(r.value.is_none());
        assert_eq!(r.problems.iter().map(|(p, c, _)| (p.clone(), *c)).collect::<Vec<_>>(), [(path, Code::TooLarge)]);
        assert!(nested_too_deep(&(1..MAX_DEPTH).fold(json!([]), |v, _| Value::Array(vec![v]))).is_none());
    }

    #[test]
    fn repairs_are_bounded() {
        let many: Vec<Value> = (0..200).map(|_| json!({"name": 1})).collect();
        let r = read_recovering::<Vec<Container>>(Value::Array(many));
        assert!(r.value.is_none());
        assert_eq!(r.problems.len(), MAX_REPAIRS + 1);
    }
}
