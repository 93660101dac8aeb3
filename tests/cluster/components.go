package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilcompatibility "k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/compatibility"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	controllermanageroptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	scheduleroptions "k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/utils/clock"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	"sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	kwok "sigs.k8s.io/kwok/pkg/kwok/controllers"
	kwokclient "sigs.k8s.io/kwok/pkg/utils/client"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
	"sigs.k8s.io/kwok/pkg/utils/slices"
)

// The stages kwok plays pods and nodes by (stages.yaml: this project's own, no delays).
//
//go:embed stages.yaml
var stages []byte

// podCIDR is where kwok takes pod addresses from: a range of its own, outside serviceCIDR, that holds
// 65,534 pods (nothing sends traffic to them).
const podCIDR = "10.244.0.0/16"

// kwokIdentity is the holder kwok writes into every node's Lease (kube-node-lease), the same at
// every start, as a kubelet's is its node's name: kwok restarted with the control plane
// (`restart-apiserver`) holds its nodes' Leases again at once. kwok's own kwok.Identity() is new at
// each start (hostname and a UUID), and a new holder must wait out its former self's Leases (40 s
// after their last renewal) before it plays a node's pods: pods deleted after a restart stayed
// Terminating, and new ones Pending, for up to 40 s (tests/e2e/restart/kwok.test.js). One process
// plays every node of a cluster, and a restart starts the new one once the old one has exited.
const kwokIdentity = "elasticjob-test-cluster-kwok"

// controllers are the controller manager's controllers the cluster runs (1.37 names): the garbage
// collector (owned objects go with their owner), the namespace controller (a deleted namespace
// empties), the service-account controllers (every namespace gets `default` and its token), the CA
// publisher (kube-root-ca.crt), the pod garbage collector (pods of a deleted node go) and the node
// lifecycle controller (lifts the not-ready taint TaintNodesByCondition puts on every new node).
var controllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"pod-garbage-collector-controller",
	"node-lifecycle-controller",
}

// The client rate limits of the scheduler and the controller manager: well above their defaults
// (50/100 and 20/30), so that thousands of pods are bound and collected in seconds, as a cluster
// sized for them would be configured.
const (
	componentQPS   = "1000"
	componentBurst = "2000"
)

// component is one of the control plane's parts besides the API server, run in this process.
type component struct {
	name string
	run  func(ctx context.Context) error
}

// components are the scheduler, the controller manager and kwok, each against the admin kubeconfig.
func (c cluster) components() []component {
	return []component{
		{"kube-scheduler", c.runScheduler},
		{"kube-controller-manager", c.runControllerManager},
		{"kwok", c.runKwok},
	}
}

// commonFlags are the flags the scheduler and the controller manager share: the admin kubeconfig
// for the API and for delegated authentication and authorization, no leader election (one of each),
// no serving port (nothing asks them for /healthz or /metrics).
func (c cluster) commonFlags() []string {
	return []string{
		"--kubeconfig=" + c.kubeconfig(),
		"--authentication-kubeconfig=" + c.kubeconfig(),
		"--authorization-kubeconfig=" + c.kubeconfig(),
		"--leader-elect=false",
		"--secure-port=0",
		"--kube-api-qps=" + componentQPS,
		"--kube-api-burst=" + componentBurst,
	}
}

// newRegistry is a component registry of its own for the scheduler or the controller manager, as
// their test servers (cmd/*/app/testing/testserver.go) make one: the API server in this process
// owns the default one, and setting it twice fails.
func newRegistry() (compatibility.ComponentGlobalsRegistry, error) {
	gate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	version := utilcompatibility.DefaultBuildEffectiveVersion()
	version.SetEmulationVersion(gate.EmulationVersion())
	version.SetMinCompatibilityVersion(gate.MinCompatibilityVersion())
	registry := compatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(compatibility.DefaultKubeComponent, version, gate); err != nil {
		return nil, err
	}
	return registry, nil
}

// runScheduler runs kube-scheduler until ctx ends: options, their flags, Setup, Run (not
// NewSchedulerCommand, whose run sets up a second signal handler; k8s.io/apiserver panics on that).
func (c cluster) runScheduler(ctx context.Context) error {
	registry, err := newRegistry()
	if err != nil {
		return err
	}
	opts := scheduleroptions.NewOptionsWithComponentGlobalsRegistry(registry)
	flags := pflag.NewFlagSet("kube-scheduler", pflag.ContinueOnError)
	for _, f := range opts.Flags.FlagSets {
		flags.AddFlagSet(f)
	}
	if err := flags.Parse(c.commonFlags()); err != nil {
		return err
	}
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	cc, sched, err := scheduler.Setup(ctx, opts)
	if err != nil {
		return err
	}
	return scheduler.Run(ctx, cc, sched)
}

// runControllerManager runs kube-controller-manager with `controllers` until ctx ends.
func (c cluster) runControllerManager(ctx context.Context) error {
	registry, err := newRegistry()
	if err != nil {
		return err
	}
	opts, err := controllermanageroptions.NewKubeControllerManagerOptions()
	if err != nil {
		return err
	}
	opts.ComponentGlobalsRegistry = registry
	all, disabled, aliases := controllermanager.KnownControllers(), controllermanager.ControllersDisabledByDefault(), controllermanager.ControllerAliases()
	named := opts.Flags(all, disabled, aliases)
	flags := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	for _, f := range named.FlagSets {
		flags.AddFlagSet(f)
	}
	args := append(c.commonFlags(),
		"--controllers="+strings.Join(controllers, ","),
		"--service-account-private-key-file="+c.pkiFile(saKey),
		"--root-ca-file="+c.pkiFile(caCert),
		"--use-service-account-credentials=false",
	)
	if err := flags.Parse(args); err != nil {
		return err
	}
	opts.ParsedFlags = &named
	if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	config, err := opts.Config(ctx, all, disabled, aliases)
	if err != nil {
		return err
	}
	return controllermanager.Run(ctx, config.Complete())
}

// runKwok runs kwok's controller on every node until ctx ends, with the stages of stages.yaml and
// pod addresses from podCIDR. It is built from kwok's packages, not its command: the command reads
// os.Args and pflag.CommandLine, which the API server's flags own in this process.
func (c cluster) runKwok(ctx context.Context) error {
	file := filepath.Join(c.data(), "kwok-stages.yaml")
	if err := os.WriteFile(file, stages, 0o600); err != nil {
		return err
	}
	objs, err := kwokconfig.Load(ctx, file)
	if err != nil {
		return fmt.Errorf("kwok stages: %w", err)
	}
	loaded := kwokconfig.FilterWithType[*internalversion.Stage](objs)
	if len(loaded) == 0 {
		return fmt.Errorf("kwok stages: none in %s", file)
	}
	byResource := slices.GroupBy(loaded, func(s *internalversion.Stage) internalversion.StageResourceRef {
		return s.Spec.ResourceRef
	})
	clients, err := kwokclient.NewClientset("", c.kubeconfig())
	if err != nil {
		return err
	}
	restConfig, err := clients.ToRESTConfig()
	if err != nil {
		return err
	}
	dynamicClient, err := clients.ToDynamicClient()
	if err != nil {
		return err
	}
	restMapper, err := clients.ToRESTMapper()
	if err != nil {
		return err
	}
	restClient, err := rest.RESTClientFor(restConfig)
	if err != nil {
		return err
	}
	typedClient, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	kwokClient, err := versioned.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	if err := dropOwnLeases(ctx, typedClient); err != nil {
		return err
	}
	warmKwokCEL(ctx, byResource)
	ctr, err := kwok.NewController(kwok.Config{
		Clock:                         clock.RealClock{},
		DynamicClient:                 dynamicClient,
		RESTClient:                    restClient,
		RESTMapper:                    restMapper,
		ImpersonatingDynamicClient:    clients.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:      clients.ToImpersonatingTypedClient(),
		TypedClient:                   typedClient,
		TypedKwokClient:               kwokClient,
		ManageAllNodes:                true,
		CIDR:                          podCIDR,
		NodeIP:                        defaultNodeIP,
		LocalStages:                   byResource,
		PodPlayStageParallelism:       16,
		NodePlayStageParallelism:      4,
		NodeLeaseParallelism:          4,
		NodeLeaseDurationSeconds:      40,
		PodsOnNodeSyncParallelism:     4,
		EnablePodsOnNodeSyncListPager: true,
		ID:                            kwokIdentity,
	})
	if err != nil {
		return err
	}
	if err := ctr.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// warmKwokCEL makes, once and in this goroutine, the CEL environment of each stage, as kwok's
// workers make theirs at the first object of the stage's kind. easycel v0.6.0, which kwok's
// environments are built with, caches the Go types it has seen in package maps without a lock
// (types.go: typeValueMap, typeTraitMap): kwok's workers, making their stages' environments at once
// on a start with nodes and pods to play, wrote them together, and `fatal error: concurrent map
// writes` in easycel.getTrait ended the whole control plane (the soak of make bench, seed 20261207,
// its third restart-apiserver). Once the types of a Node, a Pod and the stages' functions are
// cached, the workers' environments only read the maps. The stages match by jq, not CEL: no
// expression is evaluated, and the environments are all there is to warm.
func warmKwokCEL(ctx context.Context, byResource map[internalversion.StageResourceRef][]*internalversion.Stage) {
	for ref, list := range byResource {
		var data any = &unstructured.Unstructured{Object: map[string]any{}}
		switch ref.Kind {
		case "Node":
			data = &corev1.Node{}
		case "Pod":
			data = &corev1.Pod{}
		}
		for _, stage := range list {
			lc, err := lifecycle.NewLifecycle([]*internalversion.Stage{stage})
			if err != nil {
				continue
			}
			// Only the environment is wanted: whether the empty object matches does not matter.
			_, _ = lc.Match(ctx, &lifecycle.Event{Data: data})
		}
	}
}

// dropOwnLeases deletes the node Leases a former start of kwok holds, before the new one starts.
// kwok v0.8.0 reads a node's Lease from an informer it does not wait for: when its first try at a
// node comes before the informer's list, it sees no Lease, its create is refused (AlreadyExists),
// and it tries again one renew interval (10 s) later, playing none of the node's pods meanwhile
// (tests/e2e/restart/kwok.test.js saw a deleted pod stay 10 s after a restart). With the Lease
// gone, the first try creates it whatever the informer holds, and kwok plays the node at once.
func dropOwnLeases(ctx context.Context, client kubernetes.Interface) error {
	leases := client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	list, err := leases.List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("node leases: %w", err)
	}
	for _, lease := range list.Items {
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != kwokIdentity {
			continue
		}
		err := leases.Delete(ctx, lease.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &lease.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("node lease %s: %w", lease.Name, err)
		}
	}
	return nil
}
