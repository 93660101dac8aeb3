//! The one error type of the core, and the problems it carries.
//!
//! Every failure names the field it is about (`spec.replicaSpecs.worker.replicas`), carries a
//! stable machine-readable [`Code`] and a message a person can act on. Validation collects every
//! problem at once, so an [`Error::Invalid`] may hold many.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A stable, machine-readable kind of problem. The strings never change meaning between releases;
/// JavaScript callers and the admission policy see the same ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
// Read by `deserialize_names!` in `src/reader/mod.rs` (see `Problem`).
pub enum Code {
    /// The text is not JSON or YAML at all (a syntax error).
    Syntax,
    /// A field holds the wrong JSON type (a string where a number belongs, ...).
    InvalidType,
    /// A field holds a value outside its allowed set (an unknown enum string, ...).
    InvalidValue,
    /// A field that must be present is missing or empty.
    Required,
    /// A field the schema does not know; usually a typo.
    UnknownField,
    /// A name Kubernetes would refuse (not a DNS label, too long, ...).
    InvalidName,
    /// A number outside its allowed range.
    OutOfRange,
    /// A resource quantity that does not follow the Kubernetes quantity grammar.
    InvalidQuantity,
    /// An address that is not `host:port`.
    InvalidAddress,
    /// The same name, rank or address appears twice.
    Duplicate,
    /// Two fields that must agree do not.
    Mismatch,
    /// A pod template without a container.
    NoContainers,
    /// The resources asked for exceed the job's `resourceLimits`.
    ExceedsResourceLimits,
    /// A TensorFlow cluster list with a missing index.
    TfConfigHole,
    /// The objects a plan would create exceed the core's size bounds.
    TooLarge,
    /// A Kubeflow TFJob where an ElasticJob belongs: `convert` makes it one.
    TfJob,
    /// Something the cluster keeps from users: a pod running as the job masters' ServiceAccount.
    Forbidden,
}

impl Code {
    /// The stable string of this code, as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::InvalidType => "invalid_type",
            Code::InvalidValue => "invalid_value",
            Code::Required => "required",
            Code::UnknownField => "unknown_field",
            Code::InvalidName => "invalid_name",
            Code::OutOfRange => "out_of_range",
            Code::InvalidQuantity => "invalid_quantity",
            Code::InvalidAddress => "invalid_address",
            Code::Duplicate => "duplicate",
            Code::Mismatch => "mismatch",
            Code::NoContainers => "no_containers",
            Code::ExceedsResourceLimits => "exceeds_resource_limits",
            Code::TfConfigHole => "tf_config_hole",
            Code::TooLarge => "too_large",
            Code::TfJob => "tf_job",
            Code::Forbidden => "forbidden",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with an input: where it is, what kind it is, and what to do about it.
// Read by `deserialize_defaults!` in `src/reader/mod.rs`: this module, of the lowest layer, may
// not import `fields`, of the same layer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Problem {
    /// The dotted field path, e.g. `spec.replicaSpecs.worker.template.spec.containers`.
    /// Empty when the problem is about the document as a whole.
    pub path: String,
    /// The stable kind of problem.
    pub code: Code,
    /// What is wrong and how to fix it, for a person.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, code: Code, message: impl Into<String>) -> Self {
        Problem { path: path.into(), code, message: message.into() }
    }

    /// A problem at the place `steps` lead to in a document, its path written by [`field_path`].
    pub fn at(steps: &[Step], code: Code, message: impl Into<String>) -> Self {
        Problem::new(field_path(steps), code, message)
    }
}

/// One step into a document: a key of an object or an index of an array. A place in a document
/// is a list of steps, kept as steps until it is shown ([`field_path`]), so that a key holding a
/// `.` or an empty key keeps its place.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// A key of an object.
    Key(String),
    /// An index of an array.
    Index(usize),
}

/// `steps` written as a field path, the one way every path of the core is written:
/// `spec.replicaSpecs.worker`, `items[3].name`; a `.` before every key but a first one, so that
/// an empty key keeps its place (`..a` is `a` under two empty keys, `.[0]` the first item under
/// two). No steps, the document itself, is the empty path.
pub fn field_path(steps: &[Step]) -> String {
    use fmt::Write as _;
    let mut path = String::new();
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Key(key) => {
                if i > 0 {
                    path.push('.');
                }
                path.push_str(key);
            }
            Step::Index(index) => {
                let _ = write!(path, "[{index}]");
            }
        }
    }
    path
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() { f.write_str(&self.message) } else { write!(f, "{}: {}", self.path, self.message) }
    }
}

/// The error of every fallible operation of the core.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input could not be read into the expected shape (bad JSON, a wrong type, an unknown
    /// enum value). Reading stops at the first such problem, so there is exactly one.
    #[error("{0}")]
    Parse(Problem),
    /// The input was read but breaks the rules; every problem found is listed, in a stable order.
    #[error("{}", Problems(.0))]
    Invalid(Vec<Problem>),
}

struct Problems<'a>(&'a [Problem]);

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl Error {
    /// The stable code of the error as a whole: `parse_error` or `invalid`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Parse(_) => "parse_error",
            Error::Invalid(_) => "invalid",
        }
    }

    /// Every problem this error carries (one for a parse error).
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::Parse(p) => std::slice::from_ref(p),
            Error::Invalid(ps) => ps,
        }
    }

    /// A single-problem validation error.
    pub(crate) fn invalid(path: impl Into<String>, code: Code, message: impl Into<String>) -> Self {
        Error::Invalid(vec![Problem::new(path, code, message)])
    }

    /// The same error with `root` in front of every path: `scalePlan.spec.psHosts[0]` for a problem
    /// at `spec.psHosts[0]` of the argument named `scalePlan`, joined as [`field_path`] joins
    /// steps. A problem about the whole document gets `root` as its path, and so does one at a
    /// top-level empty key, whose path is empty too: the one place two documents' paths coincide.
    #[must_use]
    pub fn prefixed(self, root: &str) -> Error {
        let fix = |mut p: Problem| {
            p.path = if p.path.is_empty() {
                root.to_owned()
            } else if p.path.starts_with('[') {
                format!("{root}{}", p.path)
            } else {
                format!("{root}.{}", p.path)
            };
            p
        };
        match self {
            Error::Parse(p) => Error::Parse(fix(p)),
            Error::Invalid(ps) => Error::Invalid(ps.into_iter().map(fix).collect()),
        }
    }

    /// The same error with `context` in front of the message of a parse problem that has no path
    /// of its own (a syntax error), so the reader knows which input it is about.
    #[must_use]
    pub(crate) fn in_context(self, context: &str) -> Error {
        match self {
            Error::Parse(mut p) if p.path.is_empty() && !p.message.starts_with(context) => {
                p.message = format!("{context}: {}", p.message);
                Error::Parse(p)
            }
            other => other,
        }
    }

    /// The JSON shape every consumer shows: `{"code": ..., "message": ..., "errors": [{path, code, message}]}`.
    pub fn report(&self) -> ErrorReport {
        ErrorReport { code: self.code().to_owned(), message: self.to_string(), errors: self.problems().to_vec() }
    }
}

/// The serialisable form of an [`Error`], the same in Rust, JavaScript and the admission policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorReport {
    /// `parse_error` or `invalid`.
    pub code: String,
    /// Every problem as `PATH: MESSAGE`, joined by `; `.
    pub message: String,
    /// Every problem, in a stable order.
    pub errors: Vec<Problem>,
}

/// Turns a list of problems into a result: `Ok(())` when it is empty.
///
/// # Errors
/// [`Error::Invalid`] with the problems, sorted by path and de-duplicated, when there are any.
pub fn into_result(mut problems: Vec<Problem>) -> Result<(), Error> {
    if problems.is_empty() {
        return Ok(());
    }
    sort_by(&mut problems, Ord::cmp);
    problems.dedup();
    Err(Error::Invalid(problems))
}

/// Sorts `items` by `order`, keeping equal items in their order, through one sort compiled for
/// every type of item: a sort of their indices, comparing through `dyn`. The core sorts short lists
/// (problems, a conversion's notes), and each type's own stable sort is 4 to 7 KB of code in the
/// WebAssembly modules. It lives here, beside the problems it sorts, because `error` is of the
/// lowest layer and every module that sorts can import it.
pub(crate) fn sort_by<T>(items: &mut Vec<T>, order: impl Fn(&T, &T) -> Ordering) {
    let by_index = |a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => order(a, b),
        _ => Ordering::Equal,
    };
    let indices = sorted_indices(items.len(), &by_index);
    let mut taken: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(indices.into_iter().filter_map(|i| taken.get_mut(i).and_then(Option::take)));
}

/// `0..len` sorted by `order`, stably.
fn sorted_indices(len: usize, order: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..len).collect();
    indices.sort_by(|&a, &b| order(a, b));
    indices
}

/// A `Result` with the core's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Joins field path segments the way every message of the core spells them.
pub(crate) fn join(base: &str, field: impl fmt::Display) -> String {
    if base.is_empty() { field.to_string() } else { format!("{base}.{field}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_by_is_the_stable_sort() {
        let items: Vec<(u8, usize)> = [3u8, 1, 3, 0, 2, 1, 3, 0].into_iter().enumerate().map(|(i, k)| (k, i)).collect();
        let mut ours = items.clone();
        sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
        let mut std = items;
        std.sort_by_key(|a| a.0);
        assert_eq!(ours, std);
        let mut none: Vec<u8> = Vec::new();
        sort_by(&mut none, Ord::cmp);
        assert!(none.is_empty());
    }
}
