"""`mergedrv install`'s hooks: the plain hook scripts (chaining the hooks already
there, shared hooks folders) and the pre-commit framework's configuration."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from .install_files import BLOCK_END, GUARDS, STAGES, BLOCK_START, CHAIN_SUFFIX, FRAMEWORK_STAGES, HOOK_MARK, InstallError, STDIN_STAGES, Where, _read_text, _write_text, find_block


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
        _write_text(where.hooks / USERS_FILE, "".join(f"{u}\n" for u in [*users, me]))


def other_users(where: Where) -> list[str]:
    """The other repositories (still there) that installed into this shared
    hooks folder; this one is taken off the list."""
    me = os.path.realpath(where.common)
    users = _users(where)
    others = [u for u in users if u != me and os.path.isdir(u)]
    if others:
        _write_text(where.hooks / USERS_FILE, "".join(f"{u}\n" for u in others))
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
        if stage == "pre-commit":  # the framework stashes unstaged changes and expects a fixer to fail
            args = args.replace("--fix", "--fix=fail")
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
