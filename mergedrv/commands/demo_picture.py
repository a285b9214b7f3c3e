"""The README's picture: `mergedrv demo`'s two merges drawn side by side as SVG.

Everything drawn comes from the demo's merges (`demo.describe`, the merged
files), so the picture says what the demo does today; nothing in it depends on
the machine (no temporary paths, hashes or dates)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from xml.sax.saxutils import escape

from . import demo

CHAR_W, LINE_H, PAD = 7.8, 18, 16
COL = 46  # characters of one column
RED, GREEN, GREY, INK = "#c0392b", "#1e8449", "#6b7280", "#111827"


def merges() -> tuple[demo.Outcome, demo.Outcome]:
    """Run the demo's scenario once: plain git's merge, then mergedrv's."""
    from .install import driver_command

    tmp = Path(tempfile.mkdtemp(prefix="mergedrv-picture-"))
    try:
        env = demo.isolated_env(tmp)
        repo = tmp / "records"
        demo.build(repo, env)
        return demo.merge(repo, env, None), demo.merge(repo, env, driver_command())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hunk(data: bytes, width: int) -> list[str]:
    """The first conflict region of a merged file, without its markers' labels, each line cut to ``width``."""
    lines = data.decode("utf-8", "replace").split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("<<<<<<<")), None)
    if start is None:
        return []
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(">>>>>>>"))
    # marker labels dropped: they vary with git's version (2.44 passes %S %X %Y), the picture must not
    region = [line[:7] if line[:7] in ("<<<<<<<", "|||||||", ">>>>>>>") else line for line in lines[start : end + 1]]
    return [line if len(line) <= width else line[: width - 1] + "…" for line in region]


def _colour(text: str) -> str:
    if text.lstrip().startswith("!") or text.startswith("CONFLICT") or "defined twice" in text:
        return RED
    if text.startswith("clean"):
        return GREEN
    return INK


def rows(plain: demo.Outcome, keyed: demo.Outcome) -> list[tuple[str, str, str, str, str]]:
    """(file, plain text, its colour, mergedrv text, its colour) lines of the table."""
    truth = {"ROAD": demo.row_count(keyed.files["roadmap.md"], "Block") or 0}
    out = []
    for name, *_ in demo.STORY:
        left, wrong = demo.describe(name, plain, False, truth)  # wrong: silent errors in a "clean" merge
        right, _ = demo.describe(name, keyed, True, truth)
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else ""
            b = right[i] if i < len(right) else ""
            out.append((name if i == 0 else "", a, RED if wrong else _colour(a), b, _colour(b)))
    return out


def summary(plain: demo.Outcome, keyed: demo.Outcome) -> tuple[str, str]:
    truth = {"ROAD": demo.row_count(keyed.files["roadmap.md"], "Block") or 0}
    silent = sum(demo.describe(name, plain, False, truth)[1] for name, *_ in demo.STORY)
    n = len(plain.conflicted)
    left = f"{n} file{'s' if n != 1 else ''} conflicted, {silent} silent errors committed"
    k = len(keyed.conflicted)
    right = f"{k} file conflicted: the one a person must decide" if k == 1 else f"{k} files conflicted"
    return left, right


def svg(plain: demo.Outcome, keyed: demo.Outcome) -> str:
    """The picture: a table of both merges, the summary, and mergedrv's one hunk."""
    name_w = 18
    x0, x1, x2 = PAD, PAD + name_w * CHAR_W, PAD + (name_w + COL) * CHAR_W
    width = int(x2 + COL * CHAR_W + PAD)
    body: list[str] = []
    y = PAD + LINE_H

    def text(x: float, t: str, fill: str = INK, weight: str = "normal") -> None:
        body.append(f'<text x="{x:.1f}" y="{y}" fill="{fill}" font-weight="{weight}">{escape(t)}</text>')

    text(x0, "mergedrv demo: alice and bob edit the same records on two branches, then git merge", INK, "bold")
    y += LINE_H * 2
    text(x1, "plain git", INK, "bold")
    text(x2, "git + mergedrv driver", INK, "bold")
    for name, a, ca, b, cb in rows(plain, keyed):
        y += LINE_H
        text(x0, name, GREY)
        text(x1, a, ca)
        text(x2, b, cb)
    left, right = summary(plain, keyed)
    y += LINE_H * 2
    text(x1, left, RED, "bold")
    text(x2, right, GREEN, "bold")
    y += LINE_H * 2
    text(x0, "mergedrv's one conflict hunk in model-matrix.md (git's diff3 markers, labels left out):", INK, "bold")
    for line in hunk(keyed.files["model-matrix.md"], (width - 2 * PAD) // int(CHAR_W) - 4):
        y += LINE_H
        text(x0 + 2 * CHAR_W, line, RED if line[:1] in "<=>|" and line[:2] != "| " else INK)
    height = y + PAD
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13">\n'
        f'<rect width="{width}" height="{height}" fill="#ffffff" stroke="#d1d5db"/>\n'
    )
    return head + "\n".join(body) + "\n</svg>\n"


def picture() -> str:
    """The SVG the README embeds, from a fresh run of the demo's scenario."""
    return svg(*merges())
