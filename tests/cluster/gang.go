package main

// `up --gang DIR` runs scheduler-plugins' kube-scheduler beside the control plane's own: DIR holds
// the binary (`scheduler`, built by gang/build.sh from the sigs.k8s.io/scheduler-plugins module)
// and the PodGroup CRD of that module (`podgroups.yaml`). It is a process of its own (built with
// the Kubernetes v1.34 libraries the module pins), started detached like `serve` and stopped by
// `down`. Its one profile, gangScheduler, is the default profile with the Coscheduling plugin
// enabled at every extension point and sorting the queue, as the module's
// manifests/coscheduling/scheduler-config.yaml has it: a pod with that schedulerName and the label
// scheduling.x-k8s.io/pod-group waits at Permit until its PodGroup's minMember pods are bound or
// waiting there, and is released with them or not at all. The default scheduler keeps
// default-scheduler.

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

const (
	// gangScheduler is the schedulerName of the pods the gang scheduler places.
	gangScheduler = "scheduler-plugins-scheduler"
	// gangPermitWait is how long a pod waits at Permit for the rest of its group (the module's
	// coscheduling manifest's value; the plugin's default is 60 s) before the group is rejected.
	gangPermitWait = 10
	// gangUnschedulableRetry is how long a pod stays among the unschedulable before it is tried
	// again with no event to bring it back (kube-scheduler's default is 5 min, checked every 30 s).
	// The plugin's group rejections need it: a pod its PostFilter or Unreserve rejected comes back
	// only on the events the plugin registers (a pod added, a PodGroup added or updated), so when
	// the last of the other group's pods goes away while a group's pods are rejected, nothing
	// brings them back (seen about once in ten runs of the test, gang/gang_test.go).
	gangUnschedulableRetry = "10s"
	gangReadyTimeout       = 2 * time.Minute
)

func (c cluster) gang() sideProgram { return c.sideProgram("gang", "scheduler") }

// upGang installs the PodGroup CRD of dir and starts the gang scheduler from dir unless it runs,
// then waits until its /readyz answers. It serves on a free port of 127.0.0.1 with a certificate
// it makes itself, with no delegated authentication or authorization: /readyz, /healthz and
// /livez are always allowed, and nothing else is asked of it (given the admin kubeconfig there, it
// logs, many times a second, that the API server's extension-apiserver-authentication ConfigMap
// has no request-header CA).
func (c cluster) upGang(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	scheduler := filepath.Join(dir, "scheduler")
	if _, running := c.gang().running(scheduler); running {
		return nil
	}
	crd := filepath.Join(dir, "podgroups.yaml")
	for _, p := range []string{scheduler, crd} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("--gang %s: %w (build it with tests/cluster/gang/build.sh)", dir, err)
		}
	}
	begin := time.Now()
	podGroups, err := readCRD(crd)
	if err != nil {
		return err
	}
	if err := c.applyCRDs([]apiextensionsv1.CustomResourceDefinition{podGroups}); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	port := ports[0]
	if err := os.MkdirAll(filepath.Join(c.gang().dir, "certs"), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(c.gang().config(), gangConfiguration(c.kubeconfig()), 0o600); err != nil {
		return err
	}
	pid, err := startDetached(c.gang().log(), c.gang().pidFile(), nil, scheduler, "--config", c.gang().config(),
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(c.gang().dir, "certs"),
		"--pod-max-in-unschedulable-pods-duration="+gangUnschedulableRetry)
	if err != nil {
		return err
	}
	if err := c.waitGangReady(pid, port); err != nil {
		c.gang().stop()
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster: the gang scheduler (%s) ready in %.1fs (pid %d)\n", gangScheduler, time.Since(begin).Seconds(), pid)
	return nil
}

// gangConfiguration is the scheduler's KubeSchedulerConfiguration: the admin kubeconfig with the
// control plane's scheduler's client limits, no leader election, one profile gangScheduler with
// Coscheduling as the module's coscheduling manifest enables it (every extension point, and the
// queue's sort in place of every other).
func gangConfiguration(kubeconfig string) []byte {
	return fmt.Appendf(nil, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: %q
  qps: %s
  burst: %s
profiles:
- schedulerName: %s
  plugins:
    multiPoint:
      enabled:
      - name: Coscheduling
    queueSort:
      enabled:
      - name: Coscheduling
      disabled:
      - name: "*"
  pluginConfig:
  - name: Coscheduling
    args:
      permitWaitingTimeSeconds: %d
`, kubeconfig, componentQPS, componentBurst, gangScheduler, gangPermitWait)
}

// waitGangReady polls the scheduler's /readyz (its certificate is self-signed, made at its start)
// until it answers 200; it fails early, with the end of its log, when the scheduler exits.
func (c cluster) waitGangReady(pid, port int) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	url := "https://127.0.0.1:" + strconv.Itoa(port) + "/readyz"
	return waitReadyz("the gang scheduler", pid, url, client, c.gang().log(), gangReadyTimeout)
}
