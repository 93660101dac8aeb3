//! (a) Any bytes as an ElasticJob (and, after the first NUL byte, a ScalePlan): read, validated,
//! rendered, planned from an empty cluster, and every TF_CONFIG asked for.
//!
//! Checked: every error says where; what `parse::job` accepts, the plain reader reads and
//! `validate` accepts; the same input gives the same bytes; rendered names are unique; each
//! rendered pod's TF_CONFIG is TensorFlow's dense form, for the task its labels name, and the one
//! `tf_config` gives that task.

use std::collections::BTreeSet;

use elasticjob::tfconfig::TfConfig;
use elasticjob::{
    ElasticJob, LABEL_RANK_INDEX, LABEL_REPLICA_TYPE, Object, Options, ReplicaType, ScalePlan, parse, validate,
};
use serde_json::Value;

use super::check::{self, Root};

/// The target.
pub fn run(data: &[u8]) {
    let (job, plan) = match data.iter().position(|b| *b == 0) {
        Some(at) => (data.get(..at).unwrap_or_default(), data.get(at + 1..)),
        None => (data, None),
    };
    let Ok(text) = std::str::from_utf8(job) else { return };
    let Some(job) = read(text, parse::job) else { return };
    assert!(validate::check_job(&job).is_ok(), "parse::job accepted a job validate refuses");
    let typed = parse::from_json::<ElasticJob>(text);
    assert!(typed.is_ok(), "parse::job accepted a job the plain reader refuses: {:?}", typed.err());
    let plan = plan.and_then(|p| std::str::from_utf8(p).ok()).and_then(|p| read(p, parse::scale_plan));
    let options = Options::default();

    let list = check::deterministic("render", || elasticjob::render(&job, plan.as_ref(), &options));
    match &list {
        Ok(list) => rendered(&job, plan.as_ref(), list),
        Err(e) => check::error(e, Root::Document),
    }
    if let Ok(now) = parse::time("2026-01-01T00:00:00Z") {
        let first =
            check::deterministic("reconcile", || elasticjob::reconcile(&job, plan.as_ref(), &[], &now, &options));
        if let Err(e) = &first {
            check::error(e, Root::Document);
        }
    }
    for t in ReplicaType::ALL {
        for index in [0, 1, 7] {
            if let Err(e) = elasticjob::tf_config(&job, t, index, plan.as_ref()) {
                check::error(&e, Root::Document);
            }
        }
    }
}

/// Reads text with a checking reader; every error is checked, and so is the agreement of the
/// reader that stops at the first problem with the one that reports all of them.
fn read<T: serde::Serialize>(text: &str, reader: fn(Value) -> elasticjob::Result<T>) -> Option<T> {
    let value = match parse::from_json::<Value>(text) {
        Ok((value, _)) => value,
        Err(e) => {
            check::error(&e, Root::Document);
            return None;
        }
    };
    let read = check::deterministic("reading", || reader(value.clone()));
    match read {
        Ok(read) => Some(read),
        Err(e) => {
            check::error(&e, Root::Document);
            None
        }
    }
}

fn rendered(job: &ElasticJob, plan: Option<&ScalePlan>, list: &elasticjob::List) {
    let mut names = BTreeSet::new();
    for item in &list.items {
        let (kind, name) = match item {
            Object::Pod(p) => ("Pod", p.metadata.name.clone()),
            Object::Service(s) => ("Service", s.metadata.name.clone()),
            Object::PodGroup(g) => ("PodGroup", g.metadata.name.clone()),
        };
        assert!(names.insert((kind, name.clone())), "render gave two {kind}s named {name:?}");
    }
    assert_eq!(elasticjob::summary(list).len(), list.items.len(), "a summary row per object");
    for item in &list.items {
        let Object::Pod(p) = item else { continue };
        let main = p.spec.as_ref().and_then(|s| s.containers.first()).and_then(|c| c.env.as_ref());
        let Some(text) = main.into_iter().flatten().find(|e| e.name == "TF_CONFIG").and_then(|e| e.value.as_deref())
        else {
            continue;
        };
        // One TF_CONFIG: Kubernetes would run the container with the last of several.
        let count = main.into_iter().flatten().filter(|e| e.name == "TF_CONFIG").count();
        assert_eq!(count, 1, "{:?} has {count} TF_CONFIG env vars", p.metadata.name);
        let config: TfConfig = match serde_json::from_str(text) {
            Ok(config) => config,
            Err(e) => panic!("a TF_CONFIG that is not TensorFlow's form: {e}: {text}"),
        };
        let label = |key: &str| p.metadata.labels.as_ref().and_then(|l| l.get(key));
        let t = label(LABEL_REPLICA_TYPE).and_then(|t| ReplicaType::parse(t));
        let rank = label(LABEL_RANK_INDEX).and_then(|r| r.parse::<i32>().ok());
        let (Some(t), Some(rank)) = (t, rank) else {
            panic!("a pod with a TF_CONFIG but no type or rank label: {:?}", p.metadata.name)
        };
        assert_eq!(
            (config.task.type_, i64::from(config.task.index)),
            (t, i64::from(rank)),
            "a TF_CONFIG for another task"
        );
        // Each call lays the whole cluster out again: the first ranks suffice.
        if matches!(t, ReplicaType::Worker | ReplicaType::Ps) && rank < 4 {
            let alone = elasticjob::tf_config(job, t, config.task.index, plan);
            assert_eq!(alone.as_deref().ok(), Some(text), "the rendered TF_CONFIG of {t} {rank} is not tf_config's");
        }
    }
}
