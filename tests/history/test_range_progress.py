"""Range mode's progress when stderr is no terminal (#18 item 4): a plain line
every PROGRESS_EVERY seconds, nothing for a short run, no line once done."""

from __future__ import annotations

from mergedrv.history import walk


def test_a_line_every_few_seconds_when_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(walk, "PROGRESS_EVERY", 0.0)
    bar = walk.Progress(3, enabled=False)
    for _ in range(3):
        bar.advance()
    bar.close()
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == ["mergedrv check: 1/3 commits checked", "mergedrv check: 2/3 commits checked"]


def test_a_short_run_says_nothing(capsys):
    bar = walk.Progress(1000, enabled=False)
    for _ in range(1000):
        bar.advance()
    bar.close()
    assert capsys.readouterr().err == ""
