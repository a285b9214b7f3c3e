"""`python -m mergedrv.commands.action`: what action.yml prints and picks from pull-request content it does not
trust (annotations escaped as GitHub's toolkit escapes them, the bot's own comment); the rules live in mergedrv.forge."""

from __future__ import annotations

import argparse
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


DESCRIPTION = """\
What action.yml prints from pull-request content it does not trust. Every annotation is
escaped as GitHub's toolkit escapes it (the message: % CR LF; file=, line=, title=: also : and ,),
one workflow command per finding; the plain log lines go between ::stop-commands:: and a
one-off token, so nothing in them runs.

  findings FILE     mergedrv check --format json output -> one ::error per finding
  problems FILE     mergedrv update-branch's problem lines -> one ::warning per line
  comment-id FILE   gh api --paginate output of the pull request's comments -> the id of the
                    one comment written by --login (the token's identity) that opens with
                    <!-- mergedrv -->, or nothing

Exit 0; 2: FILE unreadable or not what it should hold (one line, path:line: what)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m mergedrv.commands.action", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  python -m mergedrv.commands.action findings findings.json\n"
        "  python -m mergedrv.commands.action comment-id --login 'github-actions[bot]' comments.json",
    )
    p.add_argument("what", choices=("findings", "problems", "comment-id"), help="what FILE holds")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--login", default="", metavar="LOGIN", help=f"comment-id: the token's identity (default: {DEFAULT_BOT})")
    return p


def run(what: str, path: str, login: str = "") -> int:
    if what == "findings":
        out = findings(path)
    elif what == "problems":
        out = problems(path)
    else:
        out = [comment_id(path, login)]
    sys.stdout.write("".join(f"{line}\n" for line in out if line))
    return 0


def main(argv: list[str] | None = None) -> int:
    ns = parser().parse_args(argv)
    try:
        return run(ns.what, ns.file, ns.login)
    except Error as exc:
        print(f"mergedrv action: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
