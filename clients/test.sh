#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The Python and JavaScript clients' tests against a real daemon: starts `cuzk daemon` (CPU backend)
# with a config and socket in a temporary folder, then runs clients/python/tests (unittest: the
# stubs match the proto; prove by bytes and by path, submit/await/cancel/status, errors) and
# clients/js/test (node --test: the same through groth16.prove and Client). Each client registers
# tests/data/snarkjs/bn128/circuit.zkey; each proof is checked with snarkjs groth16 verify and its
# public signals against public.json. For input JSON each also registers the witness tests' matrix
# circuit with its wasm (tests/data/witness) and a `cuzk setup` key made here, proves from its
# input.json's inputs and checks the public signals against snarkjs's witness of them; an input
# the circuit refuses fails that job with circom's message. The daemon also listens on TCP with TLS,
# a client certificate and a token (certificates made here with openssl, CUZK_TEST_PKI, at
# CUZK_TEST_ADDR): each client proves there with them and is refused without the token. Last,
# clients/README.md's Python and JavaScript snippets run as they stand.
#
#   clients/test.sh [CUZK]     CUZK defaults to ${BUILD_DIR:-build}/src/apps/cuzk
#
# Needs python3 with grpcio and protobuf (Debian: python3-grpcio python3-protobuf), protoc, node
# with clients/js/node_modules, tools/node's snarkjs and wabt's wasm2c (scripts/setup.sh installs
# them all). A
# missing one skips the tests with a note, or fails them under CI=true. PYTHON picks the
# interpreter (default: /usr/bin/python3, the one Debian's packages are for, where it exists).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR = /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
CUZK=${1:-$BUILD_DIR/src/apps/cuzk}
[[ $CUZK = /* ]] || CUZK=$PWD/$CUZK
if [[ -z ${PYTHON:-} ]]; then
  if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
SNARKJS=$ROOT/tools/node/node_modules/.bin/snarkjs
DATA=$ROOT/tests/data/snarkjs/bn128
TEST_TIMEOUT=${CUZK_CLIENT_TEST_TIMEOUT:-300}  # seconds, per client's tests

log() { printf '[clients] %s\n' "$*"; }

missing=()
[[ -x $CUZK ]] || missing+=("the cuzk binary ($CUZK)")
"$PYTHON" -c 'import grpc, google.protobuf' 2>/dev/null ||
  missing+=("$PYTHON with grpc and google.protobuf (apt-get install python3-grpcio python3-protobuf)")
command -v protoc >/dev/null || missing+=("protoc (apt-get install protobuf-compiler)")
command -v node >/dev/null || missing+=("node")
command -v openssl >/dev/null || missing+=("openssl (apt-get install openssl)")
[[ -d $ROOT/clients/js/node_modules/@grpc/grpc-js ]] || missing+=("clients/js/node_modules (npm ci in clients/js)")
[[ -x $SNARKJS ]] || missing+=("snarkjs ($SNARKJS: scripts/setup.sh)")
command -v wasm2c >/dev/null || missing+=("wasm2c (apt-get install wabt)")
if ((${#missing[@]})); then
  for m in "${missing[@]}"; do log "missing: $m" >&2; done
  if [[ ${CI:-} == true ]]; then
    log "CI=true: the client tests cannot be skipped" >&2
    exit 1
  fi
  log "skipped (scripts/setup.sh installs what is missing)"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-clients.XXXXXX")
daemon_pid=""
cleanup() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/witnesses"
cp "$DATA/circuit.wtns" "$tmp/witnesses/"
# The README's snippets run from a folder of their own holding the files they name (readme_snippets
# below); their by-path witnesses are under it, so it is a witness_dirs entry too.
snip=$tmp/readme
mkdir -p "$snip/witnesses"
# Remote access (docs/cluster.md): a CA, a server certificate for 127.0.0.1, a client certificate and
# a token, for a TCP listener that asks for all of them beside the plain socket.
pki=$tmp/pki
mkdir -p "$pki"
ec_key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${ec_key[@]}" -days 2 -subj /CN=cuzk-test-ca -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
for name in server client; do
  if [[ $name == server ]]; then ext='subjectAltName=DNS:localhost,IP:127.0.0.1'; else ext='extendedKeyUsage=clientAuth'; fi
  printf '%s\n' "$ext" >"$pki/$name.ext"
  openssl req "${ec_key[@]}" -subj "/CN=$name" -keyout "$pki/$name.key" -out "$pki/$name.csr" 2>/dev/null
  openssl x509 -req -days 2 -in "$pki/$name.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial \
    -extfile "$pki/$name.ext" -out "$pki/$name.pem" 2>/dev/null
done
openssl rand -hex 32 >"$pki/token"
tcp_port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/cuzk.toml" <<TOML
data_dir = "$tmp/data"
socket = "$tmp/cuzk.sock"
listen = "127.0.0.1:$tcp_port"
tls_cert = "$pki/server.pem"
tls_key = "$pki/server.key"
tls_client_ca = "$pki/ca.pem"
auth_token_file = "$pki/token"
http = ""
backend = "cpu"
threads = 2
drain_grace_s = 0
log_level = "warn"
witness_dirs = ["$tmp/witnesses", "$snip/witnesses"]
# The clients register keys and wasm over TCP too: paths a client names must lie under key_dirs.
key_dirs = ["$ROOT/tests/data", "$tmp", "$snip"]
TOML

# The circuit with a witness generator: a development key for the matrix circuit, and the public
# signals of snarkjs's witness of matrix.input.json (what a proof from those inputs must carry).
WITNESS_DATA=$ROOT/tests/data/witness
"$CUZK" setup "$WITNESS_DATA/bn128/matrix.r1cs" "$tmp/matrix.zkey" --vk "$tmp/matrix_vk.json" >/dev/null 2>&1
"$SNARKJS" wtns export json "$WITNESS_DATA/bn128/matrix.wtns" "$tmp/matrix_wtns.json" >/dev/null
node -e 'const w = require(process.argv[1]); console.log(JSON.stringify(w.slice(1, 13)));' \
  "$tmp/matrix_wtns.json" >"$tmp/matrix_public.json"

# A witness cache of its own: each run compiles the wasm once, as a fresh daemon would.
CUZK_WITNESS_CACHE=$tmp/witness-cache "$CUZK" daemon --config "$tmp/cuzk.toml" >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
ready=0
for _ in $(seq 1 300); do  # 30 s
  if ! kill -0 "$daemon_pid" 2>/dev/null; then break; fi
  if [[ -S $tmp/cuzk.sock ]] && "$CUZK" status --socket "$tmp/cuzk.sock" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
if ((!ready)); then
  log "the daemon did not answer on $tmp/cuzk.sock within 30 s; its log:" >&2
  cat "$tmp/daemon.log" >&2
  exit 1
fi
log "daemon $daemon_pid up: $("$CUZK" --version 2>/dev/null | head -n1)"

export CUZK_TEST_ADDR=127.0.0.1:$tcp_port CUZK_TEST_PKI=$pki
export CUZK_TEST_SOCKET=$tmp/cuzk.sock CUZK_TEST_DATA=$DATA CUZK_TEST_WITNESS_DIR=$tmp/witnesses \
  CUZK_TEST_TMP=$tmp SNARKJS CUZK_TEST_MATRIX_ZKEY=$tmp/matrix.zkey CUZK_TEST_MATRIX_VK=$tmp/matrix_vk.json \
  CUZK_TEST_MATRIX_PUBLIC=$tmp/matrix_public.json CUZK_TEST_MATRIX_WASM=$WITNESS_DATA/bn128/matrix.wasm \
  CUZK_TEST_MATRIX_INPUT=$WITNESS_DATA/circuits/matrix.input.json
rc=0
log "python ($("$PYTHON" --version 2>&1), grpcio $("$PYTHON" -c 'import grpc; print(grpc.__version__)'))"
(cd "$ROOT/clients/python" &&
  timeout "$TEST_TIMEOUT" "$PYTHON" -m unittest -v tests.test_stubs tests.test_daemon) || rc=1
log "javascript (node $(node --version))"
(cd "$ROOT/clients/js" && timeout "$TEST_TIMEOUT" node --test test/) || rc=1

# clients/README.md's Python and JavaScript snippets, verbatim: from a folder holding the files
# they name, against this daemon on the default socket ($XDG_STATE_HOME/cuzk/cuzk.sock, a link to
# it), with cuzk-client resolved to clients/js. Python's registers the circuits JavaScript's uses.
readme_snippet() {  # LANG: the first ```LANG block of clients/README.md
  awk -v fence="\`\`\`$1" '$0 == fence { on = 1; next } on && $0 == "```" { exit } on' "$ROOT/clients/README.md"
}
readme_snippets() {
  mkdir -p "$snip/xdg/cuzk" "$snip/node_modules"
  ln -sf "$tmp/cuzk.sock" "$snip/xdg/cuzk/cuzk.sock"
  ln -sfn "$ROOT/clients/js" "$snip/node_modules/cuzk-client"
  cp "$DATA/circuit.zkey" "$snip/multiplier.zkey"
  cp "$DATA/circuit.wtns" "$snip/circuit.wtns"
  cp "$DATA/circuit.wtns" "$snip/witnesses/p0.wtns"
  cp "$DATA/circuit.wtns" "$snip/witnesses/p1.wtns"
  cp "$tmp/matrix.zkey" "$snip/matrix.zkey"
  cp "$WITNESS_DATA/bn128/matrix.wasm" "$snip/matrix.wasm"
  readme_snippet python >"$snip/snippet.py"
  readme_snippet js >"$snip/snippet.js"
  [[ -s $snip/snippet.py && -s $snip/snippet.js ]] || { log "clients/README.md: a snippet was not found" >&2; return 1; }
  (cd "$snip" && XDG_STATE_HOME=$snip/xdg PYTHONPATH=$ROOT/clients/python \
    timeout "$TEST_TIMEOUT" "$PYTHON" snippet.py >"$snip/python.out") ||
    { log "clients/README.md's Python snippet failed" >&2; return 1; }
  grep -q "publicSignals\|pi_a" "$snip/python.out" || { log "the Python snippet printed no proof" >&2; return 1; }
  (cd "$snip" && XDG_STATE_HOME=$snip/xdg timeout "$TEST_TIMEOUT" node snippet.js >"$snip/js.out") ||
    { log "clients/README.md's JavaScript snippet failed" >&2; return 1; }
  grep -q "pi_a" "$snip/js.out" || { log "the JavaScript snippet printed no proof" >&2; return 1; }
  log "clients/README.md's Python and JavaScript snippets ran"
}
log "clients/README.md's snippets"
readme_snippets || rc=1

if ! kill -0 "$daemon_pid" 2>/dev/null; then
  log "the daemon exited during the tests; its log:" >&2
  cat "$tmp/daemon.log" >&2
  rc=1
elif ((rc)); then
  log "the daemon's log:" >&2
  cat "$tmp/daemon.log" >&2
fi
((rc)) && log "FAILED" >&2 || log "passed"
exit "$rc"
