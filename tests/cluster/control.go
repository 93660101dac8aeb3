package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// How long `up` waits for /readyz, and `down` for the server to drain before it is killed.
const (
	readyTimeout = 3 * time.Minute
	stopTimeout  = 30 * time.Second
	// How long `restart-apiserver` waits for the drain before it kills the process.
	restartTimeout = 5 * time.Second
	// How long `restart-apiserver` waits, once the process has exited, for its ports to be free.
	portsTimeout = 10 * time.Second
)

// up starts the control plane unless it runs, waits for /readyz, installs the CRDs of crds (when
// given) and waits until they are established, creates the nodes, and with kueue given starts
// Kueue's manager from that folder unless it runs (with kueueGates set among its feature gates),
// with gang given scheduler-plugins' gang
// scheduler (gang.go), with volcano given Volcano's scheduler and controllers (volcano.go); with
// audit, a server it starts logs every request of a ServiceAccount (auditPolicy). It reports
// whether it started the server.
func (c cluster) up(crds, kueue string, kueueGates map[string]bool, gang, volcano string, shape nodeShape, audit bool) (started bool, err error) {
	pid, running := c.running()
	if !running {
		if err := c.removeData(); err != nil {
			return false, err
		}
		if audit {
			if err := c.writeAuditPolicy(); err != nil {
				return false, err
			}
		}
		if pid, err = c.start(); err != nil {
			return false, err
		}
		started = true
	}
	begin := time.Now()
	if err := c.waitReady(pid); err != nil {
		if started {
			c.stop(pid)
		}
		return false, err
	}
	if started {
		fmt.Fprintf(os.Stderr, "cluster: kube-apiserver ready in %.1fs (pid %d)\n", time.Since(begin).Seconds(), pid)
	}
	if crds != "" {
		if err := c.installCRDs(crds); err != nil {
			if started {
				c.stop(pid)
			}
			return false, err
		}
	}
	if err := c.ensureNodes(shape); err != nil {
		if started {
			c.stop(pid)
		}
		return false, err
	}
	if kueue != "" {
		if err := c.upKueue(kueue, kueueGates); err != nil {
			if started {
				c.stop(pid)
			}
			return false, err
		}
	}
	if gang != "" {
		if err := c.upGang(gang); err != nil {
			if started {
				c.kueue().stop()
				c.stop(pid)
			}
			return false, err
		}
	}
	if volcano != "" {
		if err := c.upVolcano(volcano); err != nil {
			if started {
				c.kueue().stop()
				c.gang().stop()
				c.stop(pid)
			}
			return false, err
		}
	}
	return started, nil
}

// down stops Kueue's manager, the gang schedulers and the control plane if they run and removes
// their data and the kubeconfig.
func (c cluster) down() error {
	c.kueue().stop()
	c.gang().stop()
	c.stopVolcano()
	if pid, running := c.running(); running {
		c.stop(pid)
	}
	return c.removeData()
}

// restart stops the control plane's process and starts it again on its data: etcd's files, the
// keys and the ports are kept, so every object is still there and the clients' kubeconfigs still
// point at it. The API server runs in that process with etcd, the scheduler, the controller
// manager and kwok, so they restart with it (kwok's nodes and pods are objects in etcd, kept).
func (c cluster) restart() error {
	pid, running := c.running()
	if !running {
		return errors.New("restart-apiserver: the cluster does not run")
	}
	begin := time.Now()
	// A drain waits for the clients' watches to end; a restart gives it restartTimeout, then kills
	// the process (etcd's writes are in the kernel's page cache by then: a killed process loses none).
	terminate(pid, restartTimeout, func() bool { return c.isServe(pid) })
	// serve is one Go process (etcd, the API server and the components are goroutines of it; it
	// starts no child), so its ports are free once it has exited, unless something else took them
	// meanwhile. Both are checked here: a restart that binds a port still held fails inside serve,
	// with the error in its log alone, and leaves a cluster that never comes back.
	if state, ok := procState(pid); ok && state != "Z" {
		return fmt.Errorf("restart-apiserver: pid %d still runs (state %s) after SIGKILL and %s", pid, state, stopTimeout)
	}
	ports, err := c.ports()
	if err != nil {
		return err
	}
	if err := waitPortsFree(ports, portsTimeout); err != nil {
		return fmt.Errorf("restart-apiserver: %w", err)
	}
	down := time.Since(begin)
	pid, err = c.start()
	if err != nil {
		return err
	}
	if err := c.waitReady(pid); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster: restarted: stopped in %.1fs, ready again %.1fs later (pid %d)\n", down.Seconds(), (time.Since(begin) - down).Seconds(), pid)
	return nil
}

// run brings the control plane up unless it runs, runs argv with KUBECONFIG set, and stops the
// control plane afterwards if it started it: when argv fails too, and when the run is interrupted
// (the signal goes to argv first).
func (c cluster) run(crds, kueue string, kueueGates map[string]bool, gang, volcano string, shape nodeShape, audit bool, argv []string) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("run: no command after --")
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	started, err := c.up(crds, kueue, kueueGates, gang, volcano, shape, audit)
	if err != nil {
		return 0, err
	}
	if started {
		defer func() {
			if err := c.down(); err != nil {
				fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
			}
		}()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig())
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-signals:
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return exit.ExitCode(), nil
			}
			if err != nil {
				return 0, err
			}
			return 0, nil
		}
	}
}

// start launches `serve` in its own session (it outlives `up`), its output going to the log.
func (c cluster) start() (int, error) {
	if err := os.MkdirAll(c.data(), 0o700); err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	return startDetached(c.logFile(), c.pidFile(), nil, self, "serve", "--dir", c.root)
}

// startDetached starts argv in a session of its own (it outlives this process), its output going
// to logPath and env added to this process's environment, and writes its pid to pidPath.
func startDetached(logPath, pidPath string, env []string, argv ...string) (int, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	// The process is reaped by whoever outlives it; `up` only needs to know it still runs.
	_ = cmd.Process.Release()
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(pid)), 0o600); err != nil {
		return 0, err
	}
	return pid, nil
}

// running reads the pid file and reports whether that process is this folder's `serve`.
func (c cluster) running() (int, bool) {
	pid, ok := readPid(c.pidFile())
	if !ok {
		return 0, false
	}
	return pid, c.isServe(pid)
}

// isServe tells whether pid is alive and runs `serve --dir <this folder>` (a recycled pid is not).
func (c cluster) isServe(pid int) bool {
	return isProcess(pid, func(args []string) bool {
		return len(args) == 4 && args[1] == "serve" && args[2] == "--dir" && args[3] == c.root
	})
}

// stop sends SIGTERM, waits for the server to drain and exit, and kills it after stopTimeout.
func (c cluster) stop(pid int) {
	terminate(pid, stopTimeout, func() bool { return c.isServe(pid) })
}

// terminate sends pid SIGTERM, waits until alive says it has gone, and kills it after timeout.
// It returns once the process has exited, not only once alive says no: an exiting process's
// arguments read empty as soon as its memory is released, before its files (and so its listening
// ports) are closed, and a restart that bound them in that moment found them in use.
func terminate(pid int, timeout time.Duration, alive func() bool) {
	defer waitExited(pid)
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !alive() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "cluster: pid %d did not stop in %s; killing it\n", pid, timeout)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for alive() {
		time.Sleep(100 * time.Millisecond)
	}
}

// waitExited waits, for at most stopTimeout, until pid is gone or a zombie: the kernel closes a
// process's files before it makes it a zombie.
func waitExited(pid int) {
	deadline := time.Now().Add(stopTimeout)
	for time.Now().Before(deadline) {
		if state, ok := procState(pid); !ok || state == "Z" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitPortsFree waits until each loopback port can be listened on (as serve listens: Go sets
// SO_REUSEADDR, so a connection in TIME_WAIT does not count), for at most timeout; else it names
// the port and the process holding it.
func waitPortsFree(ports []int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, port := range ports {
		for {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				_ = l.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("port %d still in use %s after the old control plane exited (%s): %w", port, timeout, portHolder(port), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// portHolder names the process listening on a loopback TCP port, from /proc/net/tcp's socket inode
// and the processes' descriptors (those this user may read).
func portHolder(port int) string {
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return "holder unknown"
	}
	inode := ""
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		// local address (hex ip:port), state 0A = LISTEN, inode.
		if len(f) > 9 && strings.HasSuffix(f[1], fmt.Sprintf(":%04X", port)) && f[3] == "0A" {
			inode = f[9]
		}
	}
	if inode == "" {
		return "no listening socket in /proc/net/tcp"
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		fds, err := os.ReadDir("/proc/" + p.Name() + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name()); err == nil && target == "socket:["+inode+"]" {
				cmdline, _ := os.ReadFile("/proc/" + p.Name() + "/cmdline")
				return fmt.Sprintf("held by pid %s: %q", p.Name(), strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
			}
		}
	}
	return "socket inode " + inode + ", no process of this user holds it"
}

// procState is the state letter of pid in /proc (R, S, D, T, Z, ...); false when it is gone.
func procState(pid int) (string, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// The state follows the command's name in parentheses, which may hold spaces or ')'.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) == 0 {
		return "", false
	}
	return fields[0], true
}

func (c cluster) removeData() error {
	if err := os.RemoveAll(c.data()); err != nil {
		return err
	}
	if err := os.Remove(c.kubeconfig()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// waitReady polls /readyz with the admin identity until it answers `ok`; it fails early, with the
// end of the log, when the server exits.
func (c cluster) waitReady(pid int) error {
	deadline := time.Now().Add(readyTimeout)
	var last string
	for time.Now().Before(deadline) {
		// The process alive and not a zombie: its arguments are not asked, since right after the
		// start they read empty (the exec has closed the pipe cmd.Start waits on, before the kernel
		// sets the new arguments; CI once failed `up` there, with an empty log).
		if !alive(pid) {
			return fmt.Errorf("the control plane exited; the end of %s:\n%s", c.logFile(), c.logTail())
		}
		client, server, err := c.adminClient()
		if err == nil {
			last, err = readyz(client, server)
			if err == nil {
				return nil
			}
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("/readyz not ok after %s: %s; the end of %s:\n%s", readyTimeout, last, c.logFile(), c.logTail())
}

func readyz(client *http.Client, server string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "ok" {
		return "", fmt.Errorf("/readyz: %s %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return "ok", nil
}

// adminClient is an HTTP client with the kubeconfig's CA and admin certificate, and the server URL.
func (c cluster) adminClient() (*http.Client, string, error) {
	config, err := clientcmd.LoadFromFile(c.kubeconfig())
	if err != nil {
		return nil, "", err
	}
	ctx, ok := config.Contexts[config.CurrentContext]
	if !ok {
		return nil, "", errors.New("kubeconfig: no current context")
	}
	cluster, user := config.Clusters[ctx.Cluster], config.AuthInfos[ctx.AuthInfo]
	if cluster == nil || user == nil {
		return nil, "", errors.New("kubeconfig: the context names no cluster or user")
	}
	cert, err := tls.X509KeyPair(user.ClientCertificateData, user.ClientKeyData)
	if err != nil {
		return nil, "", err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cluster.CertificateAuthorityData) {
		return nil, "", errors.New("kubeconfig: no CA certificate")
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	return &http.Client{Transport: transport}, cluster.Server, nil
}

// logTail is the last 40 lines of the server's log.
func (c cluster) logTail() string { return tail(c.logFile(), 40) }
