package main

// `up --volcano DIR` runs Volcano beside the control plane: DIR holds vc-scheduler and
// vc-controller-manager (built by volcano/build.sh from the volcano.sh/volcano module, v1.10.0)
// and the CRDs they watch (DIR/crds/*.yaml). Both are processes of their own (built with the
// Kubernetes v0.30 libraries the module pins), started detached like `serve` and stopped by `down`,
// with the admin kubeconfig and no leader election. The scheduler places the pods whose
// schedulerName is `volcano` (the cluster's own scheduler keeps default-scheduler); the controller
// manager runs two of its controllers: the podgroup controller (a PodGroup for a pod of the
// scheduler that names none) and the queue controller (a Queue's state and counts). Volcano's job,
// jobflow, jobtemplate and garbage-collector controllers are left off: they serve Volcano's own
// Job kinds, whose CRDs and webhooks are not installed.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

const (
	// volcanoScheduler is the schedulerName of the pods Volcano's scheduler places.
	volcanoScheduler = "volcano"
	// volcanoControllers are the controllers of vc-controller-manager this cluster runs.
	volcanoControllers  = "pg-controller,queue-controller"
	volcanoReadyTimeout = 2 * time.Minute
)

// volcanoSchedulerConf is vc-scheduler's configuration: the one Volcano v1.10.0 runs with when it
// is given none (pkg/scheduler/util.go's DefaultSchedulerConf). enqueue moves a PodGroup from
// Pending to Inqueue once its minResources fit (overcommit: the cluster's idle resources times 1.2,
// less what the Inqueue groups asked; proportion: the queue's share), allocate binds a group's
// pods once minMember of them fit (gang), backfill places pods that ask for no resources.
const volcanoSchedulerConf = `actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
`

func (c cluster) volcanoScheduler() sideProgram {
	return c.sideProgram("volcano", "vc-scheduler")
}

// volcanoConf is the scheduler's configuration file, alone in a folder: the scheduler watches the
// folder of its file and loads the file again, logging it, on every write there (its log beside it
// would be read again on each line it writes).
func (c cluster) volcanoConf() string {
	return filepath.Join(c.volcanoScheduler().dir, "conf", "scheduler.conf")
}

func (c cluster) volcanoControllers() sideProgram {
	return c.sideProgram("volcano", "vc-controller-manager")
}

// volcanoRunning reads s's pid file and tells whether that process is s's program of this cluster,
// started from binary ("": any) as `PROGRAM FLAG VALUE ...` (not exited, not a recycled pid):
// Volcano's programs take no --config, so each is known by its first flag, which names a file of
// this cluster.
func volcanoRunning(s sideProgram, binary, flag, value string) (int, bool) {
	pid, ok := readPid(s.pidFile())
	if !ok {
		return 0, false
	}
	return pid, isProcess(pid, func(args []string) bool {
		return len(args) >= 3 && (binary == "" || args[0] == binary) && args[1] == flag && args[2] == value
	})
}

// volcanoStop stops s if it runs (SIGTERM, then SIGKILL after stopTimeout).
func volcanoStop(s sideProgram, flag, value string) {
	if pid, running := volcanoRunning(s, "", flag, value); running {
		terminate(pid, stopTimeout, func() bool { _, running := volcanoRunning(s, "", flag, value); return running })
	}
}

// stopVolcano stops Volcano's two programs if they run.
func (c cluster) stopVolcano() {
	volcanoStop(c.volcanoControllers(), "--kubeconfig", c.kubeconfig())
	volcanoStop(c.volcanoScheduler(), "--scheduler-conf", c.volcanoConf())
}

// upVolcano installs the CRDs of dir/crds, starts Volcano's scheduler and controller manager
// from dir unless they run, and waits until the scheduler's /healthz answers and the `default`
// Queue (which the scheduler makes at its start) is Open (which the queue controller writes).
func (c cluster) upVolcano(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	scheduler := filepath.Join(dir, "vc-scheduler")
	controllers := filepath.Join(dir, "vc-controller-manager")
	for _, p := range []string{scheduler, controllers} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("--volcano %s: %w (build it with tests/cluster/volcano/build.sh)", dir, err)
		}
	}
	_, schedulerRuns := volcanoRunning(c.volcanoScheduler(), scheduler, "--scheduler-conf", c.volcanoConf())
	_, controllersRun := volcanoRunning(c.volcanoControllers(), controllers, "--kubeconfig", c.kubeconfig())
	if schedulerRuns && controllersRun {
		return nil
	}
	begin := time.Now()
	if err := c.installCRDs(filepath.Join(dir, "crds")); err != nil {
		return fmt.Errorf("--volcano %s: %w (build it with tests/cluster/volcano/build.sh)", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(c.volcanoConf()), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(c.volcanoConf(), []byte(volcanoSchedulerConf), 0o600); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	healthz := "127.0.0.1:" + strconv.Itoa(ports[0])
	qps := "--kube-api-qps=" + componentQPS
	burst := "--kube-api-burst=" + componentBurst
	schedulerPid := 0
	if !schedulerRuns {
		// The cache dumper (on by default) writes the scheduler's cache to /tmp on SIGUSR2; the
		// vgpu plugin's init logs that ~/.kube/config is missing (it reads no --kubeconfig).
		schedulerPid, err = startDetached(c.volcanoScheduler().log(), c.volcanoScheduler().pidFile(), nil, scheduler,
			"--scheduler-conf", c.volcanoConf(),
			"--kubeconfig="+c.kubeconfig(), "--leader-elect=false", qps, burst,
			"--enable-healthz", "--healthz-address="+healthz, "--cache-dumper=false",
			"--schedule-period=1s", "-v=3")
		if err != nil {
			return err
		}
	}
	if !controllersRun {
		if _, err := startDetached(c.volcanoControllers().log(), c.volcanoControllers().pidFile(), nil, controllers,
			"--kubeconfig", c.kubeconfig(), "--leader-elect=false", qps, burst,
			"--controllers="+volcanoControllers, "-v=3"); err != nil {
			c.stopVolcano()
			return err
		}
	}
	if err := c.waitVolcanoReady(schedulerPid, healthz); err != nil {
		c.stopVolcano()
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster: Volcano's scheduler and controllers ready in %.1fs\n", time.Since(begin).Seconds())
	return nil
}

// waitVolcanoReady waits for the scheduler's /healthz (when it started it: pid not 0), then for
// the `default` Queue's status.state Open; it fails early, with the end of the log, when a program
// exits.
func (c cluster) waitVolcanoReady(schedulerPid int, healthz string) error {
	if schedulerPid != 0 {
		url := "http://" + healthz + "/healthz"
		if err := waitReadyz("Volcano's scheduler", schedulerPid, url, &http.Client{Timeout: 2 * time.Second},
			c.volcanoScheduler().log(), volcanoReadyTimeout); err != nil {
			return err
		}
	}
	client, server, err := c.adminClient()
	if err != nil {
		return err
	}
	client.Timeout = 2 * time.Second
	deadline := time.Now().Add(volcanoReadyTimeout)
	last := ""
	for time.Now().Before(deadline) {
		for _, s := range []struct {
			program     sideProgram
			flag, value string
		}{
			{c.volcanoScheduler(), "--scheduler-conf", c.volcanoConf()},
			{c.volcanoControllers(), "--kubeconfig", c.kubeconfig()},
		} {
			if _, running := volcanoRunning(s.program, "", s.flag, s.value); !running {
				return fmt.Errorf("Volcano's %s exited; the end of %s:\n%s", s.program.program, s.program.log(), tail(s.program.log(), 30))
			}
		}
		state, err := queueState(client, server, "default")
		if err == nil && state == "Open" {
			return nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = "status.state " + strconv.Quote(state)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("Volcano's default Queue not Open after %s: %s; the end of %s:\n%s", volcanoReadyTimeout, last,
		c.volcanoControllers().log(), tail(c.volcanoControllers().log(), 30))
}

// queueState reads a Volcano Queue's status.state.
func queueState(client *http.Client, server, name string) (string, error) {
	resp, err := client.Get(server + "/apis/scheduling.volcano.sh/v1beta1/queues/" + name)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET queue %s: %s", name, resp.Status)
	}
	var queue struct {
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if err := json.Unmarshal(body, &queue); err != nil {
		return "", err
	}
	return queue.Status.State, nil
}
