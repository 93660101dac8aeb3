package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// The files of the cluster's PKI, under data/pki.
const (
	caCert     = "ca.crt"
	caKey      = "ca.key"
	serverCert = "apiserver.crt"
	serverKey  = "apiserver.key"
	adminCert  = "admin.crt"
	adminKey   = "admin.key"
	// The service-account token signing key; its public half is read from the same file.
	saKey = "sa.key"
)

// The admin identity of the kubeconfig: a client certificate in the group system:masters, which
// RBAC's bootstrap policy binds to cluster-admin.
const (
	adminUser  = "elasticjob-admin"
	adminGroup = "system:masters"
)

// The service network; the API server takes its first address for the `kubernetes` service. A /16:
// no namespace is ever deleted in the test cluster, so every service of every test keeps its address
// until cluster-down (the controller's tests alone make a few hundred).
const (
	serviceCIDR = "10.0.0.0/16"
	serviceIP   = "10.0.0.1"
)

// makePKI writes a fresh CA, the API server's serving certificate (for 127.0.0.1, localhost and the
// in-cluster names), the admin's client certificate and the service-account signing key. Keys are
// ECDSA P-256, made with Go's crypto; nothing leaves the machine.
func (c cluster) makePKI() error {
	if err := os.MkdirAll(c.pki(), 0o700); err != nil {
		return err
	}
	now := time.Now()
	ca, caPriv, err := newKey()
	if err != nil {
		return err
	}
	caTemplate := certificate(1, pkix.Name{CommonName: "elasticjob-test-ca"}, now)
	caTemplate.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign
	caTemplate.BasicConstraintsValid, caTemplate.IsCA = true, true
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, ca, caPriv)
	if err != nil {
		return err
	}
	caParsed, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	if err := writeCert(c.pkiFile(caCert), caDER); err != nil {
		return err
	}
	if err := writeKey(c.pkiFile(caKey), caPriv); err != nil {
		return err
	}
	server := certificate(2, pkix.Name{CommonName: "kube-apiserver"}, now)
	server.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	server.IPAddresses = []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(serviceIP)}
	server.DNSNames = []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local"}
	if err := c.issue(server, caParsed, caPriv, serverCert, serverKey); err != nil {
		return err
	}
	admin := certificate(3, pkix.Name{CommonName: adminUser, Organization: []string{adminGroup}}, now)
	admin.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if err := c.issue(admin, caParsed, caPriv, adminCert, adminKey); err != nil {
		return err
	}
	_, sa, err := newKey()
	if err != nil {
		return err
	}
	return writeKey(c.pkiFile(saKey), sa)
}

// certificate is a signing template valid for a year from an hour ago, for digital signatures.
func certificate(serial int64, subject pkix.Name, now time.Time) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      subject,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(1, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
}

// issue signs template with the CA and writes the certificate and its new key.
func (c cluster) issue(template, ca *x509.Certificate, caPriv crypto.Signer, certName, keyName string) error {
	pub, priv, err := newKey()
	if err != nil {
		return err
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, pub, caPriv)
	if err != nil {
		return fmt.Errorf("signing %s: %w", certName, err)
	}
	if err := writeCert(c.pkiFile(certName), der); err != nil {
		return err
	}
	return writeKey(c.pkiFile(keyName), priv)
}

func newKey() (crypto.PublicKey, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return key.Public(), key, nil
}

func writeCert(path string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
