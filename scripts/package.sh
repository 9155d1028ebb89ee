#!/usr/bin/env bash
# The Debian package of a finished build, and (with --check) the package installed and tried.
#   scripts/package.sh           cpack -G DEB in $BUILD_DIR: $BUILD_DIR/packages/cuzk_<version>_<arch>.deb
#   scripts/package.sh --check   then install it with dpkg (apt-get install -f where dependencies are
#                                missing), run the installed /usr/bin/cuzk selfcheck, load the installed
#                                /etc/cuzk/cuzk.toml with it, `systemd-analyze verify` the unit (where
#                                systemd-analyze is installed), and remove the package again
#                                (dpkg --purge; CUZK_KEEP_PACKAGE=1 keeps it)
# Builds nothing: $BUILD_DIR must hold a built cuzk, configured with -DCMAKE_INSTALL_PREFIX=/usr (as
# .ci/run configures it). --check installs system-wide: root, or sudo; without either it says so and
# stops after making the package. Environment: see scripts/lib.sh (BUILD_DIR).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/package.sh [--check]" >&2; exit 2 ;;
esac

BUILD_ABS=$(cd "$BUILD_DIR" && pwd)
PKG_DIR=$BUILD_ABS/packages
deb=""

make_package() {
  [[ -x $BUILD_ABS/src/apps/cuzk ]] || { echo "no $BUILD_DIR/src/apps/cuzk: build it first" >&2; return 1; }
  command -v dpkg-shlibdeps >/dev/null || { echo "dpkg-shlibdeps missing: apt-get install dpkg-dev" >&2; return 1; }
  rm -f "$PKG_DIR"/cuzk_*.deb
  (cd "$BUILD_ABS" && cpack -G DEB -B "$PKG_DIR")
  deb=$(ls "$PKG_DIR"/cuzk_*.deb)
  dpkg-deb --info "$deb"
  dpkg-deb --contents "$deb"
  # Only the command, the unit, the config and documentation: no test binary, library or header.
  local files
  files=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}')
  local want
  for want in ./usr/bin/cuzk ./etc/cuzk/cuzk.toml ./usr/lib/systemd/system/cuzk.service \
              ./usr/share/doc/cuzk/README.md; do
    grep -qx -- "$want" <<<"$files" || { echo "the package lacks $want" >&2; return 1; }
  done
  local extra
  extra=$(grep -v -x -e ./usr/bin/cuzk -e './usr/lib/systemd/system/cuzk.service' -e './etc/cuzk/cuzk.toml' \
    -e './usr/share/doc/cuzk/.*' -e './usr/share/cuzk/proto/.*\.proto' <<<"$files" || true)
  [[ -z $extra ]] || { printf 'the package holds more than it should:\n%s\n' "$extra" >&2; return 1; }
  dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/cuzk/cuzk.toml ||
    { echo "/etc/cuzk/cuzk.toml is not a conffile of the package" >&2; return 1; }
  echo "package: $deb ($(du -h "$deb" | cut -f1))"
}

SUDO=()
install_package() {
  export DEBIAN_FRONTEND=noninteractive
  if ! "${SUDO[@]}" dpkg -i "$deb"; then
    echo "dpkg -i left dependencies missing: apt-get install -f"
    "${SUDO[@]}" apt-get update -q
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q --no-install-recommends
  fi
  [[ $(dpkg-query -W -f='${db:Status-Status}' cuzk) == installed ]]
  getent passwd cuzk
}

check_installed() {
  /usr/bin/cuzk --version
  /usr/bin/cuzk selfcheck
  # The installed binary loads the installed config (the test packaging_tests checks the source).
  /usr/bin/cuzk daemon --print-config --config /etc/cuzk/cuzk.toml >/dev/null
  echo "/etc/cuzk/cuzk.toml loads"
  if command -v systemd-analyze >/dev/null; then
    # Verifies the unit's syntax, its ExecStart binary and its settings without a running systemd.
    local out
    out=$(systemd-analyze verify /usr/lib/systemd/system/cuzk.service 2>&1) || {
      printf '%s\n' "$out" >&2
      return 1
    }
    # verify exits 0 on some warnings; an unknown setting or a bad value is one: fail on those too.
    if grep -E 'cuzk\.service:[0-9]+:' <<<"$out"; then
      echo "systemd-analyze verify: the unit has warnings" >&2
      return 1
    fi
    echo "systemd-analyze verify cuzk.service: ok"
  else
    echo "systemd-analyze not installed: the unit is not verified"
  fi
}

remove_package() {
  if [[ ${CUZK_KEEP_PACKAGE:-0} == 1 ]]; then
    echo "CUZK_KEEP_PACKAGE=1: cuzk stays installed"
  else
    "${SUDO[@]}" dpkg --purge cuzk
    [[ ! -e /usr/bin/cuzk && ! -e /etc/cuzk/cuzk.toml ]]
  fi
}

phase "package (cpack -G DEB)" make_package
((check)) || exit 0
if [[ $(id -u) != 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "not root and no sudo: the package is made but not installed or checked"
    exit 0
  fi
  SUDO=(sudo)
fi
phase "package: install (dpkg -i)" install_package
phase "package: installed cuzk selfcheck" check_installed
phase "package: remove (dpkg --purge)" remove_package
