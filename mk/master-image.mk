# The job master's image (deploy/master.Dockerfile): DLRover's real job master at the version the
# project tests with, the image the core names by default for a job's master pod
# (src/naming.rs DEFAULT_MASTER_IMAGE). Built as the controller's image is (mk/image.mk's tools,
# containers.conf, base-making and build steps): no Docker engine, no image registry. Included by
# the top Makefile.
#
#   make master-image          DLRover and its pinned dependencies installed with the machine's pip
#                              into target/image/master-context, then deploy/master.Dockerfile built
#                              with buildah onto Debian 12 with its python3 (3.11); writes the OCI
#                              archive $(MASTER_IMAGE_ARCHIVE) and prints the image's size
#   make master-image-context  only the build context, for
#                              `docker build -f deploy/master.Dockerfile target/image/master-context`
#
# make test-image runs it (tests/image/master.test.js) as the cluster runs a job's master pod.

# The DLRover version is the one tests/e2e/dlrover-requirements.txt pins (what the e2e tests run as
# a process); the image installs that file as it is, so the two cannot part.
MASTER_IMAGE_REQUIREMENTS := tests/e2e/dlrover-requirements.txt
# Every package it installs, pinned with its wheel's sha256 (tests/e2e/lock_requirements.py writes it).
MASTER_IMAGE_LOCK := tests/e2e/dlrover-requirements.lock
MASTER_IMAGE_DLROVER_VERSION := $(shell sed -n 's/^dlrover\[k8s\]==\([0-9.]*\)$$/\1/p' $(MASTER_IMAGE_REQUIREMENTS))
MASTER_IMAGE_NAME := elasticjob-dlrover-master
MASTER_IMAGE := $(MASTER_IMAGE_NAME):$(MASTER_IMAGE_DLROVER_VERSION)
MASTER_IMAGE_ARCHIVE := $(IMAGE_DIR)/$(MASTER_IMAGE_NAME)-$(MASTER_IMAGE_DLROVER_VERSION).tar
MASTER_IMAGE_CONTEXT := $(IMAGE_DIR)/master-context
MASTER_IMAGE_CONTEXT_STAMP := $(IMAGE_DIR)/master-context.installed
MASTER_IMAGE_FIGURES := $(IMAGE_DIR)/master-figures.json
MASTER_IMAGE_DOCKERFILE := deploy/master.Dockerfile
# The default the core names: the image this file builds, or the build stops.
MASTER_IMAGE_DEFAULT := $(shell sed -n 's/^pub const DEFAULT_MASTER_IMAGE: &str = "\(.*\)";$$/\1/p' src/naming.rs)
# Debian 12's python3 (3.11: dlrover 0.6.1 imports telnetlib, which 3.13 removed) and
# python-is-python3 (the master pod's command is `python -m dlrover.python.master.main ...`). The
# Python packages come from the context; their compiled parts (grpcio, protobuf, psutil, PyYAML,
# pydantic-core, ...) are manylinux wheels for CPython 3.11 needing only glibc, in that base.
MASTER_IMAGE_BASE_PACKAGES := python3 python-is-python3 libstdc++6
MASTER_IMAGE_BASE := localhost/elasticjob-base:bookworm-python3
MASTER_IMAGE_BASE_TAR := $(IMAGE_TOOLS)/base-bookworm-python3.tar

.PHONY: master-image master-image-context master-image-base

$(MASTER_IMAGE_BASE_TAR): | image-tools
	$(call image_debian_base,$(MASTER_IMAGE_BASE_PACKAGES),--customize-hook='chroot "$$1" python --version | grep "^Python 3\.11\."')

master-image-base: $(MASTER_IMAGE_BASE_TAR) $(IMAGE_CONTAINERS_CONF) image-tools
	$(call image_import,$(MASTER_IMAGE_BASE_TAR),$(MASTER_IMAGE_BASE))

master-image-context: $(MASTER_IMAGE_CONTEXT_STAMP) ## the build context of deploy/master.Dockerfile: DLRover and its pinned dependencies installed into target/image/master-context

# The machine's python3 (3.11, the image's Python) and its pip, in a venv of its own beside the
# context (so pip weighs no package of the machine's), install the requirements with their
# dependencies, as wheels, into the context (pip install --target): the build copies it and
# fetches nothing.
$(MASTER_IMAGE_CONTEXT_STAMP): $(MASTER_IMAGE_REQUIREMENTS) $(MASTER_IMAGE_LOCK)
	@python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || { echo "the master image's context is installed by python3 3.11 (the image's Python, Debian 12's); python3 is $$(python3 --version)"; exit 1; }
	@$(call lock_holds_pins,$(MASTER_IMAGE_REQUIREMENTS),$(MASTER_IMAGE_LOCK))
	@rm -rf $(MASTER_IMAGE_CONTEXT) $(IMAGE_DIR)/master-pip $@
	python3 -m venv $(IMAGE_DIR)/master-pip
	$(IMAGE_DIR)/master-pip/bin/python -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
	  --root-user-action=ignore --only-binary=:all: --require-hashes --target $(MASTER_IMAGE_CONTEXT) -r $(MASTER_IMAGE_LOCK)
	@rm -rf $(IMAGE_DIR)/master-pip
	@touch $@

master-image: $(MASTER_IMAGE_ARCHIVE) ## DLRover's job master image (the core's default master image): deploy/master.Dockerfile on Debian 12's python3, as the OCI archive target/image/elasticjob-dlrover-master-<dlrover version>.tar
	@node deploy/oci-archive.mjs --print $(MASTER_IMAGE_FIGURES)

$(MASTER_IMAGE_ARCHIVE): $(MASTER_IMAGE_CONTEXT_STAMP) $(MASTER_IMAGE_DOCKERFILE) deploy/oci-archive.mjs $(MASTER_IMAGE_BASE_TAR) | master-image-base
	@test "$(MASTER_IMAGE_DEFAULT)" = "$(MASTER_IMAGE)" || { echo "src/naming.rs DEFAULT_MASTER_IMAGE is $(MASTER_IMAGE_DEFAULT), not $(MASTER_IMAGE), the image $(MASTER_IMAGE_REQUIREMENTS) makes"; exit 1; }
	$(call image_build,$(MASTER_IMAGE_DOCKERFILE),$(MASTER_IMAGE_BASE),$(MASTER_IMAGE),$(MASTER_IMAGE_CONTEXT),$(MASTER_IMAGE_FIGURES))
