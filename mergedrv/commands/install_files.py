"""What `mergedrv install` and its hooks share, and the commands that name
the installed driver (doctor, demo, update-branch): the driver's line and
`.gitattributes` lines, the marks, the hook stages, the repository's places
(`Where`, `locate`) and the text file helpers.  install.py and
install_hooks.py both import it; it imports no command."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import Error
from ..git import git, run as run_git

STATE_FILE = "mergedrv-install.json"
CHAIN_SUFFIX = ".pre-mergedrv"
HOOK_MARK = "# mergedrv-hook"
BLOCK_START = "# >>> mergedrv"
BLOCK_END = "# <<< mergedrv <<<"

# hook stage -> the `mergedrv` arguments it runs ("$1" is the hook's first argument)
STAGES: dict[str, str] = {
    "pre-commit": "check --staged --fix",
    # $1 the message file, $2 its source (message, template, merge, squash, commit), $3 a commit
    "prepare-commit-msg": 'claim-pins "$1" "$2" "$3"',
    "commit-msg": 'check --staged --message-file "$1" --only pin-claims',
    "pre-merge-commit": "check --merge-head",
    "post-rewrite": 'check --rewritten "$1"',  # $1: amend or rebase
    # git >= 2.28, on every ref update; the script exits at once unless a rebase or
    # `am` is updating a branch (`GUARDS`): `rebase --continue` runs no pre-commit hook
    "reference-transaction": 'check --ref-update "$1"',  # $1: prepared, committed or aborted
}
STDIN_STAGES = {"post-rewrite", "reference-transaction"}  # git feeds these `old new [ref]` lines on stdin
# shell lines a stage's script runs before starting mergedrv: exit 0 at once when
# there is nothing to judge (reference-transaction runs on every fetch, commit, checkout)
GUARDS: dict[str, list[str]] = {
    "reference-transaction": [
        '[ "$1" = prepared ] || exit 0',
        'gd=${GIT_DIR:-.git}',
        '[ -d "$gd" ] || gd=$(git rev-parse --git-dir 2>/dev/null) || exit 0',
        '[ -d "$gd/rebase-merge" ] || [ -d "$gd/rebase-apply" ] || exit 0',
        '[ -n "${input+x}" ] || input=$(cat)',
        'case "$input" in *" refs/heads/"*) ;; *) exit 0 ;; esac',
    ],
}
# where a `repo: local` pre-commit framework entry finds this clone's mergedrv:
# the clone's own git config, written by `mergedrv install` (the committed file names no path)
EXE_KEY = "merge.keyed.executable"
# stages the pre-commit framework runs for us; it cannot pass post-rewrite's stdin
FRAMEWORK_STAGES = ("pre-commit", "commit-msg", "pre-merge-commit")


InstallError = Error  # a problem to show as one line; the command exits 2


def text_of(out: bytes) -> str:
    return out.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class Where:
    """The places of one repository that install touches."""

    root: Path  # top of the working tree
    common: Path  # the git folder shared by all worktrees (config, hooks, state)
    hooks: Path  # the hooks folder, core.hooksPath respected
    hooks_path_set: bool

    @property
    def state(self) -> Path:
        return self.common / STATE_FILE


def locate(start: str | os.PathLike) -> Where:
    if not Path(start).is_dir():
        raise InstallError(f"{start}: no such directory")
    from ..git import GitError, toplevel

    try:
        root = Path(toplevel(start))
    except GitError as exc:
        raise InstallError(str(exc)) from None
    common = Path(text_of(git(root, "rev-parse", "--git-common-dir")).strip())
    hooks = Path(text_of(git(root, "rev-parse", "--git-path", "hooks")).strip())
    hooks_path_set = run_git(root, "config", "--get", "core.hooksPath").ok
    return Where(root, root / common if not common.is_absolute() else common, root / hooks if not hooks.is_absolute() else hooks, hooks_path_set)


def find_block(lines: list[str]) -> tuple[int, int] | None:
    """(first, one past last) line index of the mergedrv block, or None."""
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith(BLOCK_START)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == BLOCK_END), None)
    if end is None:
        raise InstallError(f"line {start + 1}: the mergedrv block has no end line {BLOCK_END!r}; remove the block and run again")
    return start, end + 1


def read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise InstallError(f"{path}: not UTF-8; mergedrv will not edit it") from None


def write_text(path: Path, text: str) -> None:
    from ..atomic import atomic_write

    atomic_write(str(path), text.encode("utf-8"))


# --- the driver git runs, and the paths it runs for -----------------------------


DRIVER = "keyed"
DRIVER_NAME = "mergedrv keyed records"
DRIVER_ARGS = "merge %O %A %B -p %P -l %L -s %S -x %X -y %Y"


# --- finding things ---------------------------------------------------------


def executable() -> str:
    """The absolute path of the installed `mergedrv` command (works without the venv on PATH)."""
    beside = Path(os.path.abspath(sys.executable)).with_name("mergedrv")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    import shutil

    return shutil.which("mergedrv") or "mergedrv"


# git's own text merge, where the recorded mergedrv is gone: git runs the driver
# line with `sh -c`.  git before 2.44 leaves %S %X %Y as they are (they are then
# the default labels); `%"X"` is no placeholder, so it stays the literal %X.
FALLBACK = (
    'echo "mergedrv: "{exe}" is missing or cannot run; merging "%P" as plain text (git merge-file);'
    ' run mergedrv install again" >&2; o=%X b=%S t=%Y; case $o in %"X") o=ours b=base t=theirs;; esac;'
    ' exec git merge-file --diff3 --marker-size=%L -L "$o" -L "$b" -L "$t" %A %O %B'
)


def driver_start(exe: str) -> list[str]:
    """How git starts the driver.  For this installation's own command, its
    interpreter runs the package's `__main__.py` (``-I``: isolated, nothing of
    the repository on the import path): the console script imports `re`
    first, ~4 ms of every merge, which the driver otherwise never loads.
    Any other command is run as it is."""
    main = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py")
    if os.path.dirname(os.path.abspath(exe)) == os.path.dirname(sys.executable) and os.path.isfile(main):
        return [sys.executable, "-I", main]
    return [exe]


def driver_command(exe: str | None = None) -> str:
    """The `merge.keyed.driver` value: mergedrv by absolute path with git's
    placeholders; if that file is gone or cannot run (a removed virtual
    environment), git's text merge with its markers instead, never a file left
    unmerged without them."""
    start = driver_start(exe or executable())
    there = " && ".join([f"test -x {shlex.quote(start[0])}", *(f"test -f {shlex.quote(w)}" for w in start[2:])])
    run = f"if {there}; then {shlex.join(start)} {DRIVER_ARGS}; s=$?; case $s in 126|127) ;; *) exit $s;; esac; fi; "
    return run + FALLBACK.format(exe=shlex.quote(" ".join(start)))


def attribute_lines(cfg, counted: bool = True) -> list[str]:
    """`.gitattributes` lines for every record and log path, the config itself
    (pins merge as counters) and, with ``counted``, the other files the
    records' counts name (their numbers merge as counters)."""
    paths = [r.path for r in cfg.records] + [log.path for log in cfg.logs] + [".mergedrv.toml"]
    if counted:  # (a literal path from the top: anchored where it names no folder, as `check.py` would match at any depth)
        paths += [p if "/" in p.lstrip("/") else "/" + p.lstrip("/") for r in cfg.records for p in r.counted_files()]
    return [f"{attribute_pattern(p)} merge={DRIVER}\n" for p in dict.fromkeys(paths)]


_C_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\t"): "\\t", ord("\n"): "\\n"}


def attribute_pattern(path: str) -> str:
    """``path`` as a `.gitattributes` pattern git reads back as the same glob:
    C-style quoted (UTF-8 bytes in octal) when it holds a space, a quote, a
    backslash, a non-ASCII or control character, or starts with ``#`` (else a
    comment); a leading ``!`` (a negative pattern, which git ignores) is escaped."""
    if path.startswith("!"):
        path = "\\" + path
    if not (path.startswith("#") or any(c.isspace() or c in '"\\' or not c.isascii() or not c.isprintable() for c in path.lstrip("\\"))):
        return path
    out = []
    for byte in path.encode("utf-8", "surrogateescape"):
        if byte in _C_ESCAPES:
            out.append(_C_ESCAPES[byte])
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
