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

{{/* The controller's permissions on the jobs' objects: the rules of deploy/rbac.yaml but the Lease's. */}}
{{- define "elasticjob.rules" -}}
# Watch jobs and scale plans; never change what users wrote.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs, scaleplans]
  verbs: [get, list, watch]
# Write their status (the subresource, with the resourceVersion read).
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs/status, scaleplans/status]
  verbs: [update, patch]
# Owner references with blockOwnerDeletion on the pods it creates.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs/finalizers]
  verbs: [update]
# Delete a finished job once its spec.runPolicy.ttlSecondsAfterFinished has passed.
- apiGroups: [elastic.iml.github.io]
  resources: [elasticjobs]
  verbs: [delete]
# Pods: created from the plan, deleted when a plan or a failure says so, patched to adopt an orphan that is exactly one the job makes.
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch, create, patch, delete]
# One service per task rank and one for the master: created, updated, deleted with a rank a scale-down removes.
- apiGroups: [""]
  resources: [services]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end -}}

{{/* Leader election (--leader-elect) on a Lease. */}}
{{- define "elasticjob.leaseRule" -}}
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
{{- end -}}

{{/* Events about the jobs it acts on. */}}
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
# Each queued job's Workload: created, its spec kept in step while no quota is reserved.
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads]
  verbs: [get, list, watch, create, update, patch]
# Its status: Finished when the job ends, the quota released after an eviction.
- apiGroups: [kueue.x-k8s.io]
  resources: [workloads/status]
  verbs: [patch, update]
{{- end -}}

{{/* With Kueue: what it reads cluster-wide, the ResourceFlavors and the priority classes' values. */}}
{{- define "elasticjob.kueueClusterRules" -}}
- apiGroups: [kueue.x-k8s.io]
  resources: [resourceflavors]
  verbs: [get, list, watch]
- apiGroups: [kueue.x-k8s.io]
  resources: [workloadpriorityclasses]
  verbs: [get]
- apiGroups: [scheduling.k8s.io]
  resources: [priorityclasses]
  verbs: [get]
{{- end -}}
