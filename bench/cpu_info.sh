#!/usr/bin/env bash
# One line for the head of every benchmark's output: the CPU model, its core count and the SIMD
# flags that decide the kernels (the machines here differ: AVX-512 and AVX512-BF16 on some, AVX2
# only on others). lscpu's whole Flags line is too long to read, and cut short it ends before them.
model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
simd=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w -E 'avx2|fma|f16c|avx512[a-z0-9_]*|amx[a-z0-9_]*' |
       sort -u | tr '\n' ' ')
echo "CPU: $model, $(nproc) cores; ${simd:-no AVX2}"
