#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The witness of a circom circuit of over a million constraints (bench/witness/, 2,000 chained
# Poseidon(2) hashes, 1,034,000 constraints), computed by three whole commands:
#
#   - `snarkjs wtns calculate` (Node, circom's wasm);
#   - circom's own C++ generator (`circom --c`, built with make: g++, nasm, GMP, nlohmann-json),
#     where it can be built; a missing tool is named in its row and the rest goes on;
#   - `cuzk --threads 1 wtns calculate` (docs/witness.md): the wasm compiled once into the witness
#     cache, the first calculation recording a witness graph beside it, later ones replaying it.
#
# Measured: wall time, CPU time (user + system) and peak resident memory of each whole command
# (process start, reading, computing, writing the 33 MB .wtns). The peak of cuzk's first run is its
# C compiler's (a child process); cuzk's own process's peak, which `cuzk -v` prints, is given too. cuzk's first run on an empty cache
# (compile + graph recording) once, with its steps as `cuzk -v` prints them; then --reps rounds,
# after one that is not counted, in which the three commands run one after another, cuzk between
# the other two (the order reversed every round), so that background load hits neighbours alike
# and each ratio is taken within a round. The table gives medians, min-max, and the median of the
# per-round ratios to circom's C++ generator. The .wtns of all of them must be byte-identical: the
# script fails otherwise.
#
#   scripts/bench_witness.sh [--reps R]
#
# The circuit is compiled once with circom2 (--wasm, then --c; a minute or two, 0.8 GB, each) and the
# C++ generator built once, into $BUILD_DIR/bench_witness; the build's time is kept and reported.
# Prints one line per run and one table (markdown) at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR = /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
CUZK=$BUILD_DIR/src/apps/cuzk
NODE_MODULES=tools/node/node_modules
SNARKJS=$ROOT/$NODE_MODULES/.bin/snarkjs
CIRCOM=$ROOT/$NODE_MODULES/.bin/circom2
WORK=$BUILD_DIR/bench_witness
NAME=poseidon_chain_2000
REPS=5
while (($#)); do
  case $1 in
    --reps) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || { echo "--reps takes 1 to 99" >&2; exit 2; }
            REPS=$2; shift 2 ;;
    *) echo "usage: $0 [--reps R]" >&2; exit 2 ;;
  esac
done
[[ -x $CUZK ]] || { echo "no $CUZK: build it first (BUILD_DIR=$BUILD_DIR)" >&2; exit 1; }
[[ -x $SNARKJS && -x $CIRCOM ]] || { echo "snarkjs/circom2 missing: run scripts/setup.sh" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "no /usr/bin/time (Debian: time)" >&2; exit 1; }

mkdir -p "$WORK"
WORK_REL=$(realpath -m --relative-to="$ROOT" "$WORK")
# circom2 runs under WASI with the working folder opened: paths must be relative to it.
CIRCOM_ARGS=("bench/witness/$NAME.circom" -l "$NODE_MODULES" -o "$WORK_REL")

WASM=$WORK/${NAME}_js/$NAME.wasm
if [[ ! -s $WASM ]]; then
  echo "compiling bench/witness/$NAME.circom with circom2 --wasm (once)"
  (cd "$ROOT" && "$CIRCOM" "${CIRCOM_ARGS[@]}" --wasm >"$WORK/circom.log")
fi
echo '{"in": ["1", "2"]}' >"$WORK/input.json"

# Runs a command; prints "wall_s max_rss_kb cpu_s" (wall from bash's clock; peak RSS and user +
# system CPU from /usr/bin/time). Its output goes to $WORK/out.log; a failure prints that and ends
# the script.
timed() {
  local t0=$EPOCHREALTIME t1
  /usr/bin/time -f '%M %U %S' -o "$WORK/time.out" "$@" >"$WORK/out.log" 2>&1 ||
    { echo "failed: $*" >&2; cat "$WORK/out.log" >&2; exit 1; }
  t1=$EPOCHREALTIME
  tail -n 1 "$WORK/time.out" | awk -v a="$t0" -v b="$t1" '{ printf "%.3f %d %.2f\n", b - a, $1, $2 + $3 }'
}

# --- circom's C++ generator, where it can be built ------------------------------------------------
CPP_DIR=$WORK/${NAME}_cpp
CPP_BIN=$CPP_DIR/$NAME
CPP_MISSING=""
for pkg in g++ make nasm libgmp-dev nlohmann-json3-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || CPP_MISSING+=" $pkg"
done
if [[ -z $CPP_MISSING && ! -x $CPP_BIN ]]; then
  echo "compiling bench/witness/$NAME.circom with circom2 --c, then make (once)"
  r=$(cd "$ROOT" && timed "$CIRCOM" "${CIRCOM_ARGS[@]}" --c); read -r gen_s gen_kb <<<"$r"
  cp "$WORK/out.log" "$WORK/circom_c.log"
  r=$(timed make -C "$CPP_DIR" -j"$(nproc)"); read -r make_s make_kb <<<"$r"
  cp "$WORK/out.log" "$WORK/make.log"
  echo "$gen_s $gen_kb $make_s $make_kb $(date -u +%Y-%m-%d)" >"$CPP_DIR/build.time"
fi
if [[ -z $CPP_MISSING ]]; then
  read -r gen_s gen_kb make_s make_kb built_on <"$CPP_DIR/build.time"
  echo "circom's C++ generator (built $built_on): circom2 --c ${gen_s} s, make ${make_s} s, ${make_kb} KB"
else
  echo "circom's C++ generator not built: missing$CPP_MISSING"
fi

# --- cuzk's first run on an empty cache: compile, graph recording, its steps ---------------------
CUZK_ARGS=(--threads 1 wtns calculate --witness-cache "$WORK/cache" "$WASM" "$WORK/input.json")
rm -rf "$WORK/cache"
r=$(timed "$CUZK" -v "${CUZK_ARGS[@]}" "$WORK/cuzk_first.wtns"); read -r first_s first_kb first_cpu <<<"$r"
# -v's step lines ("  witness: compile the wasm (...)   12.345 s") as "compile the wasm 12.3 s; ...".
steps() {
  sed -nE 's/^ +(witness: )?([^(]*[^ (])( \(.*\))? +([0-9.]+) s$/\2 \4 s/p' "$WORK/out.log" |
    grep -v '^total ' | awk '{ t = $(NF - 1); $(NF - 1) = sprintf("%.2f", t); print }' | paste -sd ';' | sed 's/;/; /g'
}
first_steps=$(steps)
first_own_mb=$(sed -nE 's/^ +peak memory \(this process\) +([0-9.]+) MB$/\1/p' "$WORK/out.log")
echo "cuzk, empty cache: ${first_s} s, ${first_kb} KB (cuzk's own process: ${first_own_mb:-?} MB), cpu ${first_cpu} s ($first_steps)"
compgen -G "$WORK/cache/*.graph" >/dev/null ||
  echo "note: no witness graph in $WORK/cache after the first run: later runs run the compiled wasm" >&2
r=$(timed "$CUZK" -v "${CUZK_ARGS[@]}" "$WORK/cuzk.wtns")
cached_steps=$(steps)
echo "cuzk, cached (one -v run, not counted): $cached_steps"

# --- paired, interleaved rounds -------------------------------------------------------------------
run_node() { timed "$SNARKJS" wtns calculate "$WASM" "$WORK/input.json" "$WORK/node.wtns"; }
run_cuzk() { timed "$CUZK" "${CUZK_ARGS[@]}" "$WORK/cuzk.wtns"; }
run_cpp() { timed "$CPP_BIN" "$WORK/input.json" "$WORK/cpp.wtns"; }
node_s=() node_kb=() node_cpu=() cuzk_s=() cuzk_kb=() cuzk_cpu=() cpp_s=() cpp_kb=() cpp_cpu=()
for ((i = 0; i <= REPS; i++)); do   # round 0 warms the page cache and is not counted
  order=(cpp cuzk node); ((i % 2)) && order=(node cuzk cpp)
  line="round $i$( ((i)) || echo ' (not counted)'):"
  for who in "${order[@]}"; do
    [[ $who = cpp && -n $CPP_MISSING ]] && continue
    r=$("run_$who"); read -r s kb cpu <<<"$r"
    line+=" $who ${s} s (cpu $cpu s) ${kb} KB;"
    ((i)) || continue
    case $who in
      node) node_s+=("$s"); node_kb+=("$kb"); node_cpu+=("$cpu") ;;
      cuzk) cuzk_s+=("$s"); cuzk_kb+=("$kb"); cuzk_cpu+=("$cpu") ;;
      cpp) cpp_s+=("$s"); cpp_kb+=("$kb"); cpp_cpu+=("$cpu") ;;
    esac
  done
  echo "$line"
done

# --- the witnesses must agree ---------------------------------------------------------------------
cmp "$WORK/node.wtns" "$WORK/cuzk.wtns" || { echo "FAIL: Node's and cuzk's (cached) .wtns differ" >&2; exit 1; }
cmp "$WORK/node.wtns" "$WORK/cuzk_first.wtns" || { echo "FAIL: Node's and cuzk's first-run .wtns differ" >&2; exit 1; }
if [[ -z $CPP_MISSING ]]; then
  cmp "$WORK/node.wtns" "$WORK/cpp.wtns" || { echo "FAIL: Node's and circom C++'s .wtns differ" >&2; exit 1; }
fi
echo "the .wtns files are byte-identical ($(stat -c %s "$WORK/node.wtns") bytes)"

# --- the table ------------------------------------------------------------------------------------
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f s", lo, hi }'; }
cpu_median() { median "$@" | awk '{ printf "%.2f s", $1 }'; }
max_mb() { printf '%s\n' "$@" | sort -g | tail -n 1 | awk '{ printf "%d MB", $1 / 1024 }'; }
# The median of the per-round ratios a[i] / b[i].
paired() {
  local -n a=$1 b=$2
  local r=() k
  for k in "${!a[@]}"; do r+=("$(awk -v x="${a[k]}" -v y="${b[k]}" 'BEGIN { printf "%.4f", x / y }')"); done
  median "${r[@]}" | awk '{ printf "%.2fx", $1 }'
}
cpp_med=""
[[ -z $CPP_MISSING ]] && cpp_med=$(median "${cpp_s[@]}")
to_cpp() { [[ -n $cpp_med ]] && paired "$1" cpp_s || echo "-"; }

echo
echo "| witness of $NAME (1,034,000 constraints), $REPS rounds | median wall | min-max | median cpu | peak RSS | to circom C++ |"
echo "|---|---|---|---|---|---|"
echo "| snarkjs wtns calculate (Node $(node --version)) | $(median "${node_s[@]}") s | $(range "${node_s[@]}") | $(cpu_median "${node_cpu[@]}") | $(max_mb "${node_kb[@]}") | $(to_cpp node_s) |"
if [[ -z $CPP_MISSING ]]; then
  echo "| circom C++ generator (circom --c, g++ -O3) | $cpp_med s | $(range "${cpp_s[@]}") | $(cpu_median "${cpp_cpu[@]}") | $(max_mb "${cpp_kb[@]}") | 1 |"
else
  echo "| circom C++ generator | not built: missing$CPP_MISSING | | | | |"
fi
echo "| cuzk wtns calculate, --threads 1, cached (graph replay) | $(median "${cuzk_s[@]}") s | $(range "${cuzk_s[@]}") | $(cpu_median "${cuzk_cpu[@]}") | $(max_mb "${cuzk_kb[@]}") | $(to_cpp cuzk_s) |"
first_ratio="-"
[[ -n $cpp_med ]] && first_ratio="$(awk -v x="$first_s" -v y="$cpp_med" 'BEGIN { printf "%.1fx", x / y }') (of the median)"
echo "| cuzk, first run on an empty cache (one run: $first_steps) | $first_s s | | $first_cpu s | $((first_kb / 1024)) MB (the C compiler's; cuzk's own: ${first_own_mb:-?} MB) | $first_ratio |"
if [[ -z $CPP_MISSING ]]; then
  echo "| building circom's C++ generator (once, $built_on) | circom2 --c $gen_s s + make $make_s s | | | $((gen_kb / 1024)) MB, $((make_kb / 1024)) MB | |"
fi
echo
echo "cuzk cached / Node, paired: $(paired cuzk_s node_s); cuzk cached steps (-v): $cached_steps"
