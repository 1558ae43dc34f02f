#!/bin/sh
# Instructions per evaluation of the bench cases, from callgrind (deterministic, unlike times):
# the count of N+1 evaluations minus that of 1, over N; for `sweep`, the whole program's count
# of the bench sweep with N+1 bandwidths minus that with 1, over the 12 N points. Run from the
# source tree after `make build/bench_themis`; CASES and N override the defaults.
set -eu
bin=${BENCH_BIN:-build/bench_themis}
n=${N:-1000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for c in ${CASES:-eval64 eval64_fifo eval1 sweep}; do
    per=1 opt=--toggle-collect=th_run_eval what="per evaluation"
    if [ "$c" = sweep ]; then
        per=12 opt= what="per sweep point"
    fi
    for k in 1 $((n + 1)); do
        valgrind --tool=callgrind --callgrind-out-file="$out/$c.$k" $opt \
            "$bin" --count "$c" "$k" >/dev/null 2>&1
    done
    a=$(sed -n 's/^summary: //p' "$out/$c.1")
    b=$(sed -n 's/^summary: //p' "$out/$c.$((n + 1))")
    echo "$c $(( (b - a) / (n * per) )) instructions $what"
done
