// Package kueue checks, on a test cluster started with `cluster run --kueue DIR`, that Kueue's real
// manager decides: quota, admission, flavours, Finished, deactivation, and the webhooks the API
// server calls on 127.0.0.1. Its Workloads are made as the elasticjob controller makes a job's (one
// pod set per replica type, the master's first; owned by nothing here), and the test writes what
// that controller writes to a Workload's status (Finished; the quota released after an eviction),
// as Kueue's own job integrations (pkg/controller/jobframework/reconciler.go) write it. Workload
// slices (the gate ElasticJobsViaWorkloadSlices) are slices_test.go's.
package kueue

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"elasticjob.test/cluster/testenv"
)

var (
	workloads      = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}
	workloadsV1b1  = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta1", Resource: "workloads"}
	flavors        = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "resourceflavors"}
	clusterQueues  = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "clusterqueues"}
	localQueues    = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "localqueues"}
	waitFor        = 60 * time.Second
	testNamespace  = "kueue-test"
	highClass      = "research-high"
	flavorName     = "kwok-reserved"
	clusterQueue   = "team-a"
	localQueueName = "training"
)

func clients(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	return testenv.Clients(t, "`cluster run --kueue DIR -- go test ./kueue/` (make test-kueue)")
}

func object(t *testing.T, text string) *unstructured.Unstructured {
	t.Helper()
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON([]byte(text)); err != nil {
		t.Fatalf("%v in %s", err, text)
	}
	return &u
}

// podSet is a pod set of one replica type: count pods of cpu CPUs each, as the core renders them.
func podSet(name string, count int, cpu string) string {
	return fmt.Sprintf(`{"name": %q, "count": %d, "template": {"spec": {"restartPolicy": "Never", "containers": [
		{"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": %q, "memory": "1Gi"}, "limits": {"cpu": %q, "memory": "1Gi"}}}]}}}`,
		name, count, cpu, cpu)
}

// job is the Workload of a job of 1 PS and 4 workers (1 CPU each) and its master (1 CPU); with
// a priority, of the PriorityClass highClass.
func job(name string, priority int) string {
	class := ""
	if priority != 0 {
		class = fmt.Sprintf(`"priorityClassRef": {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": %q}, "priority": %d, `, highClass, priority)
	}
	return fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": {"name": %q, "namespace": %q},
		"spec": {%s"queueName": %q, "podSets": [%s, %s, %s]}}`,
		name, testNamespace, class, localQueueName, podSet("dlrover-master", 1, "1"), podSet("ps", 1, "1"), podSet("worker", 4, "1"))
}

// release writes what the controller writes once an evicted job's pods are gone, as Kueue's job
// integrations write it: QuotaReserved and Admitted false, Requeued, the admission removed.
func release(t *testing.T, client dynamic.Interface, u *unstructured.Unstructured) {
	t.Helper()
	evicted := condition(u, "Evicted")
	now := time.Now().UTC().Format(time.RFC3339)
	requeued := "False"
	if evicted["reason"] == "Preempted" {
		requeued = "True"
	}
	conditions := u
	for _, c := range []map[string]any{
		{"type": "Requeued", "status": requeued, "reason": evicted["reason"], "message": evicted["message"], "lastTransitionTime": now},
		{"type": "QuotaReserved", "status": "False", "reason": "Pending", "message": evicted["message"], "lastTransitionTime": now},
		{"type": "Admitted", "status": "False", "reason": "NoReservation", "message": "The workload has no reservation", "lastTransitionTime": now},
	} {
		next := conditions.DeepCopy()
		if err := unstructured.SetNestedSlice(next.Object, withCondition(conditions, c), "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		conditions = next
	}
	list, _, _ := unstructured.NestedSlice(conditions.Object, "status", "conditions")
	patchStatus(t, client, u, map[string]any{"conditions": list, "admission": nil})
}

func condition(u *unstructured.Unstructured, kind string) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == kind {
			return m
		}
	}
	return nil
}

func isTrue(u *unstructured.Unstructured, kind string) bool {
	c := condition(u, kind)
	return c != nil && c["status"] == "True"
}

// eventually polls the Workload of testNamespace until check holds, and fails with its last status
// otherwise.
func eventually(t *testing.T, client dynamic.Interface, name, what string, check func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	return eventuallyIn(t, client, testNamespace, name, what, check)
}

// eventuallyIn polls the Workload of namespace until check holds, and fails with its last status
// otherwise.
func eventuallyIn(t *testing.T, client dynamic.Interface, namespace, name, what string, check func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	var last *unstructured.Unstructured
	for time.Now().Before(deadline) {
		u, err := client.Resource(workloads).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil {
			last = u
			if check(u) {
				return u
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last == nil {
		t.Fatalf("Workload %s/%s: not %s within %s; never read", namespace, name, what, waitFor)
	}
	status, _, _ := unstructured.NestedMap(last.Object, "status")
	t.Fatalf("Workload %s/%s: not %s within %s; its status: %v", namespace, name, what, waitFor, status)
	return nil
}

// patchStatus writes the Workload's status subresource with a JSON merge patch, as the controller
// does (conditions as a whole list, with the resourceVersion it read).
func patchStatus(t *testing.T, client dynamic.Interface, u *unstructured.Unstructured, status map[string]any) {
	t.Helper()
	patch, err := (&unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"resourceVersion": u.GetResourceVersion()}, "status": status,
	}}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Resource(workloads).Namespace(u.GetNamespace()).Patch(context.Background(), u.GetName(),
		types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("patching the status of %s: %v", u.GetName(), err)
	}
}

// withCondition is the Workload's conditions with one set (replaced by type).
func withCondition(u *unstructured.Unstructured, c map[string]any) []any {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := []any{}
	for _, old := range conditions {
		if m, ok := old.(map[string]any); !ok || m["type"] != c["type"] {
			out = append(out, old)
		}
	}
	return append(out, c)
}

func TestKueueDecides(t *testing.T) {
	client, core := clients(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A flavour of the KWOK nodes (`type: kwok`) behind a taint, with quota for one job of
	// 1 PS + 4 workers and its master: 6 CPUs.
	for _, setup := range []struct {
		gvr  schema.GroupVersionResource
		ns   string
		text string
	}{
		{flavors, "", fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": %q},
			"spec": {"nodeLabels": {"type": "kwok"}, "tolerations": [{"key": "example.com/reserved", "operator": "Exists", "effect": "NoSchedule"}]}}`, flavorName)},
		{clusterQueues, "", fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": %q},
			"spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": "LowerPriority"}, "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
				{"name": %q, "resources": [{"name": "cpu", "nominalQuota": "6"}, {"name": "memory", "nominalQuota": "6Gi"}]}]}]}}`, clusterQueue, flavorName)},
		{localQueues, testNamespace, fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": %q, "namespace": %q},
			"spec": {"clusterQueue": %q}}`, localQueueName, testNamespace, clusterQueue)},
	} {
		if _, err := client.Resource(setup.gvr).Namespace(setup.ns).Create(ctx, object(t, setup.text), metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", setup.gvr.Resource, err)
		}
	}
	// The mutating webhook (called on 127.0.0.1) gave the ClusterQueue Kueue's finalizer.
	cq, err := client.Resource(clusterQueues).Get(ctx, clusterQueue, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cq.GetFinalizers(), "kueue.x-k8s.io/resource-in-use") {
		t.Errorf("the ClusterQueue has no finalizer from Kueue's mutating webhook: %v", cq.GetFinalizers())
	}
	// The validating webhook refuses a ClusterQueue whose flavour quotas do not follow its
	// coveredResources (a check of Kueue's webhook, not of the CRD's schema).
	bad := object(t, `{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "bad"},
		"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [{"name": "memory", "nominalQuota": "1"}]}]}]}}`)
	_, err = client.Resource(clusterQueues).Create(ctx, bad, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "must match the name in coveredResources") {
		t.Errorf("a ClusterQueue whose flavour names a resource it does not cover: %v, want Kueue's webhook to refuse it", err)
	}

	first, second := "elasticjob-first", "elasticjob-second"
	if _, err := client.Resource(workloads).Namespace(testNamespace).Create(ctx, object(t, job(first, 0)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	admitted := eventually(t, client, first, "admitted", func(u *unstructured.Unstructured) bool {
		return isTrue(u, "QuotaReserved") && isTrue(u, "Admitted")
	})
	assignments, _, _ := unstructured.NestedSlice(admitted.Object, "status", "admission", "podSetAssignments")
	var names []string
	for _, a := range assignments {
		m := a.(map[string]any)
		names = append(names, fmt.Sprint(m["name"]))
		flavorsOf, _, _ := unstructured.NestedStringMap(m, "flavors")
		if flavorsOf["cpu"] != flavorName || flavorsOf["memory"] != flavorName {
			t.Errorf("pod set %v: flavors %v, want cpu and memory on %s", m["name"], flavorsOf, flavorName)
		}
	}
	if got := strings.Join(names, ","); got != "dlrover-master,ps,worker" {
		t.Errorf("podSetAssignments in the order %s, want the pod sets' dlrover-master,ps,worker", got)
	}
	if worker := assignments[2].(map[string]any); fmt.Sprint(worker["count"]) != "4" {
		t.Errorf("the worker pod set was admitted with count %v, want 4", worker["count"])
	}
	if cqName, _, _ := unstructured.NestedString(admitted.Object, "status", "admission", "clusterQueue"); cqName != clusterQueue {
		t.Errorf("admitted by %q, want %q", cqName, clusterQueue)
	}

	// The second job does not fit beside the first: no quota reserved, and Kueue says why.
	if _, err := client.Resource(workloads).Namespace(testNamespace).Create(ctx, object(t, job(second, 0)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := eventually(t, client, second, "held for quota", func(u *unstructured.Unstructured) bool {
		c := condition(u, "QuotaReserved")
		return c != nil && c["status"] == "False" && c["reason"] == "Pending"
	})
	if msg := fmt.Sprint(condition(held, "QuotaReserved")["message"]); !strings.Contains(msg, "insufficient unused quota") {
		t.Errorf("the held Workload's QuotaReserved message %q does not name the quota", msg)
	}
	if isTrue(held, "Admitted") {
		t.Errorf("the second Workload was admitted beside the first")
	}

	// The conversion webhook serves the deprecated v1beta1 of a stored v1beta2 Workload.
	old, err := client.Resource(workloadsV1b1).Namespace(testNamespace).Get(ctx, first, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the Workload as v1beta1: %v", err)
	}
	if old.GetAPIVersion() != "kueue.x-k8s.io/v1beta1" {
		t.Errorf("read as v1beta1, got %s", old.GetAPIVersion())
	}

	// The first job ends: its controller sets Finished, and the second is admitted at once.
	patchStatus(t, client, admitted, map[string]any{"conditions": withCondition(admitted, map[string]any{
		"type": "Finished", "status": "True", "reason": "Succeeded", "message": "ElasticJob first succeeded",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	})})
	eventually(t, client, second, "admitted once the first finished", func(u *unstructured.Unstructured) bool {
		return isTrue(u, "Admitted")
	})

	// A job of higher priority comes: Kueue preempts the second (Evicted, reason Preempted) but
	// keeps its quota until its controller says its pods are gone; then the third is admitted.
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: highClass}, Value: 1000}
	if _, err := core.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	third := "elasticjob-third"
	if _, err := client.Resource(workloads).Namespace(testNamespace).Create(ctx, object(t, job(third, 1000)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	preempted := eventually(t, client, second, "preempted", func(u *unstructured.Unstructured) bool { return isTrue(u, "Evicted") })
	if reason := condition(preempted, "Evicted")["reason"]; reason != "Preempted" {
		t.Errorf("the lower-priority Workload was evicted with reason %v, want Preempted", reason)
	}
	if !isTrue(preempted, "QuotaReserved") {
		t.Errorf("Kueue released the quota of a preempted Workload itself; its integration is to, once the pods are gone")
	}
	if pending, _ := client.Resource(workloads).Namespace(testNamespace).Get(ctx, third, metav1.GetOptions{}); pending != nil && isTrue(pending, "Admitted") {
		t.Errorf("the higher-priority Workload was admitted before the preempted one's quota was released")
	}
	release(t, client, preempted)
	eventually(t, client, third, "admitted once the preempted one released its quota", func(u *unstructured.Unstructured) bool {
		return isTrue(u, "Admitted")
	})
	requeued := eventually(t, client, second, "queued again", func(u *unstructured.Unstructured) bool {
		c := condition(u, "QuotaReserved")
		return c != nil && c["status"] == "False" && !isTrue(u, "Admitted")
	})
	if !isTrue(requeued, "Requeued") {
		t.Errorf("the preempted Workload is not marked Requeued")
	}

	// Deactivated (spec.active: false): Kueue evicts it (reason Deactivated); once its pods are
	// gone the controller releases the quota, and Kueue does not admit it again while inactive.
	patch := []byte(`{"spec": {"active": false}}`)
	if _, err := client.Resource(workloads).Namespace(testNamespace).Patch(ctx, third, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	evicted := eventually(t, client, third, "evicted", func(u *unstructured.Unstructured) bool { return isTrue(u, "Evicted") })
	if reason := condition(evicted, "Evicted")["reason"]; reason != "Deactivated" {
		t.Errorf("evicted with reason %v, want Deactivated", reason)
	}
	release(t, client, evicted)
	eventually(t, client, third, "without quota and not admitted", func(u *unstructured.Unstructured) bool {
		_, has, _ := unstructured.NestedMap(u.Object, "status", "admission")
		return !has && !isTrue(u, "Admitted") && !isTrue(u, "QuotaReserved")
	})
	// The quota it released goes to the second, queued again.
	eventually(t, client, second, "admitted again", func(u *unstructured.Unstructured) bool { return isTrue(u, "Admitted") })
}

// The Workload the core plans for a queued job (the golden case workload-of-a-queued-job) is one
// the API server takes as it is, with Kueue's CRD (strict: no field it does not know) and webhooks.
func TestTheCoresWorkloadIsAccepted(t *testing.T) {
	client, core := clients(t)
	ctx := context.Background()
	raw, err := os.ReadFile("../../golden/workload-of-a-queued-job/output.json")
	if err != nil {
		t.Fatal(err)
	}
	w := object(t, string(raw))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.GetNamespace()}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	options := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	created, err := client.Resource(workloads).Namespace(w.GetNamespace()).Create(ctx, w, options)
	if err != nil {
		t.Fatalf("the API server refused the core's Workload: %v", err)
	}
	got, _, _ := unstructured.NestedSlice(created.Object, "spec", "podSets")
	want, _, _ := unstructured.NestedSlice(w.Object, "spec", "podSets")
	if len(got) != len(want) || len(got) != 3 {
		t.Errorf("pod sets: %d stored, %d sent, want 3", len(got), len(want))
	}
}
