"""`mergedrv install`: wire the merge driver, `.gitattributes` and the hooks into a repository.

Everything it writes is marked, and what it replaced is recorded in the git
folder, so `--uninstall` puts git's config, `.gitattributes` and the hooks back
byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Error
from ..git import git, run as run_git
from ..values import Value
from .install_files import (  # noqa: F401  (the shared names, re-exported for the tests)
    DRIVER,
    DRIVER_NAME,
    DRIVER_ARGS,
    FALLBACK,
    executable,
    driver_start,
    driver_command,
    attribute_lines,
    attribute_pattern,
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
    read_text,
    text_of,
    write_text,
    find_block,
    locate,
)

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
    write_text(where.state, json.dumps({k: getattr(state, k) for k in State.__slots__}, indent=1) + "\n")


# --- marked blocks ----------------------------------------------------------


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
    text = read_text(path)
    block = attributes_block(cfg)
    if text is None:
        if fresh:
            state.attributes_created = True
        write_text(path, "".join(block))
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
        write_text(path, new)
        return "updated"
    if text and not text.endswith("\n"):
        text += "\n"
        if fresh:
            state.newline_added = True
    write_text(path, text + "".join(block))
    return "added"


def remove_attributes(where: Where, state: State | None) -> str:
    path = where.root / ".gitattributes"
    text = read_text(path)
    if text is None:
        return "absent"
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is None:
        return "no mergedrv block"
    if state is not None and state.block_before is not None:  # not ours: put back the block install found
        new = "".join(lines[: span[0]] + state.block_before + lines[span[1] :])
        if new != text:
            write_text(path, new)
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
    write_text(path, rest)
    return "block removed"


def _committed(where: Where, text: str) -> bool:
    """`.gitattributes` is exactly as HEAD has it (a block someone committed)."""
    head = run_git(where.root, "cat-file", "blob", "HEAD:.gitattributes")
    return head.ok and head.stdout == text.encode("utf-8")


# --- git config -------------------------------------------------------------


def _config_get(where: Where, key: str) -> str | None:
    ran = run_git(where.root, "config", "--local", "--get", key)
    return text_of(ran.stdout).rstrip("\n") if ran.ok else None


def _section_keys(where: Where) -> list[str]:
    return text_of(run_git(where.root, "config", "--local", "--name-only", "--get-regexp", rf"^merge\.{DRIVER}\.").stdout).split()


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


def untracked(where: Where, cfg_path: Path, cfg) -> None:
    """Refuse a configured record or log path that names no file git tracks
    (a typo, or a file not yet added): its attributes would route no merge
    through the driver and no check would read it."""
    from .. import config as cfgmod
    from ..config.validate import key_line

    listed = run_git(where.root, "ls-files", "-z", "--full-name").stdout
    files = [p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p]
    have = set(files)
    text = cfg_path.read_text(encoding="utf-8", errors="replace")
    for entry in [*cfg.records, *cfg.logs]:
        path = entry.path.lstrip("/")
        if path in have or (cfgmod.is_glob(entry.path) and any(cfgmod.glob_match(entry.path, f) for f in files)):
            continue
        what = getattr(entry, "name", None) or "[[log]]"
        raise Error(f"{cfgmod.CONFIG_NAME}:{key_line(text, entry.line, 'path')}: {what}: path '{entry.path}' names no file git "
                    f"tracks; `git add` the file, or fix the path (`git ls-files` lists what git tracks); nothing was installed")


def install(start: str | os.PathLike, say, source: tuple[str, str] | None = None) -> int:
    from .install_hooks import FIX_COMMAND, framework_hook, run_pre_commit, unstaged_hooks, add_user, framework_source, install_hook, shared_hooks, uses_framework, write_framework_config

    from .. import config as cfgmod

    where = locate(start)
    cfg_path = where.root / cfgmod.CONFIG_NAME
    if not cfg_path.is_file():
        raise Error(f"{where.root} has no {cfgmod.CONFIG_NAME}; run `mergedrv init` there to propose one, then `mergedrv install` again")
    cfg = cfgmod.load(cfg_path)
    untracked(where, cfg_path, cfg)
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
        missing = [t for t in FRAMEWORK_STAGES if not framework_hook(where.hooks / t)]
        if missing:
            run_pre_commit(where, "install", *[a for t in missing for a in ("-t", t)])
            state.framework_types = sorted(set(state.framework_types) | set(missing))
        say(f"  .pre-commit-config.yaml: mergedrv hooks for {', '.join(FRAMEWORK_STAGES)} ({how}); `mergedrv fix` there: {FIX_COMMAND}")
        extra = [t for t in missing if t != "pre-commit"]
        if extra and unstaged_hooks(where):
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
    folder = Path(text_of(git(where.root, "rev-parse", "--git-path", "mergedrv")).strip())
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
    from .install_hooks import run_pre_commit, other_users, remove_framework_config, remove_hook, shared_hooks

    where = locate(start)
    state = load_state(where)
    others = other_users(where) if shared_hooks(where) else []
    for stage in STAGES if not others else ():
        remove_hook(where, stage)
    if state is not None and state.framework_types:
        run_pre_commit(where, "uninstall", *[a for t in state.framework_types for a in ("-t", t)])
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
