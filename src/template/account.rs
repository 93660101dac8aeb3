//! The job masters' ServiceAccount and who may run as it: the controller's own master, never a
//! task pod, a master the job wrote itself only when the admin allows it.

use crate::podspec::{PodSpec, Probe, Volume, VolumeMount};

use super::Options;
use crate::api::{ElasticJob, ReplicaType};
use crate::error::{Code, Problem};
use crate::naming;

/// The ServiceAccounts only the job masters run as: the options' and the chart's
/// ([`naming::CHART_MASTER_SERVICE_ACCOUNT`]), which is kept whatever the options name.
pub fn is_master_account(account: &str, options: &Options) -> bool {
    account == naming::CHART_MASTER_SERVICE_ACCOUNT || options.master_service_account.as_deref() == Some(account)
}

/// The ServiceAccount a pod template names, with the field that names it: `serviceAccountName`,
/// else the deprecated `serviceAccount`, which the API server copies into it when it is empty.
pub(super) fn named_account(spec: &PodSpec) -> Option<(&'static str, &str)> {
    fn given(a: &Option<String>) -> Option<&str> {
        a.as_deref().filter(|a| !a.is_empty())
    }
    given(&spec.service_account_name)
        .map(|a| ("serviceAccountName", a))
        .or_else(|| given(&spec.service_account).map(|a| ("serviceAccount", a)))
}

/// `None` when the job's master is the controller's own: no `dlrover-master` template, or one
/// whose pod runs one container of the controller's master image (none given, or
/// [`Options::master_image`]) with the master's own command, no environment, mounts, hooks or
/// exec probes of its own, and no other container. Else the first field, inside the template's
/// pod spec, that makes it the job's own (`containers[0].image`).
pub fn is_own_master(job: &ElasticJob, options: &Options) -> Option<String> {
    let spec = job.declared_replica_spec(ReplicaType::DlroverMaster)?.template.spec.as_ref()?;
    for (field, empty) in [
        ("initContainers", spec.init_containers.as_ref().is_none_or(Vec::is_empty)),
        ("ephemeralContainers", spec.ephemeral_containers.as_ref().is_none_or(Vec::is_empty)),
    ] {
        if !empty {
            return Some(field.to_owned());
        }
    }
    if spec.containers.len() > 1 {
        return Some("containers[1]".to_owned());
    }
    let c = spec.containers.first()?;
    let empty = |list: Option<usize>| list.is_none_or(|n| n == 0);
    let no_exec = |probe: &Option<Probe>| probe.as_ref().is_none_or(|p| p.get("exec").is_none());
    // Every field of the container that may run code of the job's (an image, a command, arguments,
    // environment, mounts, hooks, exec probes, a terminal), in the order of its keys, and whether
    // this one leaves it the controller's. The others (name, imagePullPolicy, resources,
    // resizePolicy, securityContext, ports, terminationMessage*, restartPolicy) say what it asks
    // for and how it is run. Read from the typed container: serialising it to a `Value` compiled a
    // second writer of every container type into the modules.
    let fields = [
        ("args", empty(c.args.as_ref().map(Vec::len))),
        ("command", empty(c.command.as_ref().map(Vec::len))),
        ("env", empty(c.env.as_ref().map(Vec::len))),
        ("envFrom", empty(c.env_from.as_ref().map(Vec::len))),
        ("image", c.image.as_deref().is_none_or(|i| i.is_empty() || *i == options.master_image)),
        ("lifecycle", c.lifecycle.is_none()),
        ("livenessProbe", no_exec(&c.liveness_probe)),
        ("readinessProbe", no_exec(&c.readiness_probe)),
        ("restartPolicyRules", c.restart_policy_rules.is_none()),
        ("startupProbe", no_exec(&c.startup_probe)),
        ("stdin", c.stdin.is_none()),
        ("stdinOnce", c.stdin_once.is_none()),
        ("tty", c.tty.is_none()),
        ("volumeDevices", empty(c.volume_devices.as_ref().map(Vec::len))),
        // None, or the default master's alone: its emptyDir on /tmp (a template Kueue wrote back).
        (
            "volumeMounts",
            empty(c.volume_mounts.as_ref().map(Vec::len))
                || default_tmp(c.volume_mounts.as_deref(), spec.volumes.as_deref()),
        ),
        ("workingDir", c.working_dir.is_none()),
    ];
    if let Some((key, _)) = fields.iter().find(|(_, own)| !own) {
        return Some(format!("containers[0].{key}"));
    }
    None
}

/// Whether a container's mounts are the default master's alone, its emptyDir on /tmp, and the
/// pod's volume of that name is that emptyDir: a place the master writes that nothing of the job's
/// fills (a volume of the job's mounted where the master runs from could run the job's code).
fn default_tmp(mounts: Option<&[VolumeMount]>, volumes: Option<&[Volume]>) -> bool {
    let (volume, mount) = super::master_tmp();
    mounts == Some(std::slice::from_ref(&mount))
        && volumes.is_some_and(|v| v.iter().filter(|v| v.name() == volume.name()).eq([&volume]))
}

/// The problem of a name given as the masters' ServiceAccount, at `path`: not a ServiceAccount
/// name, or `default`, which every pod of the namespace that names no account runs as.
pub fn master_account_problem(path: &str, account: &str) -> Option<Problem> {
    if !naming::is_dns1123_subdomain(account) {
        return Some(Problem::new(
            path,
            Code::InvalidName,
            format!(
                "{account:?} is not a ServiceAccount name: a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters)"
            ),
        ));
    }
    (account == "default").then(|| {
        Problem::new(
            path,
            Code::InvalidValue,
            "`default` is the account of every pod of the namespace that names none: the masters' rights would be every pod's; name an account of their own (the chart makes `elasticjob-dlrover-master`)",
        )
    })
}

/// The job's templates against the masters' ServiceAccount ([`is_master_account`]), each problem
/// at the field that names it ([`Code::Forbidden`]): a task template may never run as it (its pods
/// would read and write every job's pods, services and plans in the namespace, past every check of
/// the admission policy); a `dlrover-master` template may only when it is the controller's own
/// master ([`is_own_master`]) or [`Options::allow_user_masters`]. The options' account must be a
/// ServiceAccount name and not `default`, at `options.masterServiceAccount`.
pub fn account_problems(job: &ElasticJob, options: &Options) -> Vec<Problem> {
    let mut p = Vec::new();
    if let Some(account) = &options.master_service_account {
        p.extend(master_account_problem("options.masterServiceAccount", account));
    }
    for (replica_type, spec) in &job.spec.replica_specs {
        let Some((field, account)) = spec.template.spec.as_ref().and_then(named_account) else { continue };
        if !is_master_account(account, options) {
            continue;
        }
        let path = format!("spec.replicaSpecs.{replica_type}.template.spec.{field}");
        if *replica_type != ReplicaType::DlroverMaster {
            p.push(Problem::new(
                path,
                Code::Forbidden,
                format!(
                    "`{account}` is the job masters' ServiceAccount, which reads and writes every job's pods, services and plans in the namespace: a {replica_type} pod may not run as it; name an account of the job's own or leave {field} out"
                ),
            ));
        } else if let Some(own) = is_own_master(job, options).filter(|_| !options.allow_user_masters) {
            p.push(Problem::new(
                path,
                Code::Forbidden,
                format!(
                    "`{account}` is the job masters' ServiceAccount, which only the master the controller makes from its own image runs as, and this template runs code of the job's own (`{own}`): leave {field} out (the master then runs as the namespace's default account), or ask the admin to allow user-written masters (allowUserMasters)"
                ),
            ));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::template::master_pod;

    fn job(master: Option<serde_json::Value>, worker_spec: serde_json::Value) -> ElasticJob {
        let task = json!({"replicas": 1, "template": {"spec": worker_spec}});
        let mut specs = json!({"worker": task});
        if let (Some(master), Some(map)) = (master, specs.as_object_mut()) {
            map.insert("dlrover-master".to_owned(), json!({"template": {"spec": master}}));
        }
        serde_json::from_value(json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
            "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": specs,
                     "envs": {"PYTHONWARNINGS": {"name": "PYTHONWARNINGS", "value": "all"}}},
        }))
        .unwrap()
    }

    fn worker() -> serde_json::Value {
        json!({"containers": [{"name": "main", "image": "tf:2"}]})
    }

    fn options(allow: bool) -> Options {
        Options { master_service_account: Some("masters".into()), allow_user_masters: allow, ..Options::default() }
    }

    fn problems(job: &ElasticJob, options: &Options) -> Vec<(String, Code)> {
        account_problems(job, options).into_iter().map(|p| (p.path, p.code)).collect()
    }

    /// The master pod's account and whether it got the job's envs.
    fn master(job: &ElasticJob, options: &Options) -> (Option<String>, bool) {
        let spec = master_pod(job, options).unwrap().spec.unwrap();
        let envs = spec.containers[0].env.iter().flatten().any(|e| e.name == "PYTHONWARNINGS");
        (spec.service_account_name, envs)
    }

    #[test]
    fn a_task_template_may_not_run_as_the_masters_account_even_when_user_masters_are_allowed() {
        for allow in [false, true] {
            for (field, account) in [("serviceAccountName", "masters"), ("serviceAccount", "elasticjob-dlrover-master")]
            {
                let spec = json!({field: account, "containers": [{"name": "main", "image": "tf:2"}]});
                let path = format!("spec.replicaSpecs.worker.template.spec.{field}");
                assert_eq!(problems(&job(None, spec), &options(allow)), [(path, Code::Forbidden)]);
            }
        }
        // The chart's name is kept without any option too; another account is the job's own.
        let spec = json!({"serviceAccountName": "elasticjob-dlrover-master", "containers": [{"name": "main"}]});
        assert_eq!(problems(&job(None, spec), &Options::default()).len(), 1);
        let spec = json!({"serviceAccountName": "trainer", "containers": [{"name": "main"}]});
        assert!(problems(&job(None, spec), &options(false)).is_empty());
    }

    #[test]
    fn only_the_controllers_own_master_gets_the_account_and_it_takes_no_job_envs() {
        // No template, or one that only sizes and places the master: the controller's own.
        assert_eq!(master(&job(None, worker()), &options(false)), (Some("masters".into()), false));
        let sized = json!({"nodeSelector": {"pool": "cpu"}, "containers": [{"name": "main",
            "resources": {"limits": {"cpu": "2"}}, "securityContext": {"runAsNonRoot": true},
            "readinessProbe": {"tcpSocket": {"port": 50001}}}]});
        assert_eq!(is_own_master(&job(Some(sized.clone()), worker()), &options(false)), None);
        assert_eq!(master(&job(Some(sized), worker()), &options(false)), (Some("masters".into()), false));
        let same_image = json!({"containers": [{"name": "main", "image": Options::default().master_image}]});
        assert_eq!(is_own_master(&job(Some(same_image), worker()), &options(false)), None);
        // Anything that runs code of the job's own makes it the job's: no account, the job's envs.
        for (spec, field) in [
            (json!({"containers": [{"name": "main", "image": "evil:1"}]}), "containers[0].image"),
            (json!({"containers": [{"name": "main", "command": ["sh"]}]}), "containers[0].command"),
            (json!({"containers": [{"name": "main", "args": ["-c"]}]}), "containers[0].args"),
            (json!({"containers": [{"name": "main", "env": [{"name": "A", "value": "1"}]}]}), "containers[0].env"),
            (json!({"containers": [{"name": "main", "workingDir": "/x"}]}), "containers[0].workingDir"),
            (
                json!({"containers": [{"name": "main", "volumeMounts": [{"name": "v", "mountPath": "/x"}]}]}),
                "containers[0].volumeMounts",
            ),
            (
                json!({"containers": [{"name": "main", "lifecycle": {"postStart": {"exec": {"command": ["sh"]}}}}]}),
                "containers[0].lifecycle",
            ),
            (
                json!({"containers": [{"name": "main", "livenessProbe": {"exec": {"command": ["sh"]}}}]}),
                "containers[0].livenessProbe",
            ),
            (json!({"containers": [{"name": "main"}, {"name": "side", "image": "x"}]}), "containers[1]"),
            (
                json!({"initContainers": [{"name": "i", "image": "x"}], "containers": [{"name": "main"}]}),
                "initContainers",
            ),
        ] {
            let j = job(Some(spec), worker());
            assert_eq!(is_own_master(&j, &options(false)).as_deref(), Some(field));
            assert_eq!(master(&j, &options(false)), (None, true), "{field}");
            // Allowed: every master runs as the account, with the job's envs, as upstream.
            assert_eq!(master(&j, &options(true)), (Some("masters".into()), true), "{field}");
        }
    }

    #[test]
    fn the_default_master_written_into_the_job_is_still_the_controllers_own() {
        // Kueue's admitted job carries the default master template (with what the admission adds
        // at the pod's level): its master keeps the account.
        let options = Options { master_image: "registry.example.com/m:1".into(), ..options(false) };
        let mut j = job(None, worker());
        let default = crate::template::master_template(&j, &options);
        let spec = serde_json::to_value(default.spec).unwrap();
        j = job(Some(spec.clone()), worker());
        assert_eq!(is_own_master(&j, &options), None);
        assert_eq!(master(&j, &options), (Some("masters".into()), false));
        // Its /tmp made anything but the emptyDir (the master runs from /tmp: files of the job's
        // there could be imported), or another mount beside it: the job's own master.
        for volumes in [
            json!([{"name": "tmp", "hostPath": {"path": "/"}}]),
            json!([{"name": "tmp", "configMap": {"name": "code"}}]),
            json!([{"name": "tmp", "emptyDir": {}}, {"name": "tmp", "configMap": {"name": "code"}}]),
            json!([]),
        ] {
            let mut s = spec.clone();
            s["volumes"] = volumes.clone();
            let j = job(Some(s), worker());
            assert_eq!(is_own_master(&j, &options).as_deref(), Some("containers[0].volumeMounts"), "{volumes}");
        }
        let mut s = spec;
        s["containers"][0]["volumeMounts"] =
            json!([{"name": "tmp", "mountPath": "/tmp"}, {"name": "tmp", "mountPath": "/opt"}]);
        assert_eq!(is_own_master(&job(Some(s), worker()), &options).as_deref(), Some("containers[0].volumeMounts"));
    }

    #[test]
    fn a_master_of_the_jobs_own_naming_the_account_is_refused_unless_allowed() {
        let spec = json!({"serviceAccountName": "masters", "containers": [{"name": "main", "image": "evil:1"}]});
        let path = "spec.replicaSpecs.dlrover-master.template.spec.serviceAccountName".to_owned();
        assert_eq!(problems(&job(Some(spec.clone()), worker()), &options(false)), [(path, Code::Forbidden)]);
        assert!(master_pod(&job(Some(spec.clone()), worker()), &options(false)).is_err());
        assert!(problems(&job(Some(spec), worker()), &options(true)).is_empty());
        // The controller's own master may name it: it is what it gets anyway, without the job's envs.
        let own = json!({"serviceAccountName": "elasticjob-dlrover-master", "containers": [{"name": "main"}]});
        assert!(problems(&job(Some(own.clone()), worker()), &options(false)).is_empty());
        assert_eq!(
            master(&job(Some(own), worker()), &options(false)),
            (Some("elasticjob-dlrover-master".into()), false)
        );
    }

    #[test]
    fn the_default_account_is_never_the_masters() {
        let options = Options { master_service_account: Some("default".into()), ..Options::default() };
        assert_eq!(
            problems(&job(None, worker()), &options),
            [("options.masterServiceAccount".to_owned(), Code::InvalidValue)]
        );
    }
}
