#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the bionic adapter libraries (libc.so, libdl.so, libm.so; see bionic_shim.c) and the
# driver (rapidsnark_prover.c) into OUT.   build_shim.sh OUT
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$1
mkdir -p "$OUT"
CFLAGS=(-O2 -fPIC -Wall -Wno-builtin-declaration-mismatch)
gcc "${CFLAGS[@]}" -shared -o "$OUT/libc.so" -Wl,-soname,libc.so -Wl,--version-script="$HERE/bionic_shim.map" \
  "$HERE/bionic_shim.c" -ldl
gcc "${CFLAGS[@]}" -shared -DSHIM_LIBDL -o "$OUT/libdl.so" -Wl,-soname,libdl.so -ldl \
  -Wl,--version-script="$HERE/bionic_shim.map" "$HERE/bionic_shim.c"
echo 'int cuzk_bionic_libm_placeholder;' | gcc -x c -fPIC -shared -o "$OUT/libm.so" -Wl,-soname,libm.so -
gcc -O2 -Wall -o "$OUT/rapidsnark_prover" "$HERE/rapidsnark_prover.c" -ldl
