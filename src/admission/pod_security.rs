//! `podSecurity`: the pod templates of a job against the Kubernetes Pod Security Standards, as the
//! API server's PodSecurity admission of Kubernetes 1.36 checks a pod at the `baseline` or
//! `restricted` level, each violation at its field path inside the job.
//!
//! The checks follow the admission's own (`k8s.io/pod-security-admission/policy`), at their
//! newest versions up to 1.36: every container, init container and ephemeral container; pod- and
//! container-level settings combined the way they combine there (a pod-level `runAsNonRoot: true`
//! or seccomp profile covers the containers that set none). Where `restricted` replaces a baseline
//! rule (capabilities, HostPath volumes by volume types, seccomp, /proc mount) only its own applies.
//! User-namespace pods (`hostUsers: false`) are exempt from the non-root rules and, at baseline,
//! from the /proc mount rule; Windows pods (`os.name: windows`) from restricted's privilege
//! escalation, seccomp and capabilities rules.

use std::collections::BTreeMap;

use crate::podspec::{
    Container, ContainerPort, EphemeralContainer, Lifecycle, PodSpec, PodTemplateSpec, Probe, SecurityContext,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Code, Problem, join};

/// A level of the Pod Security Standards (`privileged` checks nothing, so it is no setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PodSecurityLevel {
    /// Prevents known privilege escalations: no host namespaces, privileged containers, added
    /// capabilities beyond the default set, HostPath volumes, host ports, ...
    Baseline,
    /// Baseline, and the hardening of current best practice: non-root, no privilege escalation,
    /// a seccomp profile, every capability dropped, core volume types only.
    Restricted,
}

impl PodSecurityLevel {
    fn name(self) -> &'static str {
        match self {
            PodSecurityLevel::Baseline => "baseline",
            PodSecurityLevel::Restricted => "restricted",
        }
    }
}

/// The capabilities a baseline container may add (the container runtime's default set).
const BASELINE_CAPABILITIES: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// The safe sysctls (PodSecurity's list as of 1.32, unchanged through 1.36).
const SAFE_SYSCTLS: [&str; 12] = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
];

/// The SELinux types a baseline pod may set (besides none).
const SELINUX_TYPES: [&str; 4] = ["container_t", "container_init_t", "container_kvm_t", "container_engine_t"];

/// The volume types a restricted pod may use (as their fields are spelled): those of
/// `restrictedVolumes_1_0` in pod-security-admission's `policy/check_restrictedVolumes.go`
/// (v0.37.2, the test cluster's), image volumes among them.
const RESTRICTED_VOLUMES: [&str; 9] = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
];

/// The annotation prefix of the deprecated per-container AppArmor profiles.
const APPARMOR_ANNOTATION: &str = "container.apparmor.security.beta.kubernetes.io/";

/// Checks one pod template (`path` is the template's, e.g. `spec.replicaSpecs.worker.template`).
pub(super) fn template(p: &mut Vec<Problem>, path: &str, template: &PodTemplateSpec, level: PodSecurityLevel) {
    if let Some(annotations) = template.metadata.as_ref().and_then(|m| m.annotations.as_ref()) {
        app_armor_annotations(p, &join(path, "metadata.annotations"), annotations);
    }
    if let Some(pod) = &template.spec {
        Check { p, level, pod, path: join(path, "spec") }.run();
    }
}

/// The job's own annotations, which the core copies onto every pod: AppArmor's.
pub(super) fn job_annotations(p: &mut Vec<Problem>, annotations: Option<&BTreeMap<String, String>>) {
    if let Some(annotations) = annotations {
        app_armor_annotations(p, "metadata.annotations", annotations);
    }
}

fn app_armor_annotations(p: &mut Vec<Problem>, path: &str, annotations: &BTreeMap<String, String>) {
    for (key, value) in annotations {
        let allowed = value.is_empty() || value == "runtime/default" || value.starts_with("localhost/");
        if key.starts_with(APPARMOR_ANNOTATION) && !allowed {
            p.push(Problem::new(
                join(path, key),
                Code::InvalidValue,
                format!(
                    "`{value}`: the AppArmor profile must be `runtime/default` or `localhost/<profile>`{}",
                    rule(PodSecurityLevel::Baseline, "AppArmor")
                ),
            ));
        }
    }
}

/// ` (Pod Security baseline: capabilities; policy setting podSecurity)`.
fn rule(level: PodSecurityLevel, control: &str) -> String {
    format!(" (Pod Security {}: {control}; policy setting podSecurity)", level.name())
}

/// One container as the checks see it (these and the policy's other rules): init and ephemeral
/// containers carry the same fields.
pub(super) struct ContainerView<'a> {
    /// `containers[0]`, `initContainers[1]`, ...
    pub(super) path: String,
    pub(super) image: Option<&'a str>,
    pub(super) security: Option<&'a SecurityContext>,
    ports: &'a [ContainerPort],
    /// Its liveness, readiness and startup probes ([`PROBES`]).
    probes: [Option<&'a Probe>; 3],
    lifecycle: Option<&'a Lifecycle>,
}

/// The probes of a container, in the order of [`ContainerView::probes`].
const PROBES: [&str; 3] = ["livenessProbe", "readinessProbe", "startupProbe"];

impl<'a> ContainerView<'a> {
    fn of(path: String, c: &'a Container) -> Self {
        let probes = [c.liveness_probe.as_ref(), c.readiness_probe.as_ref(), c.startup_probe.as_ref()];
        let ports = c.ports.as_deref().unwrap_or_default();
        let (image, security, lifecycle) = (c.image.as_deref(), c.security_context.as_ref(), c.lifecycle.as_ref());
        ContainerView { path, image, security, ports, probes, lifecycle }
    }

    fn of_ephemeral(path: String, c: &'a EphemeralContainer) -> Self {
        let probes = [c.liveness_probe.as_ref(), c.readiness_probe.as_ref(), c.startup_probe.as_ref()];
        let ports = c.ports.as_deref().unwrap_or_default();
        let (image, security, lifecycle) = (c.image.as_deref(), c.security_context.as_ref(), c.lifecycle.as_ref());
        ContainerView { path, image, security, ports, probes, lifecycle }
    }
}

/// Every container of a pod template, in the order Kubernetes lists them: containers, init
/// containers, ephemeral containers.
pub(super) fn views(pod: &PodSpec) -> Vec<ContainerView<'_>> {
    let mut all = Vec::new();
    for (i, c) in pod.containers.iter().enumerate() {
        all.push(ContainerView::of(format!("containers[{i}]"), c));
    }
    for (i, c) in pod.init_containers.iter().flatten().enumerate() {
        all.push(ContainerView::of(format!("initContainers[{i}]"), c));
    }
    for (i, c) in pod.ephemeral_containers.iter().flatten().enumerate() {
        all.push(ContainerView::of_ephemeral(format!("ephemeralContainers[{i}]"), c));
    }
    all
}

/// A container's boolean setting (`privileged`), if it sets it.
pub(super) fn flag(security: Option<&SecurityContext>, key: &str) -> Option<bool> {
    security.and_then(|s| s.get(key)).and_then(Value::as_bool)
}

/// The string at `key` of an object of the API (its default, empty, when unset).
fn text<'a>(object: Option<&'a Value>, key: &str) -> &'a str {
    object.and_then(|o| o.get(key)).and_then(Value::as_str).unwrap_or_default()
}

/// The strings of a list of the API (none when unset).
fn texts(list: Option<&Value>) -> impl Iterator<Item = &str> {
    list.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
}

/// The host an `httpGet` or `tcpSocket` action names.
fn action_host(action: Option<&Value>) -> Option<&str> {
    action.and_then(|a| a.get("host")).and_then(Value::as_str)
}

/// The checks of one pod spec at `path` (`....template.spec`).
struct Check<'a> {
    p: &'a mut Vec<Problem>,
    level: PodSecurityLevel,
    pod: &'a PodSpec,
    path: String,
}

impl Check<'_> {
    fn push(&mut self, field: &str, code: Code, what: String, level: PodSecurityLevel, control: &str) {
        self.p.push(Problem::new(join(&self.path, field), code, format!("{what}{}", rule(level, control))));
    }

    /// A field set to a value the baseline level forbids.
    fn forbidden(&mut self, field: &str, what: String, control: &str) {
        self.push(field, Code::InvalidValue, what, PodSecurityLevel::Baseline, control);
    }

    fn run(mut self) {
        let pod = self.pod;
        let restricted = self.level == PodSecurityLevel::Restricted;
        let containers = views(pod);
        let pod_security = pod.security_context.as_ref();
        // User-namespace pods and Windows pods are exempt from some rules.
        let user_namespace = pod.host_users == Some(false);
        let windows = pod.os.as_ref().and_then(|os| os.get("name")).and_then(Value::as_str) == Some("windows");

        self.host_process(pod_security.and_then(|s| s.get("windowsOptions")), "securityContext");
        self.host_namespaces();
        self.volumes(restricted);
        self.sysctls();
        self.app_armor(pod_security.and_then(|s| s.get("appArmorProfile")), "securityContext");
        self.se_linux(pod_security.and_then(|s| s.get("seLinuxOptions")), "securityContext");
        for c in &containers {
            let security = c.security;
            let at = |field: &str| format!("{}.securityContext.{field}", c.path);
            self.host_process(security.and_then(|s| s.get("windowsOptions")), &join(&c.path, "securityContext"));
            if flag(security, "privileged") == Some(true) {
                self.forbidden(
                    &at("privileged"),
                    "privileged containers are not allowed".to_owned(),
                    "privileged containers",
                );
            }
            self.host_ports(c);
            self.probe_hosts(c);
            self.app_armor(security.and_then(|s| s.get("appArmorProfile")), &join(&c.path, "securityContext"));
            self.se_linux(security.and_then(|s| s.get("seLinuxOptions")), &join(&c.path, "securityContext"));
            if let Some(mount) = security.and_then(|s| s.get("procMount")).and_then(Value::as_str) {
                if mount != "Default" && (restricted || !user_namespace) {
                    let why =
                        if restricted { "" } else { " unless the pod has its own user namespace (`hostUsers: false`)" };
                    self.push(
                        &at("procMount"),
                        Code::InvalidValue,
                        format!("`{mount}`: the /proc mount must be `Default`{why}"),
                        self.level,
                        "/proc mount type",
                    );
                }
            }
        }
        if restricted {
            if !user_namespace {
                self.non_root(&containers);
            }
            if !windows {
                self.seccomp_required(&containers);
                for c in &containers {
                    self.no_escalation(c);
                    self.capabilities_dropped(c);
                }
            }
        } else {
            self.seccomp_not_unconfined(&containers);
            for c in &containers {
                self.baseline_capabilities(c);
            }
        }
    }

    fn host_process(&mut self, options: Option<&Value>, at: &str) {
        if options.and_then(|o| o.get("hostProcess")).and_then(Value::as_bool) == Some(true) {
            self.forbidden(
                &format!("{at}.windowsOptions.hostProcess"),
                "Windows HostProcess containers are not allowed".to_owned(),
                "HostProcess",
            );
        }
    }

    fn host_namespaces(&mut self) {
        for (field, on, what) in [
            ("hostNetwork", self.pod.host_network, "the host's network"),
            ("hostPID", self.pod.host_pid, "the host's process IDs"),
            ("hostIPC", self.pod.host_ipc, "the host's IPC namespace"),
        ] {
            if on == Some(true) {
                self.forbidden(field, format!("pods may not use {what}"), "host namespaces");
            }
        }
    }

    /// Baseline: no HostPath volume; restricted: the core volume types only.
    fn volumes(&mut self, restricted: bool) {
        for (i, volume) in self.pod.volumes.iter().flatten().enumerate() {
            for kind in volume.sources() {
                let at = format!("volumes[{i}].{kind}");
                if restricted && !RESTRICTED_VOLUMES.contains(&kind) {
                    let list = RESTRICTED_VOLUMES.join(", ");
                    self.push(
                        &at,
                        Code::InvalidValue,
                        format!("`{kind}` volumes are not allowed: use {list}"),
                        PodSecurityLevel::Restricted,
                        "volume types",
                    );
                } else if !restricted && kind == "hostPath" {
                    self.forbidden(&at, "HostPath volumes are not allowed".to_owned(), "HostPath volumes");
                }
            }
        }
    }

    fn sysctls(&mut self) {
        let sysctls = self.pod.security_context.as_ref().and_then(|s| s.get("sysctls"));
        let names = sysctls.and_then(Value::as_array).into_iter().flatten().map(|s| text(Some(s), "name"));
        for (i, name) in names.enumerate() {
            if !SAFE_SYSCTLS.contains(&name) {
                self.forbidden(
                    &format!("securityContext.sysctls[{i}].name"),
                    format!("`{name}` is not a safe sysctl: use {}", SAFE_SYSCTLS.join(", ")),
                    "sysctls",
                );
            }
        }
    }

    fn app_armor(&mut self, app_armor: Option<&Value>, at: &str) {
        if app_armor.is_some() {
            let kind = text(app_armor, "type");
            if !matches!(kind, "RuntimeDefault" | "Localhost") {
                self.forbidden(
                    &format!("{at}.appArmorProfile.type"),
                    format!("`{kind}`: the AppArmor profile must be `RuntimeDefault` or `Localhost`"),
                    "AppArmor",
                );
            }
        }
    }

    fn se_linux(&mut self, options: Option<&Value>, at: &str) {
        let kind = text(options, "type");
        if !kind.is_empty() && !SELINUX_TYPES.contains(&kind) {
            let list = SELINUX_TYPES.map(|t| format!("`{t}`")).join(", ");
            self.forbidden(
                &format!("{at}.seLinuxOptions.type"),
                format!("`{kind}`: the SELinux type must be one of {list}, or none"),
                "SELinux",
            );
        }
        for field in ["user", "role"] {
            let value = text(options, field);
            if !value.is_empty() {
                self.forbidden(
                    &format!("{at}.seLinuxOptions.{field}"),
                    format!("`{value}`: pods may not set an SELinux {field}"),
                    "SELinux",
                );
            }
        }
    }

    fn host_ports(&mut self, c: &ContainerView<'_>) {
        for (j, port) in c.ports.iter().enumerate() {
            if let Some(host_port) = port.get("hostPort").and_then(Value::as_i64).filter(|p| *p != 0) {
                self.forbidden(
                    &format!("{}.ports[{j}].hostPort", c.path),
                    format!("`{host_port}`: containers may not bind a port of the host (leave hostPort out or 0)"),
                    "host ports",
                );
            }
        }
    }

    /// Probes and lifecycle handlers may not name a host (they would reach it from the node).
    fn probe_hosts(&mut self, c: &ContainerView<'_>) {
        // (where, its httpGet, its tcpSocket), probes first.
        let mut handlers: Vec<(String, Option<&Value>, Option<&Value>)> = Vec::new();
        for (name, probe) in PROBES.into_iter().zip(c.probes) {
            if let Some(probe) = probe {
                handlers.push((name.to_owned(), probe.get("httpGet"), probe.get("tcpSocket")));
            }
        }
        for name in ["postStart", "preStop"] {
            if let Some(handler) = c.lifecycle.and_then(|l| l.get(name)) {
                handlers.push((format!("lifecycle.{name}"), handler.get("httpGet"), handler.get("tcpSocket")));
            }
        }
        let mut hosts: Vec<(String, &str)> = Vec::new();
        for (at, http, tcp) in handlers {
            hosts.extend(action_host(http).map(|h| (format!("{at}.httpGet.host"), h)));
            hosts.extend(action_host(tcp).map(|h| (format!("{at}.tcpSocket.host"), h)));
        }
        for (field, host) in hosts.into_iter().filter(|(_, h)| !h.is_empty()) {
            self.forbidden(
                &format!("{}.{field}", c.path),
                format!("`{host}`: probes and lifecycle handlers may not name a host (leave host out)"),
                "host probes and lifecycle hooks",
            );
        }
    }

    fn baseline_capabilities(&mut self, c: &ContainerView<'_>) {
        let capabilities = c.security.and_then(|s| s.get("capabilities"));
        for (j, capability) in texts(capabilities.and_then(|c| c.get("add"))).enumerate() {
            if !BASELINE_CAPABILITIES.contains(&capability) {
                self.forbidden(
                    &format!("{}.securityContext.capabilities.add[{j}]", c.path),
                    format!(
                        "`{capability}` is not a capability containers may add: add only {}",
                        BASELINE_CAPABILITIES.join(", ")
                    ),
                    "capabilities",
                );
            }
        }
    }

    /// Baseline: no seccomp profile `Unconfined`, on the pod or a container.
    fn seccomp_not_unconfined(&mut self, containers: &[ContainerView<'_>]) {
        let pod = self.pod.security_context.as_ref().and_then(|s| s.get("seccompProfile"));
        let mut profiles = vec![("securityContext.seccompProfile.type".to_owned(), pod)];
        for c in containers {
            let profile = c.security.and_then(|s| s.get("seccompProfile"));
            profiles.push((format!("{}.securityContext.seccompProfile.type", c.path), profile));
        }
        for (at, profile) in profiles {
            if profile.is_some_and(|s| text(Some(s), "type") == "Unconfined") {
                self.forbidden(
                    &at,
                    "`Unconfined`: containers may not run without a seccomp profile".to_owned(),
                    "seccomp",
                );
            }
        }
    }

    /// Restricted: a seccomp profile `RuntimeDefault` or `Localhost`, on the pod or on every
    /// container.
    fn seccomp_required(&mut self, containers: &[ContainerView<'_>]) {
        let valid = |s: &Value| matches!(text(Some(s), "type"), "RuntimeDefault" | "Localhost");
        let bad = |s: &Value| {
            format!("`{}`: the seccomp profile must be `RuntimeDefault` or `Localhost`", text(Some(s), "type"))
        };
        let pod = self.pod.security_context.as_ref().and_then(|s| s.get("seccompProfile"));
        if let Some(profile) = pod.filter(|s| !valid(s)) {
            self.push(
                "securityContext.seccompProfile.type",
                Code::InvalidValue,
                bad(profile),
                PodSecurityLevel::Restricted,
                "seccomp",
            );
        }
        let pod_set = pod.is_some_and(valid);
        for c in containers {
            let at = format!("{}.securityContext.seccompProfile.type", c.path);
            match c.security.and_then(|s| s.get("seccompProfile")) {
                Some(profile) if !valid(profile) => {
                    self.push(&at, Code::InvalidValue, bad(profile), PodSecurityLevel::Restricted, "seccomp");
                }
                None if !pod_set => self.push(
                    &at,
                    Code::Required,
                    "set a seccomp profile, `RuntimeDefault` or `Localhost`, on the pod or the container".to_owned(),
                    PodSecurityLevel::Restricted,
                    "seccomp",
                ),
                _ => {}
            }
        }
    }

    /// Restricted: `runAsNonRoot: true` on the pod or on every container, never `false`, and no
    /// `runAsUser: 0`.
    fn non_root(&mut self, containers: &[ContainerView<'_>]) {
        let pod = self.pod.security_context.as_ref();
        let pod_flag = pod.and_then(|s| s.get("runAsNonRoot")).and_then(Value::as_bool);
        let pod_user = pod.and_then(|s| s.get("runAsUser")).and_then(Value::as_i64);
        let control = "running as non-root";
        if pod_flag == Some(false) {
            self.push(
                "securityContext.runAsNonRoot",
                Code::InvalidValue,
                "containers must run as non-root: `runAsNonRoot` may not be false".to_owned(),
                PodSecurityLevel::Restricted,
                control,
            );
        }
        if pod_user == Some(0) {
            self.push(
                "securityContext.runAsUser",
                Code::InvalidValue,
                "containers may not run as user 0 (root)".to_owned(),
                PodSecurityLevel::Restricted,
                "running as non-root user",
            );
        }
        let pod_non_root = pod_flag == Some(true);
        for c in containers {
            let at = |field: &str| format!("{}.securityContext.{field}", c.path);
            match flag(c.security, "runAsNonRoot") {
                Some(false) => self.push(
                    &at("runAsNonRoot"),
                    Code::InvalidValue,
                    "containers must run as non-root: `runAsNonRoot` may not be false".to_owned(),
                    PodSecurityLevel::Restricted,
                    control,
                ),
                None if !pod_non_root => self.push(
                    &at("runAsNonRoot"),
                    Code::Required,
                    "containers must run as non-root: set `runAsNonRoot: true` on the pod or the container".to_owned(),
                    PodSecurityLevel::Restricted,
                    control,
                ),
                _ => {}
            }
            if c.security.and_then(|s| s.get("runAsUser")).and_then(Value::as_i64) == Some(0) {
                self.push(
                    &at("runAsUser"),
                    Code::InvalidValue,
                    "containers may not run as user 0 (root)".to_owned(),
                    PodSecurityLevel::Restricted,
                    "running as non-root user",
                );
            }
        }
    }

    /// Restricted: `allowPrivilegeEscalation: false` on every container.
    fn no_escalation(&mut self, c: &ContainerView<'_>) {
        let (code, what) = match flag(c.security, "allowPrivilegeEscalation") {
            Some(false) => return,
            Some(true) => (Code::InvalidValue, "`true`: containers must set `allowPrivilegeEscalation: false`"),
            None => (Code::Required, "containers must set `allowPrivilegeEscalation: false`"),
        };
        let at = format!("{}.securityContext.allowPrivilegeEscalation", c.path);
        self.push(&at, code, what.to_owned(), PodSecurityLevel::Restricted, "privilege escalation");
    }

    /// Restricted: every container drops `ALL` and adds nothing but `NET_BIND_SERVICE`.
    fn capabilities_dropped(&mut self, c: &ContainerView<'_>) {
        let capabilities = c.security.and_then(|s| s.get("capabilities"));
        if !texts(capabilities.and_then(|c| c.get("drop"))).any(|d| d == "ALL") {
            self.push(
                &format!("{}.securityContext.capabilities.drop", c.path),
                Code::Required,
                "containers must drop every capability: `drop: [ALL]`".to_owned(),
                PodSecurityLevel::Restricted,
                "capabilities",
            );
        }
        for (j, capability) in texts(capabilities.and_then(|c| c.get("add"))).enumerate() {
            if capability != "NET_BIND_SERVICE" {
                self.push(
                    &format!("{}.securityContext.capabilities.add[{j}]", c.path),
                    Code::InvalidValue,
                    format!("`{capability}`: containers may add only `NET_BIND_SERVICE`"),
                    PodSecurityLevel::Restricted,
                    "capabilities",
                );
            }
        }
    }
}
