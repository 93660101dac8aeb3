# Volcano's real scheduler and controllers beside a test cluster of their own (tests/cluster/volcano/,
# docs/test-cluster.md). Included by the top Makefile, after mk/cluster.mk (CLUSTER_BIN).
#
#   make test-volcano   Volcano v1.10.0's vc-scheduler and vc-controller-manager (built once by
#                       tests/cluster/volcano/build.sh into .tools/volcano-scheduler/) beside a
#                       cluster of two nodes of 8 CPUs (`cluster run --volcano`): of two gangs of
#                       which one fits, the first's PodGroup is enqueued and its pods run, the
#                       second's stays Pending until the first is deleted; a master pod naming no
#                       group gets a PodGroup of its own; then `elasticjob controller` through the
#                       scenarios of issue 47 (tests/e2e/volcano/): two jobs of a 1-CPU master at
#                       once, one runs whole and the other has no pod bound until the first is
#                       deleted; a scale-up and back, a relaunch, suspend and resume, a GPU
#                       template, a removed priorityClass, a failed job kept (figures printed)

TEST_TARGETS += test-volcano

VOLCANO_SCHEDULER_VERSION := $(shell sed -n 's/^VERSION=//p' $(CLUSTER_SRC)/volcano/build.sh)
VOLCANO_SCHEDULER_DIR := $(TOOLS)/volcano-scheduler/$(VOLCANO_SCHEDULER_VERSION)
VOLCANO_CLUSTER_DIR ?= $(TOOLS)/cluster-volcano

.PHONY: test-volcano

$(VOLCANO_SCHEDULER_DIR)/vc-scheduler: $(CLUSTER_SRC)/volcano/build.sh
	@sh $< $(VOLCANO_SCHEDULER_DIR) >/dev/null

# Two nodes of 8 CPUs: one job's three 4-CPU task pods (minResources 12 CPUs) fit, not two jobs'.
# The Go test (Volcano alone) first, then the controller's scenario on the same cluster.
test-volcano: $(CLUSTER_BIN) $(VOLCANO_SCHEDULER_DIR)/vc-scheduler npm ## Volcano's real scheduler and controllers on a test cluster of their own: one of two gangs enqueued and run, the other Pending until the first is deleted; the controller's jobs so (figures printed)
	$(CLUSTER_BIN) run --dir $(VOLCANO_CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) --volcano $(VOLCANO_SCHEDULER_DIR) --nodes 2 --node-cpu 8 -- \
	  sh -c 'cd $(CLUSTER_SRC) && go test -count=1 -v ./volcano/ && cd $(CURDIR) && $(NPM_NODE_TEST) tests/e2e/volcano/*.test.js'
