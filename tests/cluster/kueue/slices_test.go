package kueue

// Workload slices (docs/kueue.md, "Workload slices for a Workload this controller owns"): with
// Kueue's feature gate ElasticJobsViaWorkloadSlices on, a job admitted for 2 workers grows to 4 by
// a second Workload for its whole new size naming the first
// (`kueue.x-k8s.io/workload-slice-replacement-for: <namespace>/<name>`); Kueue admits it for the
// growth alone on the first's flavours and finishes the first (reason WorkloadSliceReplaced). The
// Workloads are written by hand as the core would write them: owned by an ElasticJob (a controller
// ownerReference, the label elasticjob.dlrover/name), pod sets dlrover-master, ps, worker, and the
// slice's spec copied from the stored first slice.
//
// TestWorkloadSlices needs the gate on (`cluster run --kueue DIR --kueue-feature-gates
// ElasticJobsViaWorkloadSlices=true`), TestWorkloadSlicesGateOff the gate off (Kueue's default).
// Each finds out which it has as the controller would: a server-side dry run lowering an admitted
// Workload's count, which Kueue's webhook accepts only with the gate on, and skips when it has the
// other. KUEUE_WORKLOAD_SLICES=on|off (make test-kueue sets it) says which the cluster was started
// with: a probe that disagrees fails the test.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"elasticjob.test/cluster/testenv"
)

// Kueue's names (pkg/workloadslicing/workloadslicing.go, apis/kueue/v1beta2 at v0.17.0).
const (
	slicesGate          = "ElasticJobsViaWorkloadSlices"
	replacementFor      = "kueue.x-k8s.io/workload-slice-replacement-for"
	elasticJobKey       = "kueue.x-k8s.io/elastic-job"
	sliceNameKey        = "kueue.x-k8s.io/workload-slice-name"
	sliceReplaced       = "WorkloadSliceReplaced"
	slicesEnv           = "KUEUE_WORKLOAD_SLICES"
	slicesClass         = "slices-normal"
	slicesPriority      = 100
	flavorOne           = "slices-one"
	flavorTwo           = "slices-two"
	jobLabel            = "elasticjob.dlrover/name"
	immutableMessage    = "field is immutable"
	insufficientMessage = "insufficient unused quota"
)

var elasticJobs = schema.GroupVersionResource{Group: "elastic.iml.github.io", Version: "v1alpha1", Resource: "elasticjobs"}

// sliceQueue is a ClusterQueue of its own (cpu per flavour, in that order; memory never binds) and
// the LocalQueue of the same name in the test's namespace.
type sliceQueue struct {
	name    string
	cpu     []flavorCPU
	preempt bool
}

type flavorCPU struct {
	flavor string
	cpu    int
}

// slicesScene is one test's namespace, with its queues made and removed by setup.
type slicesScene struct {
	t      *testing.T
	client dynamic.Interface
	ns     string
}

// setupSlices makes the namespace, the PriorityClass slicesClass, both flavours and the queues,
// and removes on cleanup what the test made (its ElasticJobs first: no controller runs here, and
// the one make test-kueue starts next must find none).
func setupSlices(t *testing.T, ns string, queues ...sliceQueue) *slicesScene {
	client, core := clients(t)
	ctx := context.Background()
	testenv.Namespace(t, core, ns)
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: slicesClass}, Value: slicesPriority}
	if _, err := core.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	s := &slicesScene{t: t, client: client, ns: ns}
	for _, f := range []string{flavorOne, flavorTwo} {
		s.create(flavors, "", fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": %q}}`, f), true)
	}
	for _, q := range queues {
		var fl []string
		for _, f := range q.cpu {
			fl = append(fl, fmt.Sprintf(`{"name": %q, "resources": [{"name": "cpu", "nominalQuota": "%d"}, {"name": "memory", "nominalQuota": "64Gi"}]}`, f.flavor, f.cpu))
		}
		policy := "Never"
		if q.preempt {
			policy = "LowerPriority"
		}
		s.create(clusterQueues, "", fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": %q},
			"spec": {"namespaceSelector": {}, "preemption": {"withinClusterQueue": %q},
			"resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [%s]}]}}`, q.name, policy, strings.Join(fl, ", ")), false)
		s.create(localQueues, ns, fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": %q, "namespace": %q},
			"spec": {"clusterQueue": %q}}`, q.name, ns, q.name), false)
	}
	t.Cleanup(func() {
		background := metav1.DeletePropagationBackground
		options := metav1.DeleteOptions{PropagationPolicy: &background}
		for _, r := range []schema.GroupVersionResource{elasticJobs, workloads, localQueues} {
			if err := client.Resource(r).Namespace(ns).DeleteCollection(ctx, options, metav1.ListOptions{}); err != nil {
				t.Errorf("removing the %s of %s: %v", r.Resource, ns, err)
			}
		}
		for _, q := range queues {
			if err := client.Resource(clusterQueues).Delete(ctx, q.name, options); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("removing ClusterQueue %s: %v", q.name, err)
			}
		}
	})
	return s
}

// create makes an object from JSON; shared tolerates one already there (cluster-scoped, made by
// the other test of this file).
func (s *slicesScene) create(gvr schema.GroupVersionResource, ns, text string, shared bool) *unstructured.Unstructured {
	s.t.Helper()
	created, err := s.client.Resource(gvr).Namespace(ns).Create(context.Background(), object(s.t, text), metav1.CreateOptions{})
	if err != nil && !(shared && apierrors.IsAlreadyExists(err)) {
		s.t.Fatalf("creating a %s: %v", gvr.Resource, err)
	}
	return created
}

// elasticJob makes an ElasticJob (1 PS, workers of 1 CPU), the owner of its Workloads. No
// controller runs during these tests: it is only the object the Workloads name as owner, so that
// the garbage collector keeps them.
func (s *slicesScene) elasticJob(name string) *unstructured.Unstructured {
	s.t.Helper()
	replica := `{"replicas": %d, "restartCount": 3, "template": {"spec": {"restartPolicy": "Never", "containers": [
		{"name": "main", "image": "registry.example.com/ads/deepctr:2.1", "command": ["python", "-m", "deepctr.train"],
		 "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}`
	return s.create(elasticJobs, s.ns, fmt.Sprintf(`{"apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
		"metadata": {"name": %q, "namespace": %q},
		"spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {"ps": %s, "worker": %s}}}`,
		name, s.ns, fmt.Sprintf(replica, 1), fmt.Sprintf(replica, 2)), false)
}

// corePodSet is a pod set as the core renders it: count pods of 1 CPU and 1 GiB, the job's labels
// on the template (the master's with its replica index).
func corePodSet(job, kind string, count int) string {
	index := ""
	if kind == "dlrover-master" {
		index = `, "elasticjob.dlrover/replica-index": "0"`
	}
	return fmt.Sprintf(`{"name": %q, "count": %d, "template": {
		"metadata": {"labels": {"app": "dlrover", %q: %q, "elasticjob.dlrover/replica-type": %q%s}},
		"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "registry.example.com/ads/deepctr:2.1",
			"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}}}`,
		kind, count, jobLabel, job, kind, index)
}

// firstSlice is the job's Workload as the core writes it (elasticjob-<job>, owned by the job, in
// LocalQueue queue): pod sets dlrover-master 1, ps (when ps > 0) and worker; of PriorityClass
// slicesClass when classed. It carries the slice annotations the design gives every slice.
func (s *slicesScene) firstSlice(job *unstructured.Unstructured, queue string, ps, workers int, classed bool) *unstructured.Unstructured {
	s.t.Helper()
	name := job.GetName()
	sets := []string{corePodSet(name, "dlrover-master", 1)}
	if ps > 0 {
		sets = append(sets, corePodSet(name, "ps", ps))
	}
	sets = append(sets, corePodSet(name, "worker", workers))
	class := ""
	if classed {
		class = fmt.Sprintf(`"priorityClassRef": {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": %q}, "priority": %d, `, slicesClass, slicesPriority)
	}
	w := object(s.t, fmt.Sprintf(`{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": {"name": %q, "namespace": %q, "labels": {%q: %q}},
		"spec": {%s"queueName": %q, "podSets": [%s]}}`,
		"elasticjob-"+name, s.ns, jobLabel, name, class, queue, strings.Join(sets, ", ")))
	w.SetOwnerReferences([]metav1.OwnerReference{ownerOf(job)})
	w.SetAnnotations(map[string]string{elasticJobKey: "true", sliceNameKey: w.GetName()})
	created, err := s.client.Resource(workloads).Namespace(s.ns).Create(context.Background(), w, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("creating Workload %s: %v", w.GetName(), err)
	}
	return created
}

func ownerOf(job *unstructured.Unstructured) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: job.GetAPIVersion(), Kind: job.GetKind(), Name: job.GetName(), UID: job.GetUID(),
		Controller: &yes, BlockOwnerDeletion: &yes}
}

// nextSlice writes the slice that replaces current (a stored Workload), as the design has the core
// write it: current's spec as stored (pod sets in the same order with the same templates,
// queueName, priorityClassRef, priority), each count of counts raised to it; its labels, owner,
// and the annotations naming current and the job's first slice.
func (s *slicesScene) nextSlice(current *unstructured.Unstructured, name string, counts map[string]int64) *unstructured.Unstructured {
	s.t.Helper()
	spec, _, _ := unstructured.NestedMap(current.Object, "spec")
	sets, _, _ := unstructured.NestedSlice(spec, "podSets")
	for _, set := range sets {
		m := set.(map[string]any)
		if n, ok := counts[fmt.Sprint(m["name"])]; ok {
			m["count"] = n
		}
	}
	spec["podSets"] = sets
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": current.GetAPIVersion(), "kind": current.GetKind(), "spec": spec}}
	w.SetName(name)
	w.SetNamespace(s.ns)
	w.SetLabels(current.GetLabels())
	w.SetOwnerReferences(current.GetOwnerReferences())
	w.SetAnnotations(map[string]string{
		replacementFor: s.ns + "/" + current.GetName(),
		elasticJobKey:  "true",
		sliceNameKey:   current.GetAnnotations()[sliceNameKey],
	})
	created, err := s.client.Resource(workloads).Namespace(s.ns).Create(context.Background(), w, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("creating slice %s of %s: %v", name, current.GetName(), err)
	}
	return created
}

func (s *slicesScene) wait(name, what string, check func(*unstructured.Unstructured) bool) *unstructured.Unstructured {
	s.t.Helper()
	return eventuallyIn(s.t, s.client, s.ns, name, what, check)
}

func (s *slicesScene) admitted(name string) *unstructured.Unstructured {
	s.t.Helper()
	return s.wait(name, "admitted", func(u *unstructured.Unstructured) bool { return isTrue(u, "QuotaReserved") && isTrue(u, "Admitted") })
}

// pending waits for Kueue to have tried the Workload and left it without quota.
func (s *slicesScene) pending(name string) *unstructured.Unstructured {
	s.t.Helper()
	return s.wait(name, "left pending by Kueue", func(u *unstructured.Unstructured) bool {
		c := condition(u, "QuotaReserved")
		return c != nil && c["status"] == "False" && c["reason"] == "Pending"
	})
}

// finished waits for Kueue to finish the Workload with reason.
func (s *slicesScene) finished(name, reason string) *unstructured.Unstructured {
	s.t.Helper()
	return s.wait(name, "Finished ("+reason+")", func(u *unstructured.Unstructured) bool {
		c := condition(u, "Finished")
		return c != nil && c["status"] == "True" && c["reason"] == reason
	})
}

// finish writes what the controller writes when the Workload's job ends (Finished true).
func (s *slicesScene) finish(name, reason, message string) {
	s.t.Helper()
	u, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	patchStatus(s.t, s.client, u, map[string]any{"conditions": withCondition(u, map[string]any{
		"type": "Finished", "status": "True", "reason": reason, "message": message,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	})})
}

// setCount is the core's in-place change of one pod set's count: GET the stored Workload, change
// that count and nothing else, PUT it with its resourceVersion (again on a conflict with Kueue's
// own writes); dryRun sends it as a server-side dry run. It returns the API server's answer.
func (s *slicesScene) setCount(name, podSet string, count int64, dryRun bool) error {
	s.t.Helper()
	options := metav1.UpdateOptions{}
	if dryRun {
		options.DryRun = []string{metav1.DryRunAll}
	}
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		u, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		sets, _, _ := unstructured.NestedSlice(u.Object, "spec", "podSets")
		found := false
		for _, set := range sets {
			if m := set.(map[string]any); m["name"] == podSet {
				m["count"], found = count, true
			}
		}
		if !found {
			s.t.Fatalf("Workload %s has no pod set %s", name, podSet)
		}
		if err := unstructured.SetNestedSlice(u.Object, sets, "spec", "podSets"); err != nil {
			s.t.Fatal(err)
		}
		_, err = s.client.Resource(workloads).Namespace(s.ns).Update(context.Background(), u, options)
		return err
	})
}

// gate tells whether Kueue's manager runs with the gate, as the controller would find out: a dry
// run lowering the master's count of the admitted Workload name by 1 is accepted with the gate
// on, refused as immutable with it off (validateImmutablePodSet). It then skips the test unless
// the gate is as it needs, and fails it when the probe and KUEUE_WORKLOAD_SLICES disagree.
func (s *slicesScene) gate(name string, need bool) {
	s.t.Helper()
	err := s.setCount(name, "dlrover-master", 0, true)
	on := err == nil
	if err != nil && !refusedImmutable(err) {
		s.t.Fatalf("the dry run lowering the master's count of the admitted %s: %v; want accepted, or refused as immutable", name, err)
	}
	state := map[bool]string{true: "on", false: "off"}
	s.t.Logf("gate probe: a dry run lowering the master's count of the admitted %s: %s, so %s is %s", name, answer(err), slicesGate, state[on])
	if want := os.Getenv(slicesEnv); want != "" && want != state[on] {
		s.t.Fatalf("%s=%s, but Kueue's webhook answers as with %s %s: the cluster's Kueue was not started as make test-kueue says", slicesEnv, want, slicesGate, state[on])
	}
	if on != need {
		s.t.Skipf("Kueue's manager runs with %s %s; this test needs it %s (`cluster run --kueue DIR --kueue-feature-gates %s=%t`)", slicesGate, state[on], state[need], slicesGate, need)
	}
}

// refusedImmutable tells whether the API server refused an update as Kueue's Workload webhook
// refuses a changed pod set (validateImmutablePodSet: "field is immutable").
func refusedImmutable(err error) bool {
	return err != nil && strings.Contains(err.Error(), immutableMessage)
}

// answer is the API server's answer to a request: accepted, or its status code, reason and message.
func answer(err error) string {
	if err == nil {
		return "accepted"
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		return fmt.Sprintf("refused, %d %s: %v", status.Status().Code, status.Status().Reason, err)
	}
	return err.Error()
}

// usage waits until the ClusterQueue reserves and uses cpu CPUs of each flavour of want for
// workloads Workloads, and fails with its status otherwise.
func (s *slicesScene) usage(queue string, workloads int64, want map[string]int64) {
	s.t.Helper()
	deadline := time.Now().Add(waitFor)
	var status map[string]any
	for time.Now().Before(deadline) {
		cq, err := s.client.Resource(clusterQueues).Get(context.Background(), queue, metav1.GetOptions{})
		if err != nil {
			s.t.Fatal(err)
		}
		status, _, _ = unstructured.NestedMap(cq.Object, "status")
		if cpuOf(status, "flavorsReservation", want) && cpuOf(status, "flavorsUsage", want) &&
			fmt.Sprint(status["reservingWorkloads"]) == fmt.Sprint(workloads) && fmt.Sprint(status["admittedWorkloads"]) == fmt.Sprint(workloads) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("ClusterQueue %s: not %d Workloads reserving and using %v CPUs within %s; its status: %v", queue, workloads, want, waitFor, status)
}

// cpuOf tells whether the status's list (flavorsReservation or flavorsUsage) has want's CPUs.
func cpuOf(status map[string]any, list string, want map[string]int64) bool {
	got := map[string]int64{}
	entries, _, _ := unstructured.NestedSlice(status, list)
	for _, e := range entries {
		m := e.(map[string]any)
		resources, _, _ := unstructured.NestedSlice(m, "resources")
		for _, r := range resources {
			if rm := r.(map[string]any); rm["name"] == "cpu" {
				q, err := resource.ParseQuantity(fmt.Sprint(rm["total"]))
				if err == nil {
					got[fmt.Sprint(m["name"])] = q.Value()
				}
			}
		}
	}
	for f, cpu := range want {
		if got[f] != cpu {
			return false
		}
	}
	return true
}

// assignments is the Workload's admission: for each pod set in order, "name:count@cpu-flavour".
func assignments(u *unstructured.Unstructured) string {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "admission", "podSetAssignments")
	var out []string
	for _, a := range list {
		m := a.(map[string]any)
		fl, _, _ := unstructured.NestedStringMap(m, "flavors")
		out = append(out, fmt.Sprintf("%v:%v@%s", m["name"], m["count"], fl["cpu"]))
	}
	return strings.Join(out, " ")
}

func countOf(u *unstructured.Unstructured, podSet string) string {
	sets, _, _ := unstructured.NestedSlice(u.Object, "spec", "podSets")
	for _, set := range sets {
		if m := set.(map[string]any); m["name"] == podSet {
			return fmt.Sprint(m["count"])
		}
	}
	return "none"
}

// change is one Workload's conditions as a watch saw them change, in the order of the watch (the
// order of the API server's writes).
type change struct {
	name, resourceVersion, conditions string
}

// timeline watches the namespace's Workloads until the returned function is called, which
// returns each change of a Workload's conditions (type=status(reason), sorted by type) in order.
func (s *slicesScene) timeline() func() []change {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	list, err := s.client.Resource(workloads).Namespace(s.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	w, err := s.client.Resource(workloads).Namespace(s.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		s.t.Fatal(err)
	}
	last := map[string]string{}
	for _, u := range list.Items {
		last[u.GetName()] = conditions(&u)
	}
	var mu sync.Mutex
	var changes []change
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range w.ResultChan() {
			u, ok := e.Object.(*unstructured.Unstructured)
			if !ok || (e.Type != watch.Added && e.Type != watch.Modified) {
				continue
			}
			c := conditions(u)
			mu.Lock()
			if last[u.GetName()] != c || e.Type == watch.Added {
				last[u.GetName()] = c
				changes = append(changes, change{u.GetName(), u.GetResourceVersion(), c})
			}
			mu.Unlock()
		}
	}()
	return func() []change {
		cancel()
		w.Stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for i, c := range changes {
			s.t.Logf("  %d. %s (resourceVersion %s): %s", i+1, c.name, c.resourceVersion, c.conditions)
		}
		return changes
	}
}

// conditions is the Workload's conditions as type=status(reason), in the order of Kueue's list.
func conditions(u *unstructured.Unstructured) string {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []string
	for _, c := range list {
		m := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v=%v(%v)", m["type"], m["status"], m["reason"]))
	}
	return strings.Join(out, " ")
}

// first is the index of the first change of name whose conditions hold condition (e.g.
// "Finished=True(WorkloadSliceReplaced)"), -1 if none.
func first(changes []change, name, condition string) int {
	for i, c := range changes {
		if c.name == name && strings.Contains(" "+c.conditions+" ", " "+condition+" ") {
			return i
		}
	}
	return -1
}

// TestWorkloadSlices: steps 1 to 3 of docs/kueue.md's experiment, the gate on.
func TestWorkloadSlices(t *testing.T) {
	s := setupSlices(t, "kueue-slices",
		// Step 1: two flavours, so that the slice's flavours are a choice Kueue makes. One holds
		// 5 CPUs, two 6: a job of a master, 1 PS and 4 workers (6 CPUs) fits in two alone.
		sliceQueue{name: "slices-grow", cpu: []flavorCPU{{flavorOne, 5}, {flavorTwo, 6}}},
		// Step 2: room for one job of a master, 1 PS and 4 workers.
		sliceQueue{name: "slices-shrink", cpu: []flavorCPU{{flavorOne, 6}}},
		// Step 3: the same, preempting lower priorities.
		sliceQueue{name: "slices-preempt", cpu: []flavorCPU{{flavorOne, 6}}, preempt: true},
	)
	// The first Workload of step 1 fills flavour one; the gate is probed on it, once admitted.
	filler := s.firstSlice(s.elasticJob("filler"), "slices-grow", 1, 3, false)
	if got := assignments(s.admitted(filler.GetName())); got != "dlrover-master:1@slices-one ps:1@slices-one worker:3@slices-one" {
		t.Fatalf("the filler's admission %s, want all on %s", got, flavorOne)
	}
	s.gate(filler.GetName(), true)
	t.Run("grow", func(t *testing.T) { s.t = t; s.grow(filler.GetName()) })
	t.Run("shrink", func(t *testing.T) { s.t = t; s.shrink() })
	t.Run("preempt", func(t *testing.T) { s.t = t; s.preempt() })
}

// grow (step 1): A (master, 1 PS, 2 workers) admitted on flavour two, one being full (filler);
// one freed;
// B (A's pod sets, 4 workers) replacing A. B's whole request fits in no flavour beside A's usage
// (two: 4 + 6 > 6; one: 6 > 5), its growth (2) in either: B is admitted, on two as A (one would be
// the first flavour to fit), A is Finished (WorkloadSliceReplaced), and the ClusterQueue holds B's
// 6 CPUs alone.
func (s *slicesScene) grow(filler string) {
	t := s.t
	queue := "slices-grow"
	a := s.firstSlice(s.elasticJob("deepctr"), queue, 1, 2, true)
	admittedA := s.admitted(a.GetName())
	if got := assignments(admittedA); got != "dlrover-master:1@slices-two ps:1@slices-two worker:2@slices-two" {
		t.Fatalf("A's admission %s, want all on %s (%s full)", got, flavorTwo, flavorOne)
	}
	s.finish(filler, "Succeeded", "ElasticJob filler succeeded")
	s.usage(queue, 1, map[string]int64{flavorOne: 0, flavorTwo: 4})

	changes := s.timeline()
	b := s.nextSlice(admittedA, "elasticjob-deepctr-2", map[string]int64{"worker": 4})
	admittedB := s.admitted(b.GetName())
	if got := assignments(admittedB); got != "dlrover-master:1@slices-two ps:1@slices-two worker:4@slices-two" {
		t.Errorf("B's admission %s, want A's flavour %s for every pod set and the whole counts", got, flavorTwo)
	}
	finishedA := s.finished(a.GetName(), sliceReplaced)
	t.Logf("A's Finished message: %v", condition(finishedA, "Finished")["message"])
	// The replaced slice keeps its quota conditions and admission beside Finished.
	if !isTrue(finishedA, "QuotaReserved") || !isTrue(finishedA, "Admitted") || assignments(finishedA) == "" {
		t.Errorf("the replaced A: %s, admission %q; want QuotaReserved and Admitted still true and its admission kept",
			conditions(finishedA), assignments(finishedA))
	}
	s.usage(queue, 1, map[string]int64{flavorOne: 0, flavorTwo: 6})
	t.Logf("step 1: B admitted %s; A %s; the ClusterQueue holds 6 CPUs of %s, 1 Workload", assignments(admittedB), conditions(finishedA), flavorTwo)
	order(t, changes(), a.GetName(), b.GetName())
}

// order checks that, in the watch's order of writes, the old slice was finished before the new
// one reserved quota: Kueue v0.17.0's scheduler finishes the old slice (replaceWorkloadSlice,
// a synchronous status patch) before it admits the new one (admit, an asynchronous patch);
// v0.17.4 (#11557) reverses the two.
func order(t *testing.T, changes []change, old, replacement string) {
	t.Helper()
	finished := first(changes, old, "Finished=True("+sliceReplaced+")")
	reserved := first(changes, replacement, "QuotaReserved=True(QuotaReserved)")
	if finished < 0 || reserved < 0 {
		t.Fatalf("the watch saw %s finished at %d and %s reserve quota at %d (-1: never)", old, finished, replacement, reserved)
	}
	t.Logf("order: %s Finished at change %d (resourceVersion %s), %s QuotaReserved at change %d (resourceVersion %s)",
		old, finished+1, changes[finished].resourceVersion, replacement, reserved+1, changes[reserved].resourceVersion)
	if finished > reserved {
		t.Errorf("%s reserved quota before %s was finished: Kueue v0.17.0 finishes the old slice first", replacement, old)
	}
}

// shrink (step 2): B admitted for 4 workers in place of A (6 CPUs of 6); C (a master and 1
// worker) waits; B lowered to 2 workers in place is accepted and C is admitted; raising B to 3
// workers in place is refused.
func (s *slicesScene) shrink() {
	t := s.t
	queue := "slices-shrink"
	a := s.firstSlice(s.elasticJob("shrink"), queue, 1, 2, true)
	b := s.nextSlice(s.admitted(a.GetName()), "elasticjob-shrink-2", map[string]int64{"worker": 4})
	s.admitted(b.GetName())
	s.finished(a.GetName(), sliceReplaced)
	s.usage(queue, 1, map[string]int64{flavorOne: 6})

	c := s.firstSlice(s.elasticJob("other"), queue, 0, 1, false)
	held := s.pending(c.GetName())
	t.Logf("C waits: %v", condition(held, "QuotaReserved")["message"])

	if err := s.setCount(b.GetName(), "worker", 2, false); err != nil {
		t.Fatalf("lowering B's workers 4 -> 2 in place: %v; want accepted (the gate on)", err)
	}
	s.admitted(c.GetName())
	s.usage(queue, 2, map[string]int64{flavorOne: 6})
	lowered, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), b.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The admission is immutable: it keeps 4 workers, of which Kueue counts the pod set's 2.
	t.Logf("step 2: B lowered in place: spec worker count %s, admission %s; C admitted; the ClusterQueue holds 6 CPUs, 2 Workloads",
		countOf(lowered, "worker"), assignments(lowered))
	if got := assignments(lowered); got != "dlrover-master:1@slices-one ps:1@slices-one worker:4@slices-one" {
		t.Errorf("B's admission after the lowering: %s, want it unchanged (4 workers)", got)
	}

	err = s.setCount(b.GetName(), "worker", 3, false)
	if !refusedImmutable(err) {
		t.Fatalf("raising B's workers 2 -> 3 in place: %s; want refused as immutable", answer(err))
	}
	t.Logf("raising B's workers 2 -> 3 in place: %s", answer(err))
	after, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), b.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := countOf(after, "worker"); got != "2" {
		t.Errorf("B's worker count %s after the refused raise, want 2", got)
	}
}

// preempt (step 3): A (priority 100; a master, 1 PS, 2 workers) and L (priority 0; a master and 1
// worker) fill the ClusterQueue; B replacing A (4 workers, A's priority) needs L's room: L is
// preempted, A is not; once L's quota is released B is admitted and A finished.
func (s *slicesScene) preempt() {
	t := s.t
	queue := "slices-preempt"
	a := s.firstSlice(s.elasticJob("grown"), queue, 1, 2, true)
	admittedA := s.admitted(a.GetName())
	low := s.firstSlice(s.elasticJob("low"), queue, 0, 1, false)
	s.admitted(low.GetName())
	s.usage(queue, 2, map[string]int64{flavorOne: 6})

	changes := s.timeline()
	b := s.nextSlice(admittedA, "elasticjob-grown-2", map[string]int64{"worker": 4})
	preempted := s.wait(low.GetName(), "preempted", func(u *unstructured.Unstructured) bool { return isTrue(u, "Evicted") })
	if reason := condition(preempted, "Evicted")["reason"]; reason != "Preempted" {
		t.Errorf("L evicted with reason %v, want Preempted", reason)
	}
	t.Logf("L evicted: %v", condition(preempted, "Evicted")["message"])
	// L still holds its quota (its controller releases it once its pods are gone): B cannot fit
	// yet, so A is neither finished nor evicted.
	stillA, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), a.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if isTrue(stillA, "Evicted") || isTrue(stillA, "Finished") || !isTrue(stillA, "Admitted") {
		t.Errorf("A while L's quota is held: %s; want admitted, neither evicted nor finished", conditions(stillA))
	}
	pendingB, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), b.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if isTrue(pendingB, "QuotaReserved") {
		t.Errorf("B reserved quota while L still held its own")
	}
	release(t, s.client, preempted)
	admittedB := s.admitted(b.GetName())
	finishedA := s.finished(a.GetName(), sliceReplaced)
	s.usage(queue, 1, map[string]int64{flavorOne: 6})
	t.Logf("step 3: B admitted %s; A %s; the ClusterQueue holds 6 CPUs, 1 Workload", assignments(admittedB), conditions(finishedA))
	seen := changes()
	for i, c := range seen {
		if c.name == a.GetName() && strings.Contains(c.conditions, "Evicted=True") {
			t.Errorf("A evicted at change %d (%s): the old slice must not be a target of its own replacement", i+1, c.conditions)
		}
	}
	order(t, seen, a.GetName(), b.GetName())
}

// TestWorkloadSlicesGateOff: step 4 of docs/kueue.md's experiment. With the gate off, A (a master,
// 1 PS, 2 workers) admitted; lowering its count in place is refused; B replacing it (4 workers)
// waits for its whole request beside A's (4 + 6 > 6) and A is not finished; once A is finished (as
// the core would, reason OutOfSync), B is admitted for its whole size.
func TestWorkloadSlicesGateOff(t *testing.T) {
	queue := "slices-off"
	s := setupSlices(t, "kueue-slices-off", sliceQueue{name: queue, cpu: []flavorCPU{{flavorOne, 6}}})
	a := s.firstSlice(s.elasticJob("deepctr"), queue, 1, 2, true)
	admittedA := s.admitted(a.GetName())
	s.gate(a.GetName(), false)

	err := s.setCount(a.GetName(), "worker", 1, false)
	if !refusedImmutable(err) {
		t.Fatalf("lowering A's workers 2 -> 1 in place with the gate off: %s; want refused as immutable", answer(err))
	}
	t.Logf("lowering A's workers 2 -> 1 in place: %s", answer(err))

	b := s.nextSlice(admittedA, "elasticjob-deepctr-2", map[string]int64{"worker": 4})
	held := s.pending(b.GetName())
	message := fmt.Sprint(condition(held, "QuotaReserved")["message"])
	if !strings.Contains(message, insufficientMessage) {
		t.Errorf("B's QuotaReserved message %q does not name the quota", message)
	}
	stillA, err := s.client.Resource(workloads).Namespace(s.ns).Get(context.Background(), a.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if isTrue(stillA, "Finished") || !isTrue(stillA, "Admitted") || countOf(stillA, "worker") != "2" {
		t.Errorf("A beside the waiting B: %s, %s workers; want admitted, not finished, 2 workers", conditions(stillA), countOf(stillA, "worker"))
	}
	s.usage(queue, 1, map[string]int64{flavorOne: 4})
	t.Logf("step 4: B waits (%s); A %s", message, conditions(stillA))

	s.finish(a.GetName(), "OutOfSync", "replaced by elasticjob-deepctr-2")
	admittedB := s.admitted(b.GetName())
	s.usage(queue, 1, map[string]int64{flavorOne: 6})
	t.Logf("A finished by its controller: B admitted %s, for its whole size", assignments(admittedB))
}
