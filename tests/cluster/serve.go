package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"

	// What kube-apiserver's own main registers: JSON logs, client-go and version metrics, time zones
	// for CronJob.
	_ "time/tzdata"

	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
)

// serve runs etcd and the API server in the foreground until SIGTERM or SIGINT, then stops both.
// It makes the PKI on its first start and writes the kubeconfig before the API server listens.
func (c cluster) serve() error {
	if _, err := os.Stat(c.pkiFile(saKey)); errors.Is(err, os.ErrNotExist) {
		if err := c.makePKI(); err != nil {
			return fmt.Errorf("making keys and certificates: %w", err)
		}
	}
	ports, err := c.ports()
	if err != nil {
		return err
	}
	apiPort, etcdClient, etcdPeer := ports[0], ports[1], ports[2]

	etcd, err := c.startEtcd(etcdClient, etcdPeer)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	defer etcd.Close()

	if err := c.writeKubeconfig(apiPort); err != nil {
		return err
	}
	// The scheduler, the controller manager and kwok start once the API server is ready, and stop
	// on SIGTERM or SIGINT before it drains (else it waits for their watches).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	var running sync.WaitGroup
	go func() {
		select {
		case <-signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	running.Go(func() { c.startComponents(ctx) })
	defer func() {
		cancel()
		running.Wait()
	}()

	cmd := app.NewAPIServerCommand()
	cmd.SetArgs(c.apiServerArgs(apiPort, etcdClient))
	// The command stops on SIGTERM or SIGINT (it installs the handler itself) after draining.
	if err := cmd.Execute(); err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	return nil
}

// startComponents waits for the API server's /readyz, then runs every component until ctx ends
// and waits for them to return. One that fails is logged; the others go on (a test then sees what
// is missing).
func (c cluster) startComponents(ctx context.Context) {
	for {
		client, server, err := c.adminClient()
		if err == nil {
			if _, err = readyz(client, server); err == nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	var running sync.WaitGroup
	for _, comp := range c.components() {
		running.Go(func() {
			if err := comp.run(ctx); err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "cluster: %s stopped: %v\n", comp.name, err)
			}
		})
	}
	running.Wait()
}

// apiServerArgs are the flags of kube-apiserver: loopback only, client certificates and
// service-account tokens, Node and RBAC authorization, kube-apiserver's default admission plugins
// plus NodeRestriction (as kubeadm runs it) and OwnerReferencesPermissionEnforcement (which makes an
// owner reference with blockOwnerDeletion need `update` on the owner's finalizers, as some
// distributions enforce).
func (c cluster) apiServerArgs(apiPort, etcdClient int) []string {
	args := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(etcdClient),
		"--tls-cert-file=" + c.pkiFile(serverCert),
		"--tls-private-key-file=" + c.pkiFile(serverKey),
		"--client-ca-file=" + c.pkiFile(caCert),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.pkiFile(saKey),
		"--service-account-signing-key-file=" + c.pkiFile(saKey),
		"--service-cluster-ip-range=" + serviceCIDR,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement",
		"--allow-privileged=true",
		// One API server and a loopback address the `kubernetes` endpoints may not hold.
		"--endpoint-reconciler-type=none",
		"--cert-dir=" + filepath.Join(c.data(), "apiserver-certs"),
		"--v=0",
	}
	if _, err := os.Stat(c.auditPolicy()); err == nil {
		args = append(args, "--audit-policy-file="+c.auditPolicy(), "--audit-log-path="+c.auditLog(),
			"--audit-log-format=json", "--audit-log-maxsize=0")
	}
	return args
}

// auditPolicy is the policy of `up --audit`: every request of a ServiceAccount at Metadata level
// (who, what verb on which object, the answer's code), once its answer is sent; nothing of
// anyone else. A test reads the log to see which calls a component running as a ServiceAccount
// made (tests/image/master.test.js: every rule of the job master's Role used).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts"]
- level: None
`

// writeAuditPolicy makes the data folder and writes auditPolicy there: a server started on it
// (serve, restart-apiserver) logs to auditLog.
func (c cluster) writeAuditPolicy() error {
	if err := os.MkdirAll(c.data(), 0o700); err != nil {
		return err
	}
	return os.WriteFile(c.auditPolicy(), []byte(auditPolicy), 0o600)
}

// startEtcd starts a one-member etcd on loopback, with fsync off (the data lives as long as a test
// run), and waits until it serves.
func (c cluster) startEtcd(clientPort, peerPort int) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Name = "elasticjob-test"
	cfg.Dir = filepath.Join(c.data(), "etcd")
	client := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))}
	peer := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, errors.New("etcd did not become ready in 60s")
	}
}

// portsFile keeps the ports of a start, so that a restart (`restart-apiserver`) serves where the
// kubeconfig and every client's connections point.
func (c cluster) portsFile() string { return filepath.Join(c.data(), "ports") }

// ports are the API server's and etcd's client and peer ports: those of the last start when the
// data was kept, else free ones below the ephemeral range (a port the kernel hands out for an
// outgoing connection while the server is down could not be bound again on the restart).
func (c cluster) ports() ([]int, error) {
	if raw, err := os.ReadFile(c.portsFile()); err == nil {
		var ports []int
		for _, field := range strings.Fields(string(raw)) {
			port, err := strconv.Atoi(field)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.portsFile(), err)
			}
			ports = append(ports, port)
		}
		if len(ports) == 3 {
			return ports, nil
		}
	}
	ports, err := fixedFreePorts(3)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("%d %d %d\n", ports[0], ports[1], ports[2])
	return ports, os.WriteFile(c.portsFile(), []byte(text), 0o600)
}

// fixedFreePorts picks n free loopback ports at random between 20000 and 32000, below Linux's
// ephemeral range (32768 and up).
func fixedFreePorts(n int) ([]int, error) {
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, errors.New("no free port between 20000 and 32000")
		}
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil || slices.Contains(ports, port) {
			continue
		}
		l.Close()
		ports = append(ports, port)
	}
	return ports, nil
}

// freePorts asks the kernel for n free loopback ports. They are released before use, so another
// program could take one in between; the API server or etcd then fails to start and says so.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeKubeconfig writes the admin kubeconfig (certificates embedded) for the API server's port.
func (c cluster) writeKubeconfig(apiPort int) error {
	ca, err := os.ReadFile(c.pkiFile(caCert))
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(c.pkiFile(adminCert))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(c.pkiFile(adminKey))
	if err != nil {
		return err
	}
	const name = "elasticjob-test"
	config := clientcmdapi.NewConfig()
	config.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   "https://127.0.0.1:" + strconv.Itoa(apiPort),
		CertificateAuthorityData: ca,
	}
	config.AuthInfos[adminUser] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	config.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: adminUser, Namespace: "default"}
	config.CurrentContext = name
	tmp := c.kubeconfig() + ".tmp"
	if err := clientcmd.WriteToFile(*config, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, c.kubeconfig())
}
