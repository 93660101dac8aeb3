#!/bin/sh
# `make bench-kubeflow-tfconfig` (part of `make bench`): Kubeflow training-operator v1.9.4's TF_CONFIG
# generation (`genTFConfigJSONStr` in pkg/controller.v1/tensorflow, unexported) timed for every task
# of a TFJob of 1 PS + N workers (N = 10, 100, 1,000), beside the core's `tfConfig` and `render` for
# the same job through the npm package (benches/node/tfconfig.js), with the ratios.
#
# The module comes from the Go module proxy (v1.9.4 asked for exactly: its version list shows only
# v1.8.1). The benchmark is a test file written into a copy of that package in a scratch directory,
# the one way to reach an unexported function; nothing of Kubeflow's enters this repository.
# Usage: benches/kubeflow/tfconfig.sh   (from the repository's root; BENCH_JSON=FILE writes the figures)
set -eu
VERSION=v1.9.4
WORK=${KUBEFLOW_WORK:-${TMPDIR:-/tmp}/elasticjob-kubeflow}
mkdir -p "$WORK"
DIR=$(cd "$WORK" && GOFLAGS=-mod=mod go mod download -json "github.com/kubeflow/training-operator@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$DIR" ] || { echo "tfconfig.sh: go mod download gave no directory for training-operator@$VERSION" >&2; exit 1; }
SRC="$WORK/training-operator-$VERSION"
if [ ! -f "$SRC/go.mod" ]; then
  rm -rf "$SRC"
  cp -r "$DIR" "$SRC"
  chmod -R u+w "$SRC"
fi
cat > "$SRC/pkg/controller.v1/tensorflow/zz_elasticjob_bench_test.go" <<'GO'
package tensorflow

import (
	"fmt"
	"strconv"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func benchReplica(n int32) *kubeflowv1.ReplicaSpec {
	return &kubeflowv1.ReplicaSpec{
		Replicas: &n,
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  kubeflowv1.TFJobDefaultContainerName,
			Image: "tf:2",
			Ports: []corev1.ContainerPort{{Name: kubeflowv1.TFJobDefaultPortName, ContainerPort: 2222}},
		}}}},
	}
}

// Every task's TF_CONFIG of a TFJob of 1 PS and n workers, as the operator makes it for each pod.
func BenchmarkElasticjobEveryTask(b *testing.B) {
	for _, n := range []int32{10, 100, 1000} {
		job := &kubeflowv1.TFJob{
			ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "ads"},
			Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
				kubeflowv1.TFJobReplicaTypePS:     benchReplica(1),
				kubeflowv1.TFJobReplicaTypeWorker: benchReplica(n),
			}},
		}
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for range b.N {
				if _, err := genTFConfigJSONStr(job, "PS", "0"); err != nil {
					b.Fatal(err)
				}
				for i := range n {
					if _, err := genTFConfigJSONStr(job, "Worker", strconv.Itoa(int(i))); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
GO
OUT="$WORK/bench.txt"
(cd "$SRC" && GOFLAGS=-mod=mod go test -run '^$' -bench BenchmarkElasticjobEveryTask -benchtime 2s ./pkg/controller.v1/tensorflow/) > "$OUT"
# "BenchmarkElasticjobEveryTask/workers=10-2  1234  56789 ns/op" -> {"10": ms, ...}
KUBEFLOW=$(awk '/^BenchmarkElasticjobEveryTask\/workers=/ { split($1, a, "="); sub(/-[0-9]+$/, "", a[2]); printf "%s\"%s\": %s", sep, a[2], $3 / 1e6; sep = ", " } END { print "" }' "$OUT")
node benches/node/tfconfig.js "{$KUBEFLOW}"
