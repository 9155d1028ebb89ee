#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The license line at the top of every source file (LICENSE-MIT, LICENSE-APACHE).
#   scripts/spdx.sh           adds `SPDX-License-Identifier: MIT OR Apache-2.0` where it is missing,
#                             in the comment syntax of the file's language
#   scripts/spdx.sh --check   adds nothing; lists the files without it and exits 1 if there are any
#                             (the ctest spdx_headers runs this, so a new file cannot lack it)
# Which files: those git tracks (or would: untracked files git does not ignore) under the source
# folders, plus every CMakeLists.txt and cmake/*.cmake. Data (JSON, circuits' binaries, Markdown) is
# not source and has no comment syntax to carry the line; nor have dpkg's conffiles list, the DEP-5
# copyright file and the changelog, formats of their own.
# The line is looked for in a file's first five lines: after a shebang, a Python coding line, a
# Dockerfile's parser directive (BuildKit reads it only on the first line) or an HTML doctype.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/spdx.sh [--check]" >&2; exit 2 ;;
esac

id="SPDX-License-Identifier: MIT OR Apache-2.0"

# The comment that carries the line in file $1, into $c; empty where the file is not source. Sets a
# variable rather than printing: a $(...) per file would fork once for each.
comment_for() {
  c=""
  case "$1" in
    packaging/debian/conffiles.in | packaging/debian/copyright | packaging/debian/changelog) ;;
    *.cpp | *.hpp | *.cu | *.cuh | *.c | *.h | *.js | *.proto | *.circom | *.cpp.in) c="// $id" ;;
    *.sh | *.py | *.toml | *.cmake | */CMakeLists.txt | CMakeLists.txt | *.dict | *.dockerignore \
      | */Dockerfile | *.service.in | packaging/debian/p*) c="# $id" ;;
    *.map) c="/* $id */" ;;
    *.html) c="<!-- $id -->" ;;
  esac
}

files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    {
      git ls-files --cached --others --exclude-standard -- src tests bench fuzz scripts clients proto packaging
      git ls-files --cached --others --exclude-standard -- CMakeLists.txt 'cmake/*.cmake'
    } | sort -u
  else
    # A source tree without git (an unpacked release): every file, less what builds and installs make.
    find src tests bench fuzz scripts clients proto packaging CMakeLists.txt cmake -type f \
      -not -path '*/node_modules/*' -not -path '*/__pycache__/*' -not -path '*.egg-info/*' \
      -not -path 'clients/python/build/*' | sort
  fi
}

# The source files, by their comment syntax (a bash case per file: no process each).
sources=()
while IFS= read -r f; do
  [[ -f $f ]] || continue  # deleted in the work tree, not yet in the index
  comment_for "$f"
  [[ -n $c ]] && sources+=("$f")
done < <(files)

# Those without the line in their first five lines, read by one awk for all of them.
lacking=()
if ((${#sources[@]})); then
  mapfile -t lacking < <(awk -v id="$id" '
    FNR == 1 { if (f != "" && !ok) print f; f = FILENAME; ok = 0 }
    FNR <= 5 && index($0, id) { ok = 1; nextfile }
    FNR > 5 { nextfile }
    END { if (f != "" && !ok) print f }' "${sources[@]}")
fi

missing=${#lacking[@]}
for f in "${lacking[@]}"; do
  if ((check)); then
    echo "$f"
    continue
  fi
  comment_for "$f"
  # After a first line that must stay first: a shebang, a Python coding line, a Dockerfile parser
  # directive, an HTML doctype.
  first=$(head -n 1 -- "$f")
  tmp=$(mktemp)
  if [[ $first == '#!'* || $first == *'coding'*'utf-8'* || $first == '# syntax='* || $first == '<!DOCTYPE'* || $first == '<!doctype'* ]]; then
    { printf '%s\n' "$first" "$c"; tail -n +2 -- "$f"; } >"$tmp"
  else
    { printf '%s\n' "$c"; cat -- "$f"; } >"$tmp"
  fi
  # Keep the file's mode (scripts stay executable).
  chmod --reference="$f" "$tmp"
  mv -- "$tmp" "$f"
  echo "added: $f"
done

if ((check && missing)); then
  echo "spdx.sh: $missing file(s) above lack the line \"$id\" in their first five lines;" \
    "scripts/spdx.sh adds it" >&2
  exit 1
fi
((check)) && echo "spdx.sh: every source file carries \"$id\""
exit 0
