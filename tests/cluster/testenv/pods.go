package testenv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Nodes fails the test unless the cluster has count KWOK nodes of cpu CPUs each, the shape its
// scenarios are sized for; flags is how `cluster run` is told so (e.g. "--nodes 2 --node-cpu 4").
func Nodes(t *testing.T, client kubernetes.Interface, count, cpu int, flags string) {
	t.Helper()
	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != count {
		t.Fatalf("%d KWOK nodes; the test needs %d of %d CPUs (cluster run %s)", len(nodes.Items), count, cpu, flags)
	}
	want := resource.MustParse(fmt.Sprint(cpu))
	for _, n := range nodes.Items {
		if have := n.Status.Allocatable[corev1.ResourceCPU]; have.Cmp(want) != 0 {
			t.Fatalf("node %s has %s CPUs; the test needs %d (cluster run %s)", n.Name, have.String(), cpu, flags)
		}
	}
}

// Namespace makes the namespace unless it is there.
func Namespace(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// WaitPods polls the pods of namespace matching selector every 100 ms until done says so, failing
// on done's error or after timeout, with the pods' state (DescribePods).
func WaitPods(t *testing.T, client kubernetes.Interface, namespace, selector, what string, timeout time.Duration,
	done func([]corev1.Pod) (bool, error)) []corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		list, err := client.CoreV1().Pods(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := done(list.Items)
		if err != nil {
			t.Fatalf("waiting for %s: %v\n%s", what, err, DescribePods(list.Items))
		}
		if ok {
			return list.Items
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %s:\n%s", what, timeout, DescribePods(list.Items))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// DescribePods is one line per pod, sorted: its name, node, phase, annotations and PodScheduled
// condition.
func DescribePods(pods []corev1.Pod) string {
	var lines []string
	for _, p := range pods {
		line := fmt.Sprintf("  %s node=%q phase=%s annotations=%v", p.Name, p.Spec.NodeName, p.Status.Phase, p.Annotations)
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				line += fmt.Sprintf(" PodScheduled=%s %s: %s", c.Status, c.Reason, c.Message)
			}
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
