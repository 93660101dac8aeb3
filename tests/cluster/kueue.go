package main

// `up --kueue DIR` runs Kueue's real manager beside the control plane: DIR holds the manager binary
// (`manager`, built by kueue/build.sh from the sigs.k8s.io/kueue module) and the module itself
// (`module`). The manager is a process of its own (it is built from the module as Kueue ships it,
// with its own Kubernetes libraries), started detached like `serve` and stopped by `down`.
//
// Its webhooks are served on 127.0.0.1 and reached by the API server through a `url`:
//   - one certificate made here for 127.0.0.1 (and for the in-cluster name Kueue's certificate
//     manager checks), signed by a CA of its own;
//   - Kueue's internal certificate management stays on, as it ships: it finds that certificate,
//     valid, in its Secret (kueue-system/kueue-webhook-server-cert), keeps it, and injects its CA
//     into the webhook configurations and the CRDs' conversion webhooks itself (with it off, the
//     manager reads a metrics certificate from the fixed path /etc/kueue/metrics/certs);
//   - the webhook configurations of the module (config/components/webhook/manifests.yaml) are
//     installed with the names config/default gives them (`kueue-` prefix), each webhook's
//     `service` replaced by `url: https://127.0.0.1:<port><path>` and the CA bundle set; only the
//     webhooks of Kueue's own API group are kept (the others serve job integrations this cluster
//     does not enable, and would put a call to Kueue in every pod's creation);
//   - the CRDs of the module (config/components/crd/bases) get the conversion webhook its
//     kustomization patches in (LocalQueue, ClusterQueue, Cohort, Workload, MultiKueueCluster:
//     v1beta1 is served beside the stored v1beta2), at the same `url` with path /convert.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

// The names Kueue's manager expects with its defaults (apis/config/v1beta2/defaults.go and
// pkg/util/cert): its namespace, the Secret its certificate manager reads, the service name its
// certificate must be valid for, the webhook configurations it injects the CA into.
const (
	kueueNamespace    = "kueue-system"
	kueueSecret       = "kueue-webhook-server-cert"
	kueueServiceDNS   = "kueue-webhook-service.kueue-system.svc"
	kueueCAName       = "kueue-ca"
	kueueMutating     = "kueue-mutating-webhook-configuration"
	kueueValidating   = "kueue-validating-webhook-configuration"
	kueueGroup        = "kueue.x-k8s.io"
	kueueReadyTimeout = 2 * time.Minute
)

// The CRDs whose conversion webhook the module's kustomization patches in.
var kueueConverted = map[string]bool{
	"localqueues.kueue.x-k8s.io": true, "clusterqueues.kueue.x-k8s.io": true, "cohorts.kueue.x-k8s.io": true,
	"workloads.kueue.x-k8s.io": true, "multikueueclusters.kueue.x-k8s.io": true,
}

func (c cluster) kueue() sideProgram { return c.sideProgram("kueue", "manager") }
func (c cluster) kueueCerts() string { return filepath.Join(c.kueue().dir, "certs") }

// upKueue starts Kueue's manager from dir unless it runs, after installing its CRDs, its namespace,
// its certificate and its webhook configurations, and waits until its readiness probe (which
// waits for the webhook server) answers. gates are set among its feature gates; a manager that
// runs already with other gates is an error (a gate is read once, at its start).
func (c cluster) upKueue(dir string, gates map[string]bool) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	manager := filepath.Join(dir, "manager")
	module := filepath.Join(dir, "module")
	if _, running := c.kueue().running(manager); running {
		return c.kueueRunsWith(gates)
	}
	for _, p := range []string{manager, filepath.Join(module, "go.mod")} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("--kueue %s: %w (build it with tests/cluster/kueue/build.sh)", dir, err)
		}
	}
	begin := time.Now()
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	webhookPort, healthPort := ports[0], ports[1]
	if err := os.MkdirAll(c.kueueCerts(), 0o700); err != nil {
		return err
	}
	ca, cert, key, caKey, err := kueueCertificate()
	if err != nil {
		return fmt.Errorf("kueue certificate: %w", err)
	}
	for name, data := range map[string][]byte{"tls.crt": cert, "tls.key": key} {
		if err := os.WriteFile(filepath.Join(c.kueueCerts(), name), data, 0o600); err != nil {
			return err
		}
	}
	base := "https://127.0.0.1:" + strconv.Itoa(webhookPort)
	crds, err := kueueCRDs(filepath.Join(module, "config/components/crd/bases"), base+"/convert", ca)
	if err != nil {
		return err
	}
	if err := c.applyCRDs(crds); err != nil {
		return err
	}
	config, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig())
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := applyKueueSecret(ctx, client, ca, caKey, cert, key); err != nil {
		return err
	}
	mutating, validating, err := kueueWebhooks(filepath.Join(module, "config/components/webhook/manifests.yaml"), base, ca)
	if err != nil {
		return err
	}
	if err := applyWebhooks(ctx, client, mutating, validating); err != nil {
		return err
	}
	if err := os.WriteFile(c.kueue().config(), kueueConfiguration(webhookPort, healthPort, c.kueueCerts(), gates), 0o600); err != nil {
		return err
	}
	pid, err := c.startKueue(manager)
	if err != nil {
		return err
	}
	if err := c.waitKueueReady(pid, healthPort); err != nil {
		c.kueue().stop()
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster: Kueue's manager ready in %.1fs (pid %d, webhooks on %s)\n", time.Since(begin).Seconds(), pid, base)
	return nil
}

// kueueConfiguration is the manager's Configuration (config.kueue.x-k8s.io/v1beta2): webhooks on
// 127.0.0.1 with the certificate in certDir, its health probes on 127.0.0.1 (readiness waits for the
// webhook server), no metrics server, no leader election, the batch/job integration only (Kueue
// then runs no controller for job kinds this cluster lacks), no visibility server (an API server
// of its own on port 8082 of every interface), and gates set among its feature gates (the manager
// takes them from its Configuration or from --feature-gates, never both: config.ValidateFeatureGates).
func kueueConfiguration(webhookPort, healthPort int, certDir string, gates map[string]bool) []byte {
	config := fmt.Appendf(nil, `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
health:
  healthProbeBindAddress: 127.0.0.1:%d
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
clientConnection:
  qps: 1000
  burst: 2000
integrations:
  frameworks:
  - batch/job
featureGates:
`, kueueNamespace, healthPort, webhookPort, certDir)
	all := kueueFeatureGates(gates)
	for _, name := range slices.Sorted(maps.Keys(all)) {
		config = fmt.Appendf(config, "  %s: %t\n", name, all[name])
	}
	return config
}

// kueueFeatureGates is the manager's feature gates: VisibilityOnDemand off, then gates.
func kueueFeatureGates(gates map[string]bool) map[string]bool {
	all := map[string]bool{"VisibilityOnDemand": false}
	maps.Copy(all, gates)
	return all
}

// parseFeatureGates reads `Name=true,Other=false` (the form of Kubernetes' --feature-gates).
func parseFeatureGates(s string) (map[string]bool, error) {
	gates := map[string]bool{}
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want Name=true or Name=false", item)
		}
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%q: want Name=true or Name=false", item)
		}
		gates[name] = on
	}
	return gates, nil
}

// kueueRunsWith checks that the running manager was started with gates: the Configuration it was
// started with holds the feature gates kueueConfiguration writes for them.
func (c cluster) kueueRunsWith(gates map[string]bool) error {
	raw, err := os.ReadFile(c.kueue().config())
	if err != nil {
		return err
	}
	var config struct {
		FeatureGates map[string]bool `json:"featureGates"`
	}
	if err := yaml.Unmarshal(raw, &config); err != nil {
		return fmt.Errorf("%s: %w", c.kueue().config(), err)
	}
	if want := kueueFeatureGates(gates); !maps.Equal(config.FeatureGates, want) {
		return fmt.Errorf("--kueue-feature-gates: the running Kueue manager has the feature gates %v, not %v: `cluster down --dir %s` first", config.FeatureGates, want, c.root)
	}
	return nil
}

// kueueCertificate makes the webhook server's certificate: for 127.0.0.1 (the address the API server
// calls) and for the service name Kueue's certificate manager checks, signed by a CA named as that
// manager names its own (it keeps a CA valid for `kueue-ca` and a serving certificate valid for the
// service name, and would replace either otherwise). RSA keys in PKCS #1, the form the manager
// reads back when it renews the serving certificate. Both valid for ten years.
func kueueCertificate() (caPEM, certPEM, keyPEM, caKeyPEM []byte, err error) {
	now := time.Now()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: kueueCAName, Organization: []string{"kueue"}},
		DNSNames:              []string{kueueCAName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: kueueServiceDNS},
		DNSNames:     []string{kueueServiceDNS},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	encode := func(kind string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: b}) }
	return encode("CERTIFICATE", caDER), encode("CERTIFICATE", der),
		encode("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)),
		encode("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(caKey)), nil
}

// kueueCRDs reads the module's CRDs, each with the conversion webhook its kustomization gives it.
func kueueCRDs(dir, convertURL string, ca []byte) ([]apiextensionsv1.CustomResourceDefinition, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no CRDs in %s", dir)
	}
	var crds []apiextensionsv1.CustomResourceDefinition
	for _, file := range files {
		crd, err := readCRD(file)
		if err != nil {
			return nil, err
		}
		if kueueConverted[crd.Name] {
			crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &convertURL, CABundle: ca},
					ConversionReviewVersions: []string{"v1"},
				},
			}
		}
		crds = append(crds, crd)
	}
	return crds, nil
}

// kueueWebhooks reads the module's two webhook configurations and keeps the webhooks of Kueue's own
// API group, each calling base + its path with the CA bundle ca.
func kueueWebhooks(file, base string, ca []byte) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	var mutating *admissionv1.MutatingWebhookConfiguration
	var validating *admissionv1.ValidatingWebhookConfiguration
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		switch meta.Kind {
		case "MutatingWebhookConfiguration":
			mutating = &admissionv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, mutating); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", file, err)
			}
			mutating.Name = kueueMutating
			var kept []admissionv1.MutatingWebhook
			for _, w := range mutating.Webhooks {
				if ownGroup(w.Rules) {
					w.ClientConfig, err = webhookURL(w.ClientConfig, base, ca)
					if err != nil {
						return nil, nil, fmt.Errorf("%s: webhook %s: %w", file, w.Name, err)
					}
					kept = append(kept, w)
				}
			}
			mutating.Webhooks = kept
		case "ValidatingWebhookConfiguration":
			validating = &admissionv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(doc, validating); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", file, err)
			}
			validating.Name = kueueValidating
			var kept []admissionv1.ValidatingWebhook
			for _, w := range validating.Webhooks {
				if ownGroup(w.Rules) {
					w.ClientConfig, err = webhookURL(w.ClientConfig, base, ca)
					if err != nil {
						return nil, nil, fmt.Errorf("%s: webhook %s: %w", file, w.Name, err)
					}
					kept = append(kept, w)
				}
			}
			validating.Webhooks = kept
		}
	}
	if mutating == nil || validating == nil || len(mutating.Webhooks) == 0 || len(validating.Webhooks) == 0 {
		return nil, nil, fmt.Errorf("%s: no mutating or no validating webhook of %s", file, kueueGroup)
	}
	return mutating, validating, nil
}

// ownGroup tells whether a webhook's rules are all of Kueue's API group.
func ownGroup(rules []admissionv1.RuleWithOperations) bool {
	for _, r := range rules {
		for _, g := range r.APIGroups {
			if g != kueueGroup {
				return false
			}
		}
	}
	return len(rules) > 0
}

// webhookURL turns a service reference into base + the service's path, with the CA bundle.
func webhookURL(config admissionv1.WebhookClientConfig, base string, ca []byte) (admissionv1.WebhookClientConfig, error) {
	if config.Service == nil || config.Service.Path == nil {
		return config, errors.New("no service path to call")
	}
	url := base + *config.Service.Path
	return admissionv1.WebhookClientConfig{URL: &url, CABundle: ca}, nil
}

func applyKueueSecret(ctx context.Context, client kubernetes.Interface, ca, caKey, cert, key []byte) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kueueNamespace}}
	if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kueueSecret, Namespace: kueueNamespace},
		Data:       map[string][]byte{"ca.crt": ca, "ca.key": caKey, "tls.crt": cert, "tls.key": key},
	}
	secrets := client.CoreV1().Secrets(kueueNamespace)
	existing, err := secrets.Get(ctx, kueueSecret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = secrets.Create(ctx, secret, metav1.CreateOptions{})
	case err == nil:
		secret.ResourceVersion = existing.ResourceVersion
		_, err = secrets.Update(ctx, secret, metav1.UpdateOptions{})
	}
	return err
}

func applyWebhooks(ctx context.Context, client kubernetes.Interface, m *admissionv1.MutatingWebhookConfiguration, v *admissionv1.ValidatingWebhookConfiguration) error {
	mutating := client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	if existing, err := mutating.Get(ctx, m.Name, metav1.GetOptions{}); err == nil {
		m.ResourceVersion = existing.ResourceVersion
		_, err = mutating.Update(ctx, m, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
	} else if _, err := mutating.Create(ctx, m, metav1.CreateOptions{}); err != nil {
		return err
	}
	validating := client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if existing, err := validating.Get(ctx, v.Name, metav1.GetOptions{}); err == nil {
		v.ResourceVersion = existing.ResourceVersion
		_, err = validating.Update(ctx, v, metav1.UpdateOptions{})
		return err
	}
	_, err := validating.Create(ctx, v, metav1.CreateOptions{})
	return err
}

// startKueue launches the manager in its own session with the admin kubeconfig, its output going
// to its log, and writes its pid.
func (c cluster) startKueue(manager string) (int, error) {
	env := []string{"KUBECONFIG=" + c.kubeconfig()}
	return startDetached(c.kueue().log(), c.kueue().pidFile(), env, manager, "--config", c.kueue().config(), "--zap-log-level", "info")
}

// alive tells whether pid is alive and not a zombie, whatever it runs.
func alive(pid int) bool { return isProcess(pid, func([]string) bool { return true }) }

// isProcess tells whether pid is alive, not a zombie, and its arguments satisfy match.
func isProcess(pid int, match func([]string) bool) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	if state, ok := procState(pid); ok && state == "Z" {
		return false
	}
	return match(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"))
}

// waitKueueReady polls the manager's /readyz until it answers 200; it fails early, with the end of
// its log, when the manager exits.
func (c cluster) waitKueueReady(pid, healthPort int) error {
	url := "http://127.0.0.1:" + strconv.Itoa(healthPort) + "/readyz"
	return waitReadyz("Kueue's manager", pid, url, &http.Client{Timeout: 2 * time.Second}, c.kueue().log(), kueueReadyTimeout)
}

// waitReadyz polls url (a /readyz) with client until it answers 200, for at most timeout; it fails
// early, with the end of log, when pid, the process of what, exits.
func waitReadyz(what string, pid int, url string, client *http.Client, log string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		// The process it started, alive and not a zombie: its arguments are not asked, since right
		// after the start they may not be the program's yet, more so under load.
		if !alive(pid) {
			return fmt.Errorf("%s (pid %d) exited; the end of %s:\n%s", what, pid, log, tail(log, 30))
		}
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status + " " + strings.TrimSpace(string(body))
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s's %s not ok after %s: %s; the end of %s:\n%s", what, url, timeout, last, log, tail(log, 30))
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
