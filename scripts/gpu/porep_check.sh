#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# A PoRep-shaped job through the daemon on a machine with an NVIDIA GPU: one job of P partitions of
# a BLS12-381 mostly-0/1 circuit whose key does not fit the device budget (so its points stream
# from pinned host memory), proven with the partitions batched (gpu_batch_partitions = P) and one
# at a time (= 1), each job timed from the client, every proof verified by the daemon and by
# `cuzk verify`, the GPU's utilization sampled by nvidia-smi while the job runs.
#
# The key comes from `cuzk setup --synthetic` (a real setup, its points made on the GPU:
# docs/BENCHMARKS.md, 'Setup on the GPU') and the partitions share its one witness file, sent by
# path. The verification key and the
# first partition's proof are written under $OUT, for snarkjs to verify on a machine with the npm
# tools. Binaries built on another machine and copied beside the working tree (BUNDLE/bin: cuzk;
# BUNDLE/lib: its libraries):
#
#   bash scripts/gpu/porep_check.sh build-dev
#
# Environment: BACKEND (default gpu; cpu to try the script without a GPU), LOG_SIZE (default 25), PARTITIONS (default 10), KEY_BUDGET_MIB (the slot's key
# budget, default 24576: below the 2^25 key's resident size, so some vectors stream, and above its
# size with every vector streamed), DEVICE_BUDGET_MIB (default 100000: room for a batch of 10), BATCHES (the
# gpu_batch_partitions values to run, default "P 1"; a later one is skipped once SKIP_AFTER_S,
# default 420, have passed), ZKEY_DIR (where the zkey is made, default the work directory; /dev/shm
# keeps a 2^26 key's 44 GB off the 64 GB disk, where the daemon's private copy of it goes: the zkey
# is then deleted once the key is on the device, before the job, to give its memory back).
# Results: $OUT/summary.log, logs.tar.xz, vk.json, proof.json, public.json.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bundle=${1:-build-dev}
dest=${OUT:-build-gpu/logs}
work=$(mktemp -d /tmp/cuzk-porep.XXXXXX)
zkey_dir=${ZKEY_DIR:-$work}
zkey=$zkey_dir/cuzk-porep-$$.zkey
out=$work/logs
mkdir -p "$out" "$dest"
summary=$out/summary.log
pack() { tar -C "$work" -cJf "$dest/logs.tar.xz" logs; cp "$summary" "$dest/" 2>/dev/null; }
say() { echo "$*" | tee -a "$summary"; }
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk="$PWD/$bundle/bin/cuzk"
k=${LOG_SIZE:-25}
start=$(date +%s)
parts=${PARTITIONS:-10}
sock=$work/d.sock
daemon_pid=""
cleanup() {
  if [[ $zkey_dir != "$work" ]]; then rm -f "$zkey"; fi
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null
  fi
}
trap cleanup EXIT

say "== $(date -u +%FT%TZ) $(nproc) cores; 2^$k BLS12-381 boolean, $parts partitions"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >>"$summary" 2>&1
t0=$(date +%s)
"$cuzk" setup -v --synthetic --log-size "$k" --curve bls12-381 --witness boolean --vk "$work/vk.json" \
  "$zkey" "$work/w.wtns" >"$out/setup.log" 2>&1 || {
  say "setup failed"
  pack
  exit 1
}
say "setup: $(($(date +%s) - t0)) s, zkey $(du -h "$zkey" | cut -f1) in $zkey_dir"
pack

run_job() {  # $1: gpu_batch_partitions
  local batch=$1 name="batch$1" data=$work/data-$1 ws=() i t_start t_end
  mkdir -p "$data"
  cat >"$work/$name.toml" <<EOF
data_dir = "$data"
socket = "$sock"
backend = "${BACKEND:-gpu}"
gpu_workers_per_device = 1
gpu_batch_partitions = $batch
gpu_key_budget_mib = ${KEY_BUDGET_MIB:-24576}
gpu_memory_budget_mib = ${DEVICE_BUDGET_MIB:-100000}
log_level = "info"
witness_dirs = ["$work"]
[[circuit]]
id = "porep"
zkey = "$zkey"
EOF
  "$cuzk" daemon --config "$work/$name.toml" >"$out/$name.daemon.log" 2>&1 &
  daemon_pid=$!
  for i in $(seq 1 100); do [[ -S $sock ]] && break; sleep 0.2; done
  local preloaded=0
  "$cuzk" preload porep --tier device --socket "$sock" >>"$out/$name.client.log" 2>&1 && preloaded=1
  # A zkey made outside the work directory (ZKEY_DIR) is memory: once the last daemon of the script
  # has the key loaded from its own copy, it goes.
  if [[ $zkey_dir != "$work" && $batch == "$last_batch" && $preloaded == 1 ]]; then rm -f "$zkey"; fi
  for i in $(seq 1 "$parts"); do ws+=("$work/w.wtns"); done
  mkdir -p "$work/$name.out"
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 100 >"$out/$name.smi" 2>/dev/null &
  local sampler=$!
  t_start=$(date +%s%N)
  "$cuzk" prove-remote --socket "$sock" -c porep --path -o "$work/$name.out" "${ws[@]}" >>"$out/$name.client.log" 2>&1
  local st=$?
  t_end=$(date +%s%N)
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  local verified=0 f
  for f in "$work/$name.out"/proof*.json; do
    local pub=${f%/*}/public${f##*/proof}
    "$cuzk" verify "$work/vk.json" "$pub" "$f" >>"$out/$name.verify.log" 2>&1 && verified=$((verified + 1))
  done
  # Utilization over the samples taken while the job ran (the first and last 300 ms are the
  # client's connect and the proofs' encoding).
  local util
  util=$(awk -F', ' '{u[NR]=$1; m=($2>m?$2:m)} END {n=0; s=0; for (i=4; i<=NR-3; i++) {s+=u[i]; n++}
    printf "%.1f%% over %d samples, device peak %d MiB", (n? s/n : 0), n, m}' "$out/$name.smi")
  cp "$work/vk.json" "$dest/vk.json" 2>/dev/null
  cp "$work/$name.out/proof_0.json" "$dest/proof.json" 2>/dev/null
  cp "$work/$name.out/public_0.json" "$dest/public.json" 2>/dev/null
  say "$name: exit=$st job $(((t_end - t_start) / 1000000)) ms, $verified/$parts proofs verified by cuzk verify;" \
    "nvidia-smi utilization $util"
  grep -E "job ended|proven together|streams|tier=device" "$out/$name.daemon.log" | tail -4 | sed 's/^/  /' | tee -a "$summary"
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" 2>/dev/null
  daemon_pid=""
  rm -f "$sock"
  pack
}
batches=(${BATCHES:-$parts 1})
last_batch=${batches[-1]}
for b in "${batches[@]}"; do
  if (($(date +%s) - start > ${SKIP_AFTER_S:-420})); then
    say "batch$b: skipped, $(($(date +%s) - start)) s have passed"
    continue
  fi
  run_job "$b"
done
exit 0
