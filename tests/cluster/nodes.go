package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// nodeShape is how many fake nodes the cluster has and what each one holds.
type nodeShape struct {
	count  int
	cpu    string
	memory string
	pods   string
	// storage is ephemeral-storage: the controller's master pods request it.
	storage string
}

// The nodes' addresses: node i has InternalIP nodeBase+i (kwok reports it as the hostIP of the node's
// pods); defaultNodeIP is what kwok reports for a node without one.
const (
	nodeBase      = "172.18.0.10"
	defaultNodeIP = "172.18.0.1"
	// nodePrefix names the nodes: kwok-node-0, kwok-node-1, ...
	nodePrefix = "kwok-node-"
	// nodesTimeout bounds the wait for every node to be Ready and schedulable.
	nodesTimeout = 2 * time.Minute
)

func (s nodeShape) validate() error {
	if s.count < 0 || s.count > 10000 {
		return fmt.Errorf("--nodes: %d; give 0 (no node: no pod is scheduled) to 10000", s.count)
	}
	for flag, v := range map[string]string{"--node-cpu": s.cpu, "--node-memory": s.memory, "--node-pods": s.pods, "--node-storage": s.storage} {
		q, err := resource.ParseQuantity(v)
		if err != nil || q.Sign() <= 0 {
			return fmt.Errorf("%s: %q is not a positive quantity (e.g. 32, 128Gi, 250)", flag, v)
		}
	}
	return nil
}

// node is the fake node i: kwok's annotation and labels, its capacity, its address.
func (s nodeShape) node(i int) (*corev1.Node, error) {
	ip := netip.MustParseAddr(nodeBase)
	for range i {
		ip = ip.Next()
	}
	name := fmt.Sprintf("%s%d", nodePrefix, i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(s.cpu),
		corev1.ResourceMemory:           resource.MustParse(s.memory),
		corev1.ResourcePods:             resource.MustParse(s.pods),
		corev1.ResourceEphemeralStorage: resource.MustParse(s.storage),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: ip.String()},
				{Type: corev1.NodeHostName, Address: name},
			},
		},
	}, nil
}

// ensureNodes creates the nodes of shape that do not exist yet and waits until every one is Ready
// and carries no taint (the node lifecycle controller lifts the not-ready taint).
func (c cluster) ensureNodes(shape nodeShape) error {
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig())
	if err != nil {
		return err
	}
	config.QPS, config.Burst = 200, 400
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodesTimeout)
	defer cancel()
	begin := time.Now()
	for i := range shape.count {
		node, err := shape.node(i)
		if err != nil {
			return err
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
	}
	for {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
		if err != nil {
			return err
		}
		ready := 0
		for _, n := range nodes.Items {
			if isReady(n) && len(n.Spec.Taints) == 0 {
				ready++
			}
		}
		if ready >= shape.count {
			fmt.Fprintf(os.Stderr, "cluster: %d nodes Ready in %.1fs (%s CPU, %s memory, %s pods each)\n",
				ready, time.Since(begin).Seconds(), shape.cpu, shape.memory, shape.pods)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d nodes Ready and untainted after %s; the end of %s:\n%s", ready, shape.count, nodesTimeout, c.logFile(), c.logTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func isReady(n corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}
