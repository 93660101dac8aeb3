//! What a JavaScript caller of the bindings sees, run in Node (`tests/node.rs`) and in headless
//! Chromium (`tests/browser.rs`): plain objects in the core's field order, the same bytes as the
//! core, and `ElasticJobError`s that name the field at fault.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::{Options, parse};
use elasticjob_wasm as ej;
use js_sys::{Array, JSON, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const JOB: &str = r#"{
  "apiVersion": "elastic.iml.github.io/v1alpha1",
  "kind": "ElasticJob",
  "metadata": {"name": "mnist", "namespace": "training"},
  "spec": {
    "distributionStrategy": "ParameterServerStrategy",
    "replicaSpecs": {
      "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2",
        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}},
      "worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}
    }
  }
}"#;

const NOW: &str = "2026-01-02T03:04:05Z";

fn js(text: &str) -> JsValue {
    JSON::parse(text).unwrap()
}

fn job() -> JsValue {
    js(JOB)
}

/// `a.b[0].c` of a JavaScript value.
fn get(value: &JsValue, path: &str) -> JsValue {
    let mut v = value.clone();
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, Some(rest.trim_end_matches(']').parse::<u32>().unwrap())),
            None => (part, None),
        };
        if !name.is_empty() {
            v = Reflect::get(&v, &JsValue::from_str(name)).unwrap();
        }
        if let Some(i) = index {
            v = Reflect::get_u32(&v, i).unwrap();
        }
    }
    v
}

fn string(value: &JsValue, path: &str) -> String {
    get(value, path).as_string().unwrap_or_else(|| panic!("{path} is not a string"))
}

fn stringify(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
}

fn set(object: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(object, &JsValue::from_str(key), value).unwrap();
}

/// The thrown value, checked to be an `ElasticJobError`, and its `(path, code)` pairs.
fn thrown(result: Result<JsValue, JsValue>) -> (JsValue, Vec<(String, String)>) {
    let error = result.expect_err("the call should throw");
    assert!(error.is_instance_of::<js_sys::Error>(), "not an Error: {error:?}");
    assert!(error.is_instance_of::<ej::ElasticJobError>(), "not an ElasticJobError: {error:?}");
    assert_eq!(string(&error, "name"), "ElasticJobError");
    let errors: Array = get(&error, "errors").dyn_into().expect("errors is an array");
    let problems = errors.iter().map(|p| (string(&p, "path"), string(&p, "code"))).collect();
    (error, problems)
}

fn pair(path: &str, code: &str) -> (String, String) {
    (path.to_owned(), code.to_owned())
}

#[wasm_bindgen_test]
fn render_returns_plain_objects_with_the_bytes_of_the_core() {
    let list = ej::render(job(), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(string(&list, "apiVersion"), "v1");
    assert_eq!(string(&list, "kind"), "List");
    // The master pod and service, one PS and two workers with a service each.
    assert_eq!(Array::from(&get(&list, "items")).length(), 8);
    // Maps (labels, requests) are plain objects, not `Map`s.
    let labels = get(&list, "items[2].metadata.labels");
    assert_eq!(Object::get_prototype_of(&labels), Object::get_prototype_of(&Object::new()));
    assert_eq!(string(&list, "items[2].spec.containers[0].resources.requests.memory"), "2Gi");

    let native =
        elasticjob::render(&parse::job(serde_json::from_str(JOB).unwrap()).unwrap(), None, &Options::default())
            .unwrap();
    assert_eq!(stringify(&list), serde_json::to_string(&native).unwrap());
}

#[wasm_bindgen_test]
fn tf_config_is_the_env_value_of_the_core() {
    let value = ej::tf_config(job(), "worker".into(), 1.into(), JsValue::NULL).unwrap();
    assert_eq!(
        value,
        r#"{"cluster":{"worker":["mnist-edljob-worker-0:3333","mnist-edljob-worker-1:3333"],"ps":["mnist-edljob-ps-0:2222"],"chief":[]},"task":{"type":"worker","index":1}}"#
    );
}

#[wasm_bindgen_test]
fn a_wrong_type_is_reported_at_its_path() {
    let job = job();
    set(&get(&job, "spec.replicaSpecs.worker"), "replicas", &"three".into());
    let (error, problems) = thrown(ej::render(job, JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(problems, [pair("spec.replicaSpecs.worker.replicas", "invalid_type")]);
    assert!(string(&error, "message").starts_with("spec.replicaSpecs.worker.replicas: invalid type"));
}

#[wasm_bindgen_test]
fn unknown_fields_are_all_reported() {
    let job = job();
    set(&get(&job, "spec.replicaSpecs.worker"), "replica", &3.into());
    set(&get(&job, "metadata"), "nmae", &"x".into());
    let (error, problems) = thrown(ej::initial_scale_plan(job));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(
        problems,
        [pair("metadata.nmae", "unknown_field"), pair("spec.replicaSpecs.worker.replica", "unknown_field")]
    );
}

#[wasm_bindgen_test]
fn undefined_properties_are_absent_and_null_is_not() {
    let job = job();
    set(&job, "status", &JsValue::UNDEFINED);
    set(&get(&job, "metadata"), "labels", &JsValue::UNDEFINED);
    assert!(ej::render(job.clone(), JsValue::UNDEFINED, JsValue::UNDEFINED).is_ok());
    set(&get(&job, "spec"), "replicaSpecs", &JsValue::NULL);
    let (_, problems) = thrown(ej::render(job, JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(problems, [pair("spec.replicaSpecs", "invalid_type")]);
}

#[wasm_bindgen_test]
fn values_json_cannot_hold_are_refused_at_their_path() {
    let cases: [(&str, JsValue); 4] = [
        ("metadata.labels", js_sys::Map::new().into()),
        ("metadata.generation", JsValue::from_f64(f64::NAN)),
        ("metadata.uid", js_sys::BigInt::from(7).into()),
        ("spec.replicaSpecs.worker.template.spec.containers[0].args", js_sys::Set::new(&JsValue::UNDEFINED).into()),
    ];
    for (path, value) in cases {
        let job = job();
        let (parent, key) = path.rsplit_once('.').unwrap();
        set(&get(&job, parent), key, &value);
        let (error, problems) = thrown(ej::render(job, JsValue::UNDEFINED, JsValue::UNDEFINED));
        assert_eq!(string(&error, "code"), "parse_error");
        assert_eq!(problems, [pair(path, "invalid_type")], "{path}");
    }
}

#[wasm_bindgen_test]
fn a_cycle_is_refused_not_a_stack_overflow() {
    let job = job();
    set(&get(&job, "metadata"), "labels", &job);
    let (_, problems) = thrown(ej::render(job, JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(problems.len(), 1);
    assert!(problems[0].0.starts_with("metadata.labels.metadata.labels."), "{problems:?}");
}

#[wasm_bindgen_test]
fn paths_in_other_arguments_start_with_their_name() {
    let plan = js(r#"{"spec": {"psHosts": [5]}}"#);
    let (_, problems) = thrown(ej::render(job(), plan, JsValue::UNDEFINED));
    assert_eq!(problems, [pair("scalePlan.spec.psHosts[0]", "invalid_type")]);

    let options = js(r#"{"masterImage": "m:1", "mastrImage": "x"}"#);
    let (_, problems) = thrown(ej::render(job(), JsValue::NULL, options));
    assert_eq!(problems, [pair("options.mastrImage", "unknown_field")]);

    let pods = js(r#"[{"metadata": {"name": "p"}, "status": {"phase": 5}}]"#);
    let (_, problems) = thrown(ej::reconcile(job(), JsValue::NULL, pods, NOW.into(), JsValue::UNDEFINED));
    assert_eq!(problems, [pair("pods[0].status.phase", "invalid_type")]);

    let (_, problems) =
        thrown(ej::reconcile(job(), JsValue::NULL, Array::new().into(), "yesterday".into(), JsValue::UNDEFINED));
    assert_eq!(problems, [pair("now", "invalid_value")]);

    let error = ej::tf_config(job(), "workers".into(), 0.into(), JsValue::UNDEFINED).map(JsValue::from);
    assert_eq!(thrown(error).1, [pair("replicaType", "invalid_value")]);
    let error = ej::tf_config(job(), "worker".into(), (-1).into(), JsValue::UNDEFINED).map(JsValue::from);
    assert_eq!(thrown(error).1, [pair("index", "invalid_value")]);
}

#[wasm_bindgen_test]
fn a_date_is_read_as_its_json_time() {
    let date = js_sys::Date::new(&NOW.into());
    let with_date = ej::reconcile(job(), JsValue::NULL, Array::new().into(), date.into(), JsValue::UNDEFINED).unwrap();
    let with_text = ej::reconcile(job(), JsValue::NULL, Array::new().into(), NOW.into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(stringify(&with_date), stringify(&with_text));
    assert_eq!(string(&with_text, "phases[1].actions[0].action"), "createPod");
}

#[wasm_bindgen_test]
fn validate_answers_instead_of_throwing() {
    let valid = ej::validate(job()).unwrap();
    assert_eq!(stringify(&valid), r#"{"valid":true}"#);
    let job = job();
    set(&get(&job, "metadata"), "name", &"Deep_CTR".into());
    set(&get(&job, "spec.replicaSpecs.worker"), "replicas", &(-2).into());
    let invalid = ej::validate(job).unwrap();
    assert_eq!(get(&invalid, "valid"), JsValue::FALSE);
    assert_eq!(string(&invalid, "error.code"), "invalid");
    assert_eq!(string(&invalid, "error.errors[0].path"), "metadata.name");
    assert_eq!(string(&invalid, "error.errors[1].path"), "spec.replicaSpecs.worker.replicas");

    let plan = ej::validate_scale_plan(js(r#"{"spec": {"psHosts": ["nocolon"]}}"#)).unwrap();
    assert_eq!(string(&plan, "error.errors[0].path"), "scalePlan.spec.psHosts[0]");
}

#[wasm_bindgen_test]
fn insert_tf_config_to_env_returns_the_container() {
    let container =
        js(r#"{"name": "main", "env": [{"name": "TF_CONFIG", "value": "old"}, {"name": "A", "value": "1"}]}"#);
    let cluster = js(r#"{"worker": {"0": "w0:2222", "1": "w1:2222"}, "ps": ["ps0:2222"]}"#);
    let out = ej::insert_tf_config_to_env(container, cluster, "worker".into(), 1.into()).unwrap();
    assert_eq!(string(&out, "env[0].name"), "TF_CONFIG");
    assert_eq!(
        string(&out, "env[0].value"),
        r#"{"cluster":{"worker":["w0:2222","w1:2222"],"ps":["ps0:2222"],"chief":[]},"task":{"type":"worker","index":1}}"#
    );
    assert_eq!(string(&out, "env[1].name"), "A");

    let holey = js(r#"{"worker": {"1": "w1:2222"}}"#);
    let (_, problems) =
        thrown(ej::insert_tf_config_to_env(js(r#"{"name": "main"}"#), holey, "worker".into(), 1.into()));
    assert_eq!(problems, [pair("sparseCluster.worker", "tf_config_hole")]);
}

#[wasm_bindgen_test]
fn summary_lists_every_object() {
    let list = ej::render(job(), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    let rows = ej::summary(list).unwrap();
    assert_eq!(Array::from(&rows).length(), 8);
    assert_eq!(string(&rows, "[2].name"), "mnist-edljob-ps-0");
    assert_eq!(string(&rows, "[2].task"), "ps:0");
    assert_eq!(string(&rows, "[2].cpu"), "1");
}

#[wasm_bindgen_test]
fn render_summary_is_summary_of_render_with_ports() {
    let rows = ej::render_summary(job(), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    let list = ej::render(job(), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    let summary = ej::summary(list).unwrap();
    assert_eq!(Array::from(&rows).length(), 8);
    assert_eq!(string(&rows, "[2].name"), string(&summary, "[2].name"));
    assert_eq!(string(&rows, "[2].task"), "ps:0");
    assert_eq!(get(&rows, "[2].port").as_f64(), Some(2222.0));
    assert_eq!(get(&rows, "[5].port").as_f64(), Some(3333.0));
    assert_eq!(get(&rows, "[0].port").as_f64(), Some(50001.0));
}

#[wasm_bindgen_test]
fn render_item_is_one_object_of_render() {
    let list = ej::render(job(), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    let item = ej::render_item(job(), JsValue::from(6), JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(stringify(&item), stringify(&get(&list, "items[6]")));
    let (error, problems) = thrown(ej::render_item(job(), JsValue::from(8), JsValue::UNDEFINED, JsValue::UNDEFINED));
    assert_eq!(string(&error, "code"), "invalid");
    assert_eq!(problems, [pair("index", "out_of_range")]);
}
