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
# budget; default at 2^25 24576: below the key's resident size, so some vectors stream, and above its
# size with every vector streamed; at other sizes 0, the daemon's own default: at 2^26 on an 80 GB
# card a 24 GiB budget streamed more and proved slower, 10.5 s against 10.1 s, docs/BENCHMARKS.md), DEVICE_BUDGET_MIB (default: the card's memory less 4 GiB;
# 100000 without nvidia-smi), HOST_BUDGET_MIB (the daemon's host_memory_budget_mib, default 0: 80% of
# the host's memory), BATCHES (the
# gpu_batch_partitions values to run, default "P 1"; a later one is skipped once SKIP_AFTER_S,
# default 420, have passed), ZKEY_DIR (where the zkey is made, default the work directory; /dev/shm
# keeps a 2^26 key's 44 GB off the 64 GB disk, where the daemon's private copy of it goes: the zkey
# is then deleted once the key is on the device, before the job, to give its memory back).
# A key already in ZKEY_DIR (cuzk-porep-kK.zkey with its witness and verification key beside it,
# and the .ok mark a finished setup leaves) is reused instead of made again. KEEP_KEY=1 keeps it
# there at the end (and through the job, in memory where ZKEY_DIR is a tmpfs, outside the daemon's
# host budget: lower HOST_BUDGET_MIB to match) for a later run, as is a key whose preload did not finish
# (timed out, or failed); SETUP_ONLY=1 makes or finds the key,
# keeps it and stops (a 2^26 setup takes ~4 min: one run can make it, the next prove with it).
# DEADLINE_S (default 570): the preload and each job are stopped by `timeout` so that the script
# ends, with its logs packed, within that many seconds of its start.
# Progress: every PROGRESS_S (default 10) seconds a line of progress.log says the step, the host's
# free memory, /dev/shm and the data disk in use, the GPU's memory and utilization and the daemon's
# last line, and the logs are packed again, so a run stopped from outside still
# leaves them under $OUT. The daemon logs each step of the key's preload as it begins and ends.
# Results: $OUT/summary.log, logs.tar.xz, vk.json, proof.json, public.json.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bundle=${1:-build-dev}
dest=${OUT:-build-gpu/logs}
work=$(mktemp -d /tmp/cuzk-porep.XXXXXX)
zkey_dir=${ZKEY_DIR:-$work}
k=${LOG_SIZE:-25}
# Fixed names, so that a later run finds the key (the .ok mark: its setup finished).
zkey=$zkey_dir/cuzk-porep-k$k.zkey
wtns=$zkey_dir/cuzk-porep-k$k.wtns
vk=$zkey_dir/cuzk-porep-k$k.vk.json
mark=$zkey_dir/cuzk-porep-k$k.ok
keep_key=${KEEP_KEY:-0}
if [[ ${SETUP_ONLY:-0} == 1 ]]; then keep_key=1; fi
out=$work/logs
mkdir -p "$out" "$dest" "$zkey_dir"
summary=$out/summary.log
# Packed into a temporary name and renamed: the progress loop packs too, and $OUT never holds half
# an archive.
pack() {
  tar -C "$work" -cJf "$dest/.logs.$BASHPID.tar.xz" logs 2>/dev/null && mv -f "$dest/.logs.$BASHPID.tar.xz" "$dest/logs.tar.xz"
  cp "$summary" "$dest/" 2>/dev/null
}
say() { echo "$*" | tee -a "$summary"; }
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cuzk="$PWD/$bundle/bin/cuzk"
start=$(date +%s)
deadline=$((start + ${DEADLINE_S:-570}))
left() {  # seconds to the deadline, at least 1 (`timeout 0` would mean no limit)
  local l=$((deadline - $(date +%s)))
  echo $((l > 1 ? l : 1))
}
parts=${PARTITIONS:-10}
sock=$work/d.sock
daemon_pid=""
progress_pid=""
phase() { echo "$*" >"$work/phase"; }
# One line every PROGRESS_S seconds while the script runs, then the logs packed again.
progress_loop() {
  local dlog
  while :; do
    dlog=$(ls -t "$out"/*.daemon.log 2>/dev/null | head -1)
    printf '%s +%ss %s: mem_available_mib=%s shm_used=%s disk_used=%s gpu=%s daemon="%s"\n' "$(date -u +%T)" \
      "$(($(date +%s) - start))" "$(cat "$work/phase" 2>/dev/null)" \
      "$(awk '/^MemAvailable/ {print int($2 / 1024)}' /proc/meminfo)" \
      "$(df -BG --output=used /dev/shm 2>/dev/null | tail -1 | tr -d ' ')" \
      "$(df -BG --output=used "$work" 2>/dev/null | tail -1 | tr -d ' ')" \
      "$(nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ')" \
      "$([[ -n $dlog ]] && tail -1 "$dlog" | cut -c1-240)" >>"$out/progress.log"
    pack
    sleep "${PROGRESS_S:-10}"
  done
}
remove_key() { rm -f "$zkey" "$wtns" "$vk" "$mark"; }
stop_daemon() {  # SIGTERM, and SIGKILL after 20 s (a job still running drains first)
  local i
  [[ -n $daemon_pid ]] || return 0
  kill -TERM "$daemon_pid" 2>/dev/null
  for i in $(seq 1 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$daemon_pid" 2>/dev/null
  wait "$daemon_pid" 2>/dev/null
  daemon_pid=""
  rm -f "$sock"
}
cleanup() {
  if [[ -n $progress_pid ]]; then kill "$progress_pid" 2>/dev/null; wait "$progress_pid" 2>/dev/null; fi
  stop_daemon
  if [[ $zkey_dir != "$work" && $keep_key != 1 ]]; then remove_key; fi
  pack
}
trap cleanup EXIT

say "== $(date -u +%FT%TZ) $(nproc) cores; 2^$k BLS12-381 boolean, $parts partitions"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >>"$summary" 2>&1
if [[ -z ${DEVICE_BUDGET_MIB:-} ]]; then
  card_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -d ' ')
  DEVICE_BUDGET_MIB=$((${card_mib:-0} > 8192 ? card_mib - 4096 : 100000))
fi
[[ -n ${KEY_BUDGET_MIB:-} ]] || KEY_BUDGET_MIB=$([[ $k == 25 ]] && echo 24576 || echo 0)
say "device budget ${DEVICE_BUDGET_MIB} MiB, key budget ${KEY_BUDGET_MIB} MiB (0: the daemon's default), deadline ${DEADLINE_S:-570} s"
# A key kept in memory through the job is memory the daemon's host budget does not see: the 44 GB
# 2^26 zkey in /dev/shm on a 128 GiB host. The daemon's load of the key asks the zkey's size and
# its coefficients' of the budget (its aligned private copy, with the pinned points lent from it,
# and the matrices; ~52 GiB at 2^26).
if [[ $keep_key == 1 && ${SETUP_ONLY:-0} != 1 && $(df --output=fstype "$zkey_dir" 2>/dev/null | tail -1) == tmpfs ]]; then
  say "warning: KEEP_KEY keeps the zkey in $zkey_dir (memory) through the job, outside the daemon's host budget;" \
    "the daemon's load of the key asks a little more than its size of that budget: set HOST_BUDGET_MIB below" \
    "what is left, where that still holds the key"
fi
phase setup
progress_loop &
progress_pid=$!
t0=$(date +%s)
if [[ -f $mark && -s $zkey && -s $wtns && -s $vk ]]; then
  say "setup: reusing $zkey ($(du -h "$zkey" | cut -f1)), made $(stat -c %y "$zkey" | cut -d. -f1)"
else
  rm -f "$mark"
  timeout "$(left)" "$cuzk" setup -v --synthetic --log-size "$k" --curve bls12-381 --witness boolean --vk "$vk" \
    "$zkey" "$wtns" >"$out/setup.log" 2>&1 || {
    say "setup failed (exit $?) after $(($(date +%s) - t0)) s; last lines:"
    tail -5 "$out/setup.log" | sed 's/^/  /' | tee -a "$summary"
    remove_key
    exit 1
  }
  touch "$mark"
  say "setup: $(($(date +%s) - t0)) s, zkey $(du -h "$zkey" | cut -f1) in $zkey_dir"
fi
cp "$vk" "$work/vk.json"
pack
if [[ ${SETUP_ONLY:-0} == 1 ]]; then
  say "SETUP_ONLY: the key stays in $zkey_dir"
  exit 0
fi

run_job() {  # $1: gpu_batch_partitions
  local batch=$1 name="batch$1" data=$work/data-$1 ws=() i t_start t_end
  mkdir -p "$data"
  cat >"$work/$name.toml" <<EOF
data_dir = "$data"
socket = "$sock"
backend = "${BACKEND:-gpu}"
gpu_workers_per_device = 1
gpu_batch_partitions = $batch
gpu_key_budget_mib = ${KEY_BUDGET_MIB}
gpu_memory_budget_mib = ${DEVICE_BUDGET_MIB:-100000}
host_memory_budget_mib = ${HOST_BUDGET_MIB:-0}
log_level = "info"
witness_dirs = ["$work", "$zkey_dir"]
[[circuit]]
id = "porep"
zkey = "$zkey"
EOF
  phase "$name daemon start"
  "$cuzk" daemon --config "$work/$name.toml" >"$out/$name.daemon.log" 2>&1 &
  daemon_pid=$!
  for i in $(seq 1 100); do [[ -S $sock ]] && break; sleep 0.2; done
  local preloaded=0 pst t_pre
  phase "$name preload"
  t_pre=$(date +%s)
  local tier=device
  if [[ ${BACKEND:-gpu} == cpu ]]; then tier=warm; fi  # the CPU proves from the mapped key (hot needs hot_budget_mib)
  timeout "$(left)" "$cuzk" preload porep --tier "$tier" --socket "$sock" >>"$out/$name.client.log" 2>&1
  pst=$?
  if ((pst == 0)); then preloaded=1; fi
  say "$name preload: exit=$pst$( ((pst == 124)) && echo ' (timed out)') after $(($(date +%s) - t_pre)) s; the daemon's key lines:"
  grep -E "engine: (key|pinned staging)" "$out/$name.daemon.log" | sed 's/^/  /' | tee -a "$summary"
  # What the key holds of the host budget, and the budget's use, before the job.
  "$cuzk" status --socket "$sock" >"$out/$name.status.json" 2>&1
  python3 - "$out/$name.status.json" <<'PY' 2>/dev/null | sed 's/^/  /' | tee -a "$summary"
import json, sys
s = json.load(open(sys.argv[1]))
def gib(b): return f"{b / 2**30:.2f} GiB ({b} bytes)"
def walk(o, path=""):
    if isinstance(o, dict):
        if "mapped_bytes" in o and "owned_bytes" in o:
            print(f"key {o.get('circuit', '?')}: mapped {gib(o['mapped_bytes'])}, owned {gib(o['owned_bytes'])}")
        if o.get("name") == "host" and "used_bytes" in o:
            limit = o.get("limit_bytes")
            print(f"host budget: {gib(o['used_bytes'])} used of {gib(limit) if limit else 'no limit'}")
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(s)
PY
  pack
  if ((preloaded == 0)); then
    say "$name: no job without the key preloaded"
    # The key was not used: it stays for a later run on the same machine to reuse.
    if [[ $zkey_dir != "$work" ]]; then keep_key=1; fi
    stop_daemon
    return
  fi
  # A zkey made outside the work directory (ZKEY_DIR) is memory: once the last daemon of the script
  # has the key loaded from its own copy, it goes (unless KEEP_KEY keeps it for a later run).
  if [[ $zkey_dir != "$work" && $batch == "$last_batch" && $keep_key != 1 ]]; then rm -f "$zkey" "$mark"; fi
  for i in $(seq 1 "$parts"); do ws+=("$wtns"); done
  mkdir -p "$work/$name.out"
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 100 >"$out/$name.smi" 2>/dev/null &
  local sampler=$!
  phase "$name job"
  t_start=$(date +%s%N)
  timeout "$(left)" "$cuzk" prove-remote --socket "$sock" -c porep --path -o "$work/$name.out" "${ws[@]}" >>"$out/$name.client.log" 2>&1
  local st=$?
  t_end=$(date +%s%N)
  phase "$name verify"
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
  say "$name: exit=$st$( ((st == 124)) && echo ' (timed out)') job $(((t_end - t_start) / 1000000)) ms, $verified/$parts proofs verified by cuzk verify;" \
    "nvidia-smi utilization $util"
  grep -E "job ended|proven together|streams|tier=device" "$out/$name.daemon.log" | tail -4 | sed 's/^/  /' | tee -a "$summary"
  # The job's timeline (the daemon's /trace, chrome://tracing or Perfetto), and from it when each
  # partition's witness read ran and the device's kernel lock was held, from the job's queueing.
  python3 - "$out/$name.trace.json" "${HTTP_ADDR:-127.0.0.1:9745}" <<'PY' 2>&1 | sed 's/^/  /' | tee -a "$summary"
import json, sys, urllib.request
path, addr = sys.argv[1], sys.argv[2]
try:
    body = urllib.request.urlopen(f"http://{addr}/trace", timeout=10).read()
except Exception as e:
    print(f"trace: not fetched ({e})"); sys.exit(0)
open(path, "wb").write(body)
ev = json.loads(body)
ev = ev.get("traceEvents", ev) if isinstance(ev, dict) else ev
timed = [e for e in ev if isinstance(e, dict) and "ts" in e and e.get("ph") != "M"]
if not timed:
    print("trace: no events"); sys.exit(0)
t0 = min(e["ts"] for e in timed)
opened = {}
lines = []
for e in sorted(timed, key=lambda e: e["ts"]):
    name, ph, ts = e.get("name", "?"), e.get("ph"), (e["ts"] - t0) / 1e3
    key = (name, e.get("pid"), e.get("tid"), json.dumps(e.get("args", {}).get("partition")))
    if ph == "X":
        lines.append(f"{ts:9.1f} ms +{e.get('dur', 0) / 1e3:8.1f} ms  {name} {json.dumps(e.get('args', {}))[:80]}")
    elif ph in ("b", "B"):
        opened[key] = ts
    elif ph in ("e", "E") and key in opened:
        b = opened.pop(key)
        lines.append(f"{b:9.1f} ms +{ts - b:8.1f} ms  {name} {json.dumps(e.get('args', {}))[:80]}")
    else:
        lines.append(f"{ts:9.1f} ms              {name} {json.dumps(e.get('args', {}))[:80]}")
print(f"trace: {len(timed)} events, saved as {path.rsplit('/', 1)[-1]}; the first 80 spans and marks by start:")
for l in sorted(lines, key=lambda l: float(l.split()[0]))[:80]:
    print(l)
PY
  stop_daemon
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
