"""`mergedrv mergetool`: the keyed merge under `git mergetool` (real git) and with jj's argument shape."""

from __future__ import annotations

import os

from tests.helpers import git
from tests.install_helpers import BASE_ROAD, ROADMAP, commit, keys_at, mergedrv, road_row, roadmap, seed


def _conflicted(repo, theirs_row: str, ours_row: str) -> None:
    """Plain git (no driver in this clone yet) leaves the roadmap conflicted."""
    seed(repo)
    git(repo, "switch", "-q", "-c", "topic")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, theirs_row)}, "topic")
    git(repo, "switch", "-q", "main")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, ours_row)}, "main")
    assert git(repo, "merge", "-q", "--no-edit", "topic", check=False).returncode == 1


def test_git_mergetool_resolves_a_record_by_key(repo):
    _conflicted(repo, road_row(7, "ROAD-V1-C7", "theirs"), road_row(6, "ROAD-V1-C6", "ours"))
    proc = mergedrv(repo, "install", "--mergetool")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "mergetool.mergedrv.cmd" in proc.stdout
    assert git(repo, "config", "mergetool.mergedrv.trustExitCode").stdout.strip() == "true"
    tool = git(repo, "mergetool", "--tool=mergedrv", "--no-prompt", check=False)
    assert tool.returncode == 0, tool.stdout + tool.stderr
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout == ""  # git mergetool staged it
    git(repo, "commit", "-q", "--no-verify", "--no-edit")
    assert keys_at(repo, "HEAD", ROADMAP, "Block")[-2:] == ["ROAD-V1-C6", "ROAD-V1-C7"]
    # --uninstall takes the tool away again
    assert mergedrv(repo, "install", "--uninstall").returncode == 0
    assert git(repo, "config", "--get", "mergetool.mergedrv.cmd", check=False).returncode == 1


def test_git_mergetool_leaves_a_double_definition_to_people(repo):
    _conflicted(repo, road_row(6, "ROAD-V1-C6", "theirs"), road_row(6, "ROAD-V1-C6", "ours"))
    assert mergedrv(repo, "install", "--mergetool").returncode == 0
    tool = git(repo, "mergetool", "--tool=mergedrv", "--no-prompt", check=False)
    assert tool.returncode != 0
    assert "double-definition: ROAD-V1-C6" in tool.stdout + tool.stderr
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout.strip() == ROADMAP


def test_jj_argument_shape(repo, tmp_path):
    # jj resolve --tool mergedrv runs: mergedrv mergetool $base $left $right $output --path $path --marker-size $marker_length
    seed(repo)
    files = {}
    for name, rows in (("base", BASE_ROAD), ("left", [*BASE_ROAD, road_row(6, "ROAD-V1-C6", "l")]), ("right", [*BASE_ROAD, road_row(7, "ROAD-V1-C7", "r")])):
        files[name] = tmp_path / f"{name}_roadmap.md"
        files[name].write_text(roadmap(*rows))
    output = tmp_path / "output_roadmap.md"
    output.write_text("<<<<<<< jj's materialized conflict\n")
    argv = ["mergetool", str(files["base"]), str(files["left"]), str(files["right"]), str(output), "--path", ROADMAP, "--marker-size", "7"]
    proc = mergedrv(repo, *argv)
    assert proc.returncode == 0, proc.stderr
    assert output.read_text() == roadmap(*BASE_ROAD, road_row(6, "ROAD-V1-C6", "l"), road_row(7, "ROAD-V1-C7", "r"))
    # a real conflict: exit 1 (jj's merge-conflict-exit-codes = [1]), markers of jj's length in the output
    files["right"].write_text(roadmap(*BASE_ROAD, road_row(6, "ROAD-V1-C6", "r")))
    proc = mergedrv(repo, *argv[:-1], "9", "--jj-labels")
    assert proc.returncode == 1
    assert "double-definition: ROAD-V1-C6" in proc.stderr
    text = output.read_text()
    assert "<<<<<<<<< left\n" in text and ">>>>>>>>> right\n" in text
    assert files["left"].read_text() == roadmap(*BASE_ROAD, road_row(6, "ROAD-V1-C6", "l"))  # inputs untouched


def test_missing_input_is_a_usage_error(repo, tmp_path):
    proc = mergedrv(repo, "mergetool", str(tmp_path / "nope"), "a", "b", "c")
    assert proc.returncode == 2 and proc.stderr.strip().endswith("nope: no such file")
    assert os.listdir(tmp_path) == ["repo"]


def test_the_readme_jj_configuration_as_jj_runs_it(repo, tmp_path):
    import re
    import shlex
    import tomllib

    from tests.helpers import ROOT

    readme = (ROOT / "docs" / "ci.md").read_text()
    [block] = [b for b in re.findall(r"```toml\n(.*?)```", readme, re.S) if "[merge-tools.mergedrv]" in b]
    tool = tomllib.loads(block)["merge-tools"]["mergedrv"]
    assert tool["program"] == "mergedrv" and tool["merge-conflict-exit-codes"] == [1]
    seed(repo)
    paths = {}
    for name, rows in (("base", BASE_ROAD), ("left", [*BASE_ROAD, road_row(6, "ROAD-V1-C6", "l")]), ("right", [*BASE_ROAD, road_row(6, "ROAD-V1-C6", "r")])):
        paths[name] = tmp_path / name
        paths[name].write_text(roadmap(*rows))
    paths["output"] = tmp_path / "output"
    values = {"$base": str(paths["base"]), "$left": str(paths["left"]), "$right": str(paths["right"]), "$output": str(paths["output"]),
              "$path": ROADMAP, "$marker_length": "7"}
    args = [values.get(a, a) for a in tool["merge-args"]]
    proc = mergedrv(repo, *args)
    assert proc.returncode in tool["merge-conflict-exit-codes"], shlex.join(args) + proc.stderr
    assert "<<<<<<< left\n" in paths["output"].read_text()


FAKE_TOOL = ('printf "%s\\n" "$BASE" "$LOCAL" "$REMOTE" "$MERGED" > ../tool-args.log; '
             'cp "$BASE" ../tool-base; cp "$LOCAL" ../tool-local; cp "$REMOTE" ../tool-remote; cp "$MERGED" ../tool-merged; '
             'cp "$REMOTE" "$MERGED"')


def test_remaining_hunks_go_to_the_users_merge_tool(repo):
    _conflicted(repo, road_row(6, "ROAD-V1-C6", "theirs") + road_row(8, "ROAD-V1-C8", "t"),
                road_row(6, "ROAD-V1-C6", "ours") + road_row(7, "ROAD-V1-C7", "o"))
    assert mergedrv(repo, "install", "--mergetool").returncode == 0
    git(repo, "config", "merge.tool", "fake")
    git(repo, "config", "mergetool.fake.cmd", FAKE_TOOL)
    git(repo, "config", "mergetool.fake.trustExitCode", "true")
    tool = git(repo, "mergetool", "--tool=mergedrv", "--no-prompt", check=False)
    assert tool.returncode == 0, tool.stdout + tool.stderr
    args = (repo.parent / "tool-args.log").read_text().splitlines()
    assert len(args) == 4 and args[3] == ROADMAP, args
    assert [os.path.basename(a).split("_")[1] for a in args[:3]] == ["BASE", "LOCAL", "REMOTE"], args
    local, remote = ((repo.parent / f"tool-{n}").read_text() for n in ("local", "remote"))
    # the keyed merge took C7 and C8; only the double definition of C6 is left to the tool
    assert local == roadmap(*BASE_ROAD, road_row(6, "ROAD-V1-C6", "ours"), road_row(7, "ROAD-V1-C7", "o"), road_row(8, "ROAD-V1-C8", "t"))
    assert remote == local.replace(road_row(6, "ROAD-V1-C6", "ours"), road_row(6, "ROAD-V1-C6", "theirs"))
    assert "<<<<<<< ours" in (repo.parent / "tool-merged").read_text()  # MERGED held the keyed result, markers and all
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout == ""  # the tool resolved it; git staged it
    assert (repo / ROADMAP).read_text() == remote


def test_a_tool_that_fails_leaves_the_conflict_and_no_tool_runs_none(repo, tmp_path):
    _conflicted(repo, road_row(6, "ROAD-V1-C6", "theirs"), road_row(6, "ROAD-V1-C6", "ours"))
    git(repo, "config", "mergetool.fake.cmd", "echo ran >> ../tool-ran; exit 3")
    git(repo, "config", "mergetool.fake.trustExitCode", "true")
    stages = {n: git(repo, "show", f":{n}:{ROADMAP}").stdout for n in (1, 2, 3)}
    for n, text in stages.items():
        (tmp_path / f"s{n}").write_text(text)
    argv = ["mergetool", str(tmp_path / "s1"), str(tmp_path / "s2"), str(tmp_path / "s3"), ROADMAP]
    assert mergedrv(repo, *argv, "--tool", "fake").returncode == 1
    assert (repo.parent / "tool-ran").read_text() == "ran\n"
    assert mergedrv(repo, *argv, "--tool", "fake", "--no-tool").returncode == 1
    assert (repo.parent / "tool-ran").read_text() == "ran\n"
    assert "<<<<<<< ours" in (repo / ROADMAP).read_text()
