#!/bin/sh
# Builds Volcano's scheduler (vc-scheduler, `cmd/scheduler`) and controller manager
# (vc-controller-manager, `cmd/controller-manager`) of the volcano.sh/volcano module, the version
# below asked for exactly from the Go module proxy, once into $1 (default
# .tools/volcano-scheduler/<version>) as $1/vc-scheduler and $1/vc-controller-manager, with the
# CRDs they watch beside them ($1/crds/*.yaml, the module's config/crd/volcano/bases): what
# `cluster up --volcano $1` installs and runs. Prints $1.
#
# v1.10.0 is the newest version the proxy serves: it refuses v1.13.0, v1.12.1, v1.11.2 and v1.9.0
# ("403 Forbidden: This module version is not available"). The module's go.mod pins the Kubernetes
# v0.30.2 libraries, grpc and runc with a `replace` block, which `go install module@version`
# refuses; so the binaries are built from a wrapper module ($1/wrapper) that requires the module and
# repeats that block, taken from the downloaded go.mod, as gang/build.sh does for scheduler-plugins.
#
# The CRDs: PodGroups and Queues (the scheduler's and the controllers' own), Numatopologies (the
# scheduler watches them under its ResourceTopology feature, on by default) and Commands (the
# queue controller watches them under QueueCommandSync, on by default). Volcano's Jobs are not
# needed: `up --volcano` runs only the podgroup and queue controllers.
set -eu
VERSION=v1.10.0
MODULE=volcano.sh/volcano
CRDS="scheduling.volcano.sh_podgroups scheduling.volcano.sh_queues nodeinfo.volcano.sh_numatopologies bus.volcano.sh_commands"
OUT=${1:-.tools/volcano-scheduler/$VERSION}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
built() {
  [ -x "$OUT/vc-scheduler" ] && [ -x "$OUT/vc-controller-manager" ] || return 1
  for c in $CRDS; do [ -s "$OUT/crds/$c.yaml" ] || return 1; done
}
if ! built; then
  DIR=$(cd "$OUT" && GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$DIR" ] || { echo "volcano/build.sh: go mod download gave no directory for $MODULE@$VERSION" >&2; exit 1; }
  rm -rf "$OUT/crds.tmp"
  mkdir -p "$OUT/crds.tmp"
  for c in $CRDS; do cp "$DIR/config/crd/volcano/bases/$c.yaml" "$OUT/crds.tmp/"; done
  chmod -R u+w "$OUT/crds.tmp"
  rm -rf "$OUT/crds"
  mv "$OUT/crds.tmp" "$OUT/crds"
  W="$OUT/wrapper"
  mkdir -p "$W"
  {
    printf 'module elasticjob.test/volcano-scheduler\n\ngo 1.24.0\n\nrequire %s %s\n\n' "$MODULE" "$VERSION"
    sed -n '/^replace (/,/^)/p; /^replace [^(]/p' "$DIR/go.mod"
  } >"$W/go.mod"
  rm -f "$W/go.sum"
  cp "$DIR/go.sum" "$W/go.sum"
  chmod u+w "$W/go.sum"
  for cmd in scheduler controller-manager; do
    echo "building Volcano $VERSION's $cmd (minutes of CPU, once)" >&2
    (cd "$W" && GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 go build -trimpath -ldflags '-s -w' -o "$OUT/vc-$cmd.tmp" "$MODULE/cmd/$cmd") >&2
    mv "$OUT/vc-$cmd.tmp" "$OUT/vc-$cmd"
  done
fi
echo "$OUT"
