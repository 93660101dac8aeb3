# Installing the controller (charts/elasticjob/, deploy/install.yaml) and the kubectl plugin
# `kubectl-elasticjob` (pkg/bin/kubectl-elasticjob.js). Included by the top Makefile.
#
#   make helm kubectl  build Helm and kubectl once into .tools/ (tests/tools/, a Go module of its own)
#   make install-yaml  render deploy/install.yaml from the chart (and the chart's CRDs from deploy/crds/)
#   make test-install  helm lint --strict, render vs a server-side dry run, helm install/uninstall,
#                      kubectl apply --server-side -f deploy/install.yaml, `kubectl get elasticjobs`,
#                      `kubectl elasticjob status` of a job through a relaunch (golden text), bad values
#                      refused with their path; on the real API server of tests/cluster

TEST_TARGETS += test-install

TOOLS_SRC := tests/tools
# Helm: helm.sh/helm/v3's own cmd/helm; kubectl: k8s.io/kubectl's command, at the version of the test
# API server (one minor of skew is what kubectl supports; Debian's is 1.32).
HELM_VERSION = $(shell sed -n 's/^\thelm.sh\/helm\/v3 \(v[0-9.]*\).*$$/\1/p' $(TOOLS_SRC)/go.mod)
KUBECTL_VERSION = $(shell sed -n 's/^\tk8s.io\/kubectl v0\.\([0-9]*\)\.\([0-9]*\)$$/v1.\1.\2/p' $(TOOLS_SRC)/go.mod)
HELM_BIN := $(TOOLS)/helm/helm
KUBECTL_BIN := $(TOOLS)/kubectl/kubectl
TOOLS_DEPS := $(TOOLS_SRC)/go.mod $(TOOLS_SRC)/go.sum
# What `helm version`, `helm template` (.Capabilities.KubeVersion) and `helm lint` report, as
# Helm's Makefile sets them: the Kubernetes minor of the client-go it is built with.
HELM_K8S_MINOR = $(word 2,$(subst ., ,$(KUBECTL_VERSION)))
HELM_LDFLAGS = -s -w -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
  -X helm.sh/helm/v3/internal/version.metadata= -X helm.sh/helm/v3/internal/version.gitTreeState=clean \
  $(foreach pkg,lint/rules chartutil,-X helm.sh/helm/v3/pkg/$(pkg).k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/$(pkg).k8sVersionMinor=$(HELM_K8S_MINOR))
KUBECTL_LDFLAGS = -s -w $(foreach pkg,k8s.io/client-go/pkg/version k8s.io/component-base/version, \
  -X $(pkg).gitVersion=$(KUBECTL_VERSION) -X $(pkg).gitMajor=1 -X $(pkg).gitMinor=$(HELM_K8S_MINOR) \
  -X $(pkg).gitTreeState=clean)

.PHONY: helm kubectl

helm: $(HELM_BIN) ## build Helm (helm.sh/helm/v3, tests/tools/go.mod) into .tools/helm/
kubectl: $(KUBECTL_BIN) ## build kubectl (k8s.io/kubectl at the test API server's version) into .tools/kubectl/

$(HELM_BIN): $(TOOLS_DEPS)
	@mkdir -p $(@D)
	@echo "building helm $(HELM_VERSION); the first build takes minutes"
	cd $(TOOLS_SRC) && CGO_ENABLED=0 go build -trimpath -ldflags '$(HELM_LDFLAGS)' -o $@ helm.sh/helm/v3/cmd/helm

$(KUBECTL_BIN): $(TOOLS_DEPS) $(TOOLS_SRC)/kubectl/main.go
	@mkdir -p $(@D)
	@echo "building kubectl $(KUBECTL_VERSION); the first build takes minutes"
	cd $(TOOLS_SRC) && CGO_ENABLED=0 go build -trimpath -ldflags '$(KUBECTL_LDFLAGS)' -o $@ ./kubectl
