#!/usr/bin/env bash
# The GPU check in one go, for a machine with an NVIDIA GPU and the CUDA toolkit: builds ember with
# -DEMBER_CUDA=ON (device code for sm_90, the H100/H200, unless CUDA_ARCH says otherwise) in its
# own build directory (BUILD_DIR, default build-cuda), then
#   1. the `cuda` CTest label (tests/cuda: every op family on the device against the CPU, the
#      convolutions through cuDNN and through the own kernels, autocast's CUDA lists and GradScaler
#      on CUDA tensors; cuDNN must sit next to the toolkit, or CUDNN_ROOT name it),
#   2. the host-side tests of the CUDA backend (the caching allocator, the launch plans, the
#      kernels' CPU emulation), the NCCL watchdog and the process group's device seam, and the
#      Python module's CUDA streams and Tensor.record_stream (python/tests),
#   3. the main job on the GPU: one short epoch of the reference CNN with --device cuda, in
#      float32 and under bf16 autocast,
#   4. the DDP program over NCCL under ember-run, one rank per GPU (NCCL takes one rank per
#      GPU), on the same short epoch (with NCCL next to the toolkit),
# and writes every log, the tests' JUnit files and the runs' metrics under one results folder.
# Every step runs even when one before it failed; the script exits non-zero if any did. On a
# machine without a GPU the cuda tests report themselves skipped ("no CUDA device") and the main
# job says it has no CUDA device.
# Usage: scripts/cuda_check.sh [results-dir]     (default: cuda-check; CUDA_ARCH=90 by default;
#        DATA_DIR=<Fashion-MNIST idx files> where Debian's dataset-fashion-mnist is not installed)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
results=$(realpath -m "${1:-cuda-check}")
build=${BUILD_DIR:-build-cuda}
arch=${CUDA_ARCH:-90}
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)
mkdir -p "$results"
failed=()
# step NAME COMMAND...: runs it with its output in $results/NAME.log (and on the terminal).
step() {
  local name=$1
  shift
  echo "== $name: $*"
  local start=$SECONDS
  "$@" 2>&1 | tee "$results/$name.log"
  local status=${PIPESTATUS[0]}
  echo "== $name: exit $status after $((SECONDS - start)) s" | tee -a "$results/summary.txt"
  [ "$status" -eq 0 ] || failed+=("$name")
}

command -v nvcc > /dev/null || { echo "cuda_check: nvcc not found (CUDA toolkit under /usr/local/cuda?)" >&2; exit 2; }
{
  date -u
  nvcc --version | tail -1
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2> /dev/null ||
    echo "nvidia-smi found no GPU: the cuda tests will report themselves skipped"
  lscpu | grep -m1 'Model name'
} | tee "$results/machine.txt"

launcher=()
command -v ccache > /dev/null &&
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
step configure cmake -S . -B "$build" -G Ninja -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  "${launcher[@]}"

# Only the library, the main job and the test programs the check runs, not the whole suite:
# every device test (tests/cuda), every host-side test of the CUDA backend (tests/backend/cuda_*:
# plans, allocator, emulated kernels) and the NCCL watchdog's decisions. Without NCCL next to the
# toolkit, CMake builds no communicator and no nccl test.
nccl=yes
grep -q '^EMBER_NCCL_LIBRARY:FILEPATH=.*NOTFOUND' "$build/CMakeCache.txt" 2> /dev/null && nccl=no
targets=(ember ember-train-fashion-mnist distributed_nccl_watchdog_test
         distributed_device_backend_test)
# The Python module, for its CUDA streams and record_stream (python/tests, step python_cuda), when
# the configure found python3-dev and pybind11 (there is no ember_python target otherwise).
python=no
ninja -C "$build" -t targets all 2> /dev/null | grep -q '^ember_python:' && python=yes
[[ $python == yes ]] && targets+=(ember_python)
[[ $nccl == yes ]] && targets+=(ember-run ember-train-fashion-mnist-ddp)
for source in tests/cuda/*_test.cpp tests/backend/cuda_*_test.cpp; do
  dir=$(basename "$(dirname "$source")")
  [[ $nccl == no && $source == tests/cuda/nccl_test.cpp ]] && continue
  targets+=("${dir}_$(basename "$source" .cpp)")
done
step build cmake --build "$build" -j"$jobs" --target "${targets[@]}"

step device_tests ctest --test-dir "$build" -L cuda --output-on-failure -j"$jobs" --timeout 300 \
  --output-junit "$results/device_tests.xml"
step host_tests ctest --test-dir "$build" \
  -R '^(CudaCachingAllocator|Cuda[A-Za-z]*Plan|CudaEmulation|NcclWatchdog|DeviceBackend)\.' \
  --output-on-failure -j"$jobs" --output-junit "$results/host_tests.xml"

# The Python side of the streams: torch.cuda.Stream / current_stream / stream() and
# Tensor.record_stream on the device (the tests named cuda in python/tests; they skip without one).
if [[ $python == yes ]]; then
  py=$(sed -n 's/^_\{0,1\}Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" | head -1)
  step python_cuda env PYTHONPATH="$build/python" "${py:-python3}" -m pytest -q -p no:cacheprovider \
    python/tests/test_tensor_python.py -k "cuda or record_stream"
fi

# The reference CNN on the GPU: 100 batches of 128 and validation on 2,000 test images, in
# float32 and in bf16 autocast (metrics.csv and summary.json land under the results folder).
data=()
[ -n "${DATA_DIR:-}" ] && data=(--data-dir "$DATA_DIR")
for amp in none bf16; do
  step "main_job_$amp" timeout 600 "$build/examples/ember-train-fashion-mnist" --device cuda \
    --amp "$amp" --epochs 1 --limit 12800 --val-limit 2000 "${data[@]}" \
    --output-dir "$results/main_job_$amp"
done

# The DDP program over NCCL (init_process_group("nccl")), one rank per visible GPU.
if [[ $nccl == yes ]]; then
  gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
  [[ $gpus =~ ^[1-9][0-9]*$ ]] || gpus=1  # no GPU: the one rank says it has no CUDA device
  step ddp_nccl timeout 600 "$build/tools/ember-run" --standalone --nproc-per-node "$gpus" \
    "$build/examples/ember-train-fashion-mnist-ddp" --device cuda --epochs 1 --limit 12800 \
    --val-limit 2000 "${data[@]}" --output-dir "$results/ddp_nccl"
fi

echo "cuda_check: results in $results" | tee -a "$results/summary.txt"
if [ ${#failed[@]} -gt 0 ]; then
  echo "cuda_check: FAILED: ${failed[*]}" | tee -a "$results/summary.txt"
  exit 1
fi
echo "cuda_check: every step passed" | tee -a "$results/summary.txt"
