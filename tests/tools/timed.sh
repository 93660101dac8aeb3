#!/usr/bin/env bash
# timed.sh MAKE TARGET...: `make test`'s runner. Makes each target in turn with MAKE and prints how
# long each took and whether it passed, as a table at the end (and into $TEST_TIMES when set), so a
# run's time per target is there to read (docs/testing.md, "How long it takes"). As make does, it
# stops at the first failure unless make was given -k (MAKEFLAGS), and exits 1 if any target failed.
set -uo pipefail
make=$1
shift
# make puts its one-letter options first in MAKEFLAGS, without a dash ("k", "ks"; none: a space).
flags=${MAKEFLAGS:-}
flags=${flags%% *}
keep_going=false
if [[ "$flags" != -* && "$flags" == *k* ]]; then
  keep_going=true
fi
rows=()
failed=0
start_all=$SECONDS
for target in "$@"; do
  start=$SECONDS
  if "$make" --no-print-directory "$target"; then
    status=passed
  else
    status=FAILED
    failed=1
  fi
  s=$((SECONDS - start))
  rows+=("$(printf '%-22s %-7s %3d min %02d s' "$target" "$status" $((s / 60)) $((s % 60)))")
  if [ "$failed" = 1 ] && ! $keep_going; then
    break
  fi
done
s=$((SECONDS - start_all))
rows+=("$(printf '%-22s %-7s %3d min %02d s' "in all" "" $((s / 60)) $((s % 60)))")
printf '\nmake test, each target:\n' >&2
printf '  %s\n' "${rows[@]}" >&2
if [ -n "${TEST_TIMES:-}" ]; then
  printf '%s\n' "${rows[@]}" > "$TEST_TIMES"
fi
exit "$failed"
