#!/bin/sh
# Builds Kubeflow training-operator v1.9.4 (`go build ./cmd/training-operator.v1` from the Go module
# proxy, v1.9.4 asked for exactly) once into $KUBEFLOW_WORK (make gives .tools/kubeflow; default a
# scratch directory), and prints two lines: the binary, then the module's directory (its CRDs are
# under manifests/base/crds). For make test-kubeflow, bench-controller and bench-cluster
# (mk/kubeflow.mk's WITH_KUBEFLOW).
set -eu
VERSION=v1.9.4
WORK=${KUBEFLOW_WORK:-${TMPDIR:-/tmp}/elasticjob-kubeflow}
mkdir -p "$WORK"
DIR=$(cd "$WORK" && GOFLAGS=-mod=mod go mod download -json "github.com/kubeflow/training-operator@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$DIR" ] || { echo "operator.sh: go mod download gave no directory for training-operator@$VERSION" >&2; exit 1; }
# Its own folder: tfconfig.sh keeps its scratch copy of the module at $WORK/training-operator-$VERSION.
BIN="$WORK/bin/training-operator-$VERSION"
if [ ! -f "$BIN" ] || [ ! -x "$BIN" ]; then
  mkdir -p "$WORK/bin"
  echo "building Kubeflow training-operator $VERSION (minutes of CPU, once)" >&2
  (cd "$DIR" && CGO_ENABLED=0 go build -trimpath -o "$BIN.tmp" ./cmd/training-operator.v1) >&2
  mv "$BIN.tmp" "$BIN"
fi
echo "$BIN"
echo "$DIR"
