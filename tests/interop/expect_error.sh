# SPDX-License-Identifier: MIT OR Apache-2.0
# Sourced by the CLI checks (cli_errors.sh, cli_bench.sh): one way to assert that a command fails
# cleanly, and the counters the caller reports at its end.
#
# expect_error NAME NEEDLE CMD...: the command exits 1..127 (not killed by a signal) and what it
# prints contains NEEDLE (case-insensitive): the file, field or value the message must name. Counts
# into FAILS and PASSES; prints one line either way (on success the first line naming NEEDLE).
FAILS=${FAILS:-0}
PASSES=${PASSES:-0}

expect_error() {
  local name=$1 needle=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  if ((rc == 0 || rc >= 128)); then
    printf 'FAIL %s: exit %d (want 1..127)\n%s\n' "$name" "$rc" "$out"
    FAILS=$((FAILS + 1))
  elif ! grep -qiF -- "$needle" <<<"$out"; then
    printf 'FAIL %s: message does not mention "%s":\n%s\n' "$name" "$needle" "$out"
    FAILS=$((FAILS + 1))
  else
    printf 'ok   %-48s %s\n' "$name" "$(grep -iF -- "$needle" <<<"$out" | head -n1 | cut -c1-110)"
    PASSES=$((PASSES + 1))
  fi
}
