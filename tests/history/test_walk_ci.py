"""examples/github-actions.yml: its check step, run by bash on real histories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.history_helpers import CONFIG
from tests.helpers import commit, git, head, short

WORKFLOW = Path(__file__).resolve().parents[2] / "examples" / "github-actions.yml"
DOCS = {"README.md": "readme\n", "docs/STATUS.md": "status\n"}


def step_script() -> str:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    [step] = [s for s in workflow["jobs"]["history"]["steps"] if "mergedrv check" in s.get("run", "")]
    assert set(step["env"]) >= {"EVENT", "PR_BASE", "PR_HEAD", "BEFORE", "AFTER", "DEFAULT_BRANCH"}
    return step["run"]


def run_step(repo, tmp_path, **env) -> subprocess.CompletedProcess:
    """The step as bash runs it; check's stderr reaches the log through stdout, between ::stop-commands:: and its token."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-c", step_script()], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PATH": path, "RUNNER_TEMP": str(tmp_path), "DEFAULT_BRANCH": "main", **env})


@pytest.fixture
def forge(repo):
    """main advanced past a pull request's fork point; the PR has one commit without its docs."""
    commit(repo, "root", {".mergedrv.toml": CONFIG, **DOCS})
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature: src alone", {"src/a.c": "a\n"})
    commit(repo, "feature: docs", {"README.md": "r2\n", "docs/STATUS.md": "s2\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main: fine", {"src/m.c": "m\n", "README.md": "r3\n", "docs/STATUS.md": "s3\n"})
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    return repo


def test_workflow_parses_and_triggers_on_pull_requests_and_pushes():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))
    assert {"pull_request", "push"} <= set(triggers)
    checkout = workflow["jobs"]["history"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@") and checkout["with"]["fetch-depth"] == 0


def test_pull_request_checks_from_the_merge_base(forge, tmp_path):
    p = run_step(forge, tmp_path, EVENT="pull_request", PR_BASE=head(forge, "main"), PR_HEAD=head(forge, "feature"))
    assert p.returncode == 1, p.stderr
    bad = short(forge, "feature~1")
    assert f"checking {head(forge, 'main~1')}..{head(forge, 'feature')}" in p.stdout
    assert f"::error file=.mergedrv.toml,line=6,title=checkpoint ({bad})::changes src/a.c but not" in p.stdout
    assert f"{bad}:.mergedrv.toml:6: checkpoint: changes src/a.c" in p.stdout
    assert "2 commits (0 merges)" in p.stdout


def test_push_checks_what_it_added_and_a_forge_merge(forge, tmp_path):
    p = run_step(forge, tmp_path, EVENT="push", BEFORE=head(forge, "main~1"), AFTER=head(forge, "main"))
    assert (p.returncode, "1 commit (0 merges)" in p.stdout) == (0, True), p.stdout + p.stderr
    before = head(forge)
    git(forge, "merge", "-q", "--no-ff", "-m", "Merge pull request #1", "feature", check=False)  # the merge button
    git(forge, "checkout", "--theirs", "--", "README.md", "docs/STATUS.md")
    git(forge, "commit", "-q", "-a", "--no-edit")
    p = run_step(forge, tmp_path, EVENT="push", BEFORE=before, AFTER=head(forge))
    assert p.returncode == 1 and "3 commits (1 merge)" in p.stdout
    assert short(forge, "feature~1") in p.stdout


def test_new_branch_or_force_push_falls_back_to_the_default_branch(forge, tmp_path):
    p = run_step(forge, tmp_path, EVENT="push", BEFORE="0" * 40, AFTER=head(forge, "feature"))
    assert p.returncode == 1 and "2 commits (0 merges)" in p.stdout
    p = run_step(forge, tmp_path, EVENT="push", BEFORE=head(forge, "main"), AFTER=head(forge, "feature"))
    assert p.returncode == 1 and "2 commits (0 merges)" in p.stdout  # before is not an ancestor: a force push
