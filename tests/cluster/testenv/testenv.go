// Package testenv gives the Go tests that run inside `cluster run` (kueue/, gang/, volcano/) their
// clients of the cluster, from the KUBECONFIG that `cluster run` sets, and the checks and waits
// they share (pods.go).
package testenv

import (
	"os"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Clients is a dynamic and a typed client of the cluster of KUBECONFIG (100 requests a second,
// bursts of 200); without KUBECONFIG the test fails, saying how it is run (usage).
func Clients(t *testing.T, usage string) (dynamic.Interface, kubernetes.Interface) {
	t.Helper()
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		t.Fatalf("KUBECONFIG is not set: run this under %s", usage)
	}
	config, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	config.QPS, config.Burst = 100, 200
	return dynamic.NewForConfigOrDie(config), kubernetes.NewForConfigOrDie(rest.CopyConfig(config))
}
