// Package gang checks, on a test cluster started with `cluster run --gang DIR --nodes 2
// --node-cpu 4` (make test-gang-scheduler), that scheduler-plugins' Coscheduling plugin places a
// group's pods all together or not at all, where the default scheduler places part of each group.
//
// Two groups of three pods of 2 CPUs each on two KWOK nodes of 4 CPUs: either group fits (6 of 8
// CPUs), not both. The pods are created interleaved (a-0, b-0, a-1, ...), as two jobs' pods come
// when both are created at once.
//
// What the plugin does (pkg/coscheduling of the module, v0.34.7), which the waits follow: PreFilter
// turns a pod away until its PodGroup (the label scheduling.x-k8s.io/pod-group, same namespace)
// has minMember pods; a pod that fits is reserved and waits at Permit until minMember pods of its
// group are bound or waiting, then all are allowed and bound together; a pod that does not fit has
// PostFilter reject its group's waiting pods (their resources return); a wait longer than
// permitWaitingTimeSeconds (10 s in gang.go) rejects the group too. The queue is sorted by the
// PodGroups' creation time, so the group created first usually wins, but either may: the test
// asks that one has all its pods bound and the other none. A pod the plugin rejected comes back
// only on a pod added or a PodGroup added or updated; when the winner's pods are deleted while the
// loser's are rejected, nothing brings them back but kube-scheduler's retry of pods left
// unschedulable, 10 s in gang.go (5 min by default) and checked every 30 s: that run of the test
// takes about 20 s instead of 6 (about one in ten runs).
package gang

import (
	"context"
	"fmt"
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
	// The gang scheduler's profile (gang.go) and the plugin's label (apis/scheduling/v1alpha1).
	gangScheduler = "scheduler-plugins-scheduler"
	podGroupLabel = "scheduling.x-k8s.io/pod-group"
	// groupLabel names a pod's group for the test, with or without the gang scheduler.
	groupLabel = "gang-test/group"
	namespace  = "gang-test"
	groupSize  = 3
	podCPU     = "2"
	// The cluster the test needs: two nodes of 4 CPUs hold 4 of the 6 pods.
	nodeCount = 2
	nodeCPU   = 4
	waitFor   = 60 * time.Second
	// quiet is how long the losing group is watched once the winner is bound: none of its pods may
	// be bound meanwhile (they have been found not to fit by then).
	quiet = 5 * time.Second
)

var podGroups = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

var groups = []string{"a", "b"}

func clients(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	return testenv.Clients(t, "`cluster run --gang DIR --nodes 2 --node-cpu 4 -- go test ./gang/` (make test-gang-scheduler)")
}

// setup checks the nodes' shape, makes the namespace, and removes what an earlier test left in it.
func setup(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	t.Helper()
	dyn, client := clients(t)
	testenv.Nodes(t, client, nodeCount, nodeCPU, "--nodes 2 --node-cpu 4")
	testenv.Namespace(t, client, namespace)
	clean(t, dyn, client)
	t.Cleanup(func() { clean(t, dyn, client) })
	return dyn, client
}

// clean deletes the test's pods (no grace: KWOK's pods have no process to stop) and PodGroups and
// waits until the pods are gone, so that their CPUs are free for the next test.
func clean(t *testing.T, dyn dynamic.Interface, client kubernetes.Interface) {
	t.Helper()
	ctx := context.Background()
	zero := int64(0)
	pods := client.CoreV1().Pods(namespace)
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{LabelSelector: groupLabel}); err != nil {
		t.Fatal(err)
	}
	if err := dyn.Resource(podGroups).Namespace(namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPods(t, client, "the test's pods deleted", func(list []corev1.Pod) (bool, error) { return len(list) == 0, nil })
}

// pod is pod i of group: 2 CPUs; with gang, the gang scheduler's and its PodGroup's.
func pod(group string, i int, gang bool) *corev1.Pod {
	labels := map[string]string{groupLabel: group}
	scheduler := corev1.DefaultSchedulerName
	if gang {
		labels[podGroupLabel] = group
		scheduler = gangScheduler
	}
	zero := int64(0)
	request := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(podCPU), corev1.ResourceMemory: resource.MustParse("1Gi")}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", group, i), Namespace: namespace, Labels: labels},
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

// createPods creates each group's pods interleaved: a-0, b-0, a-1, b-1, ...
func createPods(t *testing.T, client kubernetes.Interface, gang bool) {
	t.Helper()
	for i := range groupSize {
		for _, g := range groups {
			if _, err := client.CoreV1().Pods(namespace).Create(context.Background(), pod(g, i, gang), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// createPodGroups creates one PodGroup per group, minMember its pod count, the first group first.
func createPodGroups(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	for _, g := range groups {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
			"metadata": map[string]any{"name": g, "namespace": namespace},
			"spec":     map[string]any{"minMember": int64(groupSize)},
		}}
		if _, err := dyn.Resource(podGroups).Namespace(namespace).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// waitPods waits for the test's pods until done says so (testenv.WaitPods).
func waitPods(t *testing.T, client kubernetes.Interface, what string, done func([]corev1.Pod) (bool, error)) []corev1.Pod {
	t.Helper()
	return testenv.WaitPods(t, client, namespace, groupLabel, what, waitFor, done)
}

func describe(pods []corev1.Pod) string { return testenv.DescribePods(pods) }

// tally counts each group's pods, bound ones (a node named) and Running ones.
type tally struct{ pods, bound, running int }

func count(pods []corev1.Pod) map[string]tally {
	counts := map[string]tally{}
	for _, p := range pods {
		c := counts[p.Labels[groupLabel]]
		c.pods++
		if p.Spec.NodeName != "" {
			c.bound++
		}
		if p.Status.Phase == corev1.PodRunning {
			c.running++
		}
		counts[p.Labels[groupLabel]] = c
	}
	return counts
}

// unschedulable tells whether the scheduler has tried p and found it does not fit.
func unschedulable(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// Without a gang, the default scheduler binds pods as they come: the first four, two of each
// group, and neither group can run whole.
func TestDefaultSchedulerBindsPartOfEachGroup(t *testing.T) {
	_, client := setup(t)
	createPods(t, client, false)
	pods := waitPods(t, client, "four pods bound and two found unschedulable", func(list []corev1.Pod) (bool, error) {
		bound, refused := 0, 0
		for _, p := range list {
			if p.Spec.NodeName != "" {
				bound++
			} else if unschedulable(p) {
				refused++
			}
		}
		if bound > nodeCount*nodeCPU/2 {
			return false, fmt.Errorf("%d pods of 2 CPUs bound on %d CPUs", bound, nodeCount*nodeCPU)
		}
		return len(list) == 2*groupSize && bound == 4 && refused == 2, nil
	})
	for g, c := range count(pods) {
		if c.bound == 0 || c.bound == groupSize {
			t.Errorf("group %s: %d of %d pods bound by the default scheduler, not part of it:\n%s", g, c.bound, c.pods, describe(pods))
		}
	}
}

// With a PodGroup each (minMember 3), the gang scheduler binds one group whole and none of the
// other; once the first group's pods are deleted, the second's are bound, all of them.
func TestGangSchedulerBindsOneGroupWholeAndTheOtherNot(t *testing.T) {
	dyn, client := setup(t)
	createPodGroups(t, dyn)
	begin := time.Now()
	createPods(t, client, true)
	var winner, loser string
	pods := waitPods(t, client, "one group's pods all bound and Running", func(list []corev1.Pod) (bool, error) {
		counts := count(list)
		if counts["a"].bound > 0 && counts["b"].bound > 0 {
			return false, fmt.Errorf("pods of both groups bound: %+v", counts)
		}
		for i, g := range groups {
			if c := counts[g]; c.pods == groupSize && c.running == groupSize {
				winner, loser = g, groups[1-i]
				return true, nil
			}
		}
		return false, nil
	})
	t.Logf("group %s bound whole and Running %.1fs after its pods' creation; group %s none", winner, time.Since(begin).Seconds(), loser)
	// The loser's pods have all been found unschedulable, and stay unbound.
	pods = waitPods(t, client, "group "+loser+"'s pods all found unschedulable", func(list []corev1.Pod) (bool, error) {
		refused := 0
		for _, p := range list {
			if p.Labels[groupLabel] != loser {
				continue
			}
			if p.Spec.NodeName != "" {
				return false, fmt.Errorf("pod %s of the losing group bound", p.Name)
			}
			if unschedulable(p) {
				refused++
			}
		}
		return refused == groupSize, nil
	})
	until := time.Now().Add(quiet)
	for time.Now().Before(until) {
		list, err := client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: groupLabel + "=" + loser})
		if err != nil {
			t.Fatal(err)
		}
		if c := count(list.Items)[loser]; c.bound != 0 {
			t.Fatalf("group %s: %d pods bound while group %s runs:\n%s", loser, c.bound, winner, describe(list.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if c := count(pods)[winner]; c.bound != groupSize {
		t.Fatalf("group %s: %d of %d pods bound:\n%s", winner, c.bound, groupSize, describe(pods))
	}

	// The winner finishes (its pods deleted): the loser's pods are bound, all of them.
	zero := int64(0)
	if err := client.CoreV1().Pods(namespace).DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: &zero},
		metav1.ListOptions{LabelSelector: groupLabel + "=" + winner}); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	waitPods(t, client, "group "+loser+"'s pods all bound and Running once group "+winner+"'s are deleted", func(list []corev1.Pod) (bool, error) {
		c := count(list)
		return c[winner].pods == 0 && c[loser].running == groupSize, nil
	})
	t.Logf("group %s bound whole and Running %.1fs after group %s's pods were deleted", loser, time.Since(deleted).Seconds(), winner)
}
