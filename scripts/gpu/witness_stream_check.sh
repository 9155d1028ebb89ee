#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Input-JSON jobs against jobs whose .wtns the daemon reads by path, through the daemon with the
# GPU backend, on a machine with an NVIDIA GPU and no build tools: does the GPU wait for the
# witnesses? The circuit is the 1,034,000-constraint Poseidon chain of bench/witness/ (BN254); its
# key is made here by `cuzk setup` from its .r1cs, its .wtns files here by `cuzk wtns calculate`
# from the same inputs. For each number of workers per device in WORKERS, one daemon runs
# `cuzk bench stress` with the input JSON, then with the .wtns by path, each for DURATION_S after
# WARMUP_S, every proof verified; nvidia-smi samples the GPU's utilization each second beside the
# daemon's own busy ratio.
#
#   bash scripts/gpu/witness_stream_check.sh BUNDLE
#
# BUNDLE holds bin/cuzk with lib/ (its libraries), witness-cache/ (the circuit's compiled witness
# code, made on a machine with wabt and a C compiler, found here by its cache key: this machine
# has no wasm2c), poseidon_chain_2000.wasm and poseidon_chain_2000.r1cs.xz. Environment: INPUTS
# (distinct inputs, default 16), DURATION_S (30), WARMUP_S (5), CONCURRENCY (proofs in flight, 8),
# WORKERS (default "2 4"), WITNESS_THREADS (the daemon's witness_threads, default -1: automatic;
# 0 computes each witness on its worker), BACKEND (gpu; cpu tries the script on a machine without one), DEADLINE_S (570: every step is bounded so that the script ends, its logs
# packed, within that many seconds). Results: $OUT/summary.log and logs.tar.xz.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bundle=$(cd "${1:?usage: witness_stream_check.sh BUNDLE}" && pwd)
dest=${OUT:-$bundle/logs}
work=$(mktemp -d /tmp/cuzk-wstream.XXXXXX)
out=$work/logs
mkdir -p "$out" "$dest"
summary=$out/summary.log
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-570}))
inputs=${INPUTS:-16}
duration=${DURATION_S:-30}
warmup=${WARMUP_S:-5}
concurrency=${CONCURRENCY:-8}
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUZK_WITNESS_CACHE=$bundle/witness-cache
cuzk=$bundle/bin/cuzk
wasm=$bundle/poseidon_chain_2000.wasm

pack() {
  tar -C "$work" -cJf "$dest/.logs.tar.xz" logs 2>/dev/null && mv -f "$dest/.logs.tar.xz" "$dest/logs.tar.xz"
  cp "$summary" "$dest/" 2>/dev/null
}
say() { echo "$(date -u +%T) +$(($(date +%s) - start))s $*" | tee -a "$summary"; }
left() { local l=$((deadline - $(date +%s))); echo $((l > 1 ? l : 1)); }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }
trap pack EXIT

say "$(nproc) cores; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1 | head -1)"
"$cuzk" --version 2>&1 | head -1 | tee -a "$summary"

xz -dc "$bundle/poseidon_chain_2000.r1cs.xz" >"$work/chain.r1cs" || { say "cannot unpack the r1cs"; exit 1; }
t0=$(date +%s.%N)
timeout "$(left)" "$cuzk" setup "$work/chain.r1cs" "$work/chain.zkey" --vk "$work/vk.json" >"$out/setup.log" 2>&1 ||
  { say "setup failed: $(tail -3 "$out/setup.log")"; exit 1; }
say "setup: $(since "$t0") s, zkey $(du -h "$work/chain.zkey" | cut -f1)"
rm -f "$work/chain.r1cs"

for ((i = 1; i <= inputs; i++)); do
  echo "{\"in\": [\"$i\", \"$((i * 7919 + 3))\"]}" >"$work/in$i.json"
done
t0=$(date +%s.%N)
for ((i = 1; i <= inputs; i++)); do
  timeout "$(left)" "$cuzk" wtns calculate "$wasm" "$work/in$i.json" "$work/w$i.wtns" >>"$out/wtns.log" 2>&1 ||
    { say "wtns calculate $i failed: $(tail -3 "$out/wtns.log")"; exit 1; }
  [[ $i == 1 ]] && say "first wtns calculate (records the witness graph): $(since "$t0") s"
done
say "$inputs witnesses: $(since "$t0") s in all"
pack

for workers in ${WORKERS:-2 4}; do
  d=$work/d$workers
  mkdir -p "$d/data"
  cat >"$d/cuzk.toml" <<EOF
data_dir = "$d/data"
socket = "$d/d.sock"
backend = "${BACKEND:-gpu}"
gpu_workers_per_device = $workers
witness_threads = ${WITNESS_THREADS:--1}
witness_dirs = ["$work"]
log_level = "info"
[[circuit]]
id = "chain"
zkey = "$work/chain.zkey"
wasm = "$wasm"
EOF
  "$cuzk" daemon --config "$d/cuzk.toml" >"$out/daemon$workers.log" 2>&1 &
  daemon=$!
  for ((w = 0; w < 600; w++)); do "$cuzk" status --socket "$d/d.sock" >/dev/null 2>&1 && break; sleep 0.2; done
  say "workers $workers, witness_threads ${WITNESS_THREADS:--1}: daemon up"
  for kind in input-json by-path; do
    if [[ $kind == input-json ]]; then files=("$work"/in*.json); flag=--input-json; else files=("$work"/w*.wtns); flag=--witness-by-path; fi
    nvidia-smi dmon -s u -d 1 >"$out/dmon-$workers-$kind.log" 2>&1 &
    dmon=$!
    timeout "$(left)" "$cuzk" bench stress --socket "$d/d.sock" -c chain "$flag" -j "$concurrency" -d "$duration" \
      --warmup "$warmup" "${files[@]}" >"$out/stress-$workers-$kind.log" 2>&1
    rc=$?
    kill "$dmon" 2>/dev/null
    wait "$dmon" 2>/dev/null
    # The utilization column of the samples after the warm-up.
    busy=$(awk -v skip="$warmup" '$1 ~ /^[0-9]+$/ {n++; if (n > skip) {s += $2; c++}} END {if (c) printf "%.1f", s / c; else print "none"}' \
      "$out/dmon-$workers-$kind.log")
    say "workers $workers, $kind: exit $rc; nvidia-smi sm busy (mean after warm-up) ${busy}%"
    grep -E "^mode=|^server_mean_s|^gpu" "$out/stress-$workers-$kind.log" | sed 's/^/    /' | tee -a "$summary"
    # How the workers got their witnesses (computed ahead and ready, waited for, or computed by the
    # worker itself): the daemon's counts since its start.
    "$cuzk" metrics --socket "$d/d.sock" >"$out/metrics-$workers-$kind.txt" 2>&1 &&
      grep -E "^cuzk_witness(_threads|es_ahead|_takes_total)" "$out/metrics-$workers-$kind.txt" | sed 's/^/    /' |
      tee -a "$summary"
    pack
  done
  kill -TERM "$daemon" 2>/dev/null
  timeout 60 tail --pid="$daemon" -f /dev/null
done
say "done"
