#!/usr/bin/env bash
# CI's Clang job: the test programs that find what differs between compilers, built with Debian's
# clang 14 and run — on the library scripts/fuzz.sh has just built with clang in build-fuzz (an
# ordinary, unsanitized library: only the fuzzers and the Python extension are instrumented), so
# CI compiles the library with clang once. What they cover: bit-for-bit goldens of the
# elementwise ops and layers (floating-point contraction), the CPU levels' symbol check (llvm-nm),
# error stack traces with file:line (Clang's debug info), DDP's gradients, the LibTorch layer's
# programs (argument evaluation order, goldens per compiler) and the ODR check. Only these tests
# are selected: the other test programs are not built here (ctest would list them as
# <target>_NOT_BUILT). The whole suite builds and
# passes with clang too (cmake -DCMAKE_CXX_COMPILER=clang++); it is not run here for CI's time.
# Usage: scripts/clang_tests.sh   (after scripts/fuzz.sh; FUZZ_BUILD_DIR as there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FUZZ_BUILD_DIR:-build-fuzz}
# The test programs, and what the LibTorch tests' `cmake --install` of this tree installs.
targets=(ops_elementwise_test nn_layers_test core_error_location_test distributed_ddp_test
         ember_libtorch ember-run ember_python)
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DEMBER_BUILD_FUZZ=ON \
  -DEMBER_BUILD_TESTS=ON -DEMBER_BUILD_EXAMPLES=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" \
  -R '^(Ops/Golden|Layers\.|ErrorLocation\.|DistributedDataParallel\.|cpu_level_symbols_|library_one_definition|libtorch_layer_install$|libtorch_program_)'
