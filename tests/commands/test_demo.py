"""`mergedrv demo`: runs from the bundled samples, reports what each merge did, cleans up."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import MERGEDRV

from mergedrv import model
from mergedrv.commands import demo


def _run() -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, "demo"], capture_output=True, text=True, timeout=120)


def test_demo_exits_0_and_reports_both_merges(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    proc = _run()
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    assert 15 <= len(lines) <= 35
    # plain git: the double definition merged silently, with both line numbers
    assert "clean, but a key is defined twice:" in out
    assert "! MODEL-TEXT-glm4-… lines 13 and 17" in out
    # mergedrv: a double-definition conflict, the rest clean
    assert "double-definition: MODEL-TEXT-glm4-… line 13" in out
    assert "clean: 7 rows, both edits kept" in out
    assert "clean: 5 rows, alice's then bob's" in out
    assert "clean: pins MODEL 7, ROAD 7" in out
    assert "clean: pins MODEL 7, ROAD 6" in out  # git's silent wrong count
    assert "plain git: 2 files conflicted, 2 silent errors" in out
    assert "mergedrv:  1 file conflicted (double-definition)" in out
    # the temporary repository is gone
    assert list(tmp_path.iterdir()) == []


def test_demo_merges_measured_not_assumed(tmp_path):
    """The report's facts come from the merges: check them against the repository."""
    env = demo.isolated_env(tmp_path)
    repo = tmp_path / "records"
    demo.build(repo, env)
    from mergedrv.commands.install import driver_command

    plain = demo.merge(repo, env, None)
    keyed = demo.merge(repo, env, driver_command())
    assert plain.conflicted == {"roadmap.md", "parity-ledger.md"}
    assert keyed.conflicted == {"model-matrix.md"}
    assert demo.duplicates(plain.files["model-matrix.md"], "ID") == {demo.GLM4: [13, 17]}
    road = model.parse(keyed.files["roadmap.md"], key="Block")
    keys = [r.key for r in road.rows()]
    assert keys[-2:] == ["ROAD-V1-D4", "ROAD-V1-D5"] and len(keys) == len(set(keys)) == 7
    assert b"DSpark | `DONE`" in keyed.files["roadmap.md"] and b"NVFP4/FP8/MX | `ACTIVE`" in keyed.files["roadmap.md"]
    ledger = keyed.files["parity-ledger.md"].decode()
    assert ledger.index("99a43c6") < ledger.index("9d2b8ba")
    assert b"pin = 7" in keyed.files[".mergedrv.toml"]


def test_samples_are_small_and_parse():
    for name, key in demo.FILES.items():
        data = (demo.SAMPLES / name).read_bytes()
        assert len(data.splitlines()) < 25
        model.parse(data, key=key, log=key is None)
    assert (Path(demo.SAMPLES) / "mergedrv.toml").is_file()
