# Kubewarden admission policy (bindings/policy/): the .wasm, its tests and its benchmark.
#   make policy        build target/policy/elasticjob_policy.wasm
#   make test-policy   build it, then test it natively and in a waPC host
#   make bench-policy  print its size and speed in the host
#
# The policy is built on its own (-p, its own target), so cargo does not unify its features with
# the npm build's. wasm-opt is the top Makefile's $(WASM_OPT).

TEST_TARGETS += test-policy

POLICY_TARGET := wasm32-wasip1
POLICY_TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
POLICY_RAW := $(POLICY_TARGET_DIR)/$(POLICY_TARGET)/wasm/elasticjob_policy.wasm
POLICY_WASM := target/policy/elasticjob_policy.wasm
# What the tests and the benchmark load.
POLICY_ENV := ELASTICJOB_POLICY_WASM=$(CURDIR)/$(POLICY_WASM)

.PHONY: policy test-policy bench-policy policy-always

policy: $(POLICY_WASM) ## Kubewarden policy: build target/policy/elasticjob_policy.wasm (wasm32-wasip1, waPC, wasm-opt -Oz)

# cargo decides whether the policy is stale; make re-reads the file's time afterwards, so wasm-opt
# runs only when cargo wrote a new one.
$(POLICY_RAW): policy-always
	@rustup target list --installed | grep -qx '$(POLICY_TARGET)' || rustup target add $(POLICY_TARGET)
	$(CARGO) build --quiet -p elasticjob-policy --target $(POLICY_TARGET) --profile wasm

$(POLICY_WASM): $(POLICY_RAW) $(WASM_OPT)
	@mkdir -p $(@D)
	$(WASM_OPT) $(POLICY_WASM_OPT_PASSES) $(WASM_OPT_FLAGS) $< -o $@
	@echo "policy: $@ ($$(wc -c < $@) bytes; before wasm-opt $$(wc -c < $<))"

policy-always:

test-policy: policy ## Kubewarden policy: lints, fixtures natively, then the built .wasm in a waPC host (exports, imports, no wasm-bindgen, every fixture)
	$(CARGO) fmt -p elasticjob-policy --check
	$(CARGO) clippy --quiet -p elasticjob-policy --target $(POLICY_TARGET) --profile wasm --lib -- -D warnings
	$(CARGO) clippy --quiet -p elasticjob-policy --all-targets -- -D warnings
	$(CARGO) test --quiet -p elasticjob-policy --tests
	$(POLICY_ENV) $(CARGO) test --quiet -p elasticjob-policy --test wapc_host

bench-policy: policy ## Kubewarden policy: .wasm size (raw, gzip -9); compile, instantiate and validate times in a waPC host (printed)
	$(POLICY_ENV) $(CARGO) bench --quiet -p elasticjob-policy --bench host
