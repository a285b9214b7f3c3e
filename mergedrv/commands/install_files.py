"""What `mergedrv install` and its hooks share: the marks, the hook stages, the
repository's places (`Where`, `locate`) and the text file helpers.  install.py
and install_hooks.py both import it; it imports neither."""

from __future__ import annotations

import os
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
# stages the pre-commit framework runs for us; it cannot pass post-rewrite's stdin
FRAMEWORK_STAGES = ("pre-commit", "commit-msg", "pre-merge-commit")


InstallError = Error  # a problem to show as one line; the command exits 2


def _text(out: bytes) -> str:
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
    common = Path(_text(git(root, "rev-parse", "--git-common-dir")).strip())
    hooks = Path(_text(git(root, "rev-parse", "--git-path", "hooks")).strip())
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


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise InstallError(f"{path}: not UTF-8; mergedrv will not edit it") from None


def _write_text(path: Path, text: str) -> None:
    from ..atomic import atomic_write

    atomic_write(str(path), text.encode("utf-8"))
