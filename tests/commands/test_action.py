"""action.yml: the composite action's steps, run by bash as the runner runs them (real git, a stub `gh`)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import subprocess
import yaml

from tests.helpers import ROOT, git
from tests.commands.test_update_branch import _forge_rev, forge  # noqa: F401  (the fixture)

ACTION = ROOT / "action.yml"
EXAMPLE = ROOT / "examples" / "github-actions.yml"

GH = """#!{python}
# a stand-in for the GitHub CLI: records each call, keeps the issue comments in $GH_STATE/comments.json
import json, os, sys
state = os.environ["GH_STATE"]
args = sys.argv[1:]
with open(os.path.join(state, "calls"), "a") as fh:
    fh.write(" ".join(args) + "\\n")
login = open(os.path.join(state, "login")).read().strip() if os.path.exists(os.path.join(state, "login")) else None
if args[:2] == ["api", "user"]:
    if login is None:  # the workflow's GITHUB_TOKEN: no user behind it
        sys.exit("gh: Resource not accessible by integration (HTTP 403)")
    print(login)
    sys.exit(0)
path = os.path.join(state, "comments.json")
found = json.load(open(path)) if os.path.exists(path) else []
body = next((open(a[6:]).read() for a in args if a.startswith("body=@")), None)
if "POST" in args:
    found.append({{"id": 101 + len(found), "user": {{"login": login or "github-actions[bot]"}}, "body": body}})
elif "PATCH" in args:
    cid = int(args[args.index("PATCH") + 1].rsplit("/", 1)[1])
    [c] = [c for c in found if c["id"] == cid]
    c["body"] = body
elif "--paginate" in args:  # one array per page, back to back, as gh prints them
    sys.stdout.write(json.dumps(found[: len(found) // 2]) + json.dumps(found[len(found) // 2 :]) + "\\n")
json.dump(found, open(path, "w"))
""".format(python=sys.executable)


def _steps() -> dict:
    return {s.get("id") or s.get("name"): s for s in yaml.safe_load(ACTION.read_text())["runs"]["steps"]}


def test_action_is_composite_with_the_documented_inputs():
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    assert {"mode", "base", "rebase", "comment", "token"} <= set(action["inputs"])
    assert all(s.get("shell") == "bash" for s in action["runs"]["steps"] if "run" in s)


def test_check_mode_runs_the_tested_range_check_of_the_example():
    # tests/history/test_walk_ci.py runs the example's script on real histories; the action runs the same
    example = yaml.safe_load(EXAMPLE.read_text())
    [step] = [s for s in example["jobs"]["history"]["steps"] if "mergedrv check" in s.get("run", "")]
    assert _steps()["check"]["run"] == step["run"]
    assert _steps()["check"]["env"] == step["env"]


def _run_update(ci: Path, tmp: Path, branch: str) -> subprocess.CompletedProcess:
    step = _steps()["update"]
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(GH)  # the fake forge API; git stays real
    (bin_dir / "gh").chmod(0o755)
    state = tmp / "gh-state"
    state.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GH_STATE": str(state), "RUNNER_TEMP": str(tmp), "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "REPO": "acme/records", "HEAD_REPO": "acme/records", "HEAD_REF": branch, "BASE_REF": "main", "PR_NUMBER": "7",
        "REBASE": "false", "COMMENT": "true", "FAIL_ON_CONFLICT": "false", "GIT_NAME": "bot", "GIT_EMAIL": "bot@example.com",
    }
    return subprocess.run(["bash", "-c", step["run"]], cwd=ci, capture_output=True, text=True, env=env)


def _clone(forge, name) -> Path:  # noqa: F811
    ci = forge["tmp"] / name
    git(forge["tmp"], "clone", "-q", str(forge["bare"]), str(ci))
    return ci


def test_update_mode_comments_once_and_edits_it_in_place(forge):  # noqa: F811
    tmp = forge["tmp"]
    before = _forge_rev(forge, "pr-clash")
    first = _run_update(_clone(forge, "run1"), tmp, "pr-clash")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "status=1" in (tmp / "output").read_text()
    assert "::warning file=.agents/model-matrix.md,line=" in first.stdout
    calls = (tmp / "gh-state" / "calls").read_text().splitlines()
    assert [c for c in calls if "-X" in c] == [c for c in calls if "-X POST repos/acme/records/issues/7/comments" in c] and len(calls) == 3
    [posted] = json.loads((tmp / "gh-state" / "comments.json").read_text())
    body = posted["body"]
    assert body.startswith("<!-- mergedrv -->") and "double-definition: MODEL-TEXT-a" in body
    second = _run_update(_clone(forge, "run2"), tmp, "pr-clash")
    assert second.returncode == 0, second.stdout + second.stderr
    calls = (tmp / "gh-state" / "calls").read_text().splitlines()
    assert sum("-X POST" in c for c in calls) == 1 and calls[-1].startswith("api --silent -X PATCH repos/acme/records/issues/comments/101")
    assert _forge_rev(forge, "pr-clash") == before


def test_update_mode_pushes_a_clean_update_and_posts_nothing_new(forge):  # noqa: F811
    tmp = forge["tmp"]
    before = _forge_rev(forge, "pr-b")
    proc = _run_update(_clone(forge, "run"), tmp, "pr-b")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _forge_rev(forge, "pr-b") != before
    assert not any("-X" in c for c in (tmp / "gh-state" / "calls").read_text().splitlines())


def test_update_mode_refused_push_fails_the_step(forge):  # noqa: F811
    proc = _run_update(_clone(forge, "run"), forge["tmp"], "protected")
    assert proc.returncode == 2 and "the remote refused the push" in proc.stdout  # the log, between ::stop-commands:: and its token


def test_update_mode_leaves_forks_alone(forge):  # noqa: F811
    step = _steps()["update"]
    env = {**os.environ, "REPO": "acme/records", "HEAD_REPO": "someone/records", "HEAD_REF": "pr-b", "BASE_REF": "main", "PR_NUMBER": "7"}
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=_clone(forge, "run"), capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "a fork's branch; not updated" in proc.stdout
    assert _forge_rev(forge, "pr-b") == git(forge["bare"], "rev-parse", "pr-b").stdout.strip()


def test_check_mode_runs_doctor_ci_on_what_is_committed(repo):
    from tests.install_helpers import install, seed

    [step] = [s for s in yaml.safe_load(ACTION.read_text())["runs"]["steps"] if "mergedrv doctor --ci" in s.get("run", "")]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    seed(repo)  # records, but no .gitattributes committed
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=repo, capture_output=True, text=True, env={**os.environ, "PATH": path})
    assert proc.returncode == 1 and "::error title=mergedrv doctor::" in proc.stdout and "problem: .agents/roadmap.md" in proc.stdout
    install(repo)
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "--no-verify", "-m", "attributes")
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=repo, capture_output=True, text=True, env={**os.environ, "PATH": path})
    assert proc.returncode == 0, proc.stdout + proc.stderr
