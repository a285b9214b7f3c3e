#!/usr/bin/env bash
# Set up mergedrv on this machine: a .venv beside this script with mergedrv and
# its test extras installed.  Idempotent: a second run changes nothing.
#   ./install.sh               create/refresh .venv
#   ./install.sh --repo DIR    then wire mergedrv into the git repository DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo=""
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) [ $# -ge 2 ] || { echo "install.sh: --repo needs a directory" >&2; exit 2; }; repo="$2"; shift 2 ;;
    --repo=*) repo="${1#--repo=}"; shift ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
  esac
done

py=""
for cand in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
  [ -n "$cand" ] || continue
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    py="$cand"; break
  fi
done
[ -n "$py" ] || { echo "install.sh: mergedrv needs Python >= 3.11 (pygit2 and pre-commit do); none found" >&2; exit 1; }

venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
fi
stamp="$venv/.mergedrv-installed"
want="$(cat "$here/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$here[test]" --config-settings editable_mode=compat
  echo "$want" > "$stamp"
fi
# the bytecode, written now: the driver starts once per file per merge and the
# hooks on every commit, and with PYTHONDONTWRITEBYTECODE set (or a read-only
# checkout) Python would compile every module again at each start
"$venv/bin/python" -m compileall -q "$here/mergedrv" >/dev/null || true

if [ -n "$repo" ]; then
  "$venv/bin/mergedrv" install --repo "$repo"
fi
