#!/usr/bin/env bash
# loaded.sh N COMMAND...: runs COMMAND N times in a row while two busy processes keep the machine's
# cores loaded (as CI's own builds do), and stops at the first failure with its run number. A test
# that races the clock shows itself here rather than in CI (docs/testing.md, "Time in tests").
set -euo pipefail
if [ "$#" -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 N COMMAND..." >&2
  exit 64
fi
runs=$1
shift
busy=()
out=$(mktemp)
trap 'kill "${busy[@]}" 2>/dev/null || true; rm -f "$out"' EXIT
for _ in 1 2; do
  (while :; do :; done) &
  busy+=("$!")
done
for ((i = 1; i <= runs; i++)); do
  if ! "$@" >"$out" 2>&1; then
    tail -n 60 "$out" >&2
    echo "run $i of $runs failed: $*" >&2
    exit 1
  fi
done
echo "$runs of $runs runs passed with two busy processes beside them: $*"
