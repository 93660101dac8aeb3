# elasticjob: two commands do all set-up on a fresh machine.
#   make demo   render the bundled example job and scale plan
#   make test   install what is missing, then run every test
# Each artifact adds its own targets from its .mk file below.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

CARGO ?= cargo
TOOLS := $(CURDIR)/.tools
VENV := $(TOOLS)/venv
PYTHON := $(VENV)/bin/python
# Test targets of every artifact; the included .mk files add theirs.
TEST_TARGETS := test-core test-consumers

-include mk/*.mk

.PHONY: help demo test test-core test-properties test-consumers bench fmt clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

demo: ## render examples/elasticjob.yaml with examples/scaleplan.yaml: a summary, then the objects as YAML
	$(CARGO) run --quiet --example render -- examples/elasticjob.yaml examples/scaleplan.yaml

test: $(TEST_TARGETS) ## everything: core, real consumers, and every artifact's tests
	@echo "make test: all passed"

test-core: ## Rust: format, lints (unwrap/expect/panic/indexing denied), unit, golden, table, property tests, doctests
	$(CARGO) fmt --check
	$(CARGO) clippy --quiet --all-targets -- -D warnings
	$(CARGO) test --quiet
	PROPTEST_CASES=2000 $(CARGO) test --quiet --release --test properties

test-consumers: $(VENV)/.installed ## rendered objects vs Kubernetes' schemas, TF_CONFIG vs TensorFlow's resolver
	$(CARGO) test --quiet --test golden
	cd tests/consumers && $(PYTHON) check_objects.py ../golden 1.36
	cd tests/consumers && $(PYTHON) check_tf_config.py ../golden

$(VENV)/.installed: tests/consumers/requirements.txt
	@test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r $<
	@touch $@

bench: ## benchmarks of the core (figures printed, nothing asserted)
	$(CARGO) bench --bench core

fmt: ## format the Rust code
	$(CARGO) fmt

clean: ## remove build output and installed test tools
	$(CARGO) clean
	rm -rf $(TOOLS)
