#!/bin/sh
# Reproduces RESULTS.md. Usage: run_all.sh BENCH_BINARY WORKDIR
# Needs the plan's inputs (MIOpen tree, device-lib folder) in place.
set -e
B=${1:-build/inprocess_bench}
W=${2:-/tmp/inprocess-bench}
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$W"
# 1. OpenCL: A / A -c / B / C (+ -fsyntax-only, + split clang -c; ld.lld), 3 passes interleaved
BENCH_SYNTAX=1 BENCH_SPLIT=1 "$B" run "$D/cl20.json" "$W/cl" 3 > "$W/cl.out" 2> "$W/cl.err"
# 2. HIP: A / A -c / B / C / -fsyntax-only, 5 passes
BENCH_SYNTAX=1 "$B" run "$D/hip5.json" "$W/hip" 5 > "$W/hip.out" 2> "$W/hip.err"
# 3. first compile in a fresh process (cold in-process), 3 reps per command
: > "$W/cold.tsv"
for rep in 1 2 3; do
  for i in $(seq 0 19); do
    c=$("$B" once "$D/cl20.json" $i "$W/cold/$i.co" 2>&1 | sed -n 's/^ok cpu \([0-9.]*\) s$/\1/p')
    printf '%s\t%s\t%s\n' "$rep" "$i" "$c" >> "$W/cold.tsv"
  done
done
# 4. device-library read + lazy parse per compile
for i in 0 6 8 15; do "$B" devlibcost "$D/cl20.json" $i 9; done > "$W/devlib.out"
for i in 0 4; do "$B" devlibcost "$D/hip5.json" $i 9; done >> "$W/devlib.out"
