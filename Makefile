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
# How both modules are optimised. `--low-memory-unused` lets wasm-opt fold a constant under 1,024
# added to an address into the access's offset (binaryen's OptimizeAddedConstants): an add wraps
# past 4 GiB and an offset does not, so the two differ only for an address within 1,024 bytes of
# the top of a 32-bit memory, which Rust never forms (no object wraps the address space; rustc
# places the 1 MiB stack first, at 0, and the data above it). 4,665 bytes of the npm package's
# module and 2,290 of the policy's, gzip -9, rendering no slower (docs/benchmarks.md).
WASM_OPT_FLAGS := --low-memory-unused --strip-debug --strip-producers
# The passes of each module. The npm package's: binaryen's size pipeline (-Os) twice, the second
# run shrinking what the first one's inlining laid open: 3,003 bytes (gzip -9) under one -Oz, in
# 19 s of wasm-opt against 17, rendering no slower; the policy's is 317 bytes larger so, and keeps
# -Oz (docs/benchmarks.md, "Fewer types of tree, one reader of names, the module optimised twice").
NPM_WASM_OPT_PASSES := -Os -Os
POLICY_WASM_OPT_PASSES := -Oz

include mk/*.mk

.PHONY: help demo test test-core test-consumers bench fuzz fmt clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  make %-18s %s\n", $$1, $$2}'

demo: demo-npm ## render examples/elasticjob.yaml with the `elasticjob` CLI: a summary, then the objects as YAML

test: ## everything: core, real consumers, and every artifact's tests (each target's time printed at the end)
	@tests/tools/timed.sh $(MAKE) $(TEST_TARGETS)
	@echo "make test: all passed"

# The tests build the core with its JSON Schemas on (`--features schema`), as the package's schema
# example does, so one build serves both and the check that src/podspec/table.rs is k8s-openapi's
# schemas runs.
test-core: ## Rust: format, lints (unwrap/expect/panic/indexing denied), unit, golden, table, property tests, doctests
	$(CARGO) fmt --check
	$(CARGO) clippy --quiet --all-targets -- -D warnings
	$(CARGO) test --quiet --features schema
	PROPTEST_CASES=2000 $(CARGO) test --quiet --release --test properties
	K8S_OPENAPI_ENABLED_VERSION=1.36 RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet --no-deps -p elasticjob

test-consumers: $(VENV)/.installed ## rendered objects vs Kubernetes' schemas, TF_CONFIG vs TensorFlow's resolver, times vs apimachinery's
	$(CARGO) test --quiet --features schema --test golden
	cd tests/cluster && go test -count=1 ./times/
	cd tests/consumers && $(PYTHON) check_objects.py ../golden 1.36
	cd tests/consumers && $(PYTHON) check_tf_config.py ../golden

$(WASM_OPT):
	npm install --prefix $(TOOLS)/binaryen-$(BINARYEN_VERSION) --no-save --no-audit --no-fund --loglevel=error binaryen@$(BINARYEN_VERSION)

$(VENV)/.installed: tests/consumers/requirements.txt
	@test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r $<
	@touch $@

# `make bench`: every benchmark of the project, each writing its figures (BENCH_JSON) into
# $(BENCH_DIR), then one Markdown table of them all, the machine at the top: target/bench.md, and
# the same table written into docs/benchmarks.md between its markers.
BENCH_DIR := $(or $(CARGO_TARGET_DIR),target)/bench

bench: npm policy www npm-chromium ## every benchmark (core and its curves, resource bounds, npm, policy, preview, controller, the scale run, Kubeflow beside them, the controller image) into one table, written into docs/benchmarks.md
	@rm -rf $(BENCH_DIR) && mkdir -p $(BENCH_DIR)
	node benches/report.mjs machine $(BENCH_DIR)/machine.json
	BENCH_JSON=$(abspath $(BENCH_DIR))/core.json $(CARGO) bench --bench core
	BENCH_JSON=$(abspath $(BENCH_DIR))/bounds.json $(CARGO) bench --bench bounds
	BENCH_JSON=$(abspath $(BENCH_DIR))/npm.json $(MAKE) --no-print-directory bench-npm
	BENCH_JSON=$(abspath $(BENCH_DIR))/pass.json $(MAKE) --no-print-directory bench-pass
	BENCH_JSON=$(abspath $(BENCH_DIR))/policy.json $(MAKE) --no-print-directory bench-policy
	BENCH_JSON=$(abspath $(BENCH_DIR))/www.json $(MAKE) --no-print-directory bench-www
	BENCH_JSON=$(abspath $(BENCH_DIR))/controller.json $(MAKE) --no-print-directory bench-controller
	BENCH_JSON=$(abspath $(BENCH_DIR))/kubeflow-tfconfig.json $(MAKE) --no-print-directory bench-kubeflow-tfconfig
	BENCH_JSON=$(abspath $(BENCH_DIR))/cluster.json $(MAKE) --no-print-directory bench-cluster
	BENCH_JSON=$(abspath $(BENCH_DIR))/image.json $(MAKE) --no-print-directory bench-image
	BENCH_JSON=$(abspath $(BENCH_DIR))/soak.json $(MAKE) --no-print-directory soak
	node benches/report.mjs table $(BENCH_DIR) > $(BENCH_DIR).md
	node benches/report.mjs page $(BENCH_DIR) docs/benchmarks.md
	@cat $(BENCH_DIR).md
	@echo "make bench: the table is in docs/benchmarks.md (and $(BENCH_DIR).md)"

fmt: ## format the Rust code
	$(CARGO) fmt

clean: ## remove build output and installed test tools
	$(CARGO) clean
	rm -rf $(TOOLS)

# The fuzz targets of fuzz/ (fuzz/src/ has what each checks). libFuzzer needs a nightly compiler
# flag: RUSTC_BOOTSTRAP=1 for this build alone. No sanitizer: the core has no unsafe code, and
# AddressSanitizer would halve the inputs tried a second. An input that runs over 10 s or 2 GB is
# a crash too. New inputs go to fuzz/corpus/ (not checked in); fuzz/seeds/ are the checked-in ones.
FUZZ_TARGETS := job reconcile tf_config policy reader
FUZZ_SECONDS ?= 60

fuzz: ## fuzz each target of fuzz/ for FUZZ_SECONDS (default 60) with cargo-fuzz (libFuzzer); a crash stops it
	@command -v cargo-fuzz >/dev/null || $(CARGO) install --quiet cargo-fuzz
	cd fuzz && for target in $(FUZZ_TARGETS); do \
	  mkdir -p corpus/$$target && \
	  RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run --sanitizer none $$target corpus/$$target seeds/$$target -- \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 || exit 1; \
	done
