//! The policy's settings: what they are, how they are read, and that they do not contradict
//! themselves.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{PodSecurityLevel, utf8};
use crate::api::DistributionStrategy;
use crate::error::{Code, Error, Problem, Result, into_result};
use crate::template::{self, Options};
use crate::{naming, parse};

/// The settings of the admission policy: cluster rules on top of the core's validation. Every
/// check is off unless its setting is given; `{}` checks nothing but the core's rules.
///
/// Unknown fields are refused (a typo must not silently switch a check off), and so are settings
/// that contradict themselves ([`Settings::validate`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Settings {
    /// The most replicas of any one type a job, or a scale plan's target, may ask for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas_per_type: Option<u32>,
    /// The most task replicas (ps, chief, worker, evaluator) a job may ask for in all; for a scale
    /// plan, the sum of the targets it lists. The operator's own master pod is not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_replicas: Option<u32>,
    /// The distribution strategies a job may use; not empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_strategies: Option<Vec<DistributionStrategy>>,
    /// Every replica template's first container (the one that trains) must have a cpu and a
    /// memory limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub require_resource_limits: bool,
    /// Prefixes an image of any container of a replica template must start with, e.g.
    /// `registry.example.com/ml/`; not empty. An image is compared as written and fully qualified
    /// the way the container runtime pulls it (`tf:2` is `docker.io/library/tf:2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_image_registries: Option<Vec<String>>,
    /// No replica template may run a privileged container or use the host's network, PID or IPC
    /// namespace.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deny_privileged: bool,
    /// Every pod template of a job (the master's too, the operator's default one when the job
    /// gives none) meets the Kubernetes Pod Security Standards at this level, as the API server's
    /// PodSecurity admission of Kubernetes 1.36 checks a pod. `baseline` includes what
    /// `denyPrivileged` checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_security: Option<PodSecurityLevel>,
    /// The highest `restartCount` a replica spec may give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_restart_count: Option<u32>,
    /// Every job is queued by Kueue: a job is created with the queue label
    /// (`kueue.x-k8s.io/queue-name`, not empty), an UPDATE does not remove it, and, as Kueue's own
    /// webhook has it, does not change it unless the job is suspended.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub require_queue_name: bool,
    /// The gang schedulers a job may ask for, by scheduler name (`volcano`, the name
    /// scheduler-plugins' scheduler runs under); empty: none. A replica's `BatchScheduler:
    /// volcano` asks for `volcano`; a `spec.runPolicy.schedulingPolicy` asks for a gang, which an
    /// empty list refuses. Absent: every job as the core allows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_gang_schedulers: Option<Vec<String>>,
    /// The Volcano queues a job's gang may go to (`spec.runPolicy.schedulingPolicy.queue`; a job
    /// whose replicas say `BatchScheduler: volcano` and name none goes to `default`). Absent: any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_queues: Option<Vec<String>>,
    /// The priority classes a job may name: its gang's (`schedulingPolicy.priorityClass`) and its
    /// pods' (a template's `priorityClassName`). Absent: any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_priority_classes: Option<Vec<String>>,
    /// The job masters' ServiceAccount, as the controller's `--master-service-account` names it
    /// (the chart fills it from the same value). A task template may not run as it, nor a master
    /// template of the job's own unless `allowUserMasters`; the chart's name,
    /// `elasticjob-dlrover-master`, is kept so without this setting too. Not `default`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master_service_account: Option<String>,
    /// A master template of the job's own (its image, command, env, mounts, other containers) may
    /// run as the masters' ServiceAccount, as the controller's `--allow-user-masters` lets it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_user_masters: bool,
    /// The image of the controller's own master, as its `--master-image` names it (the chart fills
    /// it from the same value): checked against `allowedImageRegistries` for a job that gives its
    /// master no image, and a master template of that image is the controller's own. Absent: the
    /// controller's default, `elasticjob-dlrover-master:0.6.1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master_image: Option<String>,
}

impl Settings {
    /// Reads settings from JSON text: the payload of Kubewarden's `validate_settings`. Empty text
    /// and `null` mean no settings.
    ///
    /// # Errors
    /// [`Error::Parse`] for text that is not JSON, a wrong type or an unknown field (with its
    /// path); [`Error::Invalid`] for contradictions ([`Settings::validate`]).
    pub fn from_slice(payload: &[u8]) -> Result<Settings> {
        let text = utf8(payload, "the settings")?;
        if text.trim().is_empty() {
            return Ok(Settings::default());
        }
        let (value, _) = parse::from_json::<Value>(text)?;
        Settings::from_value(value)
    }

    /// Reads settings from a JSON value; `null` means no settings.
    ///
    /// # Errors
    /// [`Error::Parse`] for a wrong type or an unknown field (with its path); [`Error::Invalid`]
    /// for contradictions ([`Settings::validate`]).
    pub fn from_value(value: Value) -> Result<Settings> {
        if value.is_null() {
            return Ok(Settings::default());
        }
        if !value.is_object() {
            // Said in the words of settings rather than serde's `expected struct Settings`.
            return Err(Error::Parse(Problem::new(
                "",
                Code::InvalidType,
                format!("the settings are {}, not an object of setting names and values", json_type(&value)),
            )));
        }
        let (settings, _): (Settings, _) = parse::from_value(value).map_err(|e| match e {
            Error::Parse(mut p) if p.message.starts_with("unknown field") => {
                p.code = Code::UnknownField;
                Error::Parse(p)
            }
            other => other,
        })?;
        settings.validate()?;
        Ok(settings)
    }

    /// Checks that the settings do not contradict themselves: an empty `allowedStrategies` or
    /// `allowedImageRegistries` would refuse every job, an empty registry prefix would allow
    /// every image, and a `maxReplicasPerType` or `maxTotalReplicas` of 0 would refuse every job
    /// that runs a pod.
    ///
    /// # Errors
    /// [`Error::Invalid`] with every problem, each at the setting's name.
    pub fn validate(&self) -> Result<()> {
        let mut p = Vec::new();
        for (name, max) in
            [("maxReplicasPerType", self.max_replicas_per_type), ("maxTotalReplicas", self.max_total_replicas)]
        {
            if max == Some(0) {
                p.push(Problem::new(
                    name,
                    Code::OutOfRange,
                    "0 would refuse every job that runs a pod: give at least 1, or leave the setting out for no limit",
                ));
            }
        }
        if self.allowed_strategies.as_ref().is_some_and(Vec::is_empty) {
            p.push(Problem::new(
                "allowedStrategies",
                Code::Required,
                "the list is empty, so no job could be admitted: list `ParameterServerStrategy`, `AllreduceStrategy` or both, or leave the setting out to allow both",
            ));
        }
        if let Some(prefixes) = &self.allowed_image_registries {
            if prefixes.is_empty() {
                p.push(Problem::new(
                    "allowedImageRegistries",
                    Code::Required,
                    "the list is empty, so no job could be admitted: list registry prefixes such as `registry.example.com/`, or leave the setting out to allow every image",
                ));
            }
            for (i, prefix) in prefixes.iter().enumerate() {
                if prefix.trim().is_empty() {
                    p.push(Problem::new(
                        format!("allowedImageRegistries[{i}]"),
                        Code::Required,
                        "an empty prefix would allow every image: give a registry such as `registry.example.com/`",
                    ));
                }
            }
        }
        if let Some(account) = &self.master_service_account {
            p.extend(template::master_account_problem("masterServiceAccount", account));
        }
        if self.master_image.as_deref().is_some_and(|i| i.trim().is_empty()) {
            p.push(Problem::new(
                "masterImage",
                Code::Required,
                "the image is empty: give the image of the controller's --master-image, or leave the setting out for its default",
            ));
        }
        for (i, name) in self.allowed_gang_schedulers.iter().flatten().enumerate() {
            if !naming::is_dns1123_subdomain(name) {
                p.push(Problem::new(
                    format!("allowedGangSchedulers[{i}]"),
                    Code::InvalidName,
                    format!("{name:?} is not a scheduler name: `volcano`, or the name scheduler-plugins' scheduler runs under (a DNS-1123 subdomain)"),
                ));
            }
        }
        for (setting, list) in
            [("allowedQueues", &self.allowed_queues), ("allowedPriorityClasses", &self.allowed_priority_classes)]
        {
            for (i, name) in list.iter().flatten().enumerate() {
                if !naming::is_dns1123_subdomain(name) {
                    p.push(Problem::new(
                        format!("{setting}[{i}]"),
                        Code::InvalidName,
                        format!("{name:?} is not a name of one: a DNS-1123 subdomain"),
                    ));
                }
            }
        }
        into_result(p)
    }
}

impl Settings {
    /// The controller's options these settings name: its masters' ServiceAccount, whether it
    /// allows user-written masters, and its master image.
    pub(super) fn core_options(&self) -> Options {
        Options {
            master_image: self.master_image.clone().unwrap_or_else(|| Options::default().master_image),
            master_service_account: self.master_service_account.clone(),
            allow_user_masters: self.allow_user_masters,
            ..Options::default()
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
