#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The soak that docs/HARDENING.md requires (5 minutes, 0 failures, RSS flat): `cuzk daemon` on the
# CPU backend with the bn128 Poseidon fixture registered, `cuzk bench stress` keeping proofs in
# flight for a few minutes (every proof checked by the client with the groth16 verifier), and the
# daemon's resident memory (VmRSS) sampled every few seconds. It passes when the stress reports no failure and the RSS after the
# first minute stays within CUZK_SOAK_RSS_SLACK_KB of its value at one minute. Not in CI (minutes).
#
#   scripts/soak.sh [CUZK]      default build/src/apps/cuzk
#
# Environment: CUZK_SOAK_S (stress seconds, default 300), CUZK_SOAK_J (proofs in flight, default 4),
# CUZK_SOAK_SAMPLE_S (RSS sampling period, default 10), CUZK_SOAK_RSS_SLACK_KB (default 4096).
# Prints the command, the stress's summary lines, each RSS sample and the verdict.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cuzk=$(realpath "${1:-$root/build/src/apps/cuzk}")
data="$root/tests/data/snarkjs/bn128/poseidon"
soak_s=${CUZK_SOAK_S:-300}
jobs=${CUZK_SOAK_J:-4}
period=${CUZK_SOAK_SAMPLE_S:-10}
slack=${CUZK_SOAK_RSS_SLACK_KB:-4096}
work=$(mktemp -d /tmp/cuzk-soak.XXXXXX)
sock="$work/d.sock"
daemon_pid=""
cleanup() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/cuzk.toml" <<EOF
data_dir = "$work/data"
socket = "$sock"
backend = "cpu"
log_level = "warn"
[[circuit]]
id = "poseidon"
zkey = "$data/circuit.zkey"
EOF
"$cuzk" daemon --config "$work/cuzk.toml" 2>"$work/daemon.log" &
daemon_pid=$!
for _ in $(seq 1 300); do
  "$cuzk" status --socket "$sock" >/dev/null 2>&1 && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
  sleep 0.1
done

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$daemon_pid/status"; }
cmd=(bench stress --socket "$sock" -c poseidon -j "$jobs" -d "$soak_s" "$data/circuit.wtns")
echo "== $(date -u +%FT%TZ) $(nproc) cores, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
echo "cuzk ${cmd[*]}"
"$cuzk" "${cmd[@]}" >"$work/stress.log" 2>&1 &
stress_pid=$!
start=$(date +%s)
samples=()
echo "t_s rss_kb"
while kill -0 "$stress_pid" 2>/dev/null; do
  t=$(($(date +%s) - start))
  r=$(rss_kb)
  samples+=("$t:$r")
  echo "$t $r"
  sleep "$period"
done
wait "$stress_pid"
stress_rc=$?
grep -E "^(all |mode=)" "$work/stress.log"
grep -F "first failure" "$work/stress.log"
kill -0 "$daemon_pid" 2>/dev/null || { echo "FAIL: the daemon died"; cat "$work/daemon.log"; exit 1; }

# The RSS at the first sample at or after 60 s, and the spread of every sample after it.
base="" lo="" hi=""
for s in "${samples[@]}"; do
  t=${s%%:*} r=${s##*:}
  ((t < 60)) && continue
  [[ -z $base ]] && base=$r lo=$r hi=$r
  ((r < lo)) && lo=$r
  ((r > hi)) && hi=$r
done
echo "rss after the first minute: at 60 s ${base:-?} kB, min ${lo:-?} kB, max ${hi:-?} kB, end $(rss_kb) kB"
echo "daemon peak (VmHWM): $(awk '/^VmHWM:/ {print $2}' "/proc/$daemon_pid/status") kB"
rc=0
if ((stress_rc != 0)); then echo "FAIL: the stress reported failures (exit $stress_rc)"; rc=1; fi
if [[ -n $base ]] && ((hi - base > slack)); then
  echo "FAIL: RSS grew by $((hi - base)) kB after the first minute (slack $slack kB)"
  rc=1
fi
((rc == 0)) && echo "PASS: 0 failures, RSS flat after the first minute (within $slack kB)"
exit $rc
