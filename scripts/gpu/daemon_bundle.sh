#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds, on a machine with the build tools and Debian's packages, the full daemon for a machine
# with an NVIDIA GPU and none of them (no gRPC, SQLite or other Debian packages): `cuzk` with the
# CUDA backend (sm_90) and the service layer, and the gpu-labelled test binaries
# (gpu_groth16_tests, engine_gpu_tests, service_gpu_tests). Copies them, stripped, into DEST/bin
# with every shared library they need that is not part of the C/C++ runtime every Linux has (libc,
# libm, libstdc++, libgcc_s, the loader, libpthread/libdl/librt) into DEST/lib, and
# scripts/gpu/daemon_check.sh as DEST/run.sh. DEST must sit in a repository working tree (run.sh
# finds tests/data one level up); default build-dev-daemon in this one.
#
#   scripts/gpu/daemon_bundle.sh [DEST]
#   then, with the working tree and DEST copied to the GPU's machine: bash build-dev-daemon/run.sh
#
# Size: the bundle is kept small enough to copy quickly. The kernels are built for the H200 only as
# machine code (sm_90 "real": no PTX beside it) with fatbins compressed for size
# (nvcc --compress-mode=size), which took ntt_bn254.cu's fatbin from 131 KB to 21 KB; the system
# libraries are stripped. The script fails above CUZK_BUNDLE_MAX_MIB (60).
# Environment: CUZK_BUNDLE_BUILD (build folder, default build-dgpu), JOBS (default 2),
# CUZK_BUNDLE_EXTRA (more targets to build and bundle, e.g. "gpu_tests" for the MSM and NTT suites:
# scripts/gpu/stream_check.sh runs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${CUZK_BUNDLE_BUILD:-build-dgpu}
dest=${1:-build-dev-daemon}
max_mib=${CUZK_BUNDLE_MAX_MIB:-60}

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
    -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
nice -n 10 cmake -S . -B "$build" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_FLAGS="--compress-mode=size" -DCUZK_BUILD_BENCH=OFF \
  -DCUZK_WERROR=ON >/dev/null
# service_gpu_tests exists only where the service layer is built (gRPC, SQLite): without it the
# build stops here with an unknown target.
extra=(${CUZK_BUNDLE_EXTRA:-})
targets=(cuzk gpu_groth16_tests engine_gpu_tests service_gpu_tests "${extra[@]}")
nice -n 10 cmake --build "$build" -j"${JOBS:-2}" --target "${targets[@]}"

bins=("$build/src/apps/cuzk" "$build/src/groth16/gpu/gpu_groth16_tests" "$build/src/engine/engine_gpu_tests"
  "$build/src/service/service_gpu_tests")
for t in "${extra[@]}"; do
  found=$(find "$build/src" -maxdepth 3 -type f -name "$t" -perm -u+x | head -1)
  [[ -n $found ]] || { echo "daemon_bundle: no binary for target $t" >&2; exit 1; }
  bins+=("$found")
done
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib"
for b in "${bins[@]}"; do
  cp "$b" "$dest/bin/"
  strip --strip-all "$dest/bin/$(basename "$b")"
done

# Every library the loader resolves for them (ldd lists the transitive closure), minus the runtime.
system='^(linux-vdso|libc|libm|libstdc\+\+|libgcc_s|ld-linux.*|libpthread|libdl|librt|libresolv)\.so'
ldd "${bins[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    if [[ $soname =~ $system ]]; then continue; fi
    cp -L "$path" "$dest/lib/$soname"
    chmod u+w "$dest/lib/$soname"
    strip --strip-unneeded "$dest/lib/$soname"
  done
missing=$(ldd "${bins[@]}" | grep "not found" || true)
if [[ -n $missing ]]; then
  echo "daemon_bundle: unresolved libraries here: $missing" >&2
  exit 1
fi
cp scripts/gpu/daemon_check.sh "$dest/run.sh"

mib=$(($(du -sb "$dest" | cut -f1) / 1048576))
echo "bundle: $dest, ${mib} MiB ($(ls "$dest/lib" | wc -l) libraries)"
du -sh "$dest"/bin/* | sed 's/^/  /'
echo "  $(du -sh "$dest/lib" | cut -f1) lib/"
if ((mib > max_mib)); then
  echo "daemon_bundle: ${mib} MiB is over the ${max_mib} MiB limit" >&2
  exit 1
fi
