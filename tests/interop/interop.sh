#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Interop between the `cuzk` command and snarkjs on one circuit of tests/data/snarkjs, one curve:
#
#   interop.sh CUZK CURVE CIRCUIT [WORK]
#     CUZK     the cuzk binary          CURVE  bn128 | bls12381
#     CIRCUIT  multiplier | poseidon | wide | poseidon_chain
#     WORK     scratch folder (default: a temporary one)
#
# What it checks (each a step with its wall time):
#   - cuzk verifies snarkjs's proofs: the committed one and a fresh `snarkjs groth16 prove`;
#   - snarkjs verifies cuzk's proofs (`cuzk prove`), whose public.json is byte-identical to
#     snarkjs's and whose proof.json is laid out as snarkjs writes it;
#   - cuzk rejects tampered proofs (a flipped digit in each of pi_a, pi_b, pi_c: an error or
#     "Invalid proof"; pi_a negated and pi_a/pi_c swapped: valid points, "Invalid proof"), a wrong
#     public input and a public value >= r, all with a non-zero exit;
#   - a zkey made by `cuzk setup` is accepted by snarkjs: snarkjs exports the same verification key
#     from it as cuzk wrote, proves with it, and the proof verifies with both keys and with cuzk;
#   - `cuzk zkey export verificationkey` on snarkjs's zkey gives snarkjs's key, and `cuzk info
#     --check` accepts every committed file.
# The large circuit (poseidon_chain) has no committed zkey (see tests/data/README.md): only the
# steps on a cuzk-made key run for it.
#
# Exits 77 (CTest's "skipped") when the npm tools are not installed (scripts/setup.sh installs
# them; CI has them).
set -euo pipefail

if (($# < 3)); then
  echo "usage: $0 CUZK CURVE CIRCUIT [WORK]" >&2
  exit 2
fi
CUZK=$(realpath "$1")
CURVE=$2
CIRCUIT=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SNARKJS=$ROOT/tools/node/node_modules/.bin/snarkjs
JSON_TOOL=$HERE/json_tool.js

if [[ ! -x $SNARKJS ]] || ! command -v node >/dev/null; then
  echo "skipped: snarkjs is not installed in tools/node (run scripts/setup.sh)"
  exit 77
fi
if [[ ! -x $CUZK ]]; then
  echo "error: $CUZK is not an executable" >&2
  exit 1
fi

DATA=$ROOT/tests/data/snarkjs/$CURVE
[[ $CIRCUIT == multiplier ]] || DATA=$DATA/$CIRCUIT
[[ -d $DATA ]] || { echo "error: no fixture folder $DATA" >&2; exit 1; }

if [[ -n ${4:-} ]]; then
  WORK=$4
  rm -rf "$WORK" && mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi

TAG="[$CURVE/$CIRCUIT]"
step_start=0
now_us() { echo "${EPOCHREALTIME/./}"; }
begin() { STEP=$1; step_start=$(now_us); }
end() {
  local us=$(($(now_us) - step_start))
  printf '%s ok   %-58s %4d.%02d s\n' "$TAG" "$STEP" $((us / 1000000)) $((us % 1000000 / 10000))
}
die() {
  printf '%s FAIL %s: %s\n' "$TAG" "$STEP" "$*" >&2
  exit 1
}

# Runs a command that must succeed; on failure shows its output.
must() {
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" >&2
    die "command failed: $*"
  fi
  LAST_OUT=$out
}
# Runs `cuzk verify` (or `snarkjs groth16 verify`) and requires "OK!" and exit 0.
verify_ok() {
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if ((rc != 0)) || ! grep -q 'OK!' <<<"$out"; then
    printf '%s\n' "$out" >&2
    die "expected OK! and exit 0, got exit $rc: $*"
  fi
}
# Requires a non-zero exit and a message (anything on stdout/stderr).
must_fail() {
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  ((rc != 0)) || die "expected a non-zero exit: $*"
  [[ -n $out ]] || die "failed without a message: $*"
  LAST_OUT=$out
}
# Requires exactly "Invalid proof" and exit 1 (a well-formed proof that does not verify).
must_be_invalid() {
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if ((rc != 1)) || ! grep -q 'Invalid proof' <<<"$out"; then
    printf '%s\n' "$out" >&2
    die "expected 'Invalid proof' and exit 1, got exit $rc: $*"
  fi
}
sj() { must "$SNARKJS" "$@"; }
jt() { must node "$JSON_TOOL" "$@"; }

# ---- inputs -------------------------------------------------------------------------------------
WTNS=$DATA/circuit.wtns
if [[ -s $DATA/circuit.r1cs ]]; then
  R1CS=$DATA/circuit.r1cs
else
  R1CS=$WORK/circuit.r1cs
  xz -dc "$DATA/circuit.r1cs.xz" >"$R1CS"
fi
HAVE_SNARKJS_KEY=0
[[ -s $DATA/circuit.zkey ]] && HAVE_SNARKJS_KEY=1

# Tampered copies of a (valid) proof/public pair must all be rejected by cuzk.
check_rejections() {
  local vk=$1 pub=$2 proof=$3 d=$WORK/tampered
  mkdir -p "$d"
  begin "cuzk rejects flipped digits in pi_a, pi_b, pi_c"
  local path
  for path in pi_a.0 pi_a.1 pi_b.0.0 pi_b.1.1 pi_c.0 pi_c.1; do
    jt flip_digit "$proof" "$d/flip.json" "$path"
    must_fail "$CUZK" verify "$vk" "$pub" "$d/flip.json"
  done
  end
  begin "cuzk says Invalid proof: -pi_a, pi_a<->pi_c, public+1"
  jt negate_y "$proof" "$d/neg.json" "$CURVE"
  must_be_invalid "$CUZK" verify "$vk" "$pub" "$d/neg.json"
  jt swap_ac "$proof" "$d/swap.json"
  must_be_invalid "$CUZK" verify "$vk" "$pub" "$d/swap.json"
  local n
  n=$(node -p "JSON.parse(require('fs').readFileSync('$pub','utf8')).length")
  jt bump_public "$pub" "$d/pub_first.json" 0
  must_be_invalid "$CUZK" verify "$vk" "$d/pub_first.json" "$proof"
  jt bump_public "$pub" "$d/pub_last.json" $((n - 1))
  must_be_invalid "$CUZK" verify "$vk" "$d/pub_last.json" "$proof"
  end
  begin "cuzk errors on a public value >= r"
  local r
  if [[ $CURVE == bn128 ]]; then
    r=21888242871839275222246405745257275088548364400416034343698204186575808495617
  else
    r=52435875175126190479447740508185965837690552500527637822603658699938581184513
  fi
  jt set_public "$pub" "$d/pub_r.json" 0 "$r"
  must_fail "$CUZK" verify "$vk" "$d/pub_r.json" "$proof"
  end
}

# ---- snarkjs's own key: cuzk verifies snarkjs, snarkjs verifies cuzk -----------------------------
if ((HAVE_SNARKJS_KEY)); then
  ZKEY=$DATA/circuit.zkey
  VK=$DATA/verification_key.json

  begin "cuzk info --check (zkey, r1cs, wtns)"
  must "$CUZK" info --check "$ZKEY"
  must "$CUZK" info --check "$R1CS"
  must "$CUZK" info --check "$WTNS"
  end

  begin "cuzk verifies the committed snarkjs proof"
  verify_ok "$CUZK" verify "$VK" "$DATA/public.json" "$DATA/proof.json"
  end

  begin "snarkjs groth16 prove, cuzk verify"
  sj groth16 prove "$ZKEY" "$WTNS" "$WORK/sj_proof.json" "$WORK/sj_public.json"
  verify_ok "$CUZK" verify "$VK" "$WORK/sj_public.json" "$WORK/sj_proof.json"
  end

  begin "cuzk prove, snarkjs groth16 verify"
  must "$CUZK" prove "$ZKEY" "$WTNS" "$WORK/cz_proof.json" "$WORK/cz_public.json"
  verify_ok "$SNARKJS" groth16 verify "$VK" "$WORK/cz_public.json" "$WORK/cz_proof.json"
  end

  begin "cuzk's proof.json/public.json are laid out as snarkjs's"
  jt snarkjs_layout "$WORK/cz_proof.json"
  jt snarkjs_layout "$WORK/cz_public.json"
  cmp -s "$WORK/cz_public.json" "$DATA/public.json" || die "public.json differs from snarkjs's"
  verify_ok "$CUZK" verify "$VK" "$WORK/cz_public.json" "$WORK/cz_proof.json"
  jt drop_curve "$WORK/cz_proof.json" "$WORK/cz_proof_nocurve.json"
  verify_ok "$CUZK" verify "$VK" "$WORK/cz_public.json" "$WORK/cz_proof_nocurve.json"
  end

  check_rejections "$VK" "$WORK/cz_public.json" "$WORK/cz_proof.json"

  begin "cuzk zkey export verificationkey == snarkjs's"
  must "$CUZK" zkey export verificationkey "$ZKEY" "$WORK/cz_export_vk.json"
  jt same_vk "$WORK/cz_export_vk.json" "$VK"
  jt snarkjs_layout "$WORK/cz_export_vk.json"
  if grep -q vk_alphabeta_12 "$WORK/cz_export_vk.json"; then
    cmp -s "$WORK/cz_export_vk.json" "$VK" || die "exported key differs from snarkjs's byte for byte"
  fi
  end
fi

# ---- a key made by cuzk setup: snarkjs accepts it ------------------------------------------------
begin "cuzk setup"
must "$CUZK" setup "$R1CS" "$WORK/cz.zkey" --vk "$WORK/cz_vk.json"
grep -qiE 'not a (trusted-setup )?ceremony' <<<"$LAST_OUT" || die "cuzk setup does not say it is not a ceremony"
end

begin "snarkjs zkey export verificationkey (cuzk's zkey)"
sj zkey export verificationkey "$WORK/cz.zkey" "$WORK/sj_vk_of_cz.json"
jt same_vk "$WORK/cz_vk.json" "$WORK/sj_vk_of_cz.json"
cmp -s "$WORK/cz_vk.json" "$WORK/sj_vk_of_cz.json" || die "cuzk's verification key differs from snarkjs's export byte for byte"
end

begin "snarkjs groth16 prove (cuzk's zkey)"
sj groth16 prove "$WORK/cz.zkey" "$WTNS" "$WORK/sj_proof2.json" "$WORK/sj_public2.json"
end

begin "snarkjs verifies it with both keys, cuzk verifies it"
verify_ok "$SNARKJS" groth16 verify "$WORK/cz_vk.json" "$WORK/sj_public2.json" "$WORK/sj_proof2.json"
verify_ok "$SNARKJS" groth16 verify "$WORK/sj_vk_of_cz.json" "$WORK/sj_public2.json" "$WORK/sj_proof2.json"
verify_ok "$CUZK" verify "$WORK/cz_vk.json" "$WORK/sj_public2.json" "$WORK/sj_proof2.json"
end

begin "cuzk prove (cuzk's zkey)"
must "$CUZK" prove "$WORK/cz.zkey" "$WTNS" "$WORK/cz_proof2.json" "$WORK/cz_public2.json"
end

begin "snarkjs and cuzk verify it; public.json as snarkjs's"
verify_ok "$SNARKJS" groth16 verify "$WORK/cz_vk.json" "$WORK/cz_public2.json" "$WORK/cz_proof2.json"
verify_ok "$CUZK" verify "$WORK/cz_vk.json" "$WORK/cz_public2.json" "$WORK/cz_proof2.json"
cmp -s "$WORK/cz_public2.json" "$WORK/sj_public2.json" || die "public.json differs from snarkjs's"
jt snarkjs_layout "$WORK/cz_proof2.json"
end

if ((!HAVE_SNARKJS_KEY)); then
  check_rejections "$WORK/cz_vk.json" "$WORK/cz_public2.json" "$WORK/cz_proof2.json"
fi

echo "$TAG all checks passed"
