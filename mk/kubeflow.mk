# Kubeflow's training-operator beside this project (tests/kubeflow/): each TFJob of examples/tfjob/
# under Kubeflow's operator as written, and as the ElasticJob `elasticjob convert` makes of it under
# `elasticjob controller` with the first plan DLRover 0.6.1's real master writes for it, on one test
# cluster; TensorFlow's resolver reads every task's TF_CONFIG
# from both sides. The operator is built once (benches/kubeflow/operator.sh) under .tools/kubeflow/.
#
#   make test-kubeflow   build what is missing, run tests/kubeflow/*.test.js

TEST_TARGETS += test-kubeflow

KUBEFLOW_WORK := $(TOOLS)/kubeflow
KUBEFLOW_CLUSTER_DIR ?= $(TOOLS)/cluster-kubeflow
# A recipe's command with the operator built (once, under $(KUBEFLOW_WORK)) and named by
# KUBEFLOW_OPERATOR and KUBEFLOW_SRC (benches/node/kubeflow.js reads them): `@$(WITH_KUBEFLOW) COMMAND`.
# The benchmarks of mk/cluster.mk run it too.
WITH_KUBEFLOW = set -e; kf=$$(KUBEFLOW_WORK=$(KUBEFLOW_WORK) sh benches/kubeflow/operator.sh); \
  KUBEFLOW_OPERATOR=$$(echo "$$kf" | sed -n 1p) KUBEFLOW_SRC=$$(echo "$$kf" | sed -n 2p)

# Room for every pod of both sides at once, the examples' jobs kept to the end: DLRover's real
# master plans 16 CPUs a task pod (21 of them, 336 CPUs), Kubeflow's mnist asks 20 CPUs, and each
# job's master 1 CPU must find room after both (on 2 x 32 CPUs it did not, once Kubeflow's pods
# of the third example took what was left).
KUBEFLOW_NODES := --nodes 2 --node-cpu 256 --node-memory 512Gi

.PHONY: test-kubeflow

test-kubeflow: $(CLUSTER_BIN) npm $(VENV)/.installed $(DLROVER_VENV)/.installed ## Kubeflow's operator runs each TFJob of examples/tfjob/, this controller the ElasticJob `elasticjob convert` makes of it with DLRover's real master's first plan (as many pods of each type); TensorFlow's resolver reads both TF_CONFIGs task by task
	@$(WITH_KUBEFLOW) PYTHON=$(PYTHON) DLROVER_PYTHON=$(DLROVER_PYTHON) $(CLUSTER_BIN) run --dir $(KUBEFLOW_CLUSTER_DIR) --crds $(CURDIR)/$(CLUSTER_CRDS) $(KUBEFLOW_NODES) -- \
	  $(NPM_NODE_TEST) tests/kubeflow/*.test.js
