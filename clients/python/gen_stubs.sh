#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Regenerates cuzk_client/_proto/ from proto/cuzk/v1/proving.proto with Debian's protoc and
# grpc_python_plugin (protobuf-compiler, protobuf-compiler-grpc: the packages that build the daemon),
# whose output matches Debian's python3-protobuf and python3-grpcio. Run it after changing the proto;
# tests/test_stubs.py fails while the committed stubs describe another API than the proto.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROTO_ROOT=$(cd "$HERE/../../proto" && pwd)
OUT=$HERE/cuzk_client/_proto
command -v protoc >/dev/null || { echo "gen_stubs.sh: no protoc (apt-get install protobuf-compiler)" >&2; exit 1; }
PLUGIN=$(command -v grpc_python_plugin) ||
  { echo "gen_stubs.sh: no grpc_python_plugin (apt-get install protobuf-compiler-grpc)" >&2; exit 1; }
# Generated with the proto's full name (cuzk/v1/proving.proto, as the daemon knows it), then moved
# into cuzk_client/_proto with the import made package-relative: the stubs claim no top-level name.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
protoc -I "$PROTO_ROOT" --python_out="$tmp" --grpc_out="$tmp" --plugin=protoc-gen-grpc="$PLUGIN" \
  "$PROTO_ROOT/cuzk/v1/proving.proto"
# The license line of every source file (scripts/spdx.sh --check) goes after protoc's coding line,
# which Python reads only in a file's first two lines.
spdx='# SPDX-License-Identifier: MIT OR Apache-2.0'
sed "1a $spdx" "$tmp/cuzk/v1/proving_pb2.py" >"$OUT/proving_pb2.py"
sed -e 's/^from cuzk\.v1 import proving_pb2 as/from . import proving_pb2 as/' -e "1i $spdx" \
  "$tmp/cuzk/v1/proving_pb2_grpc.py" >"$OUT/proving_pb2_grpc.py"
grep -q '^from \. import proving_pb2 as' "$OUT/proving_pb2_grpc.py" ||
  { echo "gen_stubs.sh: the grpc stub's import of proving_pb2 was not found to rewrite" >&2; exit 1; }
echo "gen_stubs.sh: wrote $OUT/proving_pb2.py and proving_pb2_grpc.py"
