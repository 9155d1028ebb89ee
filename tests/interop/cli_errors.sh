#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Bad input to the `cuzk` command gives a clear message and a non-zero exit, never a crash:
# missing and truncated files, garbage, a witness for another circuit or curve, malformed JSON,
# files of the two curves mixed, an unwritable output. Needs no npm tools.
#
#   cli_errors.sh CUZK
set -uo pipefail

CUZK=$(realpath "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=$(cd "$HERE/../data/snarkjs" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

BN=$DATA/bn128
BLS=$DATA/bls12381

source "$HERE/expect_error.sh"

expect_ok() {
  local name=$1 needle=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  if ((rc != 0)) || ! grep -qiF -- "$needle" <<<"$out"; then
    printf 'FAIL %s: exit %d, want 0 and "%s":\n%s\n' "$name" "$rc" "$needle" "$out"
    FAILS=$((FAILS + 1))
  else
    printf 'ok   %s\n' "$name"
    PASSES=$((PASSES + 1))
  fi
}

head -c 1000 "$BN/poseidon/circuit.zkey" >"$WORK/truncated.zkey"
head -c 100 /dev/urandom >"$WORK/garbage.bin"
head -c 500 "$BN/proof.json" >"$WORK/truncated_proof.json"
echo '{"pi_a": 1}' >"$WORK/bad_proof.json"
: >"$WORK/empty.json"

expect_error "no subcommand" "subcommand" "$CUZK"
# A misspelt subcommand is named, with the closest one; not "A subcommand is required".
expect_error "misspelt subcommand" 'unknown subcommand "provee"; did you mean "prove"?' "$CUZK" provee a b
expect_error "misspelt subcommand after a global option" 'unknown subcommand "verfy"; did you mean "verify"?' \
  "$CUZK" --threads 2 verfy a b c
expect_error "unknown subcommand, nothing close" 'unknown subcommand "zzzzzzzz"' "$CUZK" zzzzzzzz
# Usage errors exit 2, as most Unix tools do (CLI11's own codes, 105, 106, 109, ..., are mapped),
# whether CLI11 finds them or a check after parsing does; --help and --version exit 0.
usage_cases=("prove --bogus" "nosuchverb" "prove" "prove a b c d e" "--threads -1 info x" "--threads many info x"
  "setup --synthetic x.zkey" "setup --log-size 10 a.r1cs b.zkey" "bench ntt --curve bn254 --log-size 0"
  "bench ntt --curve secp256k1 --log-size 10")
if "$CUZK" --help 2>/dev/null | grep -q prove-remote; then  # a build with the daemon and its clients
  # A negative job id is refused, not read as 2^64 - 1 (docs/HARDENING.md, finding 22).
  usage_cases+=("prove-remote" "submit -c x --priority SOON w.wtns" "await notanumber" "daemon --bogus"
    "cancel -- -1" "await -- -1" "cancel 0x10")
fi
for args in "${usage_cases[@]}"; do
  rc=0
  # shellcheck disable=SC2086 # the words of $args are the arguments
  "$CUZK" $args >/dev/null 2>&1 || rc=$?
  if ((rc == 2)); then
    printf 'ok   %-48s exit 2\n' "usage error: cuzk $args"
    PASSES=$((PASSES + 1))
  else
    printf 'FAIL usage error: cuzk %s: exit %d (want 2)\n' "$args" "$rc"
    FAILS=$((FAILS + 1))
  fi
done
for args in "--help" "prove --help" "--version"; do
  rc=0
  # shellcheck disable=SC2086
  "$CUZK" $args >/dev/null 2>&1 || rc=$?
  if ((rc == 0)); then
    PASSES=$((PASSES + 1))
  else
    printf 'FAIL cuzk %s: exit %d (want 0)\n' "$args" "$rc"
    FAILS=$((FAILS + 1))
  fi
done
expect_error "prove: missing zkey" "$WORK/missing.zkey" \
  "$CUZK" prove "$WORK/missing.zkey" "$BN/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: missing wtns" "$WORK/missing.wtns" \
  "$CUZK" prove "$BN/circuit.zkey" "$WORK/missing.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: truncated zkey" "truncated.zkey" \
  "$CUZK" prove "$WORK/truncated.zkey" "$BN/poseidon/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: garbage zkey" "garbage.bin" \
  "$CUZK" prove "$WORK/garbage.bin" "$BN/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: zkey given as wtns" "circuit.zkey" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.zkey" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: witness of another circuit" "circuit.wtns" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/poseidon/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: witness of another curve" "circuit.wtns" \
  "$CUZK" prove "$BN/circuit.zkey" "$BLS/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: unwritable proof.json" "$WORK/no/such/dir/p.json" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/no/such/dir/p.json" "$WORK/s.json"
[[ -e $WORK/s.json ]] && { echo "FAIL prove wrote public.json although proof.json failed"; FAILS=$((FAILS + 1)); }
expect_error "prove: too few arguments" "required" "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns"
expect_error "verify: missing vk" "$WORK/missing_vk.json" \
  "$CUZK" verify "$WORK/missing_vk.json" "$BN/public.json" "$BN/proof.json"
expect_error "verify: truncated proof.json" "truncated_proof.json" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/truncated_proof.json"
expect_error "verify: proof without pi_b" "bad_proof.json" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/bad_proof.json"
expect_error "verify: empty public.json" "empty.json" \
  "$CUZK" verify "$BN/verification_key.json" "$WORK/empty.json" "$BN/proof.json"
# Both curves named, not a coordinate out of range.
expect_error "verify: bls12381 proof, bn128 key" "proof.json: curve: expected bn128 (the curve of $BN/verification_key.json), found bls12381" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$BLS/proof.json"
expect_error "verify: bn128 proof, bls12381 key" "curve: expected bls12381" \
  "$CUZK" verify "$BLS/verification_key.json" "$BLS/public.json" "$BN/proof.json"
expect_error "verify: too many public signals" "public" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/wide/public.json" "$BN/proof.json"
expect_error "verify: too few public signals" "public" \
  "$CUZK" verify "$BN/wide/verification_key.json" "$BN/public.json" "$BN/wide/proof.json"
expect_error "info: garbage" "garbage.bin" "$CUZK" info "$WORK/garbage.bin"
expect_error "info: missing" "$WORK/missing.r1cs" "$CUZK" info "$WORK/missing.r1cs"
expect_error "setup: zkey given as r1cs" "circuit.zkey" "$CUZK" setup "$BN/circuit.zkey" "$WORK/x.zkey"
# 0 is all cores, as `threads = 0` is in the daemon's config.
expect_ok "threads: zero is all cores" "bn128" "$CUZK" --threads 0 info "$BN/circuit.zkey"
# An r1cs whose header claims 2^32 - 1 wires: the setup's out of memory names the file and the
# count (it was a bare "out of memory" naming no file; docs/HARDENING.md, finding 22). nWires is
# the u32 at byte 552 of this fixture (its header section, after n8 and r); ulimit -v makes the
# allocation fail under any overcommit setting.
cp "$BN/circuit.r1cs" "$WORK/wide.r1cs"
if [[ $(od -An -tx1 -j552 -N4 "$WORK/wide.r1cs" | tr -d ' ') == 09000000 ]]; then
  printf '\xff\xff\xff\xff' | dd of="$WORK/wide.r1cs" bs=1 seek=552 conv=notrunc 2>/dev/null
  expect_error "setup: r1cs of 2^32 - 1 wires" "wide.r1cs: out of memory for its key's points: nWires = 4294967295" \
    timeout 120 bash -c 'ulimit -v 4000000 && exec "$@"' sh "$CUZK" setup --cpu "$WORK/wide.r1cs" "$WORK/wide.zkey"
else
  printf 'FAIL setup: r1cs of 2^32 - 1 wires: nWires of %s is no longer at byte 552\n' "$BN/circuit.r1cs"
  FAILS=$((FAILS + 1))
fi
# A FIFO as input is refused before it is read (it used to block forever); `timeout` turns a hang
# into exit 124 without the expected message.
mkfifo "$WORK/fifo"
expect_error "prove: FIFO as zkey" "fifo: not a regular file (a FIFO)" \
  timeout 20 "$CUZK" prove "$WORK/fifo" "$BN/circuit.wtns" "$WORK/p.json" "$WORK/s.json"
expect_error "prove: FIFO as wtns" "fifo: not a regular file (a FIFO)" \
  timeout 20 "$CUZK" prove "$BN/circuit.zkey" "$WORK/fifo" "$WORK/p.json" "$WORK/s.json"
expect_error "info --check: FIFO" "fifo: not a regular file (a FIFO)" timeout 20 "$CUZK" info --check "$WORK/fifo"
expect_error "zkey export: FIFO" "fifo: not a regular file (a FIFO)" \
  timeout 20 "$CUZK" zkey export verificationkey "$WORK/fifo" "$WORK/vk.json"
expect_error "setup: FIFO as r1cs" "fifo: not a regular file (a FIFO)" timeout 20 "$CUZK" setup "$WORK/fifo" "$WORK/x.zkey"
expect_error "verify: FIFO as proof" "fifo: not a regular file (a FIFO)" \
  timeout 20 "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/fifo"
# 100,000 nested arrays (70,000 used to overflow the CLI's stack): a parse error naming the file.
{ head -c 100000 /dev/zero | tr '\0' '['; head -c 100000 /dev/zero | tr '\0' ']'; } >"$WORK/deep.json"
expect_error "verify: deeply nested proof" "deep.json: not valid snarkjs JSON: nesting deeper" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/deep.json"
expect_error "verify: deeply nested public" "deep.json" \
  "$CUZK" verify "$BN/verification_key.json" "$WORK/deep.json" "$BN/proof.json"
expect_error "verify: deeply nested vk" "deep.json" "$CUZK" verify "$WORK/deep.json" "$BN/public.json" "$BN/proof.json"
expect_error "info --check: deeply nested JSON" "deep.json" "$CUZK" info --check "$WORK/deep.json"
expect_error "info: a directory" "not a regular file (a directory)" "$CUZK" info "$WORK"
# JSON files over 64 MiB are refused by their size before a byte is read (a 2 GiB proof.json was
# read whole, 4.2 GB resident, before it failed at column 1). Sparse files: no disk, no time; the
# '[' makes `info` take the file for JSON.
printf '[' >"$WORK/huge.json"
truncate -s 2G "$WORK/huge.json"
truncate -s $((64 * 1024 * 1024 + 1)) "$WORK/over.json"
size_error="file size: expected at most 67108864 bytes (a snarkjs JSON file"
expect_error "verify: 2 GiB proof.json" "huge.json: $size_error" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/huge.json"
expect_error "verify: 2 GiB proof.json, its size" "found 2147483648" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$WORK/huge.json"
expect_error "verify: public.json over 64 MiB" "over.json: $size_error" \
  "$CUZK" verify "$BN/verification_key.json" "$WORK/over.json" "$BN/proof.json"
expect_error "verify: vk over 64 MiB" "over.json: $size_error" "$CUZK" verify "$WORK/over.json" "$BN/public.json" "$BN/proof.json"
expect_error "info --check: 2 GiB JSON" "huge.json: $size_error" "$CUZK" info --check "$WORK/huge.json"
rm -f "$WORK/huge.json" "$WORK/over.json"
# Outputs are checked first and renamed into place together: a failing second output leaves the
# first as it was; links, nodes, one path twice and an output that is an input are refused, and
# left alone. (A FIFO stands in for a device node: a regression must not replace /dev/full.)
check() { if eval "$2"; then PASSES=$((PASSES + 1)); else echo "FAIL $1"; FAILS=$((FAILS + 1)); fi; }
echo old >"$WORK/keep.json"
expect_error "prove: public.json folder missing" "$WORK/missing/s.json" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/keep.json" "$WORK/missing/s.json"
check "prove: proof.json kept when public.json fails" '[[ $(cat "$WORK/keep.json") == old ]]'
ln -s "$WORK/keep.json" "$WORK/link.json"
expect_error "prove: proof.json a symbolic link" "link.json: the proof output is a symbolic link" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/link.json" "$WORK/s2.json"
check "prove: the link and its target are left" '[[ -L $WORK/link.json && $(cat "$WORK/keep.json") == old ]]'
expect_error "prove: proof.json a FIFO" "fifo: the proof output is a FIFO" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/fifo" "$WORK/s2.json"
check "prove: the FIFO is left" '[[ -p $WORK/fifo ]]'
expect_error "prove: one path for proof and public" "given as both the proof output and the public output" \
  "$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/same.json" "$WORK/same.json"
cp "$BN/circuit.zkey" "$WORK/z.zkey"
expect_error "prove: proof path is the zkey" "the proof output is the same file as the zkey input" \
  "$CUZK" prove "$WORK/z.zkey" "$BN/circuit.wtns" "$WORK/z.zkey" "$WORK/s2.json"
check "prove: the zkey is left" 'cmp -s "$BN/circuit.zkey" "$WORK/z.zkey"'
check "prove: nothing written by the refusals" '[[ ! -e $WORK/s2.json && ! -e $WORK/same.json ]]'
expect_error "setup: vk folder missing" "$WORK/missing/vk.json" \
  "$CUZK" setup "$BN/circuit.r1cs" "$WORK/new.zkey" --vk "$WORK/missing/vk.json"
check "setup: no zkey left when the vk cannot be written" '[[ ! -e $WORK/new.zkey ]]'
check "no temporary files left" '! ls -A "$WORK" | grep -q cuzk-'
"$CUZK" prove "$BN/circuit.zkey" "$BN/circuit.wtns" "$WORK/keep.json" "$WORK/s_ok.json" >/dev/null 2>&1
check "prove: both outputs written together" '[[ $(head -c 1 "$WORK/keep.json") == "{" && -s $WORK/s_ok.json ]]'
expect_ok "info: zkey" "bn128" "$CUZK" info "$BN/circuit.zkey"
expect_ok "info: r1cs" "bls12381" "$CUZK" info "$BLS/poseidon/circuit.r1cs"
expect_ok "info: wtns" "bn128" "$CUZK" info "$BN/wide/circuit.wtns"
expect_ok "verify: the committed proof" "OK!" \
  "$CUZK" verify "$BN/verification_key.json" "$BN/public.json" "$BN/proof.json"

echo "$PASSES passed, $FAILS failed"
((FAILS == 0))
