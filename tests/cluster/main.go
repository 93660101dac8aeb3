// Command cluster runs a test cluster for elasticjob in one process on 127.0.0.1: a real etcd
// (go.etcd.io/etcd/server's embed package), a real kube-apiserver, kube-scheduler and
// kube-controller-manager (k8s.io/kubernetes/cmd/*/app), and KWOK (sigs.k8s.io/kwok) playing the
// kubelet of fake nodes: pods are scheduled, get addresses, become Running, and fail or succeed when
// a test annotates them, by the stages of stages.yaml. No containers run.
//
//	cluster up   [--dir D] [--crds DIR] [--kueue K] [--kueue-feature-gates G=B,...] [--gang G]
//	             [--volcano V] [--nodes N] [--node-cpu Q] [--node-memory Q] [--node-pods N]
//	             [--node-storage Q]
//	                                      start it in the background (idempotent), wait for
//	                                      /readyz, install the CRDs, create the nodes and wait
//	                                      until they are Ready, write D/kubeconfig and print
//	                                      `export KUBECONFIG=...`; with --kueue, also run Kueue's
//	                                      manager from K (kueue/build.sh builds it) with its CRDs
//	                                      and webhooks (kueue.go), and with --kueue-feature-gates
//	                                      those of its feature gates set; with --gang, also run
//	                                      scheduler-plugins' gang scheduler from G (gang/build.sh
//	                                      builds it) with its PodGroup CRD (gang.go); with
//	                                      --volcano, also run Volcano's scheduler and controller
//	                                      manager from V (volcano/build.sh builds them) with
//	                                      their CRDs (volcano.go)
//	cluster down [--dir D]                stop it and remove its data
//	cluster restart-apiserver [--dir D]   stop the control plane and start it again with etcd's
//	                                      data, the keys and the ports kept (the scheduler, the
//	                                      controller manager and kwok share its process and
//	                                      restart with it); returns once /readyz is ok again
//	cluster run  [the flags of up] -- CMD ARGS...
//	                                      bring it up unless it runs, run CMD with KUBECONFIG set,
//	                                      then stop what it started, also when CMD fails or the run
//	                                      is interrupted
//	cluster serve [--dir D]               the control plane in the foreground (what `up` starts)
//
// Everything a run needs lives in D/data (keys and certificates made here with Go's crypto,
// etcd's files, the log); `down` removes it and D/kubeconfig.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	flags := flag.NewFlagSet("cluster "+cmd, flag.ExitOnError)
	dir := flags.String("dir", ".tools/cluster", "the folder of the kubeconfig and of the cluster's data")
	crds := flags.String("crds", "", "a folder of CustomResourceDefinition YAML files to install (up, run)")
	kueue := flags.String("kueue", "", "a folder with Kueue's manager and module (kueue/build.sh) to run beside the cluster (up, run)")
	kueueGates := flags.String("kueue-feature-gates", "", "Kueue's feature gates to set, Name=true|false separated by commas, e.g. ElasticJobsViaWorkloadSlices=true; needs --kueue (up, run)")
	gang := flags.String("gang", "", "a folder with scheduler-plugins' scheduler and PodGroup CRD (gang/build.sh) to run beside the cluster's scheduler (up, run)")
	volcano := flags.String("volcano", "", "a folder with Volcano's scheduler, controller manager and CRDs (volcano/build.sh) to run beside the cluster's scheduler (up, run)")
	audit := flags.Bool("audit", false, "the API server logs every request of a ServiceAccount to D/data/audit.log (audit.k8s.io/v1 events at Metadata level, one JSON object a line), from a start (up, run)")
	var shape nodeShape
	flags.IntVar(&shape.count, "nodes", 4, "how many fake nodes kwok runs (up, run)")
	flags.StringVar(&shape.cpu, "node-cpu", "32", "each node's CPU capacity (up, run)")
	flags.StringVar(&shape.memory, "node-memory", "256Gi", "each node's memory capacity (up, run)")
	flags.StringVar(&shape.pods, "node-pods", "250", "how many pods each node holds (up, run)")
	flags.StringVar(&shape.storage, "node-storage", "4Ti", "each node's ephemeral-storage capacity (up, run)")
	if err := flags.Parse(args); err != nil {
		fatal(err)
	}
	if err := shape.validate(); err != nil {
		fatal(err)
	}
	gates, err := parseFeatureGates(*kueueGates)
	if err != nil {
		fatal(fmt.Errorf("--kueue-feature-gates: %w", err))
	}
	if len(gates) > 0 && *kueue == "" {
		fatal(errors.New("--kueue-feature-gates needs --kueue"))
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		fatal(err)
	}
	c := cluster{root: root}
	switch cmd {
	case "serve":
		err = c.serve()
	case "up":
		_, err = c.up(*crds, *kueue, gates, *gang, *volcano, shape, *audit)
		if err == nil {
			fmt.Printf("export KUBECONFIG=%s\n", c.kubeconfig())
		}
	case "down":
		err = c.down()
	case "restart-apiserver":
		err = c.restart()
	case "run":
		var code int
		code, err = c.run(*crds, *kueue, gates, *gang, *volcano, shape, *audit, flags.Args())
		if err == nil {
			os.Exit(code)
		}
	default:
		usage()
	}
	if err != nil {
		fatal(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cluster up|down|restart-apiserver|serve [--dir D] [--crds DIR] [--kueue K] [--kueue-feature-gates G=B,...] [--gang G] [--volcano V] [--nodes N] [--node-cpu Q] [--node-memory Q] [--node-pods N] [--node-storage Q] [--audit]\n       cluster run [the same flags] -- CMD ARGS...")
	os.Exit(2)
}

func fatal(err error) {
	var exit exitError
	if errors.As(err, &exit) {
		os.Exit(exit.code)
	}
	fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
	os.Exit(1)
}

// exitError ends the program with a code and no message (the message was printed already).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// cluster is the layout of one control plane's files.
type cluster struct{ root string }

func (c cluster) kubeconfig() string  { return filepath.Join(c.root, "kubeconfig") }
func (c cluster) data() string        { return filepath.Join(c.root, "data") }
func (c cluster) pki() string         { return filepath.Join(c.data(), "pki") }
func (c cluster) pidFile() string     { return filepath.Join(c.data(), "serve.pid") }
func (c cluster) logFile() string     { return filepath.Join(c.data(), "serve.log") }
func (c cluster) auditPolicy() string { return filepath.Join(c.data(), "audit-policy.yaml") }
func (c cluster) auditLog() string    { return filepath.Join(c.data(), "audit.log") }
func (c cluster) pkiFile(n string) string {
	return filepath.Join(c.pki(), n)
}
