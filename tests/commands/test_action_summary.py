"""The Action's job summary ($GITHUB_STEP_SUMMARY): findings by file in check mode, what was merged and what
was left in update mode; every name the pull request chose in inline code or a fence it cannot break."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from markdown_it import MarkdownIt

from tests.commands.test_action import _clone, _run_update, _steps
from tests.commands.test_action_escaping import CONFIG, FENCE, FORGED, INJECT, _outside_code, _run, hostile, table  # noqa: F401
from tests.commands.test_update_branch import forge  # noqa: F401  (the fixture)
from tests.install_helpers import commit

MATRIX = ".agents/model-matrix.md"


def _rendered(summary: str) -> str:
    html = MarkdownIt("commonmark").render(summary)
    assert "<a " not in html and "@everyone" not in _outside_code(html) and "evil.example" not in _outside_code(html), html
    assert "::" not in _outside_code(html), html  # no workflow command outside code
    return html


def _items(html: str) -> list[str]:
    """The file of each list item, as the reader sees it (code spans unescaped)."""
    import html as h

    return [h.unescape(m) for m in re.findall(r"<li><code>(.*?)</code>", html, re.S)]


def test_update_summary_lists_what_was_left_by_file_and_no_name_breaks_out(hostile):  # noqa: F811
    proc, _, _ = _run(hostile, "run", [])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = (hostile["tmp"] / "summary.md").read_text()
    assert summary.startswith("## mergedrv update-branch\n") and "Left to people, nothing pushed: 3 problem(s)" in summary
    html = _rendered(summary)
    assert html.count("<h2>") == 1 and html.count("<pre>") == 3
    shown = [name.replace("\\n", "\n") for name in _items(html)]
    assert sorted(shown) == sorted([INJECT, FENCE, FORGED]), shown


def test_update_summary_names_the_files_merged_by_key(forge):  # noqa: F811
    tmp = forge["tmp"]
    proc = _run_update(_clone(forge, "run"), tmp, "pr-b")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = (tmp / "summary.md").read_text()
    assert "Merged `origin/main` into `pr-b` by key and pushed; 2 file(s) changed on both sides:" in summary, summary
    assert _items(_rendered(summary)) == [".agents/model-matrix.md", ".mergedrv.toml"]


def test_check_summary_lists_the_findings_by_file(repo, tmp_path):
    base = commit(repo, {".mergedrv.toml": CONFIG, "records/base.md": table("R-1 | a")}, "records")
    head = commit(repo, {INJECT: table("R-1 | a", "R-1 | b", "bad | c")}, "pr: the names")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(tmp_path),
           "EVENT": "pull_request", "PR_BASE": base, "PR_HEAD": head, "DEFAULT_BRANCH": "main",
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    steps = _steps()
    assert subprocess.run(["bash", "-c", steps["check"]["run"]], cwd=repo, capture_output=True, env=env).returncode == 1
    assert "always()" in steps["check-summary"]["if"]  # it runs after the failing check
    proc = subprocess.run(["bash", "-c", steps["check-summary"]["run"]], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert "3 finding(s) in 2 file(s):" in summary
    html = _rendered(summary)
    assert [name.replace("\\n", "\n") for name in _items(html)] == [INJECT, "records/base.md"]
    assert html.count("<pre>") == 2


def test_the_action_caches_pip_on_its_own_pyproject():
    import yaml

    from tests.commands.test_action import ACTION

    [setup] = [s for s in yaml.safe_load(ACTION.read_text())["runs"]["steps"] if s.get("uses", "").startswith("actions/setup-python@")]
    assert setup["with"]["cache"] == "pip"
    assert setup["with"]["cache-dependency-path"] == "${{ github.action_path }}/pyproject.toml"


def test_the_example_updates_open_pull_requests_when_the_base_moves():
    import yaml

    from tests.commands.test_action import ACTION, EXAMPLE

    example = yaml.safe_load(EXAMPLE.read_text())
    triggers = example[True] if True in example else example["on"]  # YAML 1.1 reads `on:` as true
    assert "main" in triggers["push"]["branches"]
    jobs = example["jobs"]
    assert "push" in jobs["open-pulls"]["if"] and jobs["update-open"]["needs"] == "open-pulls"
    for name in ("update", "update-open"):
        assert jobs[name]["concurrency"]["group"].startswith("mergedrv-update-${{"), name
        assert jobs[name]["concurrency"]["cancel-in-progress"] is False
    inputs = set(yaml.safe_load(ACTION.read_text())["inputs"])
    uses = [s for job in jobs.values() for s in job["steps"] if s.get("uses", "").startswith("OWNER/mergedrv@")]
    assert len(uses) == 2 and all(set(s["with"]) <= inputs for s in uses)
    assert {"pr", "head-ref", "head-repo", "base"} <= set(uses[1]["with"])


def test_update_mode_on_a_push_event_takes_the_pull_request_from_the_inputs():
    step = _steps()["update"]
    for var, expr in (("PR_NUMBER", "inputs.pr"), ("HEAD_REF", "inputs.head-ref"), ("HEAD_REPO", "inputs.head-repo"), ("BASE_REF", "inputs.base")):
        assert step["env"][var].startswith("${{ " + expr + " || github.event.pull_request."), var
