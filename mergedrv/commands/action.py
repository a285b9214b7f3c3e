"""`python -m mergedrv.commands.action`: what action.yml prints and picks from pull-request content it does not
trust (annotations escaped as GitHub's toolkit escapes them, the bot's own comment); the rules live in mergedrv.forge."""

from __future__ import annotations

import argparse
import json
import secrets
import sys

from ..errors import Error
from ..forge import DEFAULT_BOT, code_span, command, comments, fence, one_line, own_comment, split_problem


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


def _check_json(path: str) -> list[dict]:
    """The findings of `mergedrv check --format json` in ``path``; a clear error for anything else."""
    try:
        found = json.loads(_read(path) or "[]")
    except ValueError as exc:
        raise Error(f"{path}:{getattr(exc, 'lineno', 1)}: not the JSON of mergedrv check --format json: {exc}") from None
    if not isinstance(found, list) or not all(isinstance(f, dict) for f in found):
        raise Error(f"{path}:1: not the JSON of mergedrv check --format json: a list of findings expected")
    return found


def findings(path: str) -> list[str]:
    """`mergedrv check --format json` output -> one ::error per finding, then the plain lines."""
    found = _check_json(path)
    out, plain = [], []
    for f in found:
        where, check, commit, message = str(f.get("path", "")), str(f.get("check", "")), str(f.get("commit", "")), str(f.get("message", ""))
        given = f.get("line")
        line = given if isinstance(given, int) and given > 0 else 1
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


def _by_file(items: list[tuple[str, str]]) -> list[str]:
    """(path, line) pairs -> per file, its name as inline code and its lines in a fence no line can close."""
    files: dict[str, list[str]] = {}
    for where, line in items:
        files.setdefault(where, []).append(line)
    out = []
    for where, lines in files.items():
        out += ["", f"- {code_span(where) if where else 'elsewhere'}: {len(lines)}", "", *("  " + x for x in fence(lines))]
    return out


def summary_findings(path: str) -> list[str]:
    """The job summary of check mode: the findings of `mergedrv check --format json`, by file."""
    found = _check_json(path)
    if not found:
        return ["## mergedrv check", "", "No findings: every commit of the range keeps the records' rules."]
    items = [(str(f.get("path", "")), f"{f.get('line')}: {f.get('check', '')}: {f.get('message', '')}"
              + (f" ({f.get('commit')})" if f.get("commit") else "")) for f in found]
    files = len({where for where, _ in items})
    return ["## mergedrv check", "", f"{len(found)} finding(s) in {files} file(s):", *_by_file(items)]


def _merged_by_key(before: str) -> list[str]:
    """The files both sides changed in the merge HEAD made on ``before`` (the ones the keyed merge resolved)."""
    from ..git import run as run_git

    head, theirs = run_git(".", "rev-parse", "HEAD"), run_git(".", "rev-parse", "HEAD^2")
    if not (head.ok and theirs.ok) or head.text() == before:
        return []
    fork = run_git(".", "merge-base", before, theirs.text())
    if not fork.ok:
        return []
    sides = [run_git(".", "diff", "--name-only", "-z", fork.text(), rev).stdout.decode("utf-8", "replace").split("\0")
             for rev in (before, theirs.text())]
    return sorted((set(sides[0]) & set(sides[1])) - {""})


def summary_update(path: str, status: str, base: str, branch: str, before: str) -> list[str]:
    """The job summary of update mode: what was merged (the files both sides changed) and what was left, by file."""
    head = ["## mergedrv update-branch", ""]
    if status == "0":
        merged = _merged_by_key(before)
        if not merged:
            return head + [f"{code_span(branch)} is up to date with {code_span(base)}, or was brought up to date without a merge to show."]
        return head + [f"Merged {code_span(base)} into {code_span(branch)} by key and pushed; {len(merged)} file(s) changed on both sides:", "",
                       *(f"- {code_span(name)}" for name in merged)]
    if status == "fork":
        return head + [f"{code_span(branch)} is a fork's branch: not updated."]
    lines = [line for line in _read(path).split("\n") if line.strip()]
    items = [(split_problem(line)[0], line) for line in lines]
    if status == "1":
        return head + [f"Left to people, nothing pushed: {len(items)} problem(s) merging {code_span(base)} into {code_span(branch)}:", *_by_file(items)]
    return head + [f"Could not update {code_span(branch)} with {code_span(base)} (status {code_span(status)}); the log says why."]


DESCRIPTION = """\
What action.yml prints from pull-request content it does not trust. Every annotation is
escaped as GitHub's toolkit escapes it (the message: % CR LF; file=, line=, title=: also : and ,),
one workflow command per finding; the plain log lines go between ::stop-commands:: and a
one-off token, so nothing in them runs.

  findings FILE     mergedrv check --format json output -> one ::error per finding
  problems FILE     mergedrv update-branch's problem lines -> one ::warning per line
  summary FILE      mergedrv check --format json output -> the job summary (markdown), by file
  update-summary FILE   update-branch's problem lines, --status, --base, --branch, --before ->
                    the job summary: the files merged by key, or the problems left, by file
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
    p.add_argument("what", choices=("findings", "problems", "comment-id", "summary", "update-summary"), help="what FILE holds")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--login", default="", metavar="LOGIN", help=f"comment-id: the token's identity (default: {DEFAULT_BOT})")
    for name in ("status", "base", "branch", "before"):
        p.add_argument(f"--{name}", default="", help="update-summary: update-branch's " + name)
    return p


def run(what: str, path: str, login: str = "", update: tuple[str, str, str, str] = ("", "", "", "")) -> int:
    if what == "findings":
        out = findings(path)
    elif what == "problems":
        out = problems(path)
    elif what == "summary":
        out = summary_findings(path)
    elif what == "update-summary":
        out = summary_update(path, *update)
    else:
        out = [comment_id(path, login)]
    sys.stdout.write("".join(f"{line}\n" for line in out if line))
    return 0


def main(argv: list[str] | None = None) -> int:
    ns = parser().parse_args(argv)
    try:
        return run(ns.what, ns.file, ns.login, (ns.status, ns.base, ns.branch, ns.before))
    except Error as exc:
        print(f"mergedrv action: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
