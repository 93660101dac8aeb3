//! (c) Arbitrary sparse cluster maps to TF_CONFIG: `SparseClusterSpec::to_dense` and
//! `insert_tf_config_to_env` on a container that may already carry env vars, `TF_CONFIG` among
//! them; and the same cluster read back from its JSON by the core's reader.
//!
//! Checked: the dense form exists exactly when every keyed list holds the indices 0..n, and then
//! lists the addresses in index order; a hole is `tf_config_hole` at `sparseCluster.<job>` and
//! leaves the container as it was; the value written is TensorFlow's dense form (`ps` and `chief`
//! always lists, never `null`) for the task asked for, and the one a pod runs with (the last env
//! var of that name wins in Kubernetes); the same input gives the same bytes; the JSON of a sparse
//! cluster reads back the same.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use elasticjob::podspec::Container;
use elasticjob::podspec::EnvVar;
use elasticjob::tfconfig::{SparseClusterSpec, TfConfig};
use elasticjob::{Code, ReplicaType, parse};

use super::check::{self, Root};

/// The variable TensorFlow reads its cluster from.
const TF_CONFIG: &str = "TF_CONFIG";

/// An index: mostly a small one, so that dense lists are common.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Index {
    Small(u8),
    Any(u32),
}

impl Index {
    fn get(self) -> u32 {
        match self {
            Index::Small(i) => u32::from(i % 8),
            Index::Any(i) => i,
        }
    }
}

/// The input, as `arbitrary` builds it from the bytes.
#[derive(Arbitrary, Debug)]
pub struct Input {
    worker: Vec<(Index, String)>,
    ps: Vec<String>,
    chief: Vec<(Index, String)>,
    evaluator: Vec<(Index, String)>,
    task_type: u8,
    rank: u32,
    /// Env vars already on the container: (name is TF_CONFIG, other name, value).
    env: Vec<(bool, String, String)>,
}

fn keyed(list: &[(Index, String)]) -> BTreeMap<u32, String> {
    list.iter().map(|(i, a)| (i.get(), a.clone())).collect()
}

/// The target.
pub fn run(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    check_input(&input);
}

/// Every check on one input.
pub fn check_input(input: &Input) {
    let sparse = SparseClusterSpec {
        worker: keyed(&input.worker),
        ps: input.ps.clone(),
        chief: keyed(&input.chief),
        evaluator: keyed(&input.evaluator),
    };
    let task_type = ReplicaType::ALL[usize::from(input.task_type) % ReplicaType::ALL.len()];
    let env: Vec<EnvVar> = input
        .env
        .iter()
        .map(|(tf, name, value)| EnvVar {
            name: if *tf { TF_CONFIG.to_owned() } else { name.clone() },
            value: Some(value.clone()),
            value_from: None,
        })
        .collect();
    let container = Container { name: "main".into(), env: (!env.is_empty()).then_some(env), ..Container::default() };

    // The dense form exists exactly when every keyed list is 0..n.
    let dense = check::deterministic("to_dense", || {
        sparse.to_dense().map(|d| TfConfig { cluster: d, task: task(task_type, 0) })
    });
    let holes = [("worker", &sparse.worker), ("chief", &sparse.chief), ("evaluator", &sparse.evaluator)]
        .into_iter()
        .find(|(_, map)| map.keys().copied().ne(0..map.len() as u32));
    match (&dense, holes) {
        (Ok(config), None) => {
            let c = &config.cluster;
            assert!(c.worker.iter().eq(sparse.worker.values()) && c.ps == sparse.ps);
            assert!(c.chief.iter().eq(sparse.chief.values()) && c.evaluator.iter().eq(sparse.evaluator.values()));
        }
        (Err(e), Some((job, _))) => {
            check::error(e, Root::Document);
            let first = e.problems().first().map(|p| (p.path.as_str(), p.code));
            assert_eq!(first, Some((format!("sparseCluster.{job}").as_str(), Code::TfConfigHole)), "{e}");
        }
        (dense, holes) => panic!("to_dense gave {dense:?} for a cluster whose first hole is {holes:?}"),
    }

    // Written into a container.
    let mut written = container.clone();
    let result = elasticjob::insert_tf_config_to_env(&mut written, &sparse, task_type, input.rank);
    let mut again = container.clone();
    let second = elasticjob::insert_tf_config_to_env(&mut again, &sparse, task_type, input.rank);
    assert!(written == again && result == second, "insert_tf_config_to_env gave two answers for one input");
    match (result, dense) {
        (Ok(()), Ok(config)) => {
            let env = written.env.clone().unwrap_or_default();
            // What the pod runs with: Kubernetes lets the last of several vars of a name win.
            let Some(value) = env.iter().rev().find(|e| e.name == TF_CONFIG).and_then(|e| e.value.as_deref()) else {
                panic!("no TF_CONFIG written: {env:?}")
            };
            let read: TfConfig = match serde_json::from_str(value) {
                Ok(read) => read,
                Err(e) => panic!("the TF_CONFIG written is not TensorFlow's form: {e}: {value}"),
            };
            assert_eq!(read.cluster, config.cluster, "the TF_CONFIG written lists another cluster");
            assert_eq!(read.task, task(task_type, input.rank));
            let lists: serde_json::Value = serde_json::from_str(value).unwrap_or_default();
            for job in ["ps", "chief"] {
                assert!(lists["cluster"][job].is_array(), "`{job}` is not a list in {value}");
            }
            // The other env vars are kept, in their order.
            let others = |env: &[EnvVar]| env.iter().filter(|e| e.name != TF_CONFIG).cloned().collect::<Vec<_>>();
            assert_eq!(others(&env), others(container.env.as_deref().unwrap_or_default()));
        }
        (Err(e), Err(_)) => {
            check::error(&e, Root::Document);
            assert!(written == container, "a refused TF_CONFIG changed the container");
        }
        (result, dense) => panic!("insert_tf_config_to_env gave {result:?} where to_dense gave {dense:?}"),
    }

    // The JSON of the sparse cluster reads back the same through the core's reader.
    let text = serde_json::to_string(&sparse).unwrap_or_default();
    match parse::from_json::<SparseClusterSpec>(&text) {
        Ok((read, unknown)) => {
            assert_eq!(read, sparse, "the sparse cluster read back differs: {text}");
            assert!(unknown.is_empty());
        }
        Err(e) => panic!("the JSON of a sparse cluster is refused: {e}: {text}"),
    }
}

fn task(type_: ReplicaType, index: u32) -> elasticjob::tfconfig::TaskSpec {
    elasticjob::tfconfig::TaskSpec { type_, index }
}
