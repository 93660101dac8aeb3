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
# wasm-opt for the npm package and the policy: a current binaryen from the npm registry
# (distribution packages are too old for what rustc emits), installed once under .tools/.
BINARYEN_VERSION := 132.0.0
WASM_OPT := $(TOOLS)/binaryen-$(BINARYEN_VERSION)/node_modules/.bin/wasm-opt

include mk/*.mk

.PHONY: help demo test test-core test-consumers bench fuzz fmt clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

demo: demo-npm ## render examples/elasticjob.yaml with the `elasticjob` CLI: a summary, then the objects as YAML

test: $(TEST_TARGETS) ## everything: core, real consumers, and every artifact's tests
	@echo "make test: all passed"

test-core: ## Rust: format, lints (unwrap/expect/panic/indexing denied), unit, golden, table, property tests, doctests
	$(CARGO) fmt --check
	$(CARGO) clippy --quiet --all-targets -- -D warnings
	$(CARGO) test --quiet
	PROPTEST_CASES=2000 $(CARGO) test --quiet --release --test properties
	K8S_OPENAPI_ENABLED_VERSION=1.36 RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet --no-deps -p elasticjob

test-consumers: $(VENV)/.installed ## rendered objects vs Kubernetes' schemas, TF_CONFIG vs TensorFlow's resolver
	$(CARGO) test --quiet --test golden
	cd tests/consumers && $(PYTHON) check_objects.py ../golden 1.36
	cd tests/consumers && $(PYTHON) check_tf_config.py ../golden

$(WASM_OPT):
	npm install --prefix $(TOOLS)/binaryen-$(BINARYEN_VERSION) --no-save --no-audit --no-fund --loglevel=error binaryen@$(BINARYEN_VERSION)

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

fuzz: ## fuzz the core for FUZZ_SECONDS (default 60) with cargo-fuzz (libFuzzer)
	@command -v cargo-fuzz >/dev/null || $(CARGO) install --quiet cargo-fuzz
	mkdir -p fuzz/corpus/job
	cd fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run job corpus/job seeds -- -max_total_time=$${FUZZ_SECONDS:-60}
