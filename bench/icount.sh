#!/bin/sh
# Instructions per evaluation of the bench cases, from callgrind (deterministic, unlike times):
# the count of N+1 evaluations minus that of 1, over N. Run from the source tree after
# `make build/bench_themis`; CASES and N override the defaults.
set -eu
bin=${BENCH_BIN:-build/bench_themis}
n=${N:-1000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for c in ${CASES:-eval64 eval64_fifo eval1}; do
    for k in 1 $((n + 1)); do
        valgrind --tool=callgrind --callgrind-out-file="$out/$c.$k" --toggle-collect=th_run_eval \
            "$bin" --count "$c" "$k" >/dev/null 2>&1
    done
    a=$(sed -n 's/^summary: //p' "$out/$c.1")
    b=$(sed -n 's/^summary: //p' "$out/$c.$((n + 1))")
    echo "$c $(( (b - a) / n )) instructions per evaluation"
done
