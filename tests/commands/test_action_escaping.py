"""Pull-request content against the action: escaped annotations, a comment that cannot be broken out of,
the bot's own comment only (mergedrv.forge, `python -m mergedrv.commands.action`, action.yml run by bash; real git, a fake `gh`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from mergedrv import forge as fg

from tests.helpers import git
from tests.install_helpers import commit, mergedrv
from tests.commands.test_action import _run_update, _steps

CONFIG = """\
[[record]]
name = "R"
path = "records/*.md"
key = "ID"
key_pattern = '^R-[0-9]+$'
"""
# a record file whose name injects workflow commands, were it printed as it is
INJECT = "records/a\n::stop-commands::pwn\n::add-mask::hunter2\n::error file=README.md,line=1::forged%0A.md"
# a file whose name closes a code fence and then speaks markdown
FENCE = "````````\n@everyone [click](http:evil.example) ````````.txt"
FORGED = "::error title=forged::owned, a,b.txt"


def table(*rows: str) -> str:
    return "# R\n\n| ID | v |\n|---|---|\n" + "".join(f"| {r} |\n" for r in rows)


# --- the runner, as far as workflow commands go -----------------------------------------------


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def workflow_commands(log: str) -> list[tuple[str, dict[str, str], str]]:
    """The commands the Actions runner would act on in ``log``: lines that open with ``::`` (after
    trimming) or hold ``##[``, none while ::stop-commands:: is in force; (name, properties, message)."""
    out: list[tuple[str, dict[str, str], str]] = []
    stopped = None
    for line in re.split(r"\r\n|\r|\n", log):
        s = line.strip()
        if stopped is not None:
            if s == f"::{stopped}::":
                stopped = None
            continue
        m = re.match(r"^::([^ :]+)(?: ([^:]*))?::(.*)$", s)
        if m:
            props = dict(p.split("=", 1) for p in m[2].split(",") if "=" in p) if m[2] else {}
            out.append((m[1], {k: _unescape(v) for k, v in props.items()}, _unescape(m[3])))
            if m[1] == "stop-commands":
                stopped = m[3]
        elif "##[" in s:
            out.append(("legacy", {}, s))
    return out


def annotations(log: str) -> list[tuple[str, dict[str, str], str]]:
    return [c for c in workflow_commands(log) if c[0] != "stop-commands"]


# --- the rules, one by one ----------------------------------------------------------------------


def test_escaping_is_the_toolkits():
    # @actions/core's own test of issueCommand, property and message
    value = "percent % percent % cr \r cr \r lf \n lf \n colon : colon : comma , comma ,"
    assert fg.escape_property(value) == "percent %25 percent %25 cr %0D cr %0D lf %0A lf %0A colon %3A colon %3A comma %2C comma %2C"
    assert fg.escape_data("percent % percent % cr \r cr \r lf \n lf \n") == "percent %25 percent %25 cr %0D cr %0D lf %0A lf %0A"
    assert fg.command("some-command", "", name="a,b", empty="") == "::some-command name=a%2Cb::"
    assert fg.command("error", "x::y", file=INJECT, line=3, title="t: (abc)") == (
        "::error file=records/a%0A%3A%3Astop-commands%3A%3Apwn%0A%3A%3Aadd-mask%3A%3Ahunter2%0A%3A%3Aerror file=README.md%2Cline=1"
        "%3A%3Aforged%250A.md,line=3,title=t%3A (abc)::x::y"
    )


def test_a_quoted_path_is_one_line_and_comes_back():
    for path in (INJECT, FENCE, FORGED, 'q"\\é\r\x85\u2028\x7f', "plain/é.md"):
        q = fg.quote_path(path)
        assert len(re.split(r"\r\n|\r|\n", q)) == 1 and len(q.splitlines()) == 1
        assert fg.unquote_path(q) == path
        assert fg.split_problem(f"{q}:7: text: -: why") == (path, 7, "text: -: why")
    assert fg.quote_path("plain/é.md") == "plain/é.md"


def test_the_fence_outlasts_every_backtick_run():
    lines = ["a ``` b", "`````````", "c"]
    block = fg.fence(lines)
    assert block[0] == block[-1] == "`" * 10 and block[1:-1] == lines
    assert fg.fence(["plain"]) == ["```", "plain", "```"]
    assert fg.code_span("main") == "`main`" and fg.code_span("a`b") == "``a`b``" and fg.code_span("`x") == "`` `x ``"


def _comment(cid: int, login: str, body: str, kind: str = "User") -> dict:
    return {"id": cid, "user": {"login": login, "type": kind}, "body": body}


def test_only_the_tokens_own_marked_comment_is_ours():
    found = [
        _comment(1, "mallory", fg.MARKER + "\nI am the bot"),
        _comment(2, "github-actions[bot]", "no marker here", "Bot"),
        _comment(3, "someone", "quoting the bot:\n> " + fg.MARKER),
        _comment(4, "github-actions[bot]", fg.MARKER + "\n\nours", "Bot"),
        _comment(5, "alice", fg.MARKER + "\n\nalice's token wrote this"),
    ]
    assert fg.own_comment(found, "github-actions[bot]") == 4
    assert fg.own_comment(found, "Alice") == 5  # logins are case-insensitive
    assert fg.own_comment(found, "nobody") is None and fg.own_comment(found, "") is None
    # gh api --paginate prints one array per page, back to back
    pages = json.dumps(found[:2]) + json.dumps(found[2:]) + "\n"
    assert [c["id"] for c in fg.comments(pages)] == [1, 2, 3, 4, 5]


def _helper(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mergedrv.commands.action", *args], cwd=cwd, capture_output=True, text=True)


def test_the_findings_helper_prints_one_command_per_finding(tmp_path):
    found = [
        {"path": INJECT, "line": 6, "check": "keys-unique", "message": "key R-1 twice\n::add-mask::hunter2", "commit": "abc1234"},
        {"path": FORGED, "line": None, "check": "key-format", "message": "##[error]legacy", "commit": ""},
    ]
    (tmp_path / "f.json").write_text(json.dumps(found))
    proc = _helper(tmp_path, "findings", "f.json")
    assert proc.returncode == 0, proc.stderr
    got = annotations(proc.stdout)
    assert got == [
        ("error", {"file": INJECT, "line": "6", "title": "keys-unique (abc1234)"}, "key R-1 twice\n::add-mask::hunter2"),
        ("error", {"file": FORGED, "line": "1", "title": "key-format"}, "##[error]legacy"),
    ]
    (tmp_path / "bad.json").write_text("{not json")
    proc = _helper(tmp_path, "findings", "bad.json")
    assert proc.returncode == 2 and proc.stderr.startswith("mergedrv action: bad.json:1: not the JSON") and "Traceback" not in proc.stderr


# --- check mode: the action's step on a pull request that plants the names --------------------------


def test_check_mode_annotates_each_finding_once_and_runs_nothing_the_names_say(repo, tmp_path):
    base = commit(repo, {".mergedrv.toml": CONFIG, "records/base.md": table("R-1 | a")}, "records")
    head = commit(repo, {INJECT: table("R-1 | a", "R-1 | b", "bad | c")}, "pr: the names")
    step = _steps()["check"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(tmp_path),
           "EVENT": "pull_request", "PR_BASE": base, "PR_HEAD": head, "DEFAULT_BRANCH": "main"}
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    got = annotations(proc.stdout + proc.stderr)
    assert [(name, props["file"], props["line"]) for name, props, _ in got] == [
        ("error", INJECT, "6"), ("error", INJECT, "7"), ("error", "records/base.md", "5")
    ], got
    assert INJECT in got[2][2]  # the message names the planted file, escaped, whole
    assert "hunter2" in proc.stdout  # logged, as text


# --- update mode: a pull request that conflicts under the names ------------------------------------------


@pytest.fixture
def hostile(tmp_path) -> dict:
    """A bare forge: main and pr-evil both change a record and two files named to attack the log and the comment."""
    bare = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "switch", "-q", "-c", "main")
    commit(dev, {".mergedrv.toml": CONFIG, INJECT: table("R-1 | a"), FENCE: "one\ntwo\n", FORGED: "one\n"}, "records")
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "-c", "pr-evil")
    commit(dev, {INJECT: table("R-1 | a", "R-2 | pr"), FENCE: "one\ntwo by pr\n", FORGED: "one by pr\n"}, "pr")
    git(dev, "push", "-q", "origin", "pr-evil")
    git(dev, "switch", "-q", "main")
    commit(dev, {INJECT: table("R-1 | a", "R-2 | main"), FENCE: "one\ntwo on main\n", FORGED: "one on main\n"}, "main moves")
    git(dev, "push", "-q", "origin", "main")
    return {"bare": bare, "tmp": tmp_path}


def _run(hostile: dict, name: str, comments: list[dict], login: str | None = None) -> tuple[subprocess.CompletedProcess, list[str], list[dict]]:
    tmp = hostile["tmp"]
    ci = tmp / name
    git(tmp, "clone", "-q", str(hostile["bare"]), str(ci))
    state = tmp / "gh-state"
    state.mkdir(exist_ok=True)
    (state / "comments.json").write_text(json.dumps(comments))
    (state / "calls").write_text("")
    if login is not None:
        (state / "login").write_text(login)
    proc = _run_update(ci, tmp, "pr-evil")
    return proc, (state / "calls").read_text().splitlines(), json.loads((state / "comments.json").read_text())


def _outside_code(html: str) -> str:
    return re.sub(r"<code[^>]*>.*?</code>", "", html, flags=re.S)


def test_update_mode_warns_once_per_problem_and_the_comment_renders_nothing_of_the_names(hostile):
    others = [_comment(5, "mallory", fg.MARKER + "\nplanted by someone else")]
    proc, calls, after = _run(hostile, "run1", others)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = annotations(proc.stdout + proc.stderr)
    assert sorted(props["file"] for _, props, _ in got) == sorted([INJECT, FENCE, FORGED]), got
    assert {name for name, _, _ in got} == {"warning"}
    # the token is the workflow's: gh api user fails, the identity is github-actions[bot]; mallory's comment stays
    assert calls[0] == "api user --jq .login"
    assert not any("PATCH" in c for c in calls) and sum("-X POST repos/acme/records/issues/7/comments" in c for c in calls) == 1
    assert after[0] == others[0]
    body = after[1]["body"]
    assert body.startswith(fg.MARKER)
    bars = [line for line in body.splitlines() if re.fullmatch("`{3,}", line)]
    runs = max(len(r) for r in re.findall("`+", "\n".join(line for line in body.splitlines() if line not in bars)))
    assert len(bars) == 2 and bars[0] == bars[1] and len(bars[0]) > runs >= 8
    html = MarkdownIt("commonmark").render(body)
    assert "@everyone" in html and "@everyone" not in _outside_code(html) and "evil.example" not in _outside_code(html)
    assert "<a " not in html
    # run again: the bot's own comment is found and edited, nobody else's
    proc, calls, again = _run(hostile, "run2", after)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [c for c in calls if "-X" in c] == [f"api --silent -X PATCH repos/acme/records/issues/comments/{after[1]['id']} -F body=@{hostile['tmp'] / 'mergedrv-comment.md'}"]
    assert again[0] == others[0]


def test_update_mode_with_a_personal_token_edits_only_that_users_comment(hostile):
    found = [_comment(5, "github-actions[bot]", fg.MARKER + "\nthe workflow's", "Bot"), _comment(6, "mallory", fg.MARKER),
             _comment(7, "alice", "no marker"), _comment(8, "alice", fg.MARKER + "\nalice's")]
    proc, calls, after = _run(hostile, "run", found, login="alice")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [c.split()[4] for c in calls if "-X" in c] == ["repos/acme/records/issues/comments/8"]
    assert after[:3] == found[:3] and after[3]["body"] != found[3]["body"]


def test_update_branch_prints_each_finding_on_one_line_whatever_the_path(tmp_path):
    # each side adds the same key in another file, one named to inject: the merge is clean, the check objects
    bare = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "switch", "-q", "-c", "main")
    other = "records/b.md"
    commit(dev, {".mergedrv.toml": CONFIG, INJECT: table("R-1 | a"), other: table("R-9 | z")}, "records")
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "-c", "pr")
    commit(dev, {INJECT: table("R-1 | a", "R-2 | pr")}, "pr")
    git(dev, "switch", "-q", "main")
    commit(dev, {other: table("R-9 | z", "R-2 | main")}, "main: the same key in another file")
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "pr")
    proc = mergedrv(dev, "update-branch", "--base", "main", "--no-push", "--comment-file", str(tmp_path / "c.md"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # the message names the planted file with its line breaks shown as \n: one finding, one line
    assert proc.stdout.splitlines() == [f"{other}:6: keys-unique: R: key R-2 is defined twice (first at {fg.one_line(INJECT)}:6)"]
    assert "\\n::stop-commands::pwn" in (tmp_path / "c.md").read_text()
