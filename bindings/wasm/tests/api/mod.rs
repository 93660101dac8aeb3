//! What a host of the bindings sees, run in Node (`tests/node.rs`) and in headless Chromium
//! (`tests/browser.rs`): JSON text in, the core's bytes out, and `ElasticJobError`s that name the
//! field at fault. (What the package's object functions add, refusing values JSON cannot hold at
//! their path, is tested from JavaScript in pkg/test/errors.test.js and pkg/test/browser.test.js.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::{Options, parse};
use elasticjob_wasm as ej;
use js_sys::{Array, Reflect};
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const JOB: &str = r#"{
  "apiVersion": "elastic.iml.github.io/v1alpha1",
  "kind": "ElasticJob",
  "metadata": {"name": "mnist", "namespace": "training", "uid": "u-1"},
  "spec": {
    "distributionStrategy": "ParameterServerStrategy",
    "replicaSpecs": {
      "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2",
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}},
      "worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}
    }
  }
}"#;

const NOW: &str = r#""2026-01-02T03:04:05Z""#;

fn job() -> Value {
    serde_json::from_str(JOB).unwrap()
}

/// A function's result as Rust text (every function returns a JavaScript string).
fn text_of(result: Result<js_sys::JsString, JsValue>) -> Result<String, JsValue> {
    result.map(String::from)
}

fn text(value: &Value) -> String {
    value.to_string()
}

fn read(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn string(value: &JsValue, key: &str) -> String {
    Reflect::get(value, &JsValue::from_str(key)).unwrap().as_string().unwrap_or_else(|| panic!("{key} is not a string"))
}

/// The thrown value, checked to be an `ElasticJobError`, and its `(path, code)` pairs.
fn thrown<T: std::fmt::Debug>(result: Result<T, JsValue>) -> (JsValue, Vec<(String, String)>) {
    let error = result.expect_err("the call should throw");
    problems_of(error)
}

fn problems_of(error: JsValue) -> (JsValue, Vec<(String, String)>) {
    assert!(error.is_instance_of::<js_sys::Error>(), "not an Error: {error:?}");
    assert!(error.is_instance_of::<ej::ElasticJobError>(), "not an ElasticJobError: {error:?}");
    assert_eq!(string(&error, "name"), "ElasticJobError");
    let errors: Array = Reflect::get(&error, &"errors".into()).unwrap().dyn_into().expect("errors is an array");
    let problems = errors.iter().map(|p| (string(&p, "path"), string(&p, "code"))).collect();
    (error, problems)
}

fn pair(path: &str, code: &str) -> (String, String) {
    (path.to_owned(), code.to_owned())
}

#[wasm_bindgen_test]
fn render_gives_the_bytes_of_the_core() {
    let list = text_of(ej::render(JOB, None, None, None)).unwrap();
    let native = elasticjob::render(&parse::job(job()).unwrap(), None, &Options::default()).unwrap();
    assert_eq!(list, serde_json::to_string(&native).unwrap());
    // The master pod and service, one PS and two workers with a service each.
    assert_eq!(read(&list)["items"].as_array().map(Vec::len), Some(8));
    // Pretty: as `JSON.stringify(list, null, 2)` writes it.
    let pretty = text_of(ej::render(JOB, None, None, Some(true))).unwrap();
    assert_eq!(pretty, serde_json::to_string_pretty(&native).unwrap());
}

#[wasm_bindgen_test]
fn tf_config_is_the_env_value_of_the_core() {
    // DLRover's master runs one of the two workers as the chief.
    let value = text_of(ej::tf_config(JOB, r#""worker""#, "0", None)).unwrap();
    assert_eq!(
        value,
        r#"{"cluster":{"worker":["mnist-edljob-worker-0:3333"],"ps":["mnist-edljob-ps-0:2222"],"chief":["mnist-edljob-chief-0:3333"]},"task":{"type":"worker","index":0}}"#
    );
}

#[wasm_bindgen_test]
fn a_wrong_type_is_reported_at_its_path() {
    let mut job = job();
    job["spec"]["replicaSpecs"]["worker"]["replicas"] = json!("three");
    let (error, problems) = thrown(text_of(ej::render(&text(&job), None, None, None)));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(problems, [pair("spec.replicaSpecs.worker.replicas", "invalid_type")]);
    assert!(string(&error, "message").starts_with("spec.replicaSpecs.worker.replicas: invalid type"));
}

#[wasm_bindgen_test]
fn unknown_fields_are_all_reported() {
    let mut job = job();
    job["spec"]["replicaSpecs"]["worker"]["replica"] = json!(3);
    job["metadata"]["nmae"] = json!("x");
    let (error, problems) = thrown(text_of(ej::initial_scale_plan(&text(&job))));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(
        problems,
        [pair("metadata.nmae", "unknown_field"), pair("spec.replicaSpecs.worker.replica", "unknown_field")]
    );
}

#[wasm_bindgen_test]
fn text_that_is_not_json_is_a_syntax_problem_at_its_argument() {
    let (error, problems) = thrown(text_of(ej::render("{\"metadata\": ", None, None, None)));
    assert_eq!(string(&error, "code"), "parse_error");
    assert_eq!(problems, [pair("", "syntax")]);
    assert!(string(&error, "message").contains("line 1 column"), "{}", string(&error, "message"));
    let (_, problems) = thrown(text_of(ej::reconcile(JOB, None, "[{]", NOW, None)));
    assert_eq!(problems, [pair("pods", "syntax")]);
}

#[wasm_bindgen_test]
fn null_is_not_absent_for_a_required_field() {
    let mut job = job();
    job["spec"]["replicaSpecs"] = Value::Null;
    let (_, problems) = thrown(text_of(ej::render(&text(&job), None, None, None)));
    assert_eq!(problems, [pair("spec.replicaSpecs", "invalid_type")]);
    // An optional argument given as `null` is absent.
    assert_eq!(
        text_of(ej::render(JOB, Some("null".into()), Some("null".into()), None)),
        text_of(ej::render(JOB, None, None, None))
    );
}

#[wasm_bindgen_test]
fn paths_in_other_arguments_start_with_their_name() {
    let (_, problems) = thrown(text_of(ej::render(JOB, Some(r#"{"spec": {"psHosts": [5]}}"#.into()), None, None)));
    assert_eq!(problems, [pair("scalePlan.spec.psHosts[0]", "invalid_type")]);

    let (_, problems) =
        thrown(text_of(ej::render(JOB, None, Some(r#"{"masterImage": "m:1", "mastrImage": "x"}"#.into()), None)));
    assert_eq!(problems, [pair("options.mastrImage", "unknown_field")]);

    let pods = r#"[{"metadata": {"name": "p"}, "status": {"phase": 5}}]"#;
    let (_, problems) = thrown(text_of(ej::reconcile(JOB, None, pods, NOW, None)));
    assert_eq!(problems, [pair("pods[0].status.phase", "invalid_type")]);

    let (_, problems) = thrown(text_of(ej::reconcile(JOB, None, "[]", r#""yesterday""#, None)));
    assert_eq!(problems, [pair("now", "invalid_value")]);
    let (_, problems) = thrown(text_of(ej::reconcile(JOB, None, "[]", "5", None)));
    assert_eq!(problems, [pair("now", "invalid_type")]);

    assert_eq!(
        thrown(text_of(ej::tf_config(JOB, r#""workers""#, "0", None))).1,
        [pair("replicaType", "invalid_value")]
    );
    assert_eq!(thrown(text_of(ej::tf_config(JOB, r#""worker""#, "-1", None))).1, [pair("index", "invalid_value")]);
}

#[wasm_bindgen_test]
fn not_json_is_the_error_of_a_value_json_cannot_hold_at_its_path() {
    let (error, problems) = problems_of(ej::not_json("pods", r#"[3,"metadata","labels"]"#, "a Map is not JSON"));
    assert_eq!(string(&error, "code"), "parse_error");
    assert_eq!(problems, [pair("pods[3].metadata.labels", "invalid_type")]);
    assert_eq!(string(&error, "message"), "pods[3].metadata.labels: a Map is not JSON");
    // Empty keys keep their place; the job's own paths have no root.
    assert_eq!(problems_of(ej::not_json("", r#"["","",0]"#, "x")).1, [pair(".[0]", "invalid_type")]);
    assert_eq!(problems_of(ej::not_json("now", "[]", "x")).1, [pair("now", "invalid_type")]);
}

#[wasm_bindgen_test]
fn validate_answers_instead_of_throwing() {
    assert_eq!(text_of(ej::validate(JOB)).unwrap(), r#"{"valid":true}"#);
    let mut job = job();
    job["metadata"]["name"] = json!("Deep_CTR");
    job["spec"]["replicaSpecs"]["worker"]["replicas"] = json!(-2);
    let invalid = read(&text_of(ej::validate(&text(&job))).unwrap());
    assert_eq!(invalid["valid"], json!(false));
    assert_eq!(invalid["error"]["code"], json!("invalid"));
    assert_eq!(invalid["error"]["errors"][0]["path"], json!("metadata.name"));
    assert_eq!(invalid["error"]["errors"][1]["path"], json!("spec.replicaSpecs.worker.replicas"));
    let syntax = read(&text_of(ej::validate("{")).unwrap());
    assert_eq!(syntax["error"]["errors"][0]["code"], json!("syntax"));

    let plan = read(&text_of(ej::validate_scale_plan(r#"{"spec": {"psHosts": ["nocolon"]}}"#)).unwrap());
    assert_eq!(plan["error"]["errors"][0]["path"], json!("scalePlan.spec.psHosts[0]"));
}

#[wasm_bindgen_test]
fn insert_tf_config_to_env_returns_the_container() {
    let container = r#"{"name": "main", "env": [{"name": "TF_CONFIG", "value": "old"}, {"name": "A", "value": "1"}]}"#;
    let cluster = r#"{"worker": {"0": "w0:2222", "1": "w1:2222"}, "ps": ["ps0:2222"]}"#;
    let out = read(&text_of(ej::insert_tf_config_to_env(container, cluster, r#""worker""#, "1")).unwrap());
    assert_eq!(out["env"][0]["name"], json!("TF_CONFIG"));
    assert_eq!(
        out["env"][0]["value"],
        json!(
            r#"{"cluster":{"worker":["w0:2222","w1:2222"],"ps":["ps0:2222"],"chief":[]},"task":{"type":"worker","index":1}}"#
        )
    );
    assert_eq!(out["env"][1]["name"], json!("A"));

    let holey = r#"{"worker": {"1": "w1:2222"}}"#;
    let (_, problems) = thrown(text_of(ej::insert_tf_config_to_env(r#"{"name": "main"}"#, holey, r#""worker""#, "1")));
    assert_eq!(problems, [pair("sparseCluster.worker", "tf_config_hole")]);
}

#[wasm_bindgen_test]
fn summary_lists_every_object() {
    let list = text_of(ej::render(JOB, None, None, None)).unwrap();
    let rows = read(&text_of(ej::summary(&list)).unwrap());
    assert_eq!(rows.as_array().map(Vec::len), Some(8));
    assert_eq!(rows[2]["name"], json!("mnist-edljob-ps-0"));
    assert_eq!(rows[2]["task"], json!("ps:0"));
    // DLRover's master's: its optimizer's 16 for a PS requesting under 2.
    assert_eq!(rows[2]["cpu"], json!("16"));
}

#[wasm_bindgen_test]
fn render_summary_is_summary_of_render_with_ports() {
    let rows = read(&text_of(ej::render_summary(JOB, None, None)).unwrap());
    let summary = read(&text_of(ej::summary(&text_of(ej::render(JOB, None, None, None)).unwrap())).unwrap());
    assert_eq!(rows.as_array().map(Vec::len), Some(8));
    assert_eq!(rows[2]["name"], summary[2]["name"]);
    assert_eq!(rows[2]["port"], json!(2222));
    assert_eq!(rows[5]["port"], json!(3333));
    assert_eq!(rows[0]["port"], json!(50001));
}

#[wasm_bindgen_test]
fn render_item_is_one_object_of_render() {
    let list = read(&text_of(ej::render(JOB, None, None, None)).unwrap());
    let item = read(&text_of(ej::render_item(JOB, "6", None, None)).unwrap());
    assert_eq!(item, list["items"][6]);
    let (error, problems) = thrown(text_of(ej::render_item(JOB, "8", None, None)));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(problems, [pair("index", "out_of_range")]);
}

#[wasm_bindgen_test]
fn job_key_reads_the_fields_it_is_given() {
    let fields = read(&text_of(ej::job_key_fields()).unwrap());
    assert_eq!(fields[0], json!(["kind"]));
    let pod =
        r#"{"kind": "Pod", "metadata": {"namespace": "training", "labels": {"elasticjob.dlrover/name": "mnist"}}}"#;
    assert_eq!(ej::job_key(pod).unwrap().as_deref(), Some("training/mnist"));
    assert_eq!(ej::job_key(r#"{"kind": "ConfigMap", "metadata": {"name": "x"}}"#).unwrap(), None);
}

#[wasm_bindgen_test]
fn only_what_the_job_controls_is_written_over() {
    let controlled = r#"{"metadata": {"name": "s", "ownerReferences": [{"apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ElasticJob", "name": "mnist", "uid": "u-1", "controller": true}]}}"#;
    assert_eq!(ej::job_controls(JOB, controlled), Ok(true));
    assert_eq!(ej::job_controls(JOB, r#"{"metadata": {"name": "s"}}"#), Ok(false));
}

/// examples/tfjob/evaluator.yaml as JSON.
const TF_JOB: &str = r#"{"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "wide-deep"}, "spec": {"tfReplicaSpecs": {
  "Master": {"restartPolicy": "Never", "template": {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0"}]}}},
  "PS": {"replicas": 1, "restartPolicy": "Never", "template": {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0"}]}}},
  "Worker": {"replicas": 3, "restartPolicy": "Always", "template": {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0"}]}}},
  "Evaluator": {"restartPolicy": "Never", "template": {"spec": {"containers": [{"name": "tensorflow", "image": "tensorflow/tensorflow:2.15.0"}]}}}}}}"#;

#[wasm_bindgen_test]
fn from_tf_job_gives_the_bytes_of_the_fixture() {
    let pretty = text_of(ej::from_tf_job(TF_JOB, Some(true))).unwrap();
    assert_eq!(format!("{pretty}\n"), include_str!("../../../../examples/tfjob/evaluator.converted.json"));
    let native = elasticjob::convert::from_tf_job(read(TF_JOB)).unwrap();
    assert_eq!(text_of(ej::from_tf_job(TF_JOB, None)).unwrap(), serde_json::to_string(&native).unwrap());
    // A TFJob that does not convert: every problem at its TFJob path; a TFJob where an ElasticJob
    // belongs: tf_job at `kind`.
    let mut both = read(TF_JOB);
    both["spec"]["tfReplicaSpecs"]["Chief"] = both["spec"]["tfReplicaSpecs"]["Master"].clone();
    let (_, problems) = thrown(text_of(ej::from_tf_job(&text(&both), None)));
    assert_eq!(problems, [pair("spec.tfReplicaSpecs.Master", "duplicate")]);
    let (_, problems) = thrown(text_of(ej::render(TF_JOB, None, None, None)));
    assert_eq!(problems, [pair("kind", "tf_job")]);
}
