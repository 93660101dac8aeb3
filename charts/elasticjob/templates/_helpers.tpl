{{/* The labels of every object of the release. */}}
{{- define "elasticjob.labels" -}}
app.kubernetes.io/name: {{ .Values.name }}
app.kubernetes.io/component: controller
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The labels that select the controller pods. */}}
{{- define "elasticjob.selector" -}}
app.kubernetes.io/name: {{ .Values.name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The controller's permissions on the jobs' objects: exactly the calls its code makes (pkg/test/rbac.test.js
compares these rules with the calls the controller's adapter sends). */}}
{{- define "elasticjob.rules" -}}
# Watch jobs and scale plans (and read one again after a status write conflicts); never change what users wrote.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs, scaleplans]
  verbs: [get, list, watch]
# Write their status: the subresource replaced, with the resourceVersion read.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs/status, scaleplans/status]
  verbs: [update]
# Owner references with blockOwnerDeletion on the pods it creates (the OwnerReferencesPermissionEnforcement
# admission plugin asks for update of the owner's finalizers; no call of the controller's makes it).
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs/finalizers]
  verbs: [update]
# Delete a finished job once its spec.runPolicy.ttlSecondsAfterFinished has passed.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs]
  verbs: [delete]
# Pods: created from the plan, deleted when a plan or a failure says so, patched to adopt an orphan that is exactly
# one the job makes. No call reads one (the cache has them), but without get a controller killed in the middle of
# a plan and started again makes pods again at new ids (make test-cluster): kept until the cause is known.
- apiGroups: [""]
  resources: [pods]
  verbs: [list, watch, create, patch, delete]
# One service per task rank and one for the master: created (applied over, server-side, when one the job
# controls is there: read first), deleted with a rank a scale-down removes.
- apiGroups: [""]
  resources: [services]
  verbs: [get, list, watch, create, patch, delete]
{{- end -}}

{{/* Leader election (--leader-elect): its own Lease, read, renewed and released by name; created the first
time, which RBAC cannot limit by name. */}}
{{- define "elasticjob.leaseRules" -}}
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [{{ .Values.leaderElection.leaseName | quote }}]
  verbs: [get, update]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
{{- end -}}

{{/* Events about the jobs it acts on: created, and counted into an earlier one of the same reason and message. */}}
{{- define "elasticjob.eventRule" -}}
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{/* With Kueue (kueue.enabled): the rules of deploy/rbac-kueue.yaml on the jobs' namespaces. */}}
{{- define "elasticjob.kueueRules" -}}
# The queued jobs' spec.suspend: true until Kueue admits their Workload, and again when it evicts it.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs]
  verbs: [patch]
# Each queued job's Workload: created, its spec replaced (at the resourceVersion read) while no quota is reserved;
# with --kueue-workload-slices, its later slices created and their counts changed the same way.
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads]
  verbs: [get, list, watch, create, update]
# Its status (a merge patch): Finished when the job ends, the quota released after an eviction.
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads/status]
  verbs: [patch]
{{- end -}}

{{/* With Kueue: what it reads cluster-wide, the ResourceFlavors and the priority classes' values. */}}
{{- define "elasticjob.kueueClusterRules" -}}
- apiGroups: [kueue.x-k8s.io]
  resources: [resourceflavors]
  verbs: [list, watch]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloadpriorityclasses]
  verbs: [get]
- apiGroups: [scheduling.k8s.io]
  resources: [priorityclasses]
  verbs: [get]
{{- end -}}

{{/* The API groups of the PodGroups the controller watches and writes: gangSchedulerName's (volcano: Volcano's,
another name: scheduler-plugins'), and Volcano's with volcanoPodGroups; a comma-separated list, empty for none. */}}
{{- define "elasticjob.gangGroups" -}}
{{- $groups := list -}}
{{- if eq .Values.gangSchedulerName "volcano" -}}
{{- $groups = append $groups "scheduling.volcano.sh" -}}
{{- else if .Values.gangSchedulerName -}}
{{- $groups = append $groups "scheduling.x-k8s.io" -}}
{{- end -}}
{{- if and .Values.volcanoPodGroups (not (has "scheduling.volcano.sh" $groups)) -}}
{{- $groups = append $groups "scheduling.volcano.sh" -}}
{{- end -}}
{{- join "," $groups -}}
{{- end -}}

{{/* With a gang scheduler: the jobs' PodGroups, exactly the calls of pkg/controller/handlers.js and its cache. */}}
{{- define "elasticjob.gangRules" -}}
# The jobs' PodGroups: watched (the gang scheduler sets their phase), created before a job's pods, updated whole at
# the resourceVersion read as the job changes (read first when the cache lacks one that exists), deleted once the job has finished.
- apiGroups: [{{ include "elasticjob.gangGroups" . | replace "," ", " }}]
  resources: [podgroups]
  verbs: [get, list, watch, create, update, delete]
{{- end -}}

{{/* The ServiceAccount of the job masters' pods (--master-service-account): masterServiceAccount, else
elasticjob-dlrover-master when the chart makes it in jobNamespaces, else none (the namespace's default). */}}
{{- define "elasticjob.masterServiceAccount" -}}
{{- if .Values.masterServiceAccount }}{{ .Values.masterServiceAccount }}{{ else if .Values.jobNamespaces }}elasticjob-dlrover-master{{ end -}}
{{- end -}}
