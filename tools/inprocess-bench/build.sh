#!/bin/sh
# Builds inprocess_bench against Debian 12's LLVM 19 packages
# (llvm-19-dev, libclang-19-dev, liblld-19-dev). Not part of the kdbgen build.
set -e
cd "$(dirname "$0")"
LLVM=/usr/lib/llvm-19
OUT=${1:-build}
mkdir -p "$OUT"
g++ -O2 -g0 $($LLVM/bin/llvm-config --cxxflags) -fno-rtti \
    inprocess_bench.cpp -o "$OUT/inprocess_bench" \
    -L$LLVM/lib -Wl,-rpath,$LLVM/lib \
    -llldELF -llldCommon -l:libclang-cpp.so.19.1 -lLLVM-19 -lz -lzstd -lpthread
