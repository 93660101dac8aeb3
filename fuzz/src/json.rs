//! Structured JSON for the targets: values whose keys and strings are mostly words of the inputs'
//! own vocabulary (so the fuzzer reaches the readers' and the rules' branches rather than stopping
//! at the first unknown field), mutations of valid documents, and the documents themselves.

use arbitrary::Arbitrary;
use serde_json::{Value, json};

/// Field names, enum values and tricky strings of the inputs.
pub const WORDS: &[&str] = &[
    // Type meta and metadata.
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "uid",
    "deletionTimestamp",
    "elastic.iml.github.io/v1alpha1",
    "ElasticJob",
    "ScalePlan",
    "List",
    "v1",
    // The job.
    "spec",
    "distributionStrategy",
    "ParameterServerStrategy",
    "AllreduceStrategy",
    "replicaSpecs",
    "ps",
    "worker",
    "chief",
    "evaluator",
    "dlrover-master",
    "replicas",
    "restartCount",
    "restartTimeout",
    "restartPolicy",
    "Never",
    "OnFailure",
    "Always",
    "ExitCode",
    "priority",
    "high",
    "low",
    "0.5",
    "template",
    "containers",
    "image",
    "tf:2",
    "main",
    "command",
    "args",
    "env",
    "value",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "100m",
    "1Gi",
    "2Gi",
    "-1",
    "1e308",
    "99999999999999999999Ei",
    "0",
    "1",
    "resourceLimits",
    "brainService",
    "a:1",
    "envs",
    "suspend",
    "optimizeMode",
    "single-job",
    "cluster",
    "pending_timeout",
    "pre_check_ops",
    "service_type",
    "grpc",
    "team",
    // The status.
    "status",
    "phase",
    "Created",
    "Pending",
    "Running",
    "Scaling",
    "Succeeded",
    "Failed",
    "Restarting",
    "Suspended",
    "conditions",
    "type",
    "True",
    "replicaStatuses",
    "active",
    "startTime",
    "2026-01-01T00:00:00Z",
    "scalePlan",
    // The scale plan.
    "ownerJob",
    "replicaResourceSpecs",
    "resource",
    "createPods",
    "removePods",
    "migratePods",
    "psHosts",
    "id",
    "rankIndex",
    "service",
    "deepctr",
    "deepctr-edljob-ps-2",
    "scale-type",
    "auto",
    "elasticjob-name",
    // Pods and TF_CONFIG.
    "items",
    "containerStatuses",
    "state",
    "terminated",
    "exitCode",
    "reason",
    "OOMKilled",
    "elasticjob.dlrover/name",
    "elasticjob.dlrover/replica-type",
    "elasticjob.dlrover/replica-index",
    "elasticjob.dlrover/rank-index",
    "restart-count",
    "podIP",
    "sparseCluster",
    "task",
    "index",
    "masterImage",
    // Admission.
    "request",
    "settings",
    "operation",
    "CREATE",
    "UPDATE",
    "DELETE",
    "group",
    "version",
    "object",
    "maxReplicasPerType",
    "maxTotalReplicas",
    "allowedStrategies",
    "requireResourceLimits",
    "allowedImageRegistries",
    "denyPrivileged",
    "maxRestartCount",
    // Awkward text.
    "",
    " ",
    ".",
    "a.b",
    "[0]",
    "\u{0}",
    "é",
    "0777",
    "yes",
];

/// A word of [`WORDS`], or any text.
#[derive(Arbitrary, Debug, Clone)]
pub enum Word {
    /// The word at this index (modulo the list's length).
    Known(u8),
    /// Any text.
    Free(String),
}

impl Word {
    /// The text.
    pub fn text(&self) -> String {
        match self {
            Word::Known(i) => WORDS.get(usize::from(*i) % WORDS.len()).copied().unwrap_or_default().to_owned(),
            Word::Free(s) => s.clone(),
        }
    }
}

/// A JSON value.
#[derive(Arbitrary, Debug, Clone)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A small whole number (the common case of counts and ranks).
    Small(u8),
    /// Any whole number.
    Int(i64),
    /// Any float (not finite becomes `null`, as `serde_json` holds it).
    Float(f64),
    /// A string.
    Str(Word),
    /// An array.
    Array(Vec<Json>),
    /// An object (later keys replace earlier ones).
    Object(Vec<(Word, Json)>),
}

impl Json {
    /// The value.
    pub fn value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Small(n) => Value::from(*n),
            Json::Int(n) => Value::from(*n),
            Json::Float(f) => Value::from(*f),
            Json::Str(w) => Value::String(w.text()),
            Json::Array(items) => Value::Array(items.iter().map(Json::value).collect()),
            Json::Object(entries) => Value::Object(entries.iter().map(|(k, v)| (k.text(), v.value())).collect()),
        }
    }
}

/// One change to a document: walk down by `path` (each step picks a child, modulo the count of
/// children, and stops early at a leaf), then do `op` there.
#[derive(Arbitrary, Debug, Clone)]
pub struct Mutation {
    /// The children to walk into.
    pub path: Vec<u8>,
    /// What to do at the place reached.
    pub op: Op,
}

/// What a [`Mutation`] does.
#[derive(Arbitrary, Debug, Clone)]
pub enum Op {
    /// Replace the value.
    Replace(Json),
    /// Take the value away from its object or array.
    Remove,
    /// Add a key to the object (or replace its value).
    Insert(Word, Json),
    /// Add an item to the array.
    Push(Json),
}

/// Applies `mutation` to `doc`.
pub fn mutate(doc: &mut Value, mutation: &Mutation) {
    walk(doc, &mutation.path, &mutation.op);
}

fn walk(doc: &mut Value, path: &[u8], op: &Op) {
    let Some((first, rest)) = path.split_first() else {
        return at_place(doc, op);
    };
    let step = usize::from(*first);
    // The last step decides whether a child is removed from here.
    let removing = rest.is_empty() && matches!(op, Op::Remove);
    match doc {
        Value::Object(map) if !map.is_empty() => {
            let Some(key) = map.keys().nth(step % map.len()).cloned() else { return };
            if removing {
                map.remove(&key);
            } else if let Some(child) = map.get_mut(&key) {
                walk(child, rest, op);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let i = step % items.len();
            if removing {
                items.remove(i);
            } else if let Some(child) = items.get_mut(i) {
                walk(child, rest, op);
            }
        }
        leaf => at_place(leaf, op),
    }
}

fn at_place(doc: &mut Value, op: &Op) {
    match (op, doc) {
        (Op::Replace(v), doc) => *doc = v.value(),
        (Op::Insert(k, v), Value::Object(map)) => {
            map.insert(k.text(), v.value());
        }
        (Op::Push(v), Value::Array(items)) => items.push(v.value()),
        (Op::Remove, doc) => *doc = Value::Null,
        _ => {}
    }
}

/// A document: one of the valid documents below with mutations, or a value built from nothing.
#[derive(Arbitrary, Debug, Clone)]
pub enum Doc {
    /// [`base`] of this index, changed by the mutations.
    Mutated(u8, Vec<Mutation>),
    /// Any value.
    Free(Json),
}

impl Doc {
    /// The document.
    pub fn value(&self) -> Value {
        match self {
            Doc::Mutated(i, mutations) => {
                let mut doc = base(*i);
                for m in mutations {
                    mutate(&mut doc, m);
                }
                doc
            }
            Doc::Free(j) => j.value(),
        }
    }
}

/// The number of [`base`] documents.
pub const BASES: u8 = 6;

/// Valid documents of each input kind (modulo [`BASES`]): DLRover's stored job and plan, a job
/// with every replica type, a plan for it, observed pods, a sparse cluster.
pub fn base(i: u8) -> Value {
    match i % BASES {
        0 => serde_json::from_str(include_str!("../../tests/fixtures/dlrover/stored-elasticjob.json"))
            .unwrap_or_default(),
        1 => {
            serde_json::from_str(include_str!("../../tests/fixtures/dlrover/stored-scaleplan.json")).unwrap_or_default()
        }
        2 => every_type_job(),
        3 => json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ScalePlan",
            "metadata": {"name": "fuzz-plan", "namespace": "ns", "labels": {"elasticjob-name": "fuzz", "scale-type": "auto"}},
            "spec": {
                "ownerJob": "fuzz",
                "replicaResourceSpecs": {"worker": {"replicas": 3, "resource": {"cpu": "1", "memory": "1Gi"}}, "ps": {"replicas": 1}},
                "createPods": [{"name": "fuzz-edljob-ps-5", "id": 5, "type": "ps", "rankIndex": 0, "service": "fuzz-edljob-ps-5:2222"}],
                "removePods": [{"name": "fuzz-edljob-worker-1", "id": 1, "type": "worker"}],
                "migratePods": [{"name": "fuzz-edljob-worker-0", "resource": {"memory": "2Gi"}}],
                "psHosts": ["fuzz-edljob-ps-5:2222"]
            },
            "status": {"phase": "Pending"}
        }),
        4 => json!({"items": [
            {"metadata": {"name": "fuzz-edljob-worker-0", "labels": {"elasticjob.dlrover/name": "fuzz",
                "elasticjob.dlrover/replica-type": "worker", "elasticjob.dlrover/replica-index": "0",
                "elasticjob.dlrover/rank-index": "0", "restart-count": "3"}},
             "spec": {"containers": [{"name": "main", "image": "tf:2", "resources": {"limits": {"memory": "1Gi"}}}]},
             "status": {"phase": "Failed", "containerStatuses": [{"name": "main", "image": "tf:2", "imageID": "",
                "ready": false, "restartCount": 0, "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}},
            {"metadata": {"name": "elasticjob-fuzz-dlrover-master", "labels": {"elasticjob.dlrover/name": "fuzz",
                "elasticjob.dlrover/replica-type": "dlrover-master"}}, "status": {"phase": "Running"}}
        ]}),
        _ => {
            json!({"worker": {"0": "w-0:3333", "1": "w-1:3333"}, "ps": ["p-0:2222"], "chief": {"0": "c-0:3333"}, "evaluator": {}})
        }
    }
}

/// A job with every replica type, resources, limits, labels, master arguments and envs.
pub fn every_type_job() -> Value {
    let spec = |n: i32| {
        json!({"replicas": n, "restartCount": 2, "restartPolicy": "ExitCode", "template": {
            "metadata": {"labels": {"team": "ads"}},
            "spec": {"containers": [{"name": "main", "image": "tf:2",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}}}]}}})
    };
    json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
        "metadata": {"name": "fuzz", "namespace": "ns", "uid": "00000000-0000-4000-8000-000000000001",
            "labels": {"team": "ads"}, "annotations": {"pending_timeout": "900", "service_type": "grpc"}},
        "spec": {
            "distributionStrategy": "ParameterServerStrategy",
            "resourceLimits": {"cpu": "64", "memory": "128Gi"},
            "envs": {"A": {"name": "A", "value": "1"}},
            "replicaSpecs": {"ps": spec(2), "worker": spec(3), "chief": spec(1), "evaluator": spec(1)}
        }
    })
}
