"""`mergedrv action`: what action.yml prints and picks from pull-request content it does not trust
(annotations escaped as GitHub's toolkit escapes them, the bot's own comment); the rules live in mergedrv.forge."""

from __future__ import annotations

import json
import secrets
import sys

from ..errors import Error
from ..forge import DEFAULT_BOT, command, comments, one_line, own_comment, split_problem


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as exc:
        raise Error(f"{path}: cannot read: {exc.strerror}") from None


def _quiet_log(lines: list[str]) -> list[str]:
    """Plain log lines between ``::stop-commands::`` and its one-off token: nothing in them runs."""
    if not lines:
        return []
    token = f"mergedrv-{secrets.token_hex(16)}"
    return [f"::stop-commands::{token}", *(one_line(line) for line in lines), f"::{token}::"]


def findings(path: str) -> list[str]:
    """`mergedrv check --format json` output -> one ::error per finding, then the plain lines."""
    try:
        found = json.loads(_read(path) or "[]")
    except ValueError as exc:
        raise Error(f"{path}:{getattr(exc, 'lineno', 1)}: not the JSON of mergedrv check --format json: {exc}") from None
    if not isinstance(found, list) or not all(isinstance(f, dict) for f in found):
        raise Error(f"{path}:1: not the JSON of mergedrv check --format json: a list of findings expected")
    out, plain = [], []
    for f in found:
        where, check, commit, message = str(f.get("path", "")), str(f.get("check", "")), str(f.get("commit", "")), str(f.get("message", ""))
        line = f.get("line") if isinstance(f.get("line"), int) and f.get("line") > 0 else 1
        title = f"{check} ({commit})" if commit else check
        out.append(command("error", message, file=where, line=line, title=title))
        plain.append(f"{commit}:{where}:{f.get('line')}: {check}: {message}")
    return out + _quiet_log(plain)


def problems(path: str, kind: str = "warning") -> list[str]:
    """`mergedrv update-branch` problem lines (`path:line: kind: key: why`) -> one annotation each."""
    out = []
    for line in _read(path).split("\n"):
        if not line.strip():
            continue
        where, n, rest = split_problem(line)
        out.append(command(kind, rest if where else line, file=where, line=n or None, title="mergedrv update-branch"))
    return out


def comment_id(path: str, login: str) -> str:
    """The id of the one mergedrv comment ``login`` wrote, from `gh api --paginate` output; "" if none."""
    try:
        found = comments(_read(path))
    except ValueError as exc:
        raise Error(f"{path}:1: not the JSON of the pull request's comments: {exc}") from None
    got = own_comment(found, login or DEFAULT_BOT)
    return "" if got is None else str(got)


def run(what: str, path: str, login: str = "") -> int:
    if what == "findings":
        out = findings(path)
    elif what == "problems":
        out = problems(path)
    elif what == "comment-id":
        out = [comment_id(path, login)]
    else:
        raise Error(f"{what}: no such action helper (findings, problems, comment-id)")
    sys.stdout.write("".join(f"{line}\n" for line in out if line))
    return 0
