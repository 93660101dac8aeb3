//! Golden cases: one folder per case under `tests/golden/`, holding `input.yaml` (the operation
//! and its inputs) and `output.json` (its full result). Any difference fails.
//!
//! Regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test --test golden`, then
//! review the diff. Kueue's cases (the Workload, the admission, the queued pass) are among them.

// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

#[test]
fn golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let cases = |dir: std::path::PathBuf| -> Vec<std::path::PathBuf> {
        let mut dirs: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("input.yaml").exists())
            .collect();
        dirs.sort();
        dirs
    };
    let dirs = cases(common::golden_dir());
    assert!(dirs.len() >= 15, "only {} golden cases", dirs.len());
    let kueue = dirs.iter().filter(|d| common::is_kueue_case(&common::yaml_file(&d.join("input.yaml")))).count();
    assert!(kueue >= 5, "only {kueue} Kueue golden cases");
    let mut failures = Vec::new();
    for dir in &dirs {
        let input = common::yaml_file(&dir.join("input.yaml"));
        let got = common::run_case(&input);
        let expected_path = dir.join("output.json");
        if update {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            let line = got.lines().zip(expected.lines()).position(|(a, b)| a != b).unwrap_or(0);
            failures.push(format!(
                "{}: output differs from output.json at line {}:\n  got:      {}\n  expected: {}",
                dir.display(),
                line + 1,
                got.lines().nth(line).unwrap_or("<end>"),
                expected.lines().nth(line).unwrap_or("<end>")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden case(s) differ (UPDATE_GOLDEN=1 regenerates):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every golden case that renders: its folder, job, scale plan and options.
fn render_cases()
-> Vec<(std::path::PathBuf, elasticjob::ElasticJob, Option<elasticjob::ScalePlan>, elasticjob::Options)> {
    let mut cases = Vec::new();
    for entry in std::fs::read_dir(common::golden_dir()).unwrap() {
        let path = entry.unwrap().path();
        let input = path.join("input.yaml");
        if !input.exists() {
            continue;
        }
        let input = common::yaml_file(&input);
        if input["op"] != "render" {
            continue;
        }
        let Ok(job) = elasticjob::parse::job(input["job"].clone()) else { continue };
        let plan = input.get("scalePlan").map(|p| elasticjob::parse::scale_plan(p.clone()).unwrap());
        let options = input.get("options").map(|o| serde_json::from_value(o.clone()).unwrap()).unwrap_or_default();
        cases.push((path, job, plan, options));
    }
    assert!(cases.len() >= 5, "only {} render cases", cases.len());
    cases
}

/// The summary-only render writes no TF_CONFIG addresses, yet its rows are those of the summary of
/// the full render, for every golden case that renders.
#[test]
fn render_summary_is_the_summary_of_render() {
    for (_, job, plan, options) in render_cases() {
        let full = elasticjob::render(&job, plan.as_ref(), &options).map(|l| elasticjob::summary(&l));
        assert_eq!(elasticjob::render_summary(&job, plan.as_ref(), &options), full);
    }
}

/// `render_json` writes the pods' TF_CONFIGs into the text directly, yet its text is the JSON of
/// `render`'s list, compact and pretty, for every golden case that renders.
#[test]
fn render_json_is_the_text_of_render() {
    for (path, job, plan, options) in render_cases() {
        for pretty in [false, true] {
            let list = elasticjob::render(&job, plan.as_ref(), &options);
            let text = list.map(|l| elasticjob::json::to_text(&l, pretty).unwrap());
            assert_eq!(elasticjob::render_json(&job, plan.as_ref(), &options, pretty), text, "{}", path.display());
        }
    }
}

/// A job whose own values read as `render_json`'s marks (NUL and a number, a NUL alone, the text
/// `\u0000`) still gets the text of `render`'s list: the marks are taken only when they are alone.
#[test]
fn render_json_with_values_that_look_like_marks() {
    for values in [["\u{0}0", "\u{0}1"], ["\u{0}", "x"], ["\\u0000", "\u{0}7"], ["x", "\u{0}3"]] {
        let job = common::job("nul", Some(2), Some(3), Some(1), None);
        let mut job = serde_json::to_value(&job).unwrap();
        job["metadata"]["annotations"] = serde_json::json!({"a": values[0]});
        job["spec"]["replicaSpecs"]["worker"]["template"]["spec"]["containers"][0]["env"] =
            serde_json::json!([{"name": "B", "value": values[1]}]);
        let job = elasticjob::parse::job(job).unwrap();
        let options = elasticjob::Options::default();
        for pretty in [false, true] {
            let text = elasticjob::render(&job, None, &options).map(|l| elasticjob::json::to_text(&l, pretty).unwrap());
            assert_eq!(elasticjob::render_json(&job, None, &options, pretty), text, "{values:?}");
        }
    }
}

/// A store fed a case's plans, pods and services one at a time, as a host's watches feed it, gives
/// the bytes of the pass over them as lists, for every golden case of the controller's pass.
#[test]
fn a_pass_over_a_store_is_the_pass_over_its_objects() {
    use elasticjob::store::{Overlay, Store};
    use serde_json::{Value, json};
    let mut compared = 0;
    for entry in std::fs::read_dir(common::golden_dir()).unwrap() {
        let path = entry.unwrap().path().join("input.yaml");
        if !path.exists() {
            continue;
        }
        let input = common::yaml_file(&path);
        // The queued passes have a test of their own, below.
        if input["op"] != "controllerPass" || common::is_kueue_case(&input) {
            continue;
        }
        let field = |k: &str| input.get(k).cloned().unwrap_or(json!([]));
        // A case whose job is refused has nothing to keep.
        let Ok(job) = input.get("job").map(|j| elasticjob::parse::job(j.clone())).transpose() else { continue };
        let now = elasticjob::parse::time(input["now"].as_str().unwrap()).unwrap();
        let options: elasticjob::Options =
            input.get("options").map(|o| serde_json::from_value(o.clone()).unwrap()).unwrap_or_default();
        let key = job.as_ref().map(|j| {
            format!(
                "{}/{}",
                j.metadata.namespace.clone().unwrap_or_default(),
                j.metadata.name.clone().unwrap_or_default()
            )
        });
        let key = key.unwrap_or_else(|| {
            let plan = &field("scalePlans")[0];
            format!(
                "{}/{}",
                plan["metadata"]["namespace"].as_str().unwrap_or_default(),
                plan["spec"]["ownerJob"].as_str().unwrap()
            )
        });
        let mut store = Store::new();
        let items = |v: Value| v.as_array().cloned().unwrap_or_default();
        let (plans, pods, services) = (items(field("scalePlans")), items(field("pods")), items(field("services")));
        // Only the objects of the job: a list may hold others, which the store keeps elsewhere.
        let groups: Vec<Value> = input.get("podGroup").cloned().into_iter().collect();
        for (kind, objects) in [("ScalePlan", &plans), ("Pod", &pods), ("Service", &services), ("PodGroup", &groups)] {
            for object in objects {
                store.put(kind, object.clone());
            }
        }
        let of_job = |kind: &str, objects: &[Value]| -> Vec<Value> {
            let mut s = Store::new();
            objects.iter().filter(|o| s.put(kind, (*o).clone()).as_deref() == Some(key.as_str())).cloned().collect()
        };
        let listed = elasticjob::parse::scale_plans(Value::Array(of_job("ScalePlan", &plans))).and_then(|plans| {
            let pods = elasticjob::parse::pods(Value::Array(of_job("Pod", &pods)))?;
            let services = elasticjob::parse::services(Value::Array(of_job("Service", &services)))?;
            let pod_group = groups.first().map(|g| elasticjob::parse::pod_group(g.clone())).transpose()?;
            let gates = elasticjob::Gates { queue: None, pod_group: pod_group.as_ref() };
            elasticjob::controller_pass_queued(job.as_ref(), &plans, &pods, &services, gates, &now, &options)
        });
        let stored = store.controller_pass(&key, job.as_ref(), &Overlay::default(), &now, &options);
        assert_eq!(stored, listed, "{key}");
        compared += 1;
    }
    assert!(compared >= 2, "only {compared} controller-pass cases");
}

/// Nothing changes for a job without the queue label: every controller-pass case gives the bytes of
/// its output.json when the host also passes Kueue's state (an empty one: no Workload, no flavour).
#[test]
fn without_the_queue_label_kueues_state_changes_nothing() {
    let mut compared = 0;
    for entry in std::fs::read_dir(common::golden_dir()).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("input.yaml").exists() {
            continue;
        }
        let mut input = common::yaml_file(&dir.join("input.yaml"));
        if input["op"] != "controllerPass" || common::is_kueue_case(&input) {
            continue;
        }
        let labels = &input["job"]["metadata"]["labels"];
        assert!(
            labels.get("kueue.x-k8s.io/queue-name").is_none(),
            "{}: a queued job among the plain cases",
            dir.display()
        );
        input["queue"] = serde_json::json!({});
        let expected = std::fs::read_to_string(dir.join("output.json")).unwrap();
        assert_eq!(common::run_case(&input), expected, "{}", dir.display());
        compared += 1;
    }
    assert!(compared >= 2, "only {compared} controller-pass cases");
}

/// A store fed a Kueue case's plans, pods, services, Workload and ResourceFlavors one at a time, as
/// a host's watches feed it, gives the bytes of the queued pass over them as lists (the case's
/// output.json), for every Kueue case of the controller's pass.
#[test]
fn a_queued_pass_over_a_store_is_the_queued_pass_over_its_objects() {
    use elasticjob::store::{Overlay, Store};
    use serde_json::{Value, json};
    let mut compared = 0;
    for entry in std::fs::read_dir(common::golden_dir()).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("input.yaml").exists() {
            continue;
        }
        let input = common::yaml_file(&dir.join("input.yaml"));
        if input["op"] != "controllerPass" || input.get("queue").is_none() {
            continue;
        }
        let job = elasticjob::parse::job(input["job"].clone()).unwrap();
        let key = format!("{}/{}", job.metadata.namespace.clone().unwrap_or_default(), job.name());
        let mut store = Store::new();
        let items = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
        for (kind, field) in [("ScalePlan", "scalePlans"), ("Pod", "pods"), ("Service", "services")] {
            for object in items(input.get(field)) {
                store.put(kind, object);
            }
        }
        let queue = &input["queue"];
        if let Some(workload) = queue.get("workload") {
            assert_eq!(store.put("Workload", workload.clone()).as_deref(), Some(key.as_str()), "{}", dir.display());
        }
        for slice in items(queue.get("slices")) {
            assert_eq!(store.put("Workload", slice).as_deref(), Some(key.as_str()), "{}", dir.display());
        }
        for flavor in items(queue.get("resourceFlavors")) {
            assert_eq!(store.put("ResourceFlavor", flavor), None);
        }
        let now = elasticjob::parse::time(input["now"].as_str().unwrap()).unwrap();
        let options = match input.get("options") {
            Some(v) => elasticjob::parse::from_value(v.clone()).unwrap().0,
            None => elasticjob::Options::default(),
        };
        let priority = queue.get("priority").and_then(Value::as_i64).map(|p| p as i32);
        let stored = store.controller_pass_queued(&key, Some(&job), &Overlay::default(), priority, &now, &options);
        let text = match stored {
            Ok(plan) => serde_json::to_string_pretty(&plan).unwrap(),
            Err(e) => serde_json::to_string_pretty(&json!({"error": e.report()})).unwrap(),
        };
        let expected = std::fs::read_to_string(dir.join("output.json")).unwrap();
        assert_eq!(format!("{text}\n"), expected, "{}", dir.display());
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} queued controller-pass cases");
}
