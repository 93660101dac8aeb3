#!/bin/sh
# Generates Volcano's PodGroup CRD (podgroups.scheduling.volcano.sh, v1beta1) once into $1 (default
# .tools/volcano/<version>) as $1/podgroups.yaml, for the scenario with Volcano's PodGroups and no
# Volcano scheduler (tests/e2e/gang/volcano.test.js, `make test-gang`). Volcano's own CRDs are
# generated so (its Makefile's `manifests`): controller-gen of sigs.k8s.io/controller-tools at the
# version below, with Volcano's options, over the Go types of its API module, volcano.sh/apis, at
# the version below (Volcano's staging/src/volcano.sh/apis). The proxy serves that module, not
# volcano.sh/volcano (403), so the file is made here rather than downloaded. controller-gen is
# built into $1 too, from a module of its own; the types are read from a second one ($1/apis) that
# requires volcano.sh/apis. Prints $1.
set -eu
VERSION=v1.14.0
CONTROLLER_TOOLS=v0.20.0
OUT=${1:-.tools/volcano/$VERSION}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ ! -s "$OUT/podgroups.yaml" ]; then
  if [ ! -x "$OUT/controller-gen" ]; then
    echo "building controller-gen $CONTROLLER_TOOLS (a minute of CPU, once)" >&2
    GOBIN="$OUT" GOFLAGS=-mod=mod CGO_ENABLED=0 go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_TOOLS" >&2
  fi
  A="$OUT/apis"
  mkdir -p "$A"
  printf 'module elasticjob.test/volcano\n\ngo 1.24.0\n\nrequire volcano.sh/apis %s\n' "$VERSION" >"$A/go.mod"
  printf 'package apis\n\nimport _ "volcano.sh/apis/pkg/apis/scheduling/v1beta1"\n' >"$A/apis.go"
  (cd "$A" && GOFLAGS=-mod=mod go mod tidy >&2)
  rm -rf "$OUT/crd"
  (cd "$A" && GOFLAGS=-mod=mod "$OUT/controller-gen" crd:crdVersions=v1,generateEmbeddedObjectMeta=true \
    paths=volcano.sh/apis/pkg/apis/scheduling/v1beta1 output:crd:artifacts:config="$OUT/crd")
  mv "$OUT/crd/scheduling.volcano.sh_podgroups.yaml" "$OUT/podgroups.yaml"
  rm -rf "$OUT/crd"
fi
echo "$OUT"
