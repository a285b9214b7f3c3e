"""The one test helper module: git run in a folder, and building repositories
and histories (write, commit, head, short, merge); hypothesis example counts
scaled by the profile.  Fixtures and the profiles stay in conftest.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
MERGEDRV = [sys.executable, "-m", "mergedrv"]


def examples(n: int) -> int:
    """``n`` examples scaled by the hypothesis profile (conftest.py): n is
    the count at hypothesis' default of 100, so "quick" (25) runs a quarter
    of it and "ci" (100) all of it; never fewer than 10."""
    from hypothesis import settings

    return max(10, n * settings().max_examples // 100)


def git(cwd, *args, check=True, env=None, input=None) -> subprocess.CompletedProcess:
    """Run git in ``cwd``; returns the completed process (text mode)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check, env=full_env, input=input)


def driver_command() -> str:
    """The merge-driver command line for git config, using this interpreter."""
    return f"'{sys.executable}' -m mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y"


def write(repo: Path, files: dict[str, str | None]) -> None:
    """Write (text) or delete (None) files and stage them."""
    for name, text in files.items():
        path = repo / name
        if text is None:
            git(repo, "rm", "-q", "--", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        git(repo, "add", "--", name)


def commit(repo: Path, message: str, files: dict[str, str | None] | None = None) -> str:
    """Write ``files`` (None deletes), commit them, return the full hash."""
    write(repo, files or {})
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return head(repo)


def head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).stdout.strip()


def short(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--short", rev).stdout.strip()


def merge(repo: Path, *branches: str, message: str = "merge", check: bool = True):
    return git(repo, "merge", "-q", "--no-ff", "-m", message, *branches, check=check)


def keyed_repo(path: Path, config: str, attributes: str = "*.md merge=keyed\n") -> Path:
    """A new repository on main at ``path`` with the keyed driver registered,
    ``attributes`` as .gitattributes and ``config`` as .mergedrv.toml."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / ".gitattributes").write_text(attributes)
    git(path, "config", "merge.keyed.name", "mergedrv keyed records")
    git(path, "config", "merge.keyed.driver", driver_command())
    (path / ".mergedrv.toml").write_text(config)
    return path


def diverge(repo: Path, path: str, base: bytes | None, ours: bytes, theirs: bytes) -> None:
    """``base`` committed on main (None: main's HEAD is the base), ``theirs``
    on a branch topic from it, then ``ours`` on main, which stays checked
    out: `git merge topic` is next."""
    if base is not None:
        (repo / path).write_bytes(base)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "topic")
    (repo / path).write_bytes(theirs)
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / path).write_bytes(ours)
    git(repo, "commit", "-qam", "ours")


def loaded_by(cwd: Path, argv: list[str], *, isolated: bool = False, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ``mergedrv ARGV`` in a fresh interpreter (``-I`` if ``isolated``,
    as the installed driver starts): its result and the modules it had loaded."""
    out = Path(cwd) / "modules.txt"
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(out)!r}, 'w').write('\\n'.join(sorted(sys.modules))))\n"
        "from mergedrv.entry import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    proc = subprocess.run([sys.executable, *(["-I"] if isolated else []), "-c", code], cwd=cwd, capture_output=True, text=True, env=env)
    loaded = set(out.read_text().split("\n")) if out.exists() else set()
    out.unlink(missing_ok=True)
    return proc, loaded


def tiny_rows(n: int, side: str) -> bytes:
    """``n`` rows of a few bytes in one table (``| K7 | v |``); each side
    edits one row and adds one (the benchmark's shape too)."""
    rows = [f"| K{i} | v |\n" for i in range(n)]
    if side == "ours":
        rows[n // 3] = f"| K{n // 3} | ours |\n"
        rows.insert(n // 2, "| K-ours | new |\n")
    elif side == "theirs":
        rows[2 * n // 3] = f"| K{2 * n // 3} | theirs |\n"
        rows.append("| K-theirs | new |\n")
    return ("| ID | v |\n|---|---|\n" + "".join(rows)).encode()
