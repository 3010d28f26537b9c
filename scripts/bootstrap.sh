#!/usr/bin/env bash
# Installs everything ember needs to build and test, from Debian 12's packages (run as root).
# Idempotent and quiet when everything is present. Usage:
#   scripts/bootstrap.sh            build + test dependencies
#   scripts/bootstrap.sh --golden   also python3-torch (regenerates tests/golden, interop tests)
#   scripts/bootstrap.sh --bench    also PyTorch + LibTorch for bench/compare
#   scripts/bootstrap.sh --render   also Chromium, for the test that renders report.html headless
#                                   (81 MB download, ~290 MB installed; skipped without it)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libopenblas-openmp-dev   # GEMM; the OpenMP build shares libgomp's pool with ember's kernels
  libdnnl-dev              # oneDNN 2.x: bfloat16 convolution primitives and GEMM on CPUs with
                           # AVX512-BF16/AMX (the GEMM's symbol is opened at first use)
  libsleef-dev             # vectorised transcendentals
  zlib1g-dev               # gzipped datasets
  libzip-dev               # PyTorch's .pt zip container
  nlohmann-json3-dev       # safetensors headers, metrics
  libcli11-dev             # command lines
  libgloo-dev              # distributed collectives (TCP transport)
  libdw-dev                # file:line in error stack traces (EMBER_SHOW_CPP_STACKTRACES=1)
  iproute2                 # ip netns: the two-host launcher test (tests/launcher/two_nodes.sh)
  clang                    # its AST of ember's headers: the LibTorch layer's names (scripts/gen_libtorch_names.py);
                           # and the Clang build of the library that the fuzzers link (scripts/fuzz.sh)
  libclang-rt-14-dev       # libFuzzer, ASan and UBSan for the fuzz targets (tests/fuzz)
  openmpi-bin              # mpirun starting ranks without ember's launcher (tests/launcher/slurm_mpi_env.sh)
  slurm-wlm                # a one-node Slurm cluster whose srun starts ranks (tests/launcher/srun.sh)
  libgtest-dev libgmock-dev libbenchmark-dev
  dataset-fashion-mnist    # the main job's default data
  python3-dev pybind11-dev # the Python package (python/), for Debian's /usr/bin/python3
  libdlpack-dev            # the Python package's __dlpack__/from_dlpack (the ABI PyTorch 1.13 speaks)
  python3-numpy            # the Python package's .numpy()/from_numpy, and its tests
  python3-pytest           # the Python package's tests
)
for arg in "$@"; do
  case "$arg" in
    --golden) packages+=(python3-torch) ;;
    --bench) packages+=(python3-torch libtorch-dev libopenblas0-openmp hyperfine) ;;
    --render) packages+=(chromium fonts-dejavu-core) ;;
    *) echo "bootstrap.sh: unknown option '$arg' (expected --golden, --bench or --render)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "bootstrap.sh: missing packages: ${missing[*]} — run as root (or install them with apt-get)" >&2
  exit 1
fi
echo "bootstrap.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
