"""`mergedrv install`: wire the merge driver, `.gitattributes` and the hooks into a repository.

Everything it writes is marked, and what it replaced is recorded in the git
folder, so `--uninstall` puts git's config, `.gitattributes` and the hooks back
byte for byte.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

DRIVER = "keyed"
DRIVER_NAME = "mergedrv keyed records"
DRIVER_ARGS = "merge %O %A %B -p %P -l %L -s %S -x %X -y %Y"
STATE_FILE = "mergedrv-install.json"
CHAIN_SUFFIX = ".pre-mergedrv"
HOOK_MARK = "# mergedrv-hook"
BLOCK_START = "# >>> mergedrv"
BLOCK_END = "# <<< mergedrv <<<"

# hook stage -> the `mergedrv` arguments it runs ("$1" is the hook's first argument)
STAGES: dict[str, str] = {
    "pre-commit": "check --staged",
    "commit-msg": 'check --staged --message-file "$1" --only pin-claims',
    "pre-merge-commit": "check --merge-head",
    "post-rewrite": 'check --rewritten "$1"',  # $1: amend or rebase
}
STDIN_STAGES = {"post-rewrite"}  # git feeds these `old new` pairs on stdin
# stages the pre-commit framework runs for us; it cannot pass post-rewrite's stdin
FRAMEWORK_STAGES = ("pre-commit", "commit-msg", "pre-merge-commit")


class InstallError(Exception):
    """A problem to show as one line; the command exits 2."""


# --- finding things ---------------------------------------------------------


def git(cwd: str | os.PathLike, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run git in ``cwd`` (text mode, output captured)."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except OSError as exc:
        raise InstallError(f"cannot run git: {exc.strerror}") from None
    if check and proc.returncode != 0:
        raise InstallError(f"git {' '.join(args)}: {proc.stderr.strip() or f'exit {proc.returncode}'}")
    return proc


def executable() -> str:
    """The absolute path of the installed `mergedrv` command (works without the venv on PATH)."""
    beside = Path(os.path.abspath(sys.executable)).with_name("mergedrv")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    import shutil

    return shutil.which("mergedrv") or "mergedrv"


def driver_command(exe: str | None = None) -> str:
    """The `merge.keyed.driver` value: mergedrv by absolute path, git's placeholders."""
    return f"{shlex.quote(exe or executable())} {DRIVER_ARGS}"


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
    from .gitio import GitError, toplevel

    try:
        root = Path(toplevel(start))
    except GitError as exc:
        raise InstallError(str(exc)) from None
    common = Path(git(root, "rev-parse", "--git-common-dir").stdout.strip())
    hooks = Path(git(root, "rev-parse", "--git-path", "hooks").stdout.strip())
    hooks_path_set = git(root, "config", "--get", "core.hooksPath", check=False).returncode == 0
    return Where(root, root / common if not common.is_absolute() else common, root / hooks if not hooks.is_absolute() else hooks, hooks_path_set)


# --- state: what install replaced ---------------------------------------------


@dataclass(slots=True)
class State:
    config_before: dict[str, str | None] = field(default_factory=dict)
    section_existed: bool = False
    attributes_created: bool = False
    newline_added: bool = False
    framework_types: list[str] = field(default_factory=list)  # hook types `pre-commit install` wrote for us
    hooks_dir_created: bool = False


def load_state(where: Where) -> State | None:
    try:
        data = json.loads(where.state.read_text())
        return State(**data)
    except (OSError, ValueError, TypeError):
        return None


def save_state(where: Where, state: State) -> None:
    _write_text(where.state, json.dumps({k: getattr(state, k) for k in State.__slots__}, indent=1) + "\n")


# --- marked blocks ----------------------------------------------------------


def find_block(lines: list[str]) -> tuple[int, int] | None:
    """(first, one past last) line index of the mergedrv block, or None."""
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith(BLOCK_START)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() == BLOCK_END), None)
    if end is None:
        raise InstallError(f"line {start + 1}: the mergedrv block has no end line {BLOCK_END!r}; remove the block and run again")
    return start, end + 1


def attribute_lines(cfg) -> list[str]:
    """`.gitattributes` lines for every record and log path, and the config itself."""
    paths = [r.path for r in cfg.records] + [log.path for log in cfg.logs] + [".mergedrv.toml"]
    out = []
    for p in dict.fromkeys(paths):
        pattern = json.dumps(p) if any(c.isspace() or c == '"' for c in p) else p
        out.append(f"{pattern} merge={DRIVER}\n")
    return out


def attributes_block(cfg) -> list[str]:
    return [
        f"{BLOCK_START}: keyed records merge with `mergedrv merge` (written by `mergedrv install`;"
        " list the files in .mergedrv.toml and run it again) >>>\n",
        *attribute_lines(cfg),
        BLOCK_END + "\n",
    ]


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise InstallError(f"{path}: not UTF-8; mergedrv will not edit it") from None


def _write_text(path: Path, text: str) -> None:
    from .driver import atomic_write

    atomic_write(str(path), text.encode("utf-8"))


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
        new = "".join(lines[: span[0]] + block + lines[span[1] :])
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
    rest = "".join(lines[: span[0]] + lines[span[1] :])
    if state is not None and state.newline_added and rest.endswith("\n"):
        rest = rest[:-1]
    if not rest and (state is None or state.attributes_created):
        path.unlink()
        return "removed"
    _write_text(path, rest)
    return "block removed"


# --- git config -------------------------------------------------------------


def _config_get(where: Where, key: str) -> str | None:
    proc = git(where.root, "config", "--local", "--get", key, check=False)
    return proc.stdout.rstrip("\n") if proc.returncode == 0 else None


def _section_keys(where: Where) -> list[str]:
    proc = git(where.root, "config", "--local", "--name-only", "--get-regexp", rf"^merge\.{DRIVER}\.", check=False)
    return proc.stdout.split()


def write_config(where: Where, state: State, fresh: bool, command: str) -> None:
    if fresh:
        state.section_existed = bool(_section_keys(where))
        state.config_before = {k: _config_get(where, k) for k in (f"merge.{DRIVER}.name", f"merge.{DRIVER}.driver")}
    want = {f"merge.{DRIVER}.name": DRIVER_NAME, f"merge.{DRIVER}.driver": command}
    for key, value in want.items():
        if _config_get(where, key) != value:
            git(where.root, "config", "--local", key, value)


def remove_config(where: Where, state: State | None) -> None:
    ours = (f"merge.{DRIVER}.name", f"merge.{DRIVER}.driver")
    if state is None:  # no record of what was there: remove what looks like ours
        driver = _config_get(where, ours[1]) or ""
        if "mergedrv" in driver and set(_section_keys(where)) <= set(ours):
            git(where.root, "config", "--local", "--remove-section", f"merge.{DRIVER}", check=False)
        return
    if not state.section_existed and set(_section_keys(where)) <= set(ours):
        git(where.root, "config", "--local", "--remove-section", f"merge.{DRIVER}", check=False)
        return
    for key in ours:
        before = state.config_before.get(key)
        if before is None:
            git(where.root, "config", "--local", "--unset", key, check=False)
        elif _config_get(where, key) != before:
            git(where.root, "config", "--local", key, before)


# --- hooks --------------------------------------------------------------------


def _dquote(text: str) -> str:
    """``text`` in shell double quotes (safe inside a single-quoted ``sh -c`` script)."""
    return '"' + "".join("\\" + c if c in '"$`\\' else c for c in text) + '"'


def run_lines(stage: str, exe: str, call: str | None = None) -> list[str]:
    """Shell lines that run the stage's check, failing open if mergedrv is missing.

    A check that finds something (exit 1) blocks; mergedrv missing or unable to
    run never blocks git.  Each line stands alone, so they also join with "; ".
    """
    if call is None:
        call = f'"$MERGEDRV" {STAGES[stage]}'
        if stage in STDIN_STAGES:
            call = f"printf '%s\\n' \"$input\" | {call}"
    return [
        f"MERGEDRV=${{MERGEDRV:-{_dquote(exe)}}}",
        'command -v "$MERGEDRV" >/dev/null 2>&1 || { echo "mergedrv: $MERGEDRV not found;'
        f' {stage} check skipped (reinstall mergedrv, or run: mergedrv install --uninstall)" >&2; exit 0; }}',
        call,
        "status=$?",
        '[ "$status" -le 1 ] && exit "$status"',
        f'echo "mergedrv: mergedrv check could not run (exit $status); {stage} not blocked" >&2',
        "exit 0",
    ]


def hook_script(stage: str, exe: str = "mergedrv") -> str:
    """A plain git hook that runs the chained hook first, then mergedrv."""
    lines = [
        "#!/bin/sh",
        f"{HOOK_MARK}: {stage}: runs `mergedrv {STAGES[stage]}`",
        "# Written by `mergedrv install`; `mergedrv install --uninstall` removes it and puts back",
        f"# the hook it chains ({stage}{CHAIN_SUFFIX}), which runs first with the same arguments.",
        "# If mergedrv is missing or cannot run, git goes on: only findings (exit 1) block.",
        f'chained="$(dirname "$0")/{stage}{CHAIN_SUFFIX}"',
    ]
    if stage in STDIN_STAGES:
        lines += [
            "input=$(cat)",
            'if [ -x "$chained" ]; then',
            '    printf \'%s\\n\' "$input" | "$chained" "$@" || exit $?',
            "fi",
        ]
    else:
        lines += ['if [ -x "$chained" ]; then', '    "$chained" "$@" || exit $?', "fi"]
    return "\n".join(lines + run_lines(stage, exe)) + "\n"


def _is_ours(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return HOOK_MARK.encode() in fh.read(4096)
    except OSError:
        return False


def install_hook(where: Where, stage: str, exe: str) -> str:
    target = where.hooks / stage
    chained = where.hooks / (stage + CHAIN_SUFFIX)
    note = ""
    if target.exists() and not _is_ours(target):
        if chained.exists():
            raise InstallError(f"{target}: both it and {chained.name} exist; move one away and run again")
        os.replace(target, chained)
        note = f" (chains {chained.name})"
    elif chained.exists():
        note = f" (chains {chained.name})"
    text = hook_script(stage, exe)
    if target.exists() and target.read_text(errors="replace") == text:
        return stage + note
    from .driver import atomic_write

    atomic_write(str(target), text.encode("utf-8"), mode=0o755)
    return stage + note


def remove_hook(where: Where, stage: str) -> None:
    target = where.hooks / stage
    chained = where.hooks / (stage + CHAIN_SUFFIX)
    if target.exists() and _is_ours(target):
        target.unlink()
        if chained.exists():
            os.replace(chained, target)


# --- the pre-commit framework -----------------------------------------------------


def uses_framework(where: Where) -> bool:
    """The repository uses the pre-commit framework and pre-commit can install hooks."""
    return (where.root / ".pre-commit-config.yaml").is_file() and not where.hooks_path_set


def framework_block(exe: str, indent: str) -> list[str]:
    """A `repo: local` entry of `.pre-commit-config.yaml` running the mergedrv checks."""
    names = {
        "pre-commit": ("mergedrv-staged", "mergedrv check --staged", False),
        "commit-msg": ("mergedrv-pin-claims", "mergedrv pin claims in the commit message", True),
        "pre-merge-commit": ("mergedrv-merge-head", "mergedrv check --merge-head", False),
    }
    out = [f"{indent}{BLOCK_START}: keyed-record checks (written by `mergedrv install`, removed by --uninstall) >>>\n"]
    out.append(f"{indent}- repo: local\n{indent}  hooks:\n")
    for stage in FRAMEWORK_STAGES:
        hook_id, name, takes_file = names[stage]
        args = STAGES[stage].replace(' "$1"', "")
        if takes_file:  # pre-commit appends the message file: keep --message-file last
            args = args.replace("--message-file --only pin-claims", "--only pin-claims --message-file")
        script = "; ".join(run_lines(stage, exe, call='"$MERGEDRV" "$@"'))
        entry = f"sh -c {shlex.quote(script)} mergedrv {args}"
        out += [
            f"{indent}    - id: {hook_id}\n",
            f"{indent}      name: {name}\n",
            f"{indent}      entry: {json.dumps(entry)}\n",
            f"{indent}      language: system\n",
            f"{indent}      pass_filenames: {'true' if takes_file else 'false'}\n",
            f"{indent}      always_run: true\n",
            f"{indent}      stages: [{stage}]\n",
        ]
    out.append(f"{indent}{BLOCK_END}\n")
    return out


def write_framework_config(where: Where, exe: str) -> str:
    import yaml

    path = where.root / ".pre-commit-config.yaml"
    text = _read_text(path) or ""
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is not None:
        indent = lines[span[0]][: len(lines[span[0]]) - len(lines[span[0]].lstrip())]
        new_lines = lines[: span[0]] + framework_block(exe, indent) + lines[span[1] :]
    else:
        at = next((i for i, line in enumerate(lines) if line.rstrip() == "repos:"), None)
        item = next((line for line in lines[(at or 0) + 1 :] if line.lstrip().startswith("- ")), None)
        if at is None or item is None or not lines[at].endswith("\n"):
            raise InstallError(f"{path}: no block-style `repos:` list to add to; add the mergedrv hooks by hand (see .pre-commit-hooks.yaml)")
        indent = item[: len(item) - len(item.lstrip())]
        new_lines = lines[: at + 1] + framework_block(exe, indent) + lines[at + 1 :]
    new = "".join(new_lines)
    try:
        repos = yaml.safe_load(new)["repos"]
        assert any(r.get("repo") == "local" and any(h.get("id") == "mergedrv-staged" for h in r.get("hooks", [])) for r in repos)
    except Exception:
        raise InstallError(f"{path}: could not add the mergedrv hooks without breaking the file; add them by hand") from None
    if new == text:
        return "unchanged"
    _write_text(path, new)
    return "updated" if span is not None else "added"


def remove_framework_config(where: Where) -> bool:
    path = where.root / ".pre-commit-config.yaml"
    text = _read_text(path)
    if text is None:
        return False
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is None:
        return False
    _write_text(path, "".join(lines[: span[0]] + lines[span[1] :]))
    return True


def _unstaged_hooks(where: Where) -> bool:
    """Some hook of the framework config runs at every stage (no `stages`, no `default_stages`)."""
    import yaml

    try:
        cfg = yaml.safe_load((where.root / ".pre-commit-config.yaml").read_text())
        if "default_stages" in cfg:
            return False
        return any("stages" not in h for r in cfg["repos"] for h in r.get("hooks", []) if not h.get("id", "").startswith("mergedrv-"))
    except Exception:
        return False


def _framework_hook(path: Path) -> bool:
    try:
        return b"File generated by pre-commit" in path.read_bytes()[:4096]
    except OSError:
        return False


def _pre_commit(where: Where, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=where.root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise InstallError(f"pre-commit {' '.join(args)}: {(proc.stdout + proc.stderr).strip()}")


# --- the commands -------------------------------------------------------------


def _shown(where: Where) -> str:
    """The hooks folder relative to the work tree, or absolute when it lies outside."""
    rel = os.path.relpath(where.hooks, where.root)
    return str(where.hooks) if rel.startswith("..") else rel


def install(start: str | os.PathLike, say) -> int:
    from . import config as cfgmod

    where = locate(start)
    cfg_path = where.root / cfgmod.CONFIG_NAME
    if not cfg_path.is_file():
        say(f"mergedrv install: {where.root} has no {cfgmod.CONFIG_NAME}; run `mergedrv init` there to propose one, then `mergedrv install` again")
        return 2
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
        how = write_framework_config(where, exe)
        missing = [t for t in FRAMEWORK_STAGES if not _framework_hook(where.hooks / t)]
        if missing:
            _pre_commit(where, "install", *[a for t in missing for a in ("-t", t)])
            state.framework_types = sorted(set(state.framework_types) | set(missing))
        say(f"  .pre-commit-config.yaml: mergedrv hooks for {', '.join(FRAMEWORK_STAGES)} ({how})")
        extra = [t for t in missing if t != "pre-commit"]
        if extra and _unstaged_hooks(where):
            say(f"  note: hooks of .pre-commit-config.yaml without `stages:` now also run at {', '.join(extra)};"
                " give them `stages: [pre-commit]` (or set default_stages) to keep them to commits")
        plain = [s for s in STAGES if s not in FRAMEWORK_STAGES]
    for stage in plain:
        done.append(install_hook(where, stage, exe))
    save_state(where, state)
    say(f"  git config: merge.{DRIVER}.driver = {driver_command(exe)}")
    say(f"  .gitattributes: {len(attribute_lines(cfg))} paths merge={DRIVER} ({attrs})")
    say(f"  hooks in {_shown(where)}: {', '.join(done)}")
    tracked = [".gitattributes"] + ([".pre-commit-config.yaml"] if uses_framework(where) else [])
    say(f"mergedrv install: done in {where.root}; commit {' and '.join(tracked)} to share the attributes")
    return 0


def uninstall(start: str | os.PathLike, say) -> int:
    where = locate(start)
    state = load_state(where)
    for stage in STAGES:
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
    say(f"  .gitattributes: {attrs}")
    if framework:
        say("  .pre-commit-config.yaml: mergedrv hooks removed")
    say(f"  hooks in {_shown(where)}: mergedrv hooks removed, chained hooks put back")
    say(f"mergedrv install --uninstall: done in {where.root}")
    return 0


def run(repo: str, remove: bool) -> int:
    """`mergedrv install [--repo DIR] [--uninstall]`: 0 done, 2 error."""
    from .config import ConfigError

    say = lambda msg: print(msg)  # noqa: E731
    try:
        return uninstall(repo, say) if remove else install(repo, say)
    except (InstallError, ConfigError) as exc:
        print(f"mergedrv install: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mergedrv install: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 2


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
            git(where.root, "config", "--local", "--remove-section", section, check=False)
            say(f"  git config: {section} removed")
        return 0
    for key, value in ((f"{section}.cmd", mergetool_command()), (f"{section}.trustExitCode", "true")):
        if _config_get(where, key) != value:
            git(where.root, "config", "--local", key, value)
    say(f"  git config: {section}.cmd = {mergetool_command()} (git mergetool --tool={MERGETOOL})")
    return 0
