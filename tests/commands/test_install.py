"""`mergedrv install`: driver, attributes block and hooks wired in; --uninstall leaves no trace."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from mergedrv import __version__
from mergedrv.commands import install as inst, install_hooks

from tests.helpers import ROOT, git
from tests.install_helpers import CONFIG, commit, install, mergedrv, seed, snapshot

USER_HOOK = "#!/bin/sh\necho \"user $(basename \"$0\") $*\" >> \"$(git rev-parse --show-toplevel)/hook.log\"\n"


def fake_mergedrv(tmp_path: Path, status: int = 0) -> Path:
    """A stand-in `mergedrv` that logs its arguments and stdin, then exits ``status``."""
    path = tmp_path / "fake-mergedrv"
    path.write_text(
        "#!/bin/sh\n"
        f'echo "args: $*" >> "{tmp_path}/fake.log"\n'
        f'case "$*" in *rewritten*) cat >> "{tmp_path}/fake.log";; esac\n'
        f"exit {status}\n"
    )
    path.chmod(0o755)
    return path


def hook_env(exe) -> dict[str, str]:
    return {"MERGEDRV": str(exe)}


def test_install_registers_driver_attributes_and_hooks(repo):
    seed(repo)
    proc = install(repo)
    driver = git(repo, "config", "--get", "merge.keyed.driver").stdout.strip()
    exe = Path(sys.executable).with_name("mergedrv")
    assert driver == inst.driver_command(str(exe))
    main = Path(inst.__file__).resolve().parent.parent / "__main__.py"  # the interpreter runs it: no console script, no `re`
    assert f"then {sys.executable} -I {main} merge %O %A %B -p %P -l %L -s %S -x %X -y %Y;" in driver, driver
    assert f"if test -x {sys.executable} && test -f {main}; then" in driver
    assert git(repo, "config", "--get", "merge.keyed.name").stdout.strip() == "mergedrv keyed records"
    attrs = (repo / ".gitattributes").read_text().splitlines()
    assert attrs[0].startswith("# >>> mergedrv") and attrs[-1] == "# <<< mergedrv <<<"
    assert attrs[1:-1] == [
        ".agents/model-matrix.md merge=keyed",
        ".agents/roadmap.md merge=keyed",
        ".agents/parity-ledger.md merge=keyed",
        ".mergedrv.toml merge=keyed",
    ]
    for path in (".agents/roadmap.md", ".mergedrv.toml"):
        assert git(repo, "check-attr", "merge", "--", path).stdout.strip().endswith("merge: keyed")
    for stage in inst.STAGES:
        hook = repo / ".git" / "hooks" / stage
        assert hook.stat().st_mode & stat.S_IXUSR
        assert hook.read_text() == install_hooks.hook_script(stage, str(exe))
    assert "hooks in .git/hooks: pre-commit, prepare-commit-msg, commit-msg, pre-merge-commit, post-rewrite" in proc.stdout


def test_install_twice_is_install_once(repo):
    seed(repo)
    install(repo)
    once = snapshot(repo)
    second = install(repo)
    assert snapshot(repo) == once
    assert "(unchanged)" in second.stdout


def test_uninstall_restores_everything_byte_for_byte(repo):
    seed(repo)
    (repo / ".gitattributes").write_text("*.png binary\n*.md text eol=lf")  # no final newline
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-commit").write_text(USER_HOOK)
    (hooks / "pre-commit").chmod(0o750)
    (hooks / "post-rewrite").write_text(USER_HOOK)
    (hooks / "post-rewrite").chmod(0o700)
    git(repo, "config", "merge.other.driver", "cat %A")
    before = snapshot(repo)
    install(repo)
    install(repo)
    assert snapshot(repo) != before
    assert (hooks / "pre-commit.pre-mergedrv").read_text() == USER_HOOK
    proc = mergedrv(repo, "install", "--uninstall")
    assert proc.returncode == 0, proc.stderr
    assert snapshot(repo) == before
    assert not list(hooks.glob("*.pre-mergedrv"))
    assert not (repo / ".git" / inst.STATE_FILE).exists()


def test_uninstall_without_gitattributes_removes_the_file_and_restores_a_prior_driver(repo):
    seed(repo)
    git(repo, "config", "merge.keyed.name", "hand-made")
    git(repo, "config", "merge.keyed.driver", "old-mergedrv merge %O %A %B")
    before = snapshot(repo)
    install(repo)
    assert "old-mergedrv" not in git(repo, "config", "--get", "merge.keyed.driver").stdout
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before
    assert not (repo / ".gitattributes").exists()


def test_attributes_block_is_updated_in_place(repo):
    seed(repo)
    (repo / ".gitattributes").write_text("*.png binary\n")
    install(repo)
    (repo / ".gitattributes").write_text((repo / ".gitattributes").read_text() + "*.jpg binary\n")
    (repo / ".mergedrv.toml").write_text(CONFIG + '\n[[log]]\npath = "docs/journal.md"\n')
    (repo / "docs").mkdir(exist_ok=True)
    (repo / "docs" / "journal.md").write_text("# Journal\n")
    git(repo, "add", "docs/journal.md")  # install refuses a path git does not track
    proc = install(repo)
    assert "(updated)" in proc.stdout
    text = (repo / ".gitattributes").read_text()
    assert text.count("# >>> mergedrv") == 1
    assert text.startswith("*.png binary\n# >>> mergedrv")
    assert "docs/journal.md merge=keyed\n.mergedrv.toml merge=keyed\n# <<< mergedrv <<<\n*.jpg binary\n" in text


def test_without_config_says_so_and_touches_nothing(repo):
    commit(repo, {"README.md": "# hi\n"}, "readme")
    before = snapshot(repo)
    proc = mergedrv(repo, "install")
    assert proc.returncode == 2
    assert "no .mergedrv.toml" in proc.stderr and "mergedrv init" in proc.stderr  # an error: on stderr, like every other
    assert snapshot(repo) == before


def test_outside_a_repository_is_a_one_line_error(tmp_path):
    proc = mergedrv(tmp_path, "install")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not inside a git working tree" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_broken_config_is_reported_with_its_line(repo):
    commit(repo, {".mergedrv.toml": '[[record]]\nname = "X"\npath = "a.md"\n'}, "bad config")
    proc = mergedrv(repo, "install")
    assert proc.returncode == 2
    assert ".mergedrv.toml:1:" in proc.stderr and "missing 'key'" in proc.stderr
    assert git(repo, "config", "--get", "merge.keyed.driver", check=False).returncode == 1


# --- the hooks at work ------------------------------------------------------------


def test_hooks_chain_the_existing_hook_and_run_each_check(repo, tmp_path):
    seed(repo)
    hooks = repo / ".git" / "hooks"
    for stage in ("pre-commit", "commit-msg", "post-rewrite"):
        (hooks / stage).write_text(USER_HOOK)
        (hooks / stage).chmod(0o755)
    install(repo)
    fake = fake_mergedrv(tmp_path)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "notes", env=hook_env(fake))
    git(repo, "commit", "-q", "--amend", "-m", "notes, amended", env=hook_env(fake))
    user = (repo / "hook.log").read_text().splitlines()
    assert user[:2] == ["user pre-commit.pre-mergedrv ", "user commit-msg.pre-mergedrv .git/COMMIT_EDITMSG"]
    assert "user post-rewrite.pre-mergedrv amend" in user
    log = (tmp_path / "fake.log").read_text().splitlines()
    assert log[0] == "args: check --staged --fix"
    assert log[1] == "args: claim-pins .git/COMMIT_EDITMSG message "  # prepare-commit-msg: git's message source
    assert log[2] == "args: check --staged --message-file .git/COMMIT_EDITMSG --only pin-claims"
    assert "args: check --rewritten amend" in log
    old = git(repo, "rev-parse", "HEAD@{1}").stdout.strip()
    new = git(repo, "rev-parse", "HEAD").stdout.strip()
    assert f"{old} {new}" in log  # post-rewrite's stdin reached the check


def test_pre_merge_commit_runs_the_merge_head_check(repo, tmp_path):
    seed(repo)
    install(repo)
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"a.md": "a\n"}, "a")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"b.md": "b\n"}, "b")
    fake = fake_mergedrv(tmp_path)
    git(repo, "merge", "-q", "--no-edit", "topic", env=hook_env(fake))
    assert "args: check --merge-head" in (tmp_path / "fake.log").read_text()


def test_a_finding_blocks_the_commit(repo, tmp_path):
    seed(repo)
    install(repo)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    proc = git(repo, "commit", "-q", "-m", "notes", env=hook_env(fake_mergedrv(tmp_path, 1)), check=False)
    assert proc.returncode != 0
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"


def test_a_user_hook_failure_still_blocks(repo, tmp_path):
    seed(repo)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'user says no' >&2\nexit 3\n")
    hook.chmod(0o755)
    install(repo)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    proc = git(repo, "commit", "-q", "-m", "notes", env=hook_env(fake_mergedrv(tmp_path)), check=False)
    assert proc.returncode != 0 and "user says no" in proc.stderr
    assert not (tmp_path / "fake.log").exists()  # mergedrv not reached


@pytest.mark.parametrize("exe, message", [("/nonexistent/mergedrv", "not found"), ("fake2", "could not run (exit 2)")])
def test_mergedrv_missing_or_broken_never_blocks(repo, tmp_path, exe, message):
    seed(repo)
    install(repo)
    if exe == "fake2":
        exe = str(fake_mergedrv(tmp_path, 2))
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    proc = git(repo, "commit", "-q", "-m", "notes", env=hook_env(exe))
    assert message in proc.stderr
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "2"


def test_core_hooks_path_is_respected(repo, tmp_path):
    seed(repo)
    shared = repo / ".githooks"
    shared.mkdir()
    (shared / "pre-commit").write_text(USER_HOOK)
    (shared / "pre-commit").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    before = snapshot(repo)
    proc = install(repo)
    assert "hooks in .githooks" in proc.stdout
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert (shared / "pre-commit.pre-mergedrv").read_text() == USER_HOOK
    fake = fake_mergedrv(tmp_path)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "notes", env=hook_env(fake))
    assert "user pre-commit.pre-mergedrv" in (repo / "hook.log").read_text()
    assert "args: check --staged" in (tmp_path / "fake.log").read_text()
    (repo / "hook.log").unlink()
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before


def test_hooks_folder_scripts_match_what_install_writes():
    for stage in inst.STAGES:
        path = ROOT / "hooks" / stage
        assert path.read_text() == install_hooks.hook_script(stage), f"regenerate hooks/{stage} from install_hooks.hook_script"
        assert path.stat().st_mode & stat.S_IXUSR


# --- the pre-commit framework ---------------------------------------------------------

PRE_COMMIT_CONFIG = """\
# the project's own hooks
repos:
  - repo: local
    hooks:
      - id: own-check
        name: own check
        entry: sh -c 'echo own-check-ran >> own.log'
        language: system
        pass_filenames: false
        always_run: true
"""


URL = "https://example.invalid/mergedrv.git"


def _framework_repo(repo: Path, config: str = PRE_COMMIT_CONFIG) -> dict[str, str]:
    seed(repo)
    commit(repo, {".pre-commit-config.yaml": config}, "pre-commit config")
    return snapshot(repo)


def test_a_pre_commit_framework_repo_gets_a_repo_entry_at_a_rev_and_keeps_its_own(repo):
    before = _framework_repo(repo)
    proc = mergedrv(repo, "install", "--pre-commit-repo", URL, "--pre-commit-rev", f"v{__version__}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ".pre-commit-config.yaml: mergedrv hooks for pre-commit, commit-msg, pre-merge-commit (added)" in proc.stdout
    assert "`mergedrv fix` there: pre-commit run mergedrv-fix --hook-stage manual" in proc.stdout
    assert "without `stages:` now also run at commit-msg, pre-merge-commit" in proc.stdout
    text = (repo / ".pre-commit-config.yaml").read_text()
    cfg = yaml.safe_load(text)
    ours = cfg["repos"][0]
    assert (ours["repo"], ours["rev"]) == (URL, f"v{__version__}")
    assert [h["id"] for h in ours["hooks"]] == ["mergedrv", "pin-claims", "mergedrv-merge-head", "mergedrv-fix"]
    assert [h["id"] for r in cfg["repos"][1:] for h in r["hooks"]] == ["own-check"]
    assert str(Path(sys.executable).parent) not in text and "/" + "tmp" not in text  # nothing of this machine
    # every id it names is a hook of .pre-commit-hooks.yaml, at the stage the plain hook runs it
    manifest = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    for hook, stage in zip(ours["hooks"], ["pre-commit", "commit-msg", "pre-merge-commit", "manual"]):
        assert stage in hook.get("stages", manifest[hook["id"]]["stages"])
    assert manifest["mergedrv"]["entry"] == "mergedrv " + inst.STAGES["pre-commit"].replace("--fix", "--fix=fail")  # the framework's way: a fixer fails after fixing
    assert manifest["mergedrv-merge-head"]["entry"] == "mergedrv " + inst.STAGES["pre-merge-commit"]
    hooks = repo / ".git" / "hooks"
    for stage in ("pre-commit", "commit-msg", "pre-merge-commit"):
        assert "File generated by pre-commit" in (hooks / stage).read_text()
    assert inst.HOOK_MARK in (hooks / "post-rewrite").read_text()  # the framework cannot pass its stdin
    again = mergedrv(repo, "install", "--pre-commit-repo", URL, "--pre-commit-rev", f"v{__version__}")
    assert again.stdout.count("(unchanged)") == 2 and (repo / ".pre-commit-config.yaml").read_text() == text
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before


def test_without_a_release_to_name_the_entry_is_local_and_runs_this_clones_mergedrv(repo, tmp_path):
    before = _framework_repo(repo)
    proc = mergedrv(repo, "install", "--pre-commit-repo", "local")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (repo / ".pre-commit-config.yaml").read_text()
    hooks = yaml.safe_load(text)["repos"][0]["hooks"]
    assert [h["id"] for h in hooks] == ["mergedrv", "pin-claims", "mergedrv-merge-head", "mergedrv-fix"]
    assert all(h["language"] == "system" for h in hooks)
    # the committed file names no path of this machine: each clone's install records its mergedrv in its git config
    assert str(Path(sys.executable).parent) not in text and str(ROOT) not in text and str(repo) not in text
    assert git(repo, "config", "--get", install_hooks.EXE_KEY).stdout.strip() == str(Path(sys.executable).with_name("mergedrv"))
    assert mergedrv(repo, "install", "--pre-commit-repo", "local").stdout.count("(unchanged)") == 2
    fake = fake_mergedrv(tmp_path)
    (repo / "notes.md").write_text("x\n")
    git(repo, "add", "notes.md", ".pre-commit-config.yaml", ".gitattributes")
    git(repo, "commit", "-q", "-m", "notes", env=hook_env(fake))
    # a hook without `stages:` runs at every stage pre-commit is installed for; install says so
    assert (repo / "own.log").read_text() == "own-check-ran\nown-check-ran\n"
    log = (tmp_path / "fake.log").read_text().splitlines()
    assert log[0] == "args: check --staged --fix=fail"  # the framework's way: a fixer fails after fixing
    assert log[1] == "args: claim-pins .git/COMMIT_EDITMSG message "
    assert log[2] == "args: check --staged --only pin-claims --message-file .git/COMMIT_EDITMSG"
    blocked = git(repo, "commit", "-q", "--allow-empty", "-m", "blocked", env=hook_env(fake_mergedrv(tmp_path, 1)), check=False)
    assert blocked.returncode != 0
    # mergedrv gone (exit 127 from the shell): the framework's hook lets git go on, as the plain hook does
    gone = git(repo, "commit", "-q", "--allow-empty", "-m", "open", env=hook_env(tmp_path / "no-such-mergedrv"), check=False)
    assert gone.returncode == 0 and "mergedrv record checks" in gone.stderr  # pre-commit shows a passing hook's output only with --verbose
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    (repo / "own.log").unlink()
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before
    assert git(repo, "config", "--get", install_hooks.EXE_KEY, check=False).returncode == 1


def test_hooks_already_configured_by_hand_get_nothing_added(repo):
    hand = PRE_COMMIT_CONFIG + f"  - repo: {URL}\n    rev: v{__version__}\n    hooks:\n      - id: mergedrv\n      - id: pin-claims\n"
    before = _framework_repo(repo, hand)
    proc = install(repo)
    assert "(already configured: nothing added)" in proc.stdout
    assert (repo / ".pre-commit-config.yaml").read_text() == hand
    assert install(repo).stdout.count("already configured") == 1
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before


def test_the_framework_source_is_a_url_at_the_release_tag_never_a_local_path(tmp_path):
    origin = tmp_path / "origin"
    git(tmp_path, "init", "-q", "-b", "main", str(origin))
    commit(origin, {"README.md": "x\n"}, "first")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert install_hooks.framework_source(clone) is None  # origin is a local path
    git(clone, "remote", "set-url", "origin", URL)
    head = git(clone, "rev-parse", "HEAD").stdout.strip()
    assert install_hooks.framework_source(clone) == (URL, head)  # origin/main has HEAD
    git(clone, "tag", f"v{__version__}")
    assert install_hooks.framework_source(clone) == (URL, f"v{__version__}")
    git(clone, "tag", "-d", f"v{__version__}")
    commit(clone, {"README.md": "y\n"}, "not pushed")
    assert install_hooks.framework_source(clone) is None
    assert install_hooks.framework_source(tmp_path) is None  # not a checkout


@pytest.mark.parametrize("args, message", [
    (["--pre-commit-repo", "/home/me/mergedrv", "--pre-commit-rev", "v1"], "not a URL"),
    (["--pre-commit-repo", URL], "go together"),
])
def test_a_local_path_or_a_repo_without_rev_is_refused(repo, args, message):
    before = _framework_repo(repo)
    proc = mergedrv(repo, "install", *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(repo) == before


def test_framework_with_hooks_path_set_falls_back_to_plain_hooks(repo):
    seed(repo)
    commit(repo, {".pre-commit-config.yaml": PRE_COMMIT_CONFIG}, "pre-commit config")
    git(repo, "config", "core.hooksPath", "hooks-here")
    before = snapshot(repo)
    install(repo)
    assert (repo / ".pre-commit-config.yaml").read_text() == PRE_COMMIT_CONFIG
    assert all(inst.HOOK_MARK in (repo / "hooks-here" / s).read_text() for s in inst.STAGES)
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before
    assert not (repo / "hooks-here").exists()


# --- a missing executable is not a lost merge (issue #13) ------------------------


def _install_with(repo: Path, exe: Path, monkeypatch) -> None:
    """`mergedrv install` recording ``exe`` as the command (as a virtual environment elsewhere would)."""
    monkeypatch.setattr(inst, "executable", lambda: str(exe))
    assert inst.install(repo, lambda msg: None) == 0


def _branches(repo: Path, ours: str, theirs: str, topic: str = "topic") -> None:
    from tests.install_helpers import BASE_ROAD, ROADMAP, roadmap

    here = git(repo, "branch", "--show-current").stdout.strip()
    git(repo, "checkout", "-q", "-b", topic)
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, theirs)}, topic)
    git(repo, "checkout", "-q", here)
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, ours)}, here)


def test_a_removed_executable_still_ends_in_git_text_merge_with_markers(repo, tmp_path, monkeypatch):
    import shutil

    from tests.install_helpers import ROADMAP, road_row

    seed(repo)
    venv = tmp_path / "gone-venv" / "bin"
    venv.mkdir(parents=True)
    exe = venv / "mergedrv"
    shutil.copy(Path(sys.executable).with_name("mergedrv"), exe)
    _install_with(repo, exe, monkeypatch)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "install", "--no-verify")
    # the executable works: rows added on both sides merge by key
    _branches(repo, road_row(13, "ROAD-V1-D4", "KV"), road_row(14, "ROAD-V1-D5", "LoRA"))
    assert git(repo, "merge", "-q", "--no-edit", "topic", check=False).returncode == 0
    shutil.rmtree(tmp_path / "gone-venv")  # the virtual environment is removed
    git(repo, "checkout", "-q", "-b", "second", "HEAD~1")
    _branches(repo, road_row(15, "ROAD-V1-D6", "MoE"), road_row(15, "ROAD-V1-D7", "TP"), "topic2")
    proc = git(repo, "merge", "--no-edit", "topic2", check=False)
    assert proc.returncode == 1
    assert "is missing" in proc.stderr and "plain text" in proc.stderr, proc.stderr
    text = (repo / ROADMAP).read_text()
    assert "<<<<<<< ours\n" in text and "||||||| base\n" in text and "=======\n" in text and ">>>>>>> theirs\n" in text
    assert "ROAD-V1-D6" in text and "ROAD-V1-D7" in text
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split() == [ROADMAP]
    # the marker size git passes is honoured; a clean text merge stays clean
    git(repo, "merge", "--abort")
    (repo / ".gitattributes").write_text((repo / ".gitattributes").read_text() + f"{ROADMAP} conflict-marker-size=12\n")
    git(repo, "commit", "-qam", "markers", "--no-verify")  # the hooks fail open: the commit goes through
    assert git(repo, "merge", "--no-edit", "topic2", check=False).returncode == 1
    assert "<<<<<<<<<<<< ours\n" in (repo / ROADMAP).read_text()
    git(repo, "merge", "--abort")


def test_the_driver_line_runs_mergedrv_when_it_is_there():
    line = inst.driver_command("/opt/my env/bin/mergedrv")
    assert line.startswith("if test -x '/opt/my env/bin/mergedrv'; then '/opt/my env/bin/mergedrv' merge %O %A %B -p %P -l %L -s %S -x %X -y %Y;")
    assert "git merge-file --diff3" in line and "--marker-size=%L" in line


def test_a_second_clone_finding_the_block_committed_uninstalls_without_touching_it(repo, tmp_path):
    seed(repo)
    install(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "records merge by key", "--no-verify")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    committed = (clone / ".gitattributes").read_bytes()
    proc = install(clone)
    assert "(unchanged)" in proc.stdout and "the attributes are committed as they are" in proc.stdout, proc.stdout
    proc = mergedrv(clone, "install", "--uninstall")
    assert proc.returncode == 0, proc.stderr
    assert (clone / ".gitattributes").read_bytes() == committed
    assert git(clone, "status", "--porcelain").stdout == ""
    assert git(clone, "config", "--get", "merge.keyed.driver", check=False).returncode == 1
    assert "committed" in proc.stdout
    # a clone that never ran install leaves the committed block alone too
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(repo), str(other))
    assert mergedrv(other, "install", "--uninstall").returncode == 0
    assert git(other, "status", "--porcelain").stdout == ""
    # the first clone, whose install wrote the block, leaves it too once it is committed: it is the team's now
    proc = mergedrv(repo, "install", "--uninstall")
    assert proc.returncode == 0 and "remove it in a commit" in proc.stdout, proc.stdout
    assert (repo / ".gitattributes").read_bytes() == committed and git(repo, "status", "--porcelain").stdout == ""


def test_an_interpreter_that_cannot_load_mergedrv_still_ends_in_git_text_merge_with_markers(repo, tmp_path, monkeypatch):
    """The driver line's files are there but the package is not (uninstalled
    from the virtual environment): __main__.py exits 127 and the line runs
    git's text merge, markers and all, never an unmerged file without them."""
    import shutil

    from tests.install_helpers import ROADMAP, road_row

    other = shutil.which("python3", path="/usr/bin:/bin")
    if other is None or os.path.realpath(other) == os.path.realpath(sys.executable):
        pytest.skip("no second interpreter without mergedrv")
    seed(repo)
    _install_with(repo, Path(sys.executable).with_name("mergedrv"), monkeypatch)
    line = git(repo, "config", "--get", "merge.keyed.driver").stdout.strip()
    assert f"{sys.executable} -I " in line
    git(repo, "config", "merge.keyed.driver", line.replace(sys.executable, other))  # an interpreter without the package
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "install", "--no-verify")
    _branches(repo, road_row(15, "ROAD-V1-D6", "MoE"), road_row(15, "ROAD-V1-D7", "TP"))
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert proc.returncode == 1
    assert "cannot load the package" in proc.stderr and "plain text" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    text = (repo / ROADMAP).read_text()
    assert "<<<<<<< " in text and ">>>>>>> " in text and "ROAD-V1-D6" in text and "ROAD-V1-D7" in text


def test_the_driver_start_with_its_streams_closed_still_exits_with_the_merge(tmp_path):
    import subprocess

    base = b"| ID | v |\n|---|---|\n| `a` | 1 |\n| `b` | 2 |\n"
    (tmp_path / ".mergedrv.toml").write_text('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    (tmp_path / "O.md").write_bytes(base)
    (tmp_path / "A.md").write_bytes(base.replace(b"| 1 |", b"| 10 |"))
    (tmp_path / "B.md").write_bytes(base.replace(b"| 2 |", b"| 20 |"))
    start = " ".join(inst.driver_start(str(Path(sys.executable).with_name("mergedrv"))))
    proc = subprocess.run(["sh", "-c", f"{start} merge O.md A.md B.md -p r.md >&- 2>&-"], cwd=tmp_path)
    assert proc.returncode == 0
    assert (tmp_path / "A.md").read_bytes() == base.replace(b"| 1 |", b"| 10 |").replace(b"| 2 |", b"| 20 |")


def test_an_earlier_block_is_replaced_in_place_never_doubled(repo):
    before = _framework_repo(repo)
    old_style = PRE_COMMIT_CONFIG.replace("repos:\n", "repos:\n  # >>> mergedrv: keyed-record checks (written by `mergedrv install`, removed by --uninstall) >>>\n"
                                          "  - repo: local\n    hooks:\n      - id: mergedrv-staged\n        name: old\n"
                                          "        entry: /home/me/venv/bin/mergedrv check --staged\n        language: system\n"
                                          "  # <<< mergedrv <<<\n")
    (repo / ".pre-commit-config.yaml").write_text(old_style)  # what an earlier mergedrv wrote: a path of its machine
    proc = mergedrv(repo, "install", "--pre-commit-repo", URL, "--pre-commit-rev", f"v{__version__}")
    assert "(updated)" in proc.stdout, proc.stdout + proc.stderr
    text = (repo / ".pre-commit-config.yaml").read_text()
    assert "/home/me" not in text and text.count("# >>> mergedrv") == 1
    assert [h["id"] for r in yaml.safe_load(text)["repos"] for h in r["hooks"]] == ["mergedrv", "pin-claims", "mergedrv-merge-head", "mergedrv-fix", "own-check"]
    git(repo, "checkout", "-q", "--", ".pre-commit-config.yaml")
    mergedrv(repo, "install", "--uninstall")
    assert snapshot(repo) == before
