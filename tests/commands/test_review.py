"""`mergedrv review`: the driver's decisions of a real `git merge`, key by key."""

from __future__ import annotations

from tests.helpers import examples, git, loaded_by
from tests.install_helpers import BASE_MODELS, MATRIX, commit, install, matrix, mergedrv, model_row, seed

MM = "\n## MODEL-MM - Multimodal\n\n| ID | Item | State | Owner |\n|---|---|---|---|\n"


def _merge(repo) -> None:
    m = BASE_MODELS
    seed(repo)
    commit(repo, {MATRIX: matrix(*m) + MM}, "an empty multimodal table")
    install(repo)
    commit(repo, {}, "attributes")
    git(repo, "switch", "-q", "-c", "topic")
    theirs = [
        m[0].replace("unassigned", "bob"),  # MODEL-TEXT-m1: Owner
        m[1].replace("INVENTORIED", "ACTIVE"),  # MODEL-TEXT-m2: State, also on main
        m[2],
        model_row("MODEL-TEXT-both", "SameForCausalLM"),
        model_row("MODEL-TEXT-t", "TheirsForCausalLM"),
    ]
    commit(repo, {MATRIX: matrix(*theirs) + MM + m[3]}, "topic: m4 moves to MM")
    git(repo, "switch", "-q", "main")
    ours = [
        m[0].replace("INVENTORIED", "READY"),  # MODEL-TEXT-m1: State
        m[1].replace("INVENTORIED", "DONE"),
        m[2],
        m[3].replace("unassigned", "alice"),
        model_row("MODEL-TEXT-both", "SameForCausalLM"),
        model_row("MODEL-TEXT-o", "OursForCausalLM"),
    ]
    commit(repo, {MATRIX: matrix(*ours) + MM}, "main")
    proc = git(repo, "merge", "-q", "--no-edit", "topic", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # MODEL-TEXT-m2 conflicts


def test_review_explains_a_real_merge_key_by_key(repo):
    _merge(repo)
    proc = mergedrv(repo, "review", MATRIX)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    lines = [line.strip() for line in out.splitlines()]
    assert lines[0].startswith(f"{MATRIX}: merge of ") and lines[0].endswith(": 1 conflict(s)")
    decided = {line.split()[0]: line.split(None, 1)[1] for line in lines if line.startswith("MODEL-")}
    assert decided["MODEL-TEXT-m1"] == "cells merged: ours changed State, theirs changed Owner"
    assert decided["MODEL-TEXT-m2"].startswith("conflict: same-cell: ")
    assert decided["MODEL-TEXT-m4"] == "taken from ours (changed by ours); moved from 'MODEL-TEXT - Text generation' to 'MODEL-MM - Multimodal'"
    assert decided["MODEL-TEXT-both"] == "kept once: added identically on both sides"
    assert decided["MODEL-TEXT-t"] == "taken from theirs (added by theirs)"
    assert decided["MODEL-TEXT-o"] == "taken from ours (added by ours)"
    assert "MODEL-TEXT-m3" not in decided
    assert "git's line merge -> mergedrv's result:" in out
    assert "--- git merge-file (line merge)" in out and "+++ mergedrv (keyed merge)" in out


def test_review_of_a_clean_merge_reads_the_committed_result(repo):
    seed(repo)
    install(repo)
    commit(repo, {}, "attributes")
    git(repo, "switch", "-q", "-c", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-t", "T"))}, "topic")
    git(repo, "switch", "-q", "main")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-o", "O"))}, "main")
    git(repo, "merge", "-q", "--no-edit", "topic")
    proc = mergedrv(repo, "review")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ": clean" in proc.stdout.splitlines()[0] and "merged again" not in proc.stdout
    assert "taken from theirs (added by theirs)" in proc.stdout and "taken from ours (added by ours)" in proc.stdout
    # git's line merge conflicts there; the diff shows mergedrv's answer instead of the markers
    assert "-<<<<<<< " in proc.stdout


def test_no_logged_merge(repo):
    seed(repo)
    proc = mergedrv(repo, "review", MATRIX)
    assert proc.returncode == 1 and "no logged merge of .agents/model-matrix.md" in proc.stdout


def test_the_log_is_bounded(repo, monkeypatch):
    from mergedrv import mergelog
    from mergedrv.merge import Result

    seed(repo)
    monkeypatch.chdir(repo)
    monkeypatch.setattr(mergelog, "LIMIT", 4096)
    monkeypatch.setenv("MERGEDRV_LOG", "0")
    mergelog.record("off.md", b"a", b"b", b"c", Result(b"d"), ("base", "ours", "theirs"))
    assert not (repo / ".git" / "mergedrv").exists()
    monkeypatch.delenv("MERGEDRV_LOG")
    for i in range(200):
        mergelog.record(f"f{i}.md", b"a", b"b", b"c", Result(b"d"), ("base", "ours", "theirs"))
    size = (repo / ".git" / "mergedrv" / "log").stat().st_size
    entries = mergelog.read(str(repo / ".git"))
    assert size <= 4096 and entries[-1]["path"] == "f199.md" and len(entries) > 5


def test_a_log_that_cannot_be_written_never_fails_the_merge(repo):
    seed(repo)
    install(repo)
    commit(repo, {}, "attributes")
    (repo / ".git" / "mergedrv").write_text("not a folder\n")  # the log cannot be created
    git(repo, "switch", "-q", "-c", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-t", "T"))}, "topic")
    git(repo, "switch", "-q", "main")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-o", "O"))}, "main")
    proc = git(repo, "merge", "-q", "--no-edit", "topic", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert mergedrv(repo, "review").returncode == 1


def test_the_log_writes_json_without_the_json_module():
    import json

    from hypothesis import given, settings, strategies as st

    from mergedrv.mergelog import _json, fingerprint

    @settings(max_examples=examples(200), deadline=None)
    @given(st.lists(st.one_of(st.none(), st.integers(), st.text()), max_size=5), st.text())
    def roundtrip(items, text):
        value = {"why": text, "items": items, "conflicts": [[3, "kind", text, "why"]]}
        assert json.loads(_json(value)) == value

    roundtrip()
    assert fingerprint(b"hello\n") == "6:363a3020"  # size, zlib's CRC-32
    assert fingerprint(b"") == "0:00000000"


def test_logging_a_large_merge_loads_no_openssl_and_review_still_reads_it(repo):
    """The log names versions of any size without hashing them with SHA-1
    (OpenSSL's load was ~2-3 ms of every large merge); review finds them
    in the repository all the same."""
    filler = [model_row(f"MODEL-TEXT-f{i:04}", f"F{i}ForCausalLM") for i in range(700)]  # ~50 KB a version
    seed(repo)
    commit(repo, {MATRIX: matrix(*BASE_MODELS, *filler)}, "a large matrix")
    install(repo)
    commit(repo, {}, "attributes")
    git(repo, "switch", "-q", "-c", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, *filler, model_row("MODEL-TEXT-t", "T"))}, "topic")
    git(repo, "switch", "-q", "main")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, *filler, model_row("MODEL-TEXT-o", "O"))}, "main")
    show = lambda rev: git(repo, "show", f"{rev}:{MATRIX}").stdout.encode()  # noqa: E731
    base, ours, theirs = show("main~1"), show("main"), show("topic")
    assert len(base) > 40_000
    for name, data in (("O.md", base), ("A.md", ours), ("B.md", theirs)):
        (repo / name).write_bytes(data)
    proc, loaded = loaded_by(repo, ["merge", "O.md", "A.md", "B.md", "-p", MATRIX])
    assert proc.returncode == 0, proc.stderr
    assert "mergedrv.mergelog" in loaded and not {"hashlib", "_hashlib"} & loaded
    for name in ("O.md", "A.md", "B.md"):
        (repo / name).unlink()
    git(repo, "merge", "-q", "--no-edit", "topic")
    proc = mergedrv(repo, "review", "-n", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not in this repository" not in proc.stdout, proc.stdout
    assert proc.stdout.count("taken from theirs (added by theirs)") == 2, proc.stdout
    assert "merged again" not in proc.stdout  # the committed result is found too


def test_review_reads_a_log_written_with_blob_ids(repo):
    """Logs written before the driver logged sizes and CRCs name blob ids: still read."""
    import json

    _merge(repo)
    log = repo / ".git" / "mergedrv" / "log"
    entry = json.loads(log.read_text().splitlines()[-1])
    stages = {line.split()[2]: line.split()[1] for line in git(repo, "ls-files", "-s", "--", MATRIX).stdout.splitlines()}
    entry.update(base=stages["1"], ours=stages["2"], theirs=stages["3"], result="0" * 40)
    log.write_text(json.dumps(entry) + "\n")
    proc = mergedrv(repo, "review", MATRIX)
    assert proc.returncode == 0 and "taken from theirs (added by theirs)" in proc.stdout, proc.stdout + proc.stderr
    assert "merged again" in proc.stdout


def test_review_finds_the_versions_of_a_renamed_file_and_of_an_aborted_pull(repo, tmp_path):
    """Versions not in the path's history (the base and ours of a file theirs
    renamed; theirs of a pull aborted, reachable from no ref) are found among
    every blob of the object store."""
    import json

    _merge(repo)
    entry = json.loads((repo / ".git" / "mergedrv" / "log").read_text().splitlines()[-1])
    git(repo, "merge", "--abort")
    git(repo, "branch", "-D", "topic")  # theirs now only in the object store (as a fetched branch is)
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "mv", MATRIX, MATRIX.replace("model-matrix", "models"))
    git(repo, "commit", "-qm", "renamed", "--no-verify")
    entry["path"] = MATRIX.replace("model-matrix", "models")  # the merge logged under the new name
    (repo / ".git" / "mergedrv" / "log").write_text(json.dumps(entry) + "\n")
    proc = mergedrv(repo, "review")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not in this repository" not in proc.stdout, proc.stdout
    assert "git's line merge -> mergedrv's result:" in proc.stdout  # the three versions read back (the new path is no record)
