#!/bin/sh
# Builds Kueue's manager (`go build ./cmd/kueue` of sigs.k8s.io/kueue, the version below asked for
# exactly from the Go module proxy) once into $1 (default .tools/kueue/<version>), and links the
# module's directory beside it as $1/module: its CRDs (config/components/crd) and webhook
# configurations (config/components/webhook) are what `cluster up --kueue $1` installs. Prints $1.
set -eu
VERSION=v0.17.0
OUT=${1:-.tools/kueue/$VERSION}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
DIR=$(cd "$OUT" && GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kueue@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$DIR" ] || { echo "kueue/build.sh: go mod download gave no directory for sigs.k8s.io/kueue@$VERSION" >&2; exit 1; }
ln -sfn "$DIR" "$OUT/module"
if [ ! -x "$OUT/manager" ]; then
  echo "building Kueue $VERSION's manager (minutes of CPU, once)" >&2
  (cd "$DIR" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$OUT/manager.tmp" ./cmd/kueue) >&2
  mv "$OUT/manager.tmp" "$OUT/manager"
fi
echo "$OUT"
