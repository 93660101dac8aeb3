#!/bin/sh
# Builds scheduler-plugins' kube-scheduler (`cmd/scheduler` of sigs.k8s.io/scheduler-plugins, the
# version below asked for exactly from the Go module proxy: it carries the Coscheduling plugin) once
# into $1 (default .tools/scheduler-plugins/<version>) as $1/scheduler, with the PodGroup CRD of the
# module beside it ($1/podgroups.yaml): what `cluster up --gang $1` installs and runs. Prints $1.
#
# The module's go.mod pins the Kubernetes libraries with a `replace` block (k8s.io/kubernetes
# requires every k8s.io/* staging module at v0.0.0), which `go install module@version` refuses; so
# the binary is built from a wrapper module ($1/wrapper) that requires the module and repeats that
# block, taken from the downloaded go.mod. One pin of that block is changed: the proxy refuses
# k8s.io/csi-translation-lib v0.34.7 ("403 Forbidden: This module version is not available"), so it
# comes at v0.37.2, the version the test cluster builds with (the scheduler's volume-limits plugin
# is its only user here, and it compiles unchanged against it).
set -eu
VERSION=v0.34.7
MODULE=sigs.k8s.io/scheduler-plugins
OUT=${1:-.tools/scheduler-plugins/$VERSION}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
if [ ! -x "$OUT/scheduler" ] || [ ! -s "$OUT/podgroups.yaml" ]; then
  DIR=$(cd "$OUT" && GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$DIR" ] || { echo "gang/build.sh: go mod download gave no directory for $MODULE@$VERSION" >&2; exit 1; }
  rm -f "$OUT/podgroups.yaml.tmp"
  cp "$DIR/config/crd/bases/scheduling.x-k8s.io_podgroups.yaml" "$OUT/podgroups.yaml.tmp"
  chmod u+w "$OUT/podgroups.yaml.tmp"
  mv "$OUT/podgroups.yaml.tmp" "$OUT/podgroups.yaml"
  W="$OUT/wrapper"
  mkdir -p "$W"
  {
    printf 'module elasticjob.test/scheduler-plugins\n\ngo 1.24.0\n\nrequire %s %s\n\n' "$MODULE" "$VERSION"
    sed -n '/^replace (/,/^)/p; /^replace [^(]/p' "$DIR/go.mod" |
      sed 's|^\(.*k8s.io/csi-translation-lib => k8s.io/csi-translation-lib\) v0.34.7$|\1 v0.37.2|'
  } >"$W/go.mod"
  rm -f "$W/go.sum"
  cp "$DIR/go.sum" "$W/go.sum"
  chmod u+w "$W/go.sum"
  echo "building scheduler-plugins $VERSION's scheduler (minutes of CPU, once)" >&2
  (cd "$W" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$OUT/scheduler.tmp" "$MODULE/cmd/scheduler") >&2
  mv "$OUT/scheduler.tmp" "$OUT/scheduler"
fi
echo "$OUT"
