// Package volcano checks, on a test cluster started with `cluster run --volcano DIR --nodes 2
// --node-cpu 8` (make test-volcano), that Volcano's real scheduler and controllers (v1.10.0, built
// by build.sh) do what the elasticjob controller expects of them when it runs a job with
// `BatchScheduler: volcano` (docs/gang.md): the objects are made here by hand as the controller
// makes them.
//
// Two jobs, each a PodGroup of minMember 3 and minResources of 12 CPUs (three workers of 4 CPUs),
// on two KWOK nodes of 8 CPUs: either fits, not both. As the controller does, the PodGroup comes
// first and the task pods (schedulerName volcano, the annotations scheduling.k8s.io/group-name and
// volcano.sh/task-spec) only once Volcano has moved it out of Pending; each job's master pod is
// Volcano's with no group named, and Volcano's podgroup controller makes it a PodGroup of its own.
//
// What Volcano does (v1.10.0's scheduler with its default actions and plugins, volcano.go), which
// the waits follow: each scheduling cycle (1 s) enqueue moves a Pending PodGroup to Inqueue when its
// minResources fit what the cluster has idle (times 1.2, the overcommit plugin's factor) less what
// the Inqueue groups asked; the first job's 12 of 16 CPUs leave 4, so the second's stays Pending,
// its condition Unschedulable (reason NotEnoughResources). allocate binds an Inqueue group's pods
// once minMember of them fit; the group is Running once they run. Once the first job's pods and
// PodGroup are deleted, the second's is enqueued at the next cycle.
package volcano

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"elasticjob.test/cluster/testenv"
)

const (
	scheduler = "volcano"
	// Volcano's annotations of a task pod (the controller writes both).
	groupNameAnnotation = "scheduling.k8s.io/group-name"
	taskSpecAnnotation  = "volcano.sh/task-spec"
	// jobLabel names a pod's job for the test.
	jobLabel  = "volcano-test/job"
	namespace = "volcano-test"
	workers   = 3
	workerCPU = 4
	masterCPU = 1
	// The cluster the test needs: two nodes of 8 CPUs hold one job's workers (12 CPUs), not two.
	nodeCount = 2
	nodeCPU   = 8
	waitFor   = 60 * time.Second
	// quiet is how long the second job's PodGroup is watched to stay Pending: several of the
	// scheduler's cycles.
	quiet = 5 * time.Second
)

var podGroups = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"}

func clients(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	return testenv.Clients(t, "`cluster run --volcano DIR --nodes 2 --node-cpu 8 -- go test ./volcano/` (make test-volcano)")
}

// setup checks the nodes' shape, makes the namespace, and removes what an earlier test left in it.
func setup(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	t.Helper()
	dyn, client := clients(t)
	testenv.Nodes(t, client, nodeCount, nodeCPU, "--nodes 2 --node-cpu 8")
	testenv.Namespace(t, client, namespace)
	clean(t, dyn, client)
	t.Cleanup(func() { clean(t, dyn, client) })
	return dyn, client
}

// clean deletes the test's pods (no grace: KWOK's pods have no process to stop) and PodGroups
// (those the podgroup controller made for the masters too) and waits until the pods are gone.
func clean(t *testing.T, dyn dynamic.Interface, client kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	zero := int64(0)
	if err := client.CoreV1().Pods(namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{LabelSelector: jobLabel}); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Resource(podGroups).Namespace(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, client, "", "the test's pods deleted", func(list []corev1.Pod) bool { return len(list) == 0 })
}

// createPodGroup makes job's PodGroup as the controller does: minMember its workers, minResources
// theirs, the default queue.
func createPodGroup(t *testing.T, dyn dynamic.Interface, job string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
		"metadata": map[string]any{"name": job, "namespace": namespace},
		"spec": map[string]any{
			"minMember": int64(workers),
			"queue":     "default",
			"minResources": map[string]any{
				"cpu": fmt.Sprint(workers * workerCPU), "memory": fmt.Sprintf("%dGi", workers),
			},
		},
	}}
	if _, err := dyn.Resource(podGroups).Namespace(namespace).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// pod is a pod of job for Volcano: with group, a task pod of that PodGroup and task type; without,
// a master outside the group.
func pod(job, name, group, task string, cpu int) *corev1.Pod {
	annotations := map[string]string{}
	if group != "" {
		annotations[groupNameAnnotation] = group
		annotations[taskSpecAnnotation] = task
	}
	zero := int64(0)
	request := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(fmt.Sprint(cpu)), corev1.ResourceMemory: resource.MustParse("1Gi")}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{jobLabel: job}, Annotations: annotations},
		Spec: corev1.PodSpec{
			SchedulerName:                 scheduler,
			RestartPolicy:                 corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{
				Name: "main", Image: "trainer:1",
				Resources: corev1.ResourceRequirements{Requests: request, Limits: request},
			}},
		},
	}
}

func createPod(t *testing.T, client kubernetes.Interface, p *corev1.Pod) {
	t.Helper()
	if _, err := client.CoreV1().Pods(namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createWorkers makes job's task pods, as the controller does once its PodGroup has left Pending.
func createWorkers(t *testing.T, client kubernetes.Interface, job string) {
	t.Helper()
	for i := range workers {
		createPod(t, client, pod(job, fmt.Sprintf("%s-worker-%d", job, i), job, "worker", workerCPU))
	}
}

// podGroup reads a PodGroup's status.phase and its Unschedulable condition's reason ("" when none).
func podGroup(t *testing.T, dyn dynamic.Interface, name string) (phase, unschedulable string) {
	t.Helper()
	u, err := dyn.Resource(podGroups).Namespace(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	phase, _, _ = unstructured.NestedString(u.Object, "status", "phase")
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Unschedulable" && m["status"] == "True" {
			unschedulable, _ = m["reason"].(string)
		}
	}
	return phase, unschedulable
}

// waitPhase polls a PodGroup until its phase is one of want.
func waitPhase(t *testing.T, dyn dynamic.Interface, name string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		phase, reason := podGroup(t, dyn, name)
		if slices.Contains(want, phase) {
			return phase
		}
		if time.Now().After(deadline) {
			t.Fatalf("PodGroup %s: phase %q (Unschedulable %q) after %s, not %v", name, phase, reason, waitFor, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitPods waits for the pods of job ("": the test's) until done says so (testenv.WaitPods).
func waitPods(t *testing.T, client kubernetes.Interface, job, what string, done func([]corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	selector := jobLabel
	if job != "" {
		selector += "=" + job
	}
	return testenv.WaitPods(t, client, namespace, selector, what, waitFor, func(list []corev1.Pod) (bool, error) { return done(list), nil })
}

// allRunning tells whether n pods are there, all Running.
func allRunning(n int) func([]corev1.Pod) bool {
	return func(list []corev1.Pod) bool {
		running := 0
		for _, p := range list {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return len(list) == n && running == n
	}
}

// A master pod of Volcano's naming no PodGroup gets one from the podgroup controller (minMember 1)
// and runs: the controller leaves the master outside the job's gang.
func TestMasterGetsAPodGroupOfItsOwn(t *testing.T) {
	dyn, client := setup(t)
	createPod(t, client, pod("m", "m-master", "", "", masterCPU))
	pods := waitPods(t, client, "m", "the master Running", allRunning(1))
	group := pods[0].Annotations[groupNameAnnotation]
	if !strings.HasPrefix(group, "podgroup-") {
		t.Fatalf("the master's annotation %s is %q, not the podgroup controller's podgroup-<uid>", groupNameAnnotation, group)
	}
	u, err := dyn.Resource(podGroups).Namespace(namespace).Get(context.Background(), group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if minMember, _, _ := unstructured.NestedInt64(u.Object, "spec", "minMember"); minMember != 1 {
		t.Fatalf("the master's PodGroup %s has minMember %d, not 1", group, minMember)
	}
}

// Two jobs of which one fits: the first's PodGroup is enqueued and its workers all run; the
// second's stays Pending (so the controller makes none of its workers) until the first is gone,
// then it is enqueued and its workers all run. Both masters run throughout.
func TestOneOfTwoGangsAdmittedTheOtherOnceItEnds(t *testing.T) {
	dyn, client := setup(t)
	begin := map[string]time.Time{}
	for _, job := range []string{"a", "b"} {
		begin[job] = time.Now()
		createPod(t, client, pod(job, job+"-master", "", "", masterCPU))
		createPodGroup(t, dyn, job)
		if job == "a" {
			phase := waitPhase(t, dyn, "a", "Inqueue", "Running")
			t.Logf("job a: PodGroup %s %.1fs after it was made", phase, time.Since(begin["a"]).Seconds())
			createWorkers(t, client, "a")
		}
	}
	waitPods(t, client, "a", "job a's master and workers all Running", allRunning(1+workers))
	t.Logf("job a: master and %d workers Running %.1fs after the job was made", workers, time.Since(begin["a"]).Seconds())
	if phase := waitPhase(t, dyn, "a", "Running"); phase != "Running" {
		t.Fatalf("job a's PodGroup %s", phase)
	}

	// The second job's PodGroup stays Pending, told not to fit, while the first's runs.
	waitPods(t, client, "b", "job b's master Running", allRunning(1))
	until := time.Now().Add(quiet)
	reason := ""
	for time.Now().Before(until) {
		var phase string
		phase, reason = podGroup(t, dyn, "b")
		if phase != "Pending" && phase != "" {
			t.Fatalf("job b's PodGroup %s while job a's workers hold %d of %d CPUs", phase, workers*workerCPU, nodeCount*nodeCPU)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if reason != "NotEnoughResources" {
		t.Fatalf("job b's PodGroup: Unschedulable reason %q, not NotEnoughResources", reason)
	}

	// The first job ends: its workers and PodGroup are deleted (its master too, as the job's
	// deletion takes all).
	ended := time.Now()
	zero := int64(0)
	if err := client.CoreV1().Pods(namespace).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{LabelSelector: jobLabel + "=a"}); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Resource(podGroups).Namespace(namespace).Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	phase := waitPhase(t, dyn, "b", "Inqueue", "Running")
	t.Logf("job b: PodGroup %s %.1fs after job a was deleted", phase, time.Since(ended).Seconds())
	createWorkers(t, client, "b")
	waitPods(t, client, "b", "job b's master and workers all Running", allRunning(1+workers))
	t.Logf("job b: master and %d workers Running %.1fs after job a was deleted, %.1fs after job b was made",
		workers, time.Since(ended).Seconds(), time.Since(begin["b"]).Seconds())
}
