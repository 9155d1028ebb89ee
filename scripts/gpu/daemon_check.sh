#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The daemon on a machine with an NVIDIA GPU: the gpu-labelled tests, then `cuzk daemon` with the
# GPU backend under `cuzk bench`, every proof verified. scripts/gpu/daemon_bundle.sh copies this
# file as run.sh into the bundle (bin/ and lib/ beside it, inside the repository's working tree);
# on the machine:   bash build-dev-daemon/run.sh
#
# Steps (each logged; at most 8 files under $OUT, or <bundle>/logs without it):
#   summary.log  machine, library check, each step's time and outcome, the bench summary lines
#   tests.log    gpu_groth16_tests, engine_gpu_tests, service_gpu_tests (skip themselves without a GPU)
#   setup.log    `cuzk setup --synthetic` of the large key (BLS12-381, 2^CUZK_BIG_LOG_SIZE), timed
#   daemon.log   the daemon's own log (backend choice, uploads, one line per job with its phases)
#   bench.log    `cuzk bench single|batch|stress` on the fixtures and the large key, then (while the
#                time budget lasts) stress on the large key with one worker per device, and with
#                synthesis on the host into pinned and into pageable memory, for comparison
#   status.json, metrics.txt   the daemon's /status and /metrics after the benches
#   dmon.log     `nvidia-smi dmon -s um -d 1` during the main stress on the large key (the daemon's
#                own busy ratios are cross-checked against it in the summary)
# backend = "auto": the GPU where a device answers; elsewhere the same run proves on the CPU (a
# smaller large key and fewer proofs), which is how the bundle is checked before it travels.
#
# Environment: OUT; CUZK_BIG_LOG_SIZE (default 20 with a GPU, 12 without); CUZK_CHECK_BUDGET_S
# (default 330: optional steps are skipped once it is spent); CUZK_SKIP_TESTS=1 (no step 1);
# CUZK_BIG_ONLY=1 (only the large key's single and stress benches); CUZK_STRESS_S (the main
# stress's seconds, default 20 with a GPU); CUZK_VARIANTS (the comparison runs of step 4, default
# "1 device;2 host-pinned;2 host-pageable"); CUZK_HOST_BUDGET_MIB (host_memory_budget_mib, default
# 0: 80% of the machine's memory); CUZK_GPU_DEVICES (gpu_devices, default [] = every device);
# CUZK_DAEMON_CPUS (a taskset list the daemon is pinned to, e.g. 0-15: one GPU's share of a
# machine with several GPUs); CUZK_BIG_KEY_DIR (where the large key and witness are kept and reused
# across runs; default: made fresh in the run's temporary folder); CUZK_N_BIG (proofs of bench
# single on the large key, default 20); CUZK_STRESS_J (the main stress's concurrency, default 4);
# CUZK_STRESS_ARGS (more arguments for it, e.g. "--warmup 5 --witness-by-path"); CUZK_VARIANT_S and
# CUZK_VARIANT_ARGS (the comparison runs' seconds, default 10, and more arguments).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-$here/logs}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUZK_TEST_DATA_DIR="$root/tests/data"
export CUZK_BIN="$here/bin/cuzk"
cuzk="$here/bin/cuzk"
data="$root/tests/data/snarkjs"
work=$(mktemp -d /tmp/cuzk-gpu-daemon.XXXXXX)
sock="$work/d.sock"
summary="$out/summary.log"
start=$(date +%s)
budget=${CUZK_CHECK_BUDGET_S:-330}
daemon_pid=""
rc=0

say() { echo "$*" | tee -a "$summary"; }
elapsed() { echo $(($(date +%s) - start)); }
# Runs a step, logging its time and exit status; a failure marks the whole run failed.
step() {
  local name=$1 t0 st
  shift
  t0=$(date +%s)
  "$@"
  st=$?
  say "step $name: exit=$st seconds=$(($(date +%s) - t0))"
  if ((st != 0)); then rc=1; fi
  return $st
}
cleanup() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

: >"$summary"
say "== $(date -u +%FT%TZ) $(uname -m), $(nproc) cores, bundle $(du -sh "$here" | cut -f1)"
gpu=0
if [[ -e /dev/nvidiactl ]]; then gpu=1; fi
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=1
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1 | tee -a "$summary"
fi
say "gpu=$gpu"
missing=$(ldd "$cuzk" "$here"/bin/* 2>&1 | grep "not found" | sort -u)
if [[ -n $missing ]]; then
  say "missing libraries: $missing"
  exit 1
fi
big_k=${CUZK_BIG_LOG_SIZE:-$((gpu ? 20 : 12))}

# ---- 1. the gpu-labelled tests ---------------------------------------------------------------------
run_tests() {
  local st=0 t one="$work/one_test.log"
  for t in gpu_groth16_tests engine_gpu_tests service_gpu_tests; do
    [[ -x $here/bin/$t ]] || continue
    timeout 240 "$here/bin/$t" >"$one" 2>&1 || st=1
    { echo "==== $t"; cat "$one"; } >>"$out/tests.log"
    say "  $t: $(grep -cE '^\[       OK \]' "$one") passed, $(grep -cE '^\[  FAILED  \] [a-z]' "$one") failed," \
      "$(grep -cE '^\[  SKIPPED \] .*\(' "$one") skipped"
    grep -E '^\[  FAILED  \] [a-z].*\(' "$one" | sed 's/^/    /' | tee -a "$summary" >/dev/null
    grep -E "^gpu_(prove|backend)" "$one" | sed 's/^/    /' | tee -a "$summary" >/dev/null
  done
  return $st
}
if [[ ${CUZK_SKIP_TESTS:-0} != 1 ]]; then step tests run_tests; fi

# ---- 2. the large key ------------------------------------------------------------------------------
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
big_dir=${CUZK_BIG_KEY_DIR:-$work}
mkdir -p "$big_dir"
make_big() {
  local t0
  if [[ -f $big_dir/big.zkey && -f $big_dir/big.wtns ]]; then
    say "setup: reusing $big_dir/big.zkey"
    return 0
  fi
  t0=$(date +%s%N)
  timeout 200 "$cuzk" setup --synthetic --log-size "$big_k" --curve bls12-381 --witness dense \
    "$big_dir/big.zkey" "$big_dir/big.wtns" >"$out/setup.log" 2>&1 || return 1
  say "setup: bls12-381 2^$big_k in $(ms_since "$t0") ms on $(nproc) cores, zkey $(du -h "$big_dir/big.zkey" | cut -f1)"
}
step setup make_big

# ---- 3. the daemon ---------------------------------------------------------------------------------
write_config() {  # $1: workers per device, $2: where synthesis runs (default device)
  cat >"$work/cuzk.toml" <<EOF
data_dir = "$work/data"
socket = "$sock"
backend = "auto"
gpu_workers_per_device = $1
gpu_synthesis = "${2:-device}"
gpu_devices = ${CUZK_GPU_DEVICES:-[]}
hot_budget_mib = 4096
host_memory_budget_mib = ${CUZK_HOST_BUDGET_MIB:-0}
log_level = "info"
max_batch_size = 1
witness_dirs = ["$data", "$big_dir"]
[[circuit]]
id = "bn"
zkey = "$data/bn128/poseidon/circuit.zkey"
[[circuit]]
id = "bls"
zkey = "$data/bls12381/poseidon/circuit.zkey"
[[circuit]]
id = "mult"
zkey = "$data/bn128/circuit.zkey"
EOF
  if [[ -f $big_dir/big.zkey ]]; then printf '[[circuit]]\nid = "big"\nzkey = "%s"\n' "$big_dir/big.zkey" >>"$work/cuzk.toml"; fi
}
start_daemon() {
  echo "==== daemon start: $(date -u +%T) $*" >>"$out/daemon.log"
  local pin=()
  if [[ -n ${CUZK_DAEMON_CPUS:-} ]]; then pin=(taskset -c "$CUZK_DAEMON_CPUS"); fi
  "${pin[@]}" "$cuzk" daemon --config "$work/cuzk.toml" >>"$out/daemon.log" 2>&1 &
  daemon_pid=$!
  local i
  for i in $(seq 1 600); do
    if "$cuzk" status --socket "$sock" >/dev/null 2>&1; then return 0; fi
    kill -0 "$daemon_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
stop_daemon() {
  kill -TERM "$daemon_pid" 2>/dev/null
  wait "$daemon_pid" 2>/dev/null
  daemon_pid=""
}
bench() {  # label, then cuzk bench arguments
  local label=$1 st
  shift
  echo "==== $label: cuzk bench $*" >>"$out/bench.log"
  timeout 150 "$cuzk" bench "$@" --socket "$sock" >>"$out/bench.log" 2>&1
  st=$?
  {
    echo "  $label (exit $st):"
    awk '/^==== /{blk=""} {blk=blk"\n"$0} END{print blk}' "$out/bench.log" |
      grep -E "^(all |mode=|after warm-up|server_mean_s|ran_on|memory |device:|gpu:)" | sed 's/^/    /'
  } | tee -a "$summary" >/dev/null
  return $st
}
preload() {
  local tier=$1 c t0
  for c in bn bls mult big; do
    grep -q "id = \"$c\"" "$work/cuzk.toml" || continue
    t0=$(date +%s%N)
    "$cuzk" preload --socket "$sock" "$c" --tier "$tier" >>"$out/bench.log" 2>&1 || return 1
    say "  preload $c --tier $tier: $(ms_since "$t0") ms"
  done
}

write_config 2
step daemon start_daemon || { tail -n 30 "$out/daemon.log" | tee -a "$summary"; exit 1; }
backend=$("$cuzk" status --socket "$sock" 2>/dev/null | grep -o '"backend": *"[a-z]*"' | head -n 1 | grep -o '[a-z]*"$' | tr -d '"')
say "daemon backend=$backend"
if ((gpu)) && [[ $backend != gpu ]]; then
  say "FAILED: a GPU is present but the daemon chose $backend"
  rc=1
fi
if [[ $backend == gpu ]]; then
  step preload preload device
  n_small=40 n_big=${CUZK_N_BIG:-20} batch_big=40 stress_s=${CUZK_STRESS_S:-20}
else
  step preload preload hot
  n_small=5 n_big=2 batch_big=4 stress_s=${CUZK_STRESS_S:-3}
fi

# nvidia-smi dmon beside the main stress: one line per second (sm %, mem %, memory used).
dmon_start() {
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi dmon -s um -d 1 >"$out/dmon.log" 2>&1 &
    dmon_pid=$!
  fi
}
dmon_stop() {
  if [[ -n ${dmon_pid:-} ]]; then
    kill "$dmon_pid" 2>/dev/null
    wait "$dmon_pid" 2>/dev/null
    # Mean SM % per GPU over its samples after the first 3 (warm-up) and before the last (ending).
    awk '$1 !~ /^#/ && NF > 3 {g = $1; v[g, n[g]++] = $2}
      END {for (g in n) {s = 0; c = 0; for (i = 3; i < n[g] - 1; i++) {s += v[g, i]; c++}
        if (c) printf "  nvidia-smi dmon: gpu %s, %d samples, sm mean %.1f%% (after 3 s of warm-up)\n", g, c, s / c}}' \
      "$out/dmon.log" | tee -a "$summary"
  fi
}

if [[ ${CUZK_BIG_ONLY:-0} != 1 ]]; then
  step bench_single_bn bench single-bn single -c bn --count "$n_small" "$data/bn128/poseidon/circuit.wtns"
  step bench_single_bls bench single-bls single -c bls --count "$n_small" "$data/bls12381/poseidon/circuit.wtns"
  step bench_batch_bn bench batch-bn batch -c bn --count $((n_small * 5)) -j 8 \
    --priority-mix CRITICAL:1,NORMAL:8,LOW:1 "$data/bn128/poseidon/circuit.wtns"
  step bench_stress_mult bench stress-mult stress -c mult -j 8 -d "$stress_s" "$data/bn128/circuit.wtns"
fi
if [[ -f $big_dir/big.wtns ]]; then
  step bench_single_big bench single-big single -c big --count "$n_big" "$big_dir/big.wtns"
  if [[ ${CUZK_BIG_ONLY:-0} != 1 ]]; then
    step bench_batch_big bench batch-big batch -c big --count "$batch_big" -j 8 "$big_dir/big.wtns"
  fi
  dmon_start
  # shellcheck disable=SC2086  # CUZK_STRESS_ARGS: extra words, e.g. "--warmup 5 --witness-by-path"
  step bench_stress_big bench stress-big stress -c big -j "${CUZK_STRESS_J:-4}" -d "$stress_s" ${CUZK_STRESS_ARGS:-} \
    "$big_dir/big.wtns"
  dmon_stop
fi
"$cuzk" status --socket "$sock" >"$out/status.json" 2>&1
"$cuzk" metrics --socket "$sock" >"$out/metrics.txt" 2>&1
grep -E '"(busy_ratio|busy_s|h2d_gb_per_s|proofs|cpu_fallbacks|workspace_allocations|key_bytes)"' "$out/status.json" |
  sed 's/^ */  status: /' | tee -a "$summary" >/dev/null
stop_daemon

# ---- 4. other settings, for comparison (while time is left) ------------------------------------
# One worker per device (no overlap of one proof's host work with another's kernels), and
# synthesis on the host into pinned, then pageable, memory (what the pinned path buys).
if [[ $backend == gpu && -f $big_dir/big.wtns ]]; then
  IFS=";" read -r -a variants <<<"${CUZK_VARIANTS-1 device;2 host-pinned;2 host-pageable}"
  for variant in "${variants[@]}"; do
    read -r per synth <<<"$variant"
    if (($(elapsed) > budget - 45)); then
      say "skipped: workers=$per synthesis=$synth (elapsed $(elapsed) s of $budget)"
      continue
    fi
    write_config "$per" "$synth"
    if step "daemon_${per}_$synth" start_daemon "gpu_workers_per_device=$per gpu_synthesis=$synth"; then
      step "preload_${per}_$synth" preload device
      # shellcheck disable=SC2086 # CUZK_VARIANT_ARGS is a list of arguments
      step "stress_big_${per}_$synth" bench "stress-big-workers$per-$synth" stress -c big -j 4 \
        -d "${CUZK_VARIANT_S:-10}" ${CUZK_VARIANT_ARGS:-} "$big_dir/big.wtns"
      # The staging pool after the run: buffers made, leases served, fallbacks.
      "$cuzk" status --socket "$sock" 2>/dev/null | tr -d ' \n' | grep -o '"pinned_pool":{[^}]*}' |
        sed "s/^/  workers=$per synthesis=$synth /" | tee -a "$summary" >/dev/null
      stop_daemon
    fi
  done
fi

say "== done in $(elapsed) s, rc=$rc"
exit $rc
