#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The Debian package of a finished build, and (with --check) the package installed and tried.
#   scripts/package.sh           cpack -G DEB in $BUILD_DIR: $BUILD_DIR/packages/cuzk_<version>_<arch>.deb
#   scripts/package.sh --check   then lintian on it (any error fails), install it with dpkg (apt-get
#                                install -f where dependencies are missing), run the installed /usr/bin/cuzk selfcheck, load the installed
#                                /etc/cuzk/cuzk.toml with it, `systemd-analyze verify` the unit (where
#                                systemd-analyze is installed), start the installed daemon as the user
#                                cuzk and ask it `cuzk status`, and remove the package again
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

# Each step is run by lib.sh's `phase` as `"$@" || rc=$?`, where bash's set -e does not reach into
# the function: every command that can fail says `|| return 1` itself.
fail() { printf '%s\n' "$*" >&2; return 1; }

make_package() {
  [[ -x $BUILD_ABS/src/apps/cuzk ]] || fail "no $BUILD_DIR/src/apps/cuzk: build it first" || return 1
  command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps missing: apt-get install dpkg-dev" || return 1
  rm -f "$PKG_DIR"/cuzk_*.deb
  (cd "$BUILD_ABS" && cpack -G DEB -B "$PKG_DIR") || return 1
  deb=$(ls "$PKG_DIR"/cuzk_*.deb) || return 1
  dpkg-deb --info "$deb" || return 1
  # Only the command, the unit, the config and documentation: no test binary, library or header.
  local files want extra
  files=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}') || return 1
  printf '%s\n' "$files"
  for want in ./usr/bin/cuzk ./etc/cuzk/cuzk.toml ./usr/lib/systemd/system/cuzk.service \
              ./usr/share/doc/cuzk/README.md ./usr/share/doc/cuzk/copyright ./usr/share/doc/cuzk/changelog.gz \
              ./usr/share/man/man1/cuzk.1.gz; do
    grep -qx -- "$want" <<<"$files" || fail "the package lacks $want" || return 1
  done
  extra=$(grep -v -x -e ./usr/bin/cuzk -e './usr/lib/systemd/system/cuzk.service' -e './etc/cuzk/cuzk.toml' \
    -e './usr/share/doc/cuzk/.*' -e './usr/share/cuzk/proto/.*\.proto' -e './usr/share/man/man1/cuzk\.1\.gz' <<<"$files")
  [[ -z $extra ]] || fail "the package holds more than it should:" "$extra" || return 1
  dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/cuzk/cuzk.toml ||
    fail "/etc/cuzk/cuzk.toml is not a conffile of the package" || return 1
  echo "package: $deb ($(du -h "$deb" | cut -f1))"
}

# Debian's own checks on the package (Policy, file modes, maintainer scripts, the unit): any error
# fails; warnings and notes are printed for whoever reads the log.
run_lintian() {
  command -v lintian >/dev/null || fail "lintian missing: apt-get install lintian (scripts/setup.sh)" || return 1
  lintian --fail-on error --info --display-level ">=warning" "$deb" || fail "lintian found errors in $deb" || return 1
  echo "lintian: no errors"
}

SUDO=()
install_package() {
  if ! "${SUDO[@]}" dpkg -i "$deb"; then
    echo "dpkg -i left dependencies missing: apt-get install -f"
    "${SUDO[@]}" apt-get update -q || return 1
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q --no-install-recommends || return 1
  fi
  [[ $(dpkg-query -W -f='${db:Status-Status}' cuzk) == installed ]] || fail "cuzk is not installed" || return 1
  getent passwd cuzk || fail "the package made no user cuzk" || return 1
}

check_installed() {
  /usr/bin/cuzk --version || return 1
  /usr/bin/cuzk selfcheck || return 1
  # The installed binary loads the installed config (the test packaging_tests checks the source).
  /usr/bin/cuzk daemon --print-config --config /etc/cuzk/cuzk.toml >/dev/null || return 1
  echo "/etc/cuzk/cuzk.toml loads"
  if ! command -v systemd-analyze >/dev/null; then
    echo "systemd-analyze not installed: the unit is not verified"
    return 0
  fi
  # The unit's syntax, its settings and its ExecStart binary, without a running systemd. verify
  # exits 0 on some warnings (an unknown key, a bad value): those fail here too.
  local out
  out=$(systemd-analyze verify /usr/lib/systemd/system/cuzk.service 2>&1) || fail "$out" || return 1
  if grep -E 'cuzk\.service:[0-9]+:' <<<"$out"; then
    fail "systemd-analyze verify: the unit has warnings" || return 1
  fi
  echo "systemd-analyze verify cuzk.service: ok"
}

# The installed daemon started as the unit starts it: the user cuzk, the installed config, the state
# directory systemd would make; `cuzk status` must find it on the default socket, SIGTERM must stop
# it with exit 0. Skipped where /var/lib/cuzk exists (the state of an earlier install).
check_daemon() {
  if [[ -e /var/lib/cuzk ]]; then
    echo "/var/lib/cuzk exists: the installed daemon is not started here"
    return 0
  fi
  command -v setpriv >/dev/null || { echo "no setpriv: the installed daemon is not started here"; return 0; }
  "${SUDO[@]}" install -d -o cuzk -g cuzk -m 0700 /var/lib/cuzk || return 1
  "${SUDO[@]}" setpriv --reuid=cuzk --regid=cuzk --init-groups --no-new-privs \
    /usr/bin/cuzk daemon --config /etc/cuzk/cuzk.toml &
  local pid=$! ok=0 rc=0 i
  for ((i = 0; i < 300; ++i)); do
    if "${SUDO[@]}" /usr/bin/cuzk status >/dev/null 2>&1; then ok=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  ((ok)) && "${SUDO[@]}" /usr/bin/cuzk status >/dev/null && echo "cuzk status: answered"
  "${SUDO[@]}" kill -TERM "$pid" 2>/dev/null
  wait "$pid" || rc=$?
  "${SUDO[@]}" rm -rf /var/lib/cuzk
  ((ok)) || fail "the installed daemon did not answer \`cuzk status\` within 30 s" || return 1
  ((rc == 0)) || fail "the installed daemon exited $rc on SIGTERM" || return 1
  echo "the installed daemon ran as cuzk, answered on /var/lib/cuzk/cuzk.sock and stopped"
}

remove_package() {
  if [[ ${CUZK_KEEP_PACKAGE:-0} == 1 ]]; then
    echo "CUZK_KEEP_PACKAGE=1: cuzk stays installed"
    return 0
  fi
  "${SUDO[@]}" dpkg --purge cuzk || return 1
  [[ ! -e /usr/bin/cuzk && ! -e /etc/cuzk/cuzk.toml ]] || fail "dpkg --purge left files" || return 1
}

phase "package (cpack -G DEB)" make_package
((check)) || exit 0
phase "package: lintian" run_lintian
if [[ $(id -u) != 0 ]]; then
  if ! command -v sudo >/dev/null; then
    echo "not root and no sudo: the package is made but not installed or checked"
    exit 0
  fi
  SUDO=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
phase "package: install (dpkg -i)" install_package
phase "package: installed cuzk selfcheck" check_installed
phase "package: installed daemon" check_daemon
phase "package: remove (dpkg --purge)" remove_package
