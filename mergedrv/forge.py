"""What mergedrv says to a forge about pull-request content it does not trust:
workflow commands escaped as GitHub's toolkit escapes them, markdown that cannot be broken out of, the bot's own comment."""

from __future__ import annotations

import json
import re

MARKER = "<!-- mergedrv -->"
DEFAULT_BOT = "github-actions[bot]"  # who the workflow's GITHUB_TOKEN comments as

# C0 controls, DEL and the Unicode line breaks: none of them reach a log line or a comment raw
_UNSAFE = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029\"\\\\]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')
_PROBLEM = re.compile(r'^(?P<path>"(?:[^"\\]|\\.)*"|.*?):(?P<line>\d+): (?P<rest>.*)$', re.S)


def escape_data(value: object) -> str:
    """A workflow command's message, as @actions/core's escapeData: % CR LF."""
    text = value if isinstance(value, str) else "" if value is None else json.dumps(value)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: object) -> str:
    """A workflow command's property (file=, line=, title=), as escapeProperty: also : and ,."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: object = "", /, **props: object) -> str:
    """``::name k=v,k=v::message``, every value escaped; empty properties left out, as the toolkit does."""
    shown = ",".join(f"{k}={escape_property(v)}" for k, v in props.items() if v not in (None, ""))
    return f"::{name}{' ' + shown if shown else ''}::{escape_data(message)}"


def quote_path(path: str) -> str:
    """A path as one safe line: git's C quoting ("a\\nb") when it holds a control
    character, a quote or a backslash; as it is otherwise."""
    if not _UNSAFE.search(path):
        return path
    out = []
    for ch in path:
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif _UNSAFE.match(ch):
            out.append("".join(f"\\{b:03o}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def unquote_path(text: str) -> str:
    """quote_path's inverse (a plain path comes back as it is)."""
    m = _QUOTED.match(text)
    if not m or m.end() != len(text):
        return text
    named = {v[1]: k for k, v in _NAMED.items()}
    raw = bytearray()
    for esc, ch in re.findall(r'\\([0-7]{3}|.)|(.)', m[1], re.S):
        raw += bytes([int(esc, 8)]) if len(esc) == 3 else named.get(esc, esc or ch).encode("utf-8")
    return raw.decode("utf-8", "replace")


def one_line(text: str) -> str:
    """Any text as one line: its control characters and line breaks shown as escapes."""
    return _UNSAFE.sub(lambda m: m[0] if m[0] in '"\\' else quote_path(m[0])[1:-1], text)


def split_problem(line: str) -> tuple[str, int, str]:
    """``path:line: rest`` -> (the real path, line, rest); a line of another shape: ("", 0, line)."""
    m = _PROBLEM.match(line)
    if not m:
        return "", 0, line
    return unquote_path(m["path"]), int(m["line"]), m["rest"]


def fence(lines: list[str]) -> list[str]:
    """A fenced code block holding ``lines``: its backtick fence is longer than any
    run of backticks inside (CommonMark), so no line can close it early."""
    runs = [len(r) for line in lines for r in re.findall("`+", line)]
    bar = "`" * max(3, max(runs, default=0) + 1)
    return [bar, *(one_line(line) for line in lines), bar]


def code_span(text: str) -> str:
    """Inline code holding ``text`` as one line, delimited by more backticks than any run inside."""
    text = one_line(text)
    bar = "`" * (max((len(r) for r in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{bar}{pad}{text}{pad}{bar}"


def comments(pages: str) -> list[dict]:
    """The issue comments of ``gh api --paginate`` output: one JSON array, or one per page back to back."""
    out: list[dict] = []
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(pages) and pages[at].isspace():
            at += 1
        if at >= len(pages):
            return out
        page, at = decoder.raw_decode(pages, at)
        out.extend(c for c in (page if isinstance(page, list) else [page]) if isinstance(c, dict))


def own_comment(found: list[dict], login: str) -> int | None:
    """The id of the first comment written by ``login`` (the token's own identity) whose
    body opens with the marker; a marker in anyone else's comment is not ours to edit."""
    for c in found:
        user = c.get("user") or {}
        body = c.get("body") or ""
        if isinstance(user, dict) and str(user.get("login", "")).lower() == login.lower() and login and body.lstrip().startswith(MARKER):
            if isinstance(c.get("id"), int):
                return c["id"]
    return None
