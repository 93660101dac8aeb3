# The test cluster (tests/cluster/, docs/test-cluster.md): a real etcd, kube-apiserver,
# kube-scheduler and kube-controller-manager, and KWOK's fake nodes, in one process on 127.0.0.1,
# built from the Kubernetes and KWOK Go modules. The CRDs in deploy/crds/ are generated from the
# Rust types. Included by the top Makefile.
#
#   make cluster-up     build the cluster once (.tools/cluster/cluster), start it, install the CRDs,
#                       create CLUSTER_NODES fake nodes and wait until they are Ready, write
#                       .tools/cluster/kubeconfig and print `export KUBECONFIG=...`
#   make cluster-down   stop it and remove its data
#   make crds           regenerate deploy/crds/ from the Rust types
#   make test-cluster   CRDs up to date; every golden case's objects, every example, DLRover's
#                       manifests, the RBAC of deploy/rbac.yaml and the controller against the cluster
#                       (brought up for the tests and down afterwards, also when a test fails)
#   make bench-cluster  the scale run (benches/node/cluster.js) on a cluster of its own with 50 nodes
#   make soak           the chaos soak (benches/node/soak.js) for SOAK_MINUTES (default 30) on a
#                       cluster of its own: figures printed and in BENCH_JSON; SOAK_SEED replays
#   make test-soak      the same for 6 minutes, failing on any violation or a fault kind that never
#                       happened
#   make test-kueue     Kueue's real manager beside a cluster of its own (`cluster run --kueue`):
#                       quota, admission, flavours, preemption, Finished, deactivation, its webhooks;
#                       then `elasticjob controller --kueue` in the issue's five scenarios; then
#                       Workload slices, on a second cluster whose Kueue has the gate
#                       ElasticJobsViaWorkloadSlices on (`--kueue-feature-gates`, figures printed)
#   make test-gang-scheduler
#                       scheduler-plugins' gang scheduler (Coscheduling) beside a cluster of its own
#                       (`cluster run --gang`): two groups of pods of which one fits are placed one
#                       whole and the other not at all, where the default scheduler places part of
#                       each; then `elasticjob controller --gang-scheduler-name` in the same
#                       scenarios with two jobs (tests/e2e/gang/), and with Volcano's PodGroups, the
#                       test playing Volcano's scheduler (figures printed)

TEST_TARGETS += test-cluster test-kueue test-gang-scheduler

CLUSTER_SRC := tests/cluster
CLUSTER_DIR := $(TOOLS)/cluster
CLUSTER_BIN := $(CLUSTER_DIR)/cluster
CLUSTER_CRDS := deploy/crds
# The fake nodes of `cluster-up` and `test-cluster` (`cluster up --help`): enough for every test's
# pods at once; a worker asking for more than one node holds stays Pending.
CLUSTER_NODES ?= --nodes 4 --node-cpu 64 --node-memory 512Gi --node-pods 250
# The scale run's: 50 nodes for 100 jobs of 1 PS and 100 workers (1 CPU and 1 GiB each) and their
# masters, in a folder of its own (a cluster-up cluster may run beside it).
CLUSTER_SCALE_DIR := $(TOOLS)/cluster-scale
# A cluster of its own for the tests that restart the control plane (tests/e2e/restart/): a restart
# would cut every other test's connections.
CLUSTER_RESTART_DIR := $(TOOLS)/cluster-restart
CLUSTER_SCALE_NODES := --nodes 50 --node-cpu 256 --node-memory 1Ti --node-pods 300
# A fresh generation, compared with the checked-in CRDs.
CLUSTER_CRDS_FRESH := $(or $(CARGO_TARGET_DIR),target)/crds
# The Kubernetes version the binary reports (/version), from the module it is built from.
CLUSTER_K8S_VERSION = $(shell sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)$$/\1/p' $(CLUSTER_SRC)/go.mod)
CLUSTER_VERSION_PKG := k8s.io/component-base/version
CLUSTER_LDFLAGS = -s -w -X $(CLUSTER_VERSION_PKG).gitVersion=$(CLUSTER_K8S_VERSION) \
  -X $(CLUSTER_VERSION_PKG).gitMajor=$(word 1,$(subst ., ,$(patsubst v%,%,$(CLUSTER_K8S_VERSION)))) \
  -X $(CLUSTER_VERSION_PKG).gitMinor=$(word 2,$(subst ., ,$(CLUSTER_K8S_VERSION))) \
  -X $(CLUSTER_VERSION_PKG).gitTreeState=clean -X $(CLUSTER_VERSION_PKG).gitCommit=

.PHONY: cluster cluster-up cluster-down crds crds-check test-cluster test-kueue test-gang-scheduler soak test-soak bench-controller bench-kubeflow-tfconfig bench-cluster

cluster: $(CLUSTER_BIN) ## build the test cluster (etcd, kube-apiserver, scheduler, controller manager, KWOK: one binary) into .tools/cluster/

# One static binary: etcd and the Kubernetes components share their dependencies, so they compile
# once. The first build on a fresh machine takes minutes; later ones come from Go's build cache.
$(CLUSTER_BIN): $(CLUSTER_SRC)/go.mod $(CLUSTER_SRC)/go.sum $(wildcard $(CLUSTER_SRC)/*.go) $(CLUSTER_SRC)/stages.yaml
	@mkdir -p $(@D)
	@echo "building the test cluster (etcd, Kubernetes $(CLUSTER_K8S_VERSION), KWOK); the first build takes minutes"
	cd $(CLUSTER_SRC) && CGO_ENABLED=0 go build -trimpath -ldflags '$(CLUSTER_LDFLAGS)' -o $@ .

cluster-up: $(CLUSTER_BIN) ## start the test cluster (idempotent), install the CRDs, print `export KUBECONFIG=...`
	@$(CLUSTER_BIN) up --dir $(CLUSTER_DIR) --crds $(CLUSTER_CRDS) $(CLUSTER_NODES)

cluster-down: ## stop the test cluster and remove its data
	@if [ -x $(CLUSTER_BIN) ]; then $(CLUSTER_BIN) down --dir $(CLUSTER_DIR); else rm -rf $(CLUSTER_DIR)/data $(CLUSTER_DIR)/kubeconfig; fi

# Kueue's manager, built once from the sigs.k8s.io/kueue module (tests/cluster/kueue/build.sh), with
# the module linked beside it for its CRDs and webhook configurations.
KUEUE_VERSION := $(shell sed -n 's/^VERSION=//p' $(CLUSTER_SRC)/kueue/build.sh)
KUEUE_DIR := $(TOOLS)/kueue/$(KUEUE_VERSION)

$(KUEUE_DIR)/manager: $(CLUSTER_SRC)/kueue/build.sh
	@sh $< $(KUEUE_DIR) >/dev/null

# The Go tests (Kueue itself) first, then the controller's scenarios (tests/e2e/kueue/), on
# one cluster: its CRDs, Kueue's and 2 nodes, the flavour's one labelled and tainted by the test;
# Kueue's feature gates as it ships them, so TestWorkloadSlicesGateOff (tests/cluster/kueue/
# slices_test.go) runs there. Then, on a second cluster in the same folder (the first is down by
# then), Kueue with ElasticJobsViaWorkloadSlices on for TestWorkloadSlices alone, its figures
# printed (-v). KUEUE_WORKLOAD_SLICES tells each run which gate its Kueue has: a test whose probe
# of the gate disagrees fails instead of skipping.
KUEUE_CLUSTER_DIR ?= $(TOOLS)/cluster-kueue
KUEUE_SLICES_GATE := ElasticJobsViaWorkloadSlices=true

test-kueue: $(CLUSTER_BIN) $(KUEUE_DIR)/manager npm ## Kueue's real manager on a test cluster of its own: admission, quota, flavours, preemption, Finished, deactivation, its webhooks on 127.0.0.1; then the controller's five scenarios with it; then Workload slices with Kueue's gate on, and a scale-down giving its quota back under the controller (figures printed)
	KUEUE_WORKLOAD_SLICES=off $(CLUSTER_BIN) run --dir $(KUEUE_CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) --kueue $(KUEUE_DIR) --nodes 2 -- \
	  sh -c 'cd $(CLUSTER_SRC) && go test -count=1 -skip "^TestWorkloadSlices$$" ./kueue/ && cd $(CURDIR) && $(NPM_NODE_TEST) tests/e2e/kueue/*.test.js'
	KUEUE_WORKLOAD_SLICES=on $(CLUSTER_BIN) run --dir $(KUEUE_CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) --kueue $(KUEUE_DIR) \
	  --kueue-feature-gates $(KUEUE_SLICES_GATE) --nodes 2 -- \
	  sh -c 'cd $(CLUSTER_SRC) && go test -count=1 -v -run "^TestWorkloadSlices$$" ./kueue/ && cd $(CURDIR) && $(NPM_NODE_TEST) tests/e2e/kueue/slices.test.js'

# scheduler-plugins' kube-scheduler with the Coscheduling plugin, built once from the
# sigs.k8s.io/scheduler-plugins module (tests/cluster/gang/build.sh), the PodGroup CRD beside it.
GANG_VERSION := $(shell sed -n 's/^VERSION=//p' $(CLUSTER_SRC)/gang/build.sh)
GANG_DIR := $(TOOLS)/scheduler-plugins/$(GANG_VERSION)
GANG_CLUSTER_DIR ?= $(TOOLS)/cluster-gang

$(GANG_DIR)/scheduler: $(CLUSTER_SRC)/gang/build.sh
	@sh $< $(GANG_DIR) >/dev/null

# Volcano's PodGroup CRD, generated once from Volcano's API module (tests/cluster/gang/volcano-crd.sh):
# the controller's scenario with Volcano's PodGroups, the test playing Volcano's scheduler.
VOLCANO_VERSION := $(shell sed -n 's/^VERSION=//p' $(CLUSTER_SRC)/gang/volcano-crd.sh)
VOLCANO_DIR := $(TOOLS)/volcano/$(VOLCANO_VERSION)

$(VOLCANO_DIR)/podgroups.yaml: $(CLUSTER_SRC)/gang/volcano-crd.sh
	@sh $< $(VOLCANO_DIR) >/dev/null

# Two nodes of 4 CPUs: one of the Go test's two groups of three 2-CPU pods fits, not both; one of
# the controller's two jobs of three 1.5-CPU task pods (and a 100m master), not both. The Go test
# (the scheduler alone) first, then the controller's scenarios, one file at a time (they share the
# nodes).
test-gang-scheduler: $(CLUSTER_BIN) $(GANG_DIR)/scheduler $(VOLCANO_DIR)/podgroups.yaml npm ## gang scheduling on a test cluster of its own with scheduler-plugins' gang scheduler: one of two groups bound whole, the other not at all, where the default scheduler binds part of each; the controller's jobs so (--gang-scheduler-name), and with Volcano's PodGroups (figures printed)
	$(CLUSTER_BIN) run --dir $(GANG_CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) --gang $(GANG_DIR) --nodes 2 --node-cpu 4 -- \
	  sh -c 'cd $(CLUSTER_SRC) && go test -count=1 ./gang/ && cd $(CURDIR) && \
	    VOLCANO_CRD=$(VOLCANO_DIR)/podgroups.yaml $(NPM_NODE_TEST) --test-concurrency=1 tests/e2e/gang/*.test.js'

crds: ## regenerate deploy/crds/ from the Rust types (examples/crds.rs)
	$(CARGO) run --quiet --features schema --example crds -- $(CLUSTER_CRDS)

crds-check:
	@rm -rf $(CLUSTER_CRDS_FRESH)
	$(CARGO) run --quiet --features schema --example crds -- $(CLUSTER_CRDS_FRESH)
	@diff -ru $(CLUSTER_CRDS) $(CLUSTER_CRDS_FRESH) || { echo "deploy/crds/ is stale: run \`make crds\` and commit the result"; exit 1; }

# DLRover's real job master, for the cluster test it drives (tests/e2e/dlrover.test.js): a
# venv of its own, since it needs protobuf 4 and the consumers' venv has TensorFlow's protobuf 7.
# dlrover 0.6.1 imports telnetlib, which Python 3.13 removed.
DLROVER_VENV := $(TOOLS)/dlrover-venv
DLROVER_PYTHON := $(DLROVER_VENV)/bin/python
DLROVER_REQUIREMENTS := tests/e2e/dlrover-requirements.txt
# The same packages as the master image, each pinned with its wheel's sha256.
DLROVER_LOCK := tests/e2e/dlrover-requirements.lock

# $(call lock_holds_pins,PINS,LOCK): fails unless every `name==version` of PINS (extras left out)
# is a line of LOCK: a pin changed without `python3 tests/e2e/lock_requirements.py`.
lock_holds_pins = sed -n 's/^\([A-Za-z0-9_.-]*\)\(\[[^]]*\]\)\{0,1\}==\([^ ]*\)$$/\1==\3/p' $(1) | \
  while read -r pin; do grep -q "^$$pin --hash=" $(2) || { echo "$(2) has no $$pin of $(1): run python3 tests/e2e/lock_requirements.py"; exit 1; }; done

$(DLROVER_VENV)/.installed: $(DLROVER_REQUIREMENTS) $(DLROVER_LOCK)
	@python3 -c 'import sys; sys.exit(sys.version_info >= (3, 13))' || { echo "dlrover 0.6.1 needs Python <= 3.12 (it imports telnetlib); python3 is $$(python3 --version)"; exit 1; }
	@$(call lock_holds_pins,$(DLROVER_REQUIREMENTS),$(DLROVER_LOCK))
	@test -x $(DLROVER_PYTHON) || python3 -m venv $(DLROVER_VENV)
	$(DLROVER_PYTHON) -m pip install --quiet --disable-pip-version-check --only-binary=:all: --require-hashes -r $(DLROVER_LOCK)
	@touch $@

# Part of `make bench`, never of `make test`: benches/node/controller.js prints the controller's figures.
bench-controller: $(CLUSTER_BIN) npm ## the controller on the real API server: 20 jobs, the 1,000-worker plan beside a bare client, calls a pod, peak RSS (figures printed)
	@$(WITH_KUBEFLOW) $(CLUSTER_BIN) run --dir $(CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) -- node benches/node/controller.js

# Kubeflow training-operator v1.9.4's TF_CONFIG generation beside the core's (figures printed).
bench-kubeflow-tfconfig: npm ## Kubeflow's genTFConfigJSONStr for every task of 1 PS + 10/100/1,000 workers beside the core's tfConfig and render
	sh benches/kubeflow/tfconfig.sh

test-cluster: crds-check $(CLUSTER_BIN) npm $(DLROVER_VENV)/.installed $(GANG_DIR)/scheduler $(VOLCANO_DIR)/podgroups.yaml ## the test cluster: CRDs up to date, golden objects and examples accepted (dryRun=All), core and server agree on names, labels, quantities; RBAC; the controller on KWOK's nodes, beside DLRover's real master
	@test -z "$$(gofmt -l $(CLUSTER_SRC))" || { echo "gofmt: run \`gofmt -w $(CLUSTER_SRC)\`:"; gofmt -l $(CLUSTER_SRC); exit 1; }
	$(CARGO) clippy --quiet --features schema --example crds -- -D warnings
	DLROVER_PYTHON=$(DLROVER_PYTHON) PODGROUP_CRDS="$(GANG_DIR)/podgroups.yaml $(VOLCANO_DIR)/podgroups.yaml" \
	  $(CLUSTER_BIN) run --dir $(CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) $(CLUSTER_NODES) -- \
	  $(NPM_NODE_TEST) tests/e2e/*.test.js
	RESTART_CLUSTER="$(CLUSTER_BIN) --dir $(CLUSTER_RESTART_DIR)" $(CLUSTER_BIN) run --dir $(CLUSTER_RESTART_DIR) --nodes 1 -- \
	  $(NPM_NODE_TEST) tests/e2e/restart/*.test.js

bench-cluster: $(CLUSTER_BIN) npm ## the scale run: 10 then 100 jobs of 1 PS + 100 workers on 50 fake nodes, ours and Kubeflow's operator (figures printed)
	@$(WITH_KUBEFLOW) $(CLUSTER_BIN) run --dir $(CLUSTER_SCALE_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) $(CLUSTER_SCALE_NODES) -- node benches/node/cluster.js

# The chaos soak: a cluster of its own (its folder is the one `cluster restart-apiserver` restarts).
SOAK_DIR ?= $(TOOLS)/cluster-soak
SOAK_MINUTES ?= 30
# Room for every pod the soak's jobs ask for at once: a pod left Pending for want of a node would
# read as a controller that did not converge. Up to 8 played jobs of up to 100 workers, 2 PS, a chief
# and an evaluator at 0.5 CPU (416 CPU), and the job of DLRover's real master, whose own first plan
# asks 16 CPU for each PS, chief and worker whatever the job's template says (DLRover 0.6.1's
# local_optimizer.py, job_stage_create: min(ceil(its resource limit of 100 CPU / 5), 16)): up to
# 104 pods, 1,664 CPU, one such job at a time (the next once the last one's pods are gone). 8 x 64
# CPU left 72 of its 99 workers unschedulable ("8 Insufficient cpu"): two violations of each run
# that drew it. A pod still unschedulable is reported apart, with the scheduler's reason.
# SOAK_PODS=T (benches/node/soak/mix.js) holds about T live pods: played jobs arrive while they ask
# fewer than T, so the pods at once reach T plus the last job to arrive (up to 200 workers), a
# scale-up mid-plan (up to 30 x round(T/1000)), the pods of jobs deleted that the garbage collector
# has not removed yet and the real master's job (104). The
# cluster is today's 8 nodes, which hold the real master's job and today's mix, plus room for
# 1.5 x T at 250 pods a node (the scheduler spreads pods over every node, so a node is about
# two-thirds full at T, and a delete-node takes some T/nodes pods): 38 nodes for 5,000. Each
# node's 320 CPU and 512Gi hold its 250 pods of 0.5 CPU and 1 or 2Gi (an OOMKilled pod's
# relaunch asks twice the memory). Unset, today's mix and nodes (make test-soak).
SOAK_PODS ?=
SOAK_NODE_COUNT = $(if $(SOAK_PODS),$(shell echo $$(( 8 + ($(SOAK_PODS) * 3 / 2 + 249) / 250 ))),8)
SOAK_NODES = --nodes $(SOAK_NODE_COUNT) --node-cpu 320 --node-memory 512Gi --node-pods 250
SOAK_RUN = DLROVER_PYTHON=$(DLROVER_PYTHON) SOAK_CLUSTER="$(CLUSTER_BIN) --dir $(SOAK_DIR)" SOAK_PODS=$(SOAK_PODS) \
  $(CLUSTER_BIN) run --dir $(SOAK_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) $(SOAK_NODES) -- node benches/node/soak.js

soak: $(CLUSTER_BIN) npm $(DLROVER_VENV)/.installed ## the chaos soak for SOAK_MINUTES (default 30): two replicas, thirteen fault kinds on a seeded schedule (SOAK_SEED replays), an observer's invariants; figures printed
	SOAK_MINUTES=$(SOAK_MINUTES) $(SOAK_RUN)

test-soak: $(CLUSTER_BIN) npm $(DLROVER_VENV)/.installed ## the chaos soak for 6 minutes (every fault kind comes in that time): fails on any invariant violation or a fault kind that never happened
	SOAK_MINUTES=6 SOAK_STRICT=1 $(SOAK_RUN)
