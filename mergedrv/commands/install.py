"""`mergedrv install`: wire the merge driver, `.gitattributes` and the hooks into a repository.

Everything it writes is marked, and what it replaced is recorded in the git
folder, so `--uninstall` puts git's config, `.gitattributes` and the hooks back
byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Error
from ..git import git, run as run_git
from ..values import Value
from .install_files import (  # noqa: F401  (the shared names, re-exported for doctor and the tests)
    BLOCK_END,
    BLOCK_START,
    CHAIN_SUFFIX,
    EXE_KEY,
    FRAMEWORK_STAGES,
    HOOK_MARK,
    STAGES,
    STATE_FILE,
    STDIN_STAGES,
    InstallError,
    Where,
    _read_text,
    _text,
    _write_text,
    find_block,
    locate,
)

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


# --- state: what install replaced ---------------------------------------------


@dataclass(slots=True)
class State:
    config_before: dict[str, str | None] = field(default_factory=dict)
    section_existed: bool = False
    attributes_created: bool = False
    newline_added: bool = False
    framework_types: list[str] = field(default_factory=list)  # hook types `pre-commit install` wrote for us
    hooks_dir_created: bool = False
    block_before: list[str] | None = None  # the attributes block found at the first install (committed by a teammate)


def load_state(where: Where) -> State | None:
    try:
        data = json.loads(where.state.read_text())
        return State(**data)
    except (OSError, ValueError, TypeError):
        return None


def save_state(where: Where, state: State) -> None:
    _write_text(where.state, json.dumps({k: getattr(state, k) for k in State.__slots__}, indent=1) + "\n")


# --- marked blocks ----------------------------------------------------------


def attribute_lines(cfg) -> list[str]:
    """`.gitattributes` lines for every record and log path, and the config itself."""
    paths = [r.path for r in cfg.records] + [log.path for log in cfg.logs] + [".mergedrv.toml"]
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


def _user_lines(inside: list[str]) -> list[str]:
    """The lines of the marked block that install did not write (a person
    added them): every line of ours is ``PATTERN merge=mergedrv``."""
    return [line for line in inside if not line.rstrip("\r\n").endswith(f" merge={DRIVER}") or line.count(" merge=") != 1]


def attributes_block(cfg) -> list[str]:
    return [
        f"{BLOCK_START}: keyed records merge with `mergedrv merge` (written by `mergedrv install`;"
        " list the files in .mergedrv.toml and run it again) >>>\n",
        *attribute_lines(cfg),
        BLOCK_END + "\n",
    ]


def write_attributes(where: Where, cfg, state: State, fresh: bool) -> str:
    path = where.root / ".gitattributes"
    text = _read_text(path)
    block = attributes_block(cfg)
    if text is None:
        if fresh:
            state.attributes_created = True
        _write_text(path, "".join(block))
        return "created"
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is not None:
        if fresh:
            state.block_before = lines[span[0] : span[1]]
        kept = _user_lines(lines[span[0] + 1 : span[1] - 1])
        new = "".join(lines[: span[0]] + block[:-1] + kept + block[-1:] + lines[span[1] :])
        if new == text:
            return "unchanged"
        _write_text(path, new)
        return "updated"
    if text and not text.endswith("\n"):
        text += "\n"
        if fresh:
            state.newline_added = True
    _write_text(path, text + "".join(block))
    return "added"


def remove_attributes(where: Where, state: State | None) -> str:
    path = where.root / ".gitattributes"
    text = _read_text(path)
    if text is None:
        return "absent"
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is None:
        return "no mergedrv block"
    if state is not None and state.block_before is not None:  # not ours: put back the block install found
        new = "".join(lines[: span[0]] + state.block_before + lines[span[1] :])
        if new != text:
            _write_text(path, new)
            return "block put back as install found it"
        return "block left as install found it (committed)"
    if _committed(where, text):  # the team's now: uninstalling is this clone's business
        return ("block left as it is: committed, and no install in this clone wrote it" if state is None
                else "block left as it is: committed (the team's; remove it in a commit to stop merging by key for everyone)")
    rest = "".join(lines[: span[0]] + _user_lines(lines[span[0] + 1 : span[1] - 1]) + lines[span[1] :])
    if state is not None and state.newline_added and rest.endswith("\n"):
        rest = rest[:-1]
    if not rest and (state is None or state.attributes_created):
        path.unlink()
        return "removed"
    _write_text(path, rest)
    return "block removed"


def _committed(where: Where, text: str) -> bool:
    """`.gitattributes` is exactly as HEAD has it (a block someone committed)."""
    head = run_git(where.root, "cat-file", "blob", "HEAD:.gitattributes")
    return head.ok and head.stdout == text.encode("utf-8")


# --- git config -------------------------------------------------------------


def _config_get(where: Where, key: str) -> str | None:
    ran = run_git(where.root, "config", "--local", "--get", key)
    return _text(ran.stdout).rstrip("\n") if ran.ok else None


def _section_keys(where: Where) -> list[str]:
    return _text(run_git(where.root, "config", "--local", "--name-only", "--get-regexp", rf"^merge\.{DRIVER}\.").stdout).split()


def write_config(where: Where, state: State, fresh: bool, command: str) -> None:
    if fresh:
        state.section_existed = bool(_section_keys(where))
        state.config_before = {k: _config_get(where, k) for k in (f"merge.{DRIVER}.name", f"merge.{DRIVER}.driver", EXE_KEY)}
    # EXE_KEY: the mergedrv a `repo: local` pre-commit framework entry runs (the committed file names no path)
    want = {f"merge.{DRIVER}.name": DRIVER_NAME, f"merge.{DRIVER}.driver": command, EXE_KEY: executable()}
    for key, value in want.items():
        if _config_get(where, key) != value:
            git(where.root, "config", "--local", key, value)


def remove_config(where: Where, state: State | None) -> None:
    ours = (f"merge.{DRIVER}.name", f"merge.{DRIVER}.driver", EXE_KEY)
    if state is None:  # no record of what was there: remove what looks like ours
        driver = _config_get(where, ours[1]) or ""
        if "mergedrv" in driver and set(_section_keys(where)) <= set(ours):
            run_git(where.root, "config", "--local", "--remove-section", f"merge.{DRIVER}")
        return
    if not state.section_existed and set(_section_keys(where)) <= set(ours):
        run_git(where.root, "config", "--local", "--remove-section", f"merge.{DRIVER}")
        return
    for key in ours:
        before = state.config_before.get(key)
        if before is None:
            run_git(where.root, "config", "--local", "--unset", key)
        elif _config_get(where, key) != before:
            git(where.root, "config", "--local", key, before)


# --- the commands -------------------------------------------------------------


def _shown(where: Where, path: Path | None = None) -> str:
    """The hooks folder (or ``path``) relative to the work tree, or absolute when it lies outside."""
    path = where.hooks if path is None else path
    rel = os.path.relpath(path, where.root)
    return str(path) if rel.startswith("..") else rel


def install(start: str | os.PathLike, say, source: tuple[str, str] | None = None) -> int:
    from .install_hooks import FIX_COMMAND, _framework_hook, _pre_commit, _unstaged_hooks, add_user, framework_source, install_hook, shared_hooks, uses_framework, write_framework_config

    from .. import config as cfgmod

    where = locate(start)
    cfg_path = where.root / cfgmod.CONFIG_NAME
    if not cfg_path.is_file():
        raise Error(f"{where.root} has no {cfgmod.CONFIG_NAME}; run `mergedrv init` there to propose one, then `mergedrv install` again")
    cfg = cfgmod.load(cfg_path)
    old = load_state(where)
    fresh = old is None
    state = old or State()
    exe = executable()
    if not where.hooks.exists():
        where.hooks.mkdir(parents=True)
        state.hooks_dir_created = state.hooks_dir_created or fresh
    write_config(where, state, fresh, driver_command(exe))
    attrs = write_attributes(where, cfg, state, fresh)
    plain = list(STAGES)
    done: list[str] = []
    if uses_framework(where):
        how = write_framework_config(where, None if source == LOCAL else source or framework_source(Path(__file__).resolve().parents[2]))
        missing = [t for t in FRAMEWORK_STAGES if not _framework_hook(where.hooks / t)]
        if missing:
            _pre_commit(where, "install", *[a for t in missing for a in ("-t", t)])
            state.framework_types = sorted(set(state.framework_types) | set(missing))
        say(f"  .pre-commit-config.yaml: mergedrv hooks for {', '.join(FRAMEWORK_STAGES)} ({how}); `mergedrv fix` there: {FIX_COMMAND}")
        extra = [t for t in missing if t != "pre-commit"]
        if extra and _unstaged_hooks(where):
            say(f"  note: hooks of .pre-commit-config.yaml without `stages:` now also run at {', '.join(extra)};"
                " give them `stages: [pre-commit]` (or set default_stages) to keep them to commits")
        plain = [s for s in STAGES if s not in FRAMEWORK_STAGES]
    for stage in plain:
        done.append(install_hook(where, stage, exe))
    if plain and shared_hooks(where):
        add_user(where)
    save_state(where, state)
    say(f"  git config: merge.{DRIVER}.driver = {shlex.join(driver_start(exe))} {DRIVER_ARGS} (git's text merge if that file is gone)")
    say(f"  .gitattributes: {len(attribute_lines(cfg))} paths merge={DRIVER} ({attrs})")
    say(f"  hooks in {_shown(where)}: {', '.join(done)}")
    tracked = [".gitattributes"] + ([".pre-commit-config.yaml"] if uses_framework(where) else [])
    changed = run_git(where.root, "status", "--porcelain", "--", *tracked).stdout.strip()
    say(f"mergedrv install: done in {where.root}; "
        + (f"commit {' and '.join(tracked)} to share the attributes" if changed else "the attributes are committed as they are"))
    return 0


def remove_own_folder(where: Where) -> str:
    """Remove the git folder's ``mergedrv/`` (the merge log ``review`` reads); keep
    ``resolve``'s copies of conflicted files, the only copy of what was there."""
    folder = Path(_text(git(where.root, "rev-parse", "--git-path", "mergedrv")).strip())
    folder = folder if folder.is_absolute() else where.root / folder
    shown = _shown(where, folder)
    if not folder.is_dir():
        return f"{shown}/: absent"
    kept = [p for p in (folder / "resolve").rglob("*") if p.is_file()]
    for entry in folder.iterdir():
        if entry.name == "resolve" and kept:
            continue
        import shutil

        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    if kept:
        return (f"{shown}/: merge log removed; kept {shown}/resolve/, {len(kept)} copies of conflicted files "
                "`mergedrv resolve` replaced (delete it once you no longer need them)")
    folder.rmdir()
    return f"{shown}/: removed (the merge log `mergedrv review` reads)"


def uninstall(start: str | os.PathLike, say) -> int:
    from .install_hooks import _pre_commit, other_users, remove_framework_config, remove_hook, shared_hooks

    where = locate(start)
    state = load_state(where)
    others = other_users(where) if shared_hooks(where) else []
    for stage in STAGES if not others else ():
        remove_hook(where, stage)
    if state is not None and state.framework_types:
        _pre_commit(where, "uninstall", *[a for t in state.framework_types for a in ("-t", t)])
    framework = remove_framework_config(where)
    attrs = remove_attributes(where, state)
    remove_config(where, state)
    if state is not None and state.hooks_dir_created:
        try:
            where.hooks.rmdir()
        except OSError:
            pass
    try:
        where.state.unlink()
    except FileNotFoundError:
        pass
    say(f"  git config: merge.{DRIVER} restored")
    say(f"  {remove_own_folder(where)}")
    say(f"  .gitattributes: {attrs}")
    if framework:
        say("  .pre-commit-config.yaml: mergedrv hooks removed")
    if others:
        say(f"  hooks in {_shown(where)}: kept, {len(others)} other repositories installed them too")
    else:
        say(f"  hooks in {_shown(where)}: mergedrv hooks removed, chained hooks put back")
    say(f"mergedrv install --uninstall: done in {where.root}")
    return 0


class Request(Value):
    """`mergedrv install [--repo DIR] [--uninstall] [--pre-commit-repo URL --pre-commit-rev REV]` (built once, in cli.py)."""

    __slots__ = ("repo", "uninstall", "source")

    def __init__(self, repo: str = ".", uninstall: bool = False, source: tuple[str, str] | None = None) -> None:
        self.repo = repo
        self.uninstall = uninstall
        self.source = source  # (repo, rev) the pre-commit framework gets mergedrv's hooks from


LOCAL = ("local", "")  # --pre-commit-repo local: the `repo: local` entry, whatever the checkout's origin


def source_from(repo: str | None, rev: str | None) -> tuple[str, str] | None:
    """--pre-commit-repo and --pre-commit-rev, both or neither; the repository a URL other clones reach."""
    from .install_hooks import is_url

    if repo is None and rev is None:
        return None
    if repo == "local" and rev is None:
        return LOCAL
    if repo is None or rev is None:
        raise Error("--pre-commit-repo and --pre-commit-rev go together: the framework clones the repository at that rev")
    if not is_url(repo):
        raise Error(f"--pre-commit-repo {repo}: not a URL; .pre-commit-config.yaml is committed, and a local path works on this machine only")
    return repo, rev


def run(req: Request) -> int:
    """`mergedrv install [--repo DIR] [--uninstall]`: 0 done (an Error: 2, from the CLI)."""
    repo, remove = req.repo, req.uninstall
    say = lambda msg: print(msg)  # noqa: E731
    try:
        return uninstall(repo, say) if remove else install(repo, say, req.source)
    except OSError as exc:
        raise Error(f"{exc.filename or ''}: {exc.strerror}") from None


# --- git mergetool ----------------------------------------------------------------

MERGETOOL = "mergedrv"


def mergetool_command(exe: str | None = None) -> str:
    """`mergetool.mergedrv.cmd`: git mergetool runs it at the top of the work tree, $MERGED the repository path."""
    return f'{shlex.quote(exe or executable())} mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED" --path "$MERGED"'


def register_mergetool(start: str | os.PathLike, say, remove: bool = False) -> int:
    """`mergedrv install --mergetool`: `git mergetool --tool=mergedrv` merges record files by key."""
    where = locate(start)
    section = f"mergetool.{MERGETOOL}"
    if remove:
        cmd = _config_get(where, f"{section}.cmd") or ""
        if "mergetool" in cmd and "mergedrv" in cmd:
            run_git(where.root, "config", "--local", "--remove-section", section)
            say(f"  git config: {section} removed")
        return 0
    for key, value in ((f"{section}.cmd", mergetool_command()), (f"{section}.trustExitCode", "true")):
        if _config_get(where, key) != value:
            git(where.root, "config", "--local", key, value)
    say(f"  git config: {section}.cmd = {mergetool_command()} (git mergetool --tool={MERGETOOL})")
    return 0
