#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs everything cuzk needs to build and test on a fresh Debian 12 machine: the Debian
# packages below, Node.js/npm if missing, the pinned npm test tools in tools/node and the JavaScript
# client's dependencies in clients/js. With --run, only what building the cuzk command and running
# its demonstration need (scripts/run.sh).
# Idempotent and quick when everything is there: dpkg-query decides what is missing, and
# `apt-get update` runs only when something is. Runs as root, or through sudo otherwise.
#
# CUDA is not installed here: the CUDA toolkit (nvcc, found at /usr/local/cuda/bin/nvcc) comes with
# the machine. Without it the build leaves the GPU backend out (CUZK_CUDA=AUTO).
set -euo pipefail

# --run: only what building the cuzk command and its demonstration need (scripts/run.sh); without
# it, everything the tests need as well (scripts/test.sh, CI).
PROFILE=test
[[ ${1:-} == --run ]] && PROFILE=run

# ---- Debian packages, one concern a line -----------------------------------------------------
# What building the cuzk command and running its demonstration need (scripts/run.sh: --run) ...
RUN_PACKAGES=(
  build-essential cmake g++ pkg-config   # toolchain
  nlohmann-json3-dev                     # formats: proof / public / verification key JSON
  libcli11-dev                           # apps: the cuzk command line
  libsqlite3-dev                         # engine: the job store
  libpq-dev                              # engine: the shared job store on PostgreSQL (libpq)
  libxxhash-dev                          # engine: the digest that tells a retried submit's witness from another (XXH3)
  xz-utils                               # demonstration: the large circuit's .r1cs is committed as .xz
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # service: the daemon's gRPC API
  libcpp-httplib-dev                     # service: HTTP /healthz /status /metrics /trace
  libtomlplusplus-dev                    # service: the daemon's TOML config
  libspdlog-dev                          # service: the daemon's log
  wabt                                   # witness: wasm2c turns circom's witness .wasm into C (docs/witness.md)
  libssl-dev                             # witness: SHA-256 names the compiled witness code in its cache; service: TLS probe, HTTPS, token digests
)
# ... and what the tests, benchmarks, fuzzers and the package add (scripts/test.sh, CI).
TEST_PACKAGES=(
  libgtest-dev                           # tests (GoogleTest)
  libbenchmark-dev                       # bench/ (Google Benchmark)
  libgmp-dev                             # field tests: GMP is the independent oracle
  postgresql                             # tests: throwaway PostgreSQL servers (initdb, pg_ctl) for that store
  time                                   # scripts/bench_vs_rapidsnark.sh: wall time and peak memory (/usr/bin/time)
  nasm                                   # scripts/bench_witness.sh: circom's C++ witness generator (its fr.asm)
  clang libclang-rt-dev                  # scripts/fuzz.sh: libFuzzer with ASan and UBSan (fuzz/)
  dpkg-dev                               # scripts/package.sh: dpkg-shlibdeps computes the .deb's Depends
  help2man                               # packaging: the manual page from cuzk --help
  lintian                                # scripts/package.sh --check: Debian's checks on the .deb
  systemd                                # tests: systemd-analyze rates the unit's sandbox (packaging/)
  chromium-headless-shell                # service: the status page rendered in a real browser (status_page_test)
  python3-grpcio python3-protobuf        # clients/python and its tests (clients/test.sh)
  openssl                                # tests: the remote-access tests make their CA and certificates with the openssl command
)
APT_PACKAGES=("${RUN_PACKAGES[@]}")
[[ $PROFILE == test ]] && APT_PACKAGES+=("${TEST_PACKAGES[@]}")

# Node.js 20 and npm usually come with the machine (not from Debian); Debian's are used only when
# the commands are missing.
NODE_PACKAGES=(nodejs npm)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NPM_DIR=$ROOT/tools/node   # package.json + package-lock.json pin snarkjs, circom2, circomlib

log() { printf '[setup] %s\n' "$*"; }

is_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  is_installed "$p" || missing+=("$p")
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  for p in "${NODE_PACKAGES[@]}"; do is_installed "$p" || missing+=("$p"); done
fi

if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  SUDO=()
  if [[ $(id -u) != 0 ]]; then
    command -v sudo >/dev/null || { log "not root and no sudo: cannot install ${missing[*]}" >&2; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
else
  log "Debian packages: all ${#APT_PACKAGES[@]} present"
fi

# ---- npm packages at the versions in their package-lock.json ---------------------------------
# tools/node: the test tools (snarkjs, circom2, circomlib); clients/js: the JavaScript client's
# dependencies (@grpc/grpc-js, @grpc/proto-loader). A stamp holding the lock file's hash marks a
# finished `npm ci`; a changed lock reinstalls.
npm_ci() {
  local dir=$1 what=$2 check=$3 stamp want
  stamp=$dir/node_modules/.cuzk-lock-sha256
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [[ -f $stamp && $(cat "$stamp") == "$want" && -e $dir/node_modules/$check ]]; then
    log "$what: present"
  else
    log "$what: npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
  fi
}
npm_ci "$NPM_DIR" "npm tools (snarkjs, circom2, circomlib)" .bin/snarkjs
[[ $PROFILE == test ]] && npm_ci "$ROOT/clients/js" "clients/js dependencies" @grpc/grpc-js/package.json

if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  log "note: no nvcc found; the CUDA backend will not be built"
fi
log "done"
