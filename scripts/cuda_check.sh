#!/usr/bin/env bash
# The GPU check in one go, for a machine with an NVIDIA GPU and the CUDA toolkit: builds ember with
# -DEMBER_CUDA=ON (device code for sm_90, the H200, unless CUDA_ARCH says otherwise) in its own
# build directory, then runs the `cuda` CTest label (tests/cuda) and the host-side unit tests of
# the caching allocator, the launch plans (elementwise, copy/fill, reduce/softmax, gemm), the
# kernels' CPU emulation (the bodies the device runs, against the CPU backend) and the NCCL
# watchdog. On a machine without a GPU the cuda tests report themselves skipped ("no CUDA
# device").
# Usage: scripts/cuda_check.sh [build-dir]      (default: build-cuda; CUDA_ARCH=90 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-cuda}
arch=${CUDA_ARCH:-90}
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)

command -v nvcc >/dev/null || { echo "cuda_check: nvcc not found (CUDA toolkit under /usr/local/cuda?)" >&2; exit 2; }
nvcc --version | tail -1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
  echo "cuda_check: nvidia-smi found no GPU: the cuda tests will report themselves skipped"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DEMBER_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null

# Only the library and the test programs the check runs, not the whole suite: every device test
# (tests/cuda), every host-side test of the CUDA backend (tests/backend/cuda_*: plans, allocator,
# emulated kernels) and the NCCL watchdog's decisions.
# Without NCCL next to the toolkit, CMake builds no communicator and no nccl test.
nccl=yes
grep -q '^EMBER_NCCL_LIBRARY:FILEPATH=.*NOTFOUND' "$build/CMakeCache.txt" && nccl=no
targets=(ember distributed_nccl_watchdog_test)
for source in tests/cuda/*_test.cpp tests/backend/cuda_*_test.cpp; do
  dir=$(basename "$(dirname "$source")")
  [[ $nccl == no && $source == tests/cuda/nccl_test.cpp ]] && continue
  targets+=("${dir}_$(basename "$source" .cpp)")
done
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

ctest --test-dir "$build" -L cuda --output-on-failure -j"$jobs" --timeout 300
ctest --test-dir "$build" -R '^(CudaCachingAllocator|Cuda[A-Za-z]*Plan|CudaEmulation|NcclWatchdog)\.' \
  --output-on-failure -j"$jobs"
