"""`mergedrv install`'s hooks: the plain hook scripts (chaining the hooks already
there, shared hooks folders) and the pre-commit framework's configuration."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from .install_files import BLOCK_END, EXE_KEY, GUARDS, STAGES, BLOCK_START, CHAIN_SUFFIX, FRAMEWORK_STAGES, HOOK_MARK, InstallError, STDIN_STAGES, Where, read_text, write_text, find_block


# --- hook scripts --------------------------------------------------------------------


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
    ]
    if stage in GUARDS:  # no `dirname` process: this hook runs on every ref update
        lines.append(f'case "$0" in */*) chained="${{0%/*}}/{stage}{CHAIN_SUFFIX}" ;; *) chained="./{stage}{CHAIN_SUFFIX}" ;; esac')
    else:
        lines.append(f'chained="$(dirname "$0")/{stage}{CHAIN_SUFFIX}"')
    if stage in GUARDS:  # stdin is read only when there is a chained hook or something to judge
        lines += [
            'if [ -x "$chained" ]; then',
            "    input=$(cat)",
            '    printf \'%s\\n\' "$input" | "$chained" "$@" || exit $?',
            "fi",
        ]
    elif stage in STDIN_STAGES:
        lines += [
            "input=$(cat)",
            'if [ -x "$chained" ]; then',
            '    printf \'%s\\n\' "$input" | "$chained" "$@" || exit $?',
            "fi",
        ]
    else:
        lines += ['if [ -x "$chained" ]; then', '    "$chained" "$@" || exit $?', "fi"]
    return "\n".join(lines + GUARDS.get(stage, []) + run_lines(stage, exe)) + "\n"


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
    from ..atomic import atomic_write

    atomic_write(str(target), text.encode("utf-8"), mode=0o755)
    return stage + note


USERS_FILE = ".mergedrv-repositories"  # in a shared hooks folder: the repositories whose install wrote its hooks


def shared_hooks(where: Where) -> bool:
    """Whether the hooks folder lies outside this repository (a core.hooksPath
    that other repositories may use too)."""
    hooks = os.path.realpath(where.hooks)
    return not any(hooks == os.path.realpath(p) or hooks.startswith(os.path.realpath(p) + os.sep) for p in (where.common, where.root))


def _users(where: Where) -> list[str]:
    try:
        return [line for line in (where.hooks / USERS_FILE).read_text("utf-8").splitlines() if line]
    except (OSError, UnicodeDecodeError):
        return []


def add_user(where: Where) -> None:
    """Note this repository among the users of a shared hooks folder."""
    me = os.path.realpath(where.common)
    users = _users(where)
    if me not in users:
        write_text(where.hooks / USERS_FILE, "".join(f"{u}\n" for u in [*users, me]))


def other_users(where: Where) -> list[str]:
    """The other repositories (still there) that installed into this shared
    hooks folder; this one is taken off the list."""
    me = os.path.realpath(where.common)
    users = _users(where)
    others = [u for u in users if u != me and os.path.isdir(u)]
    if others:
        write_text(where.hooks / USERS_FILE, "".join(f"{u}\n" for u in others))
    elif (where.hooks / USERS_FILE).exists():
        (where.hooks / USERS_FILE).unlink()
    return others


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


# the ids of .pre-commit-hooks.yaml the framework runs, by stage (the plain hooks' checks)
FRAMEWORK_IDS = {"pre-commit": "mergedrv", "commit-msg": "pin-claims", "pre-merge-commit": "mergedrv-merge-head"}
FIX_ID = "mergedrv-fix"  # `pre-commit run mergedrv-fix --hook-stage manual`: `mergedrv fix` without mergedrv on PATH
FIX_COMMAND = f"pre-commit run {FIX_ID} --hook-stage manual"


def is_url(text: str) -> bool:
    """A repository address another clone can reach: a URL or git's scp-like host:path, not a local path."""
    import re

    return "://" in text or re.match(r"^[\w.-]+@[\w.-]+:", text) is not None


def framework_source(checkout: Path) -> tuple[str, str] | None:
    """(repo, rev) naming this mergedrv for the framework: the mergedrv
    checkout's `origin` (a URL, never a local path) at the tag of this
    version, else at HEAD when origin has that commit; None otherwise."""
    from .. import __version__
    from ..git import run as run_git

    if not (checkout / ".git").exists():
        return None
    url = run_git(checkout, "config", "--get", "remote.origin.url")
    if not url.ok or not is_url(url.text().strip()):
        return None
    tag = f"v{__version__}"
    if run_git(checkout, "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}").ok:
        return url.text().strip(), tag
    head = run_git(checkout, "rev-parse", "HEAD")
    if head.ok and run_git(checkout, "branch", "-r", "--contains", head.text().strip()).text().strip():
        return url.text().strip(), head.text().strip()
    return None


def local_entry(stage: str) -> str:
    """A `repo: local` hook's entry: this clone's mergedrv (``EXE_KEY``, else
    `mergedrv` on PATH), failing open as the plain hooks do when it is missing."""
    args = {**STAGES, "commit-msg": "check --staged --only pin-claims --message-file", "manual": "fix"}[stage]
    if stage == "pre-commit":  # the framework stashes unstaged changes and expects a fixer to fail after fixing
        args = args.replace("--fix", "--fix=fail")
    find = f'MERGEDRV=${{MERGEDRV:-$(git config --get {EXE_KEY} || echo mergedrv)}}'
    script = "; ".join([find, *run_lines(stage, "mergedrv", call='"$MERGEDRV" "$@"')[1:]])
    return f"sh -c {shlex.quote(script)} mergedrv {args}"


def framework_block(indent: str, source: tuple[str, str] | None) -> list[str]:
    """The mergedrv entry of `.pre-commit-config.yaml`: the hooks of
    `.pre-commit-hooks.yaml` from ``source`` (repo, rev); without one, the
    same hooks as `repo: local`, run by the mergedrv each clone's `mergedrv
    install` records in its git config."""
    out = [f"{indent}{BLOCK_START}: keyed-record checks (written by `mergedrv install`, removed by --uninstall) >>>\n"]
    hooks = [(FRAMEWORK_IDS[stage], stage) for stage in FRAMEWORK_STAGES] + [(FIX_ID, "manual")]
    if source is not None:
        out += [f"{indent}- repo: {json.dumps(source[0])}\n", f"{indent}  rev: {json.dumps(source[1])}\n", f"{indent}  hooks:\n"]
        for hook_id, stage in hooks:
            out += [f"{indent}    - id: {hook_id}\n"]
            if hook_id == "mergedrv":  # its own stages include pre-merge-commit, which mergedrv-merge-head checks
                out += [f"{indent}      stages: [{stage}]\n"]
        out.append(f"{indent}{BLOCK_END}\n")
        return out
    out.append(f"{indent}- repo: local\n{indent}  hooks:\n")
    for hook_id, stage in hooks:
        out += [
            f"{indent}    - id: {hook_id}\n",
            f"{indent}      name: mergedrv {hook_id.removeprefix('mergedrv-') if hook_id != 'mergedrv' else 'record checks'}\n",
            f"{indent}      entry: {json.dumps(local_entry(stage))}\n",
            f"{indent}      language: system\n",
            f"{indent}      pass_filenames: {'true' if stage == 'commit-msg' else 'false'}\n",
            f"{indent}      always_run: true\n",
            f"{indent}      stages: [{stage}]\n",
        ]
    out.append(f"{indent}{BLOCK_END}\n")
    return out


def configured_elsewhere(text: str, span: tuple[int, int] | None) -> bool:
    """`.pre-commit-config.yaml` already runs mergedrv's hooks outside the mergedrv block."""
    import yaml

    lines = text.splitlines(keepends=True)
    rest = "".join(lines[: span[0]] + lines[span[1] :]) if span is not None else text
    try:
        repos = (yaml.safe_load(rest) or {}).get("repos") or []
        hooks = [h for r in repos if isinstance(r, dict) for h in r.get("hooks") or [] if isinstance(h, dict)]
    except Exception:
        return False
    return any(h.get("id") == "mergedrv" or str(h.get("entry", "")).startswith("mergedrv check") for h in hooks)


def write_framework_config(where: Where, source: tuple[str, str] | None) -> str:
    """Add (or update) the mergedrv block; nothing when the file already runs mergedrv's hooks."""
    import yaml

    path = where.root / ".pre-commit-config.yaml"
    text = read_text(path) or ""
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if configured_elsewhere(text, span):
        if span is not None:  # a block of ours beside the user's own entry would run every check twice
            write_text(path, "".join(lines[: span[0]] + lines[span[1] :]))
        return "already configured: nothing added"
    if span is not None:
        indent = lines[span[0]][: len(lines[span[0]]) - len(lines[span[0]].lstrip())]
        new_lines = lines[: span[0]] + framework_block(indent, source) + lines[span[1] :]
    else:
        at = next((i for i, line in enumerate(lines) if line.rstrip() == "repos:"), None)
        item = next((line for line in lines[(at or 0) + 1 :] if line.lstrip().startswith("- ")), None)
        if at is None or item is None or not lines[at].endswith("\n"):
            raise InstallError(f"{path}: no block-style `repos:` list to add to; add the mergedrv hooks by hand (see .pre-commit-hooks.yaml)")
        indent = item[: len(item) - len(item.lstrip())]
        new_lines = lines[: at + 1] + framework_block(indent, source) + lines[at + 1 :]
    new = "".join(new_lines)
    try:
        repos = yaml.safe_load(new)["repos"]
        assert any(any(h.get("id") == "mergedrv" for h in r.get("hooks", [])) for r in repos)
    except Exception:
        raise InstallError(f"{path}: could not add the mergedrv hooks without breaking the file; add them by hand") from None
    if new == text:
        return "unchanged"
    write_text(path, new)
    return "updated" if span is not None else "added"


def remove_framework_config(where: Where) -> bool:
    path = where.root / ".pre-commit-config.yaml"
    text = read_text(path)
    if text is None:
        return False
    lines = text.splitlines(keepends=True)
    span = find_block(lines)
    if span is None:
        return False
    write_text(path, "".join(lines[: span[0]] + lines[span[1] :]))
    return True


def unstaged_hooks(where: Where) -> bool:
    """Some hook of the framework config runs at every stage (no `stages`, no `default_stages`)."""
    import yaml

    try:
        cfg = yaml.safe_load((where.root / ".pre-commit-config.yaml").read_text())
        if "default_stages" in cfg:
            return False
        return any("stages" not in h for r in cfg["repos"] for h in r.get("hooks", []) if not h.get("id", "").startswith("mergedrv-"))
    except Exception:
        return False


def framework_hook(path: Path) -> bool:
    try:
        return b"File generated by pre-commit" in path.read_bytes()[:4096]
    except OSError:
        return False


def run_pre_commit(where: Where, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=where.root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise InstallError(f"pre-commit {' '.join(args)}: {(proc.stdout + proc.stderr).strip()}")
