"""The text of the `.mergedrv.toml` that `mergedrv init` proposes: each
proposal under a comment saying what it measured."""

from __future__ import annotations

import json


def _toml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _toml_regex(pattern: str) -> str:
    return f"'{pattern}'" if "'" not in pattern and "\n" not in pattern else _toml_str(pattern)


def _comment(lines: list[str], width: int = 88) -> list[str]:
    out: list[str] = []
    for text in lines:
        line = "#"
        for word in text.split():
            if len(line) + 1 + len(word) > width and line != "#":
                out.append(line)
                line = "#  "
            line += " " + word
        out.append(line)
    return out


def _render_record(p) -> list[str]:
    key, pattern = p.key_spec(), p.pattern_spec()
    shown = _toml_str(key) if isinstance(key, str) else "[" + ", ".join(map(_toml_str, key)) + "]"
    out = ["[[record]]", f"name = {_toml_str(p.name)}", f"path = {_toml_str(p.path)}", f"key = {shown}"]
    if isinstance(pattern, str):
        out.append(f"key_pattern = {_toml_regex(pattern)}")
    elif pattern:
        out.append("key_pattern = { " + ", ".join(f"{_toml_str(k)} = {_toml_regex(v)}" for k, v in pattern) + " }")
    if p.scope != "record":
        out.append(f"key_scope = {_toml_str(p.scope)}")
    if p.pin is not None:
        out.append(f"pin = {p.pin}")
    if p.detached:
        out.append('detached_rows = "report"')
    if p.refs:
        out.append(f"refs = [{', '.join(map(_toml_str, p.refs))}]")
    if p.ref_files:
        out.append(f"ref_files = [{', '.join(map(_toml_str, p.ref_files))}]")
    if p.retired:
        out.append(f"retired = {_toml_str(p.retired)}")
    if p.sequence:
        out.append(f"sequence = {_toml_str(p.sequence)}")
    for r in p.rollups:
        out += ["", "[[record.rollup]]", f"heading = {_toml_str(r.heading)}", f"group = {_toml_str(r.group)}",
                f"label = {_toml_str(r.label)}", f"count = {_toml_str(r.count)}", f"total = {_toml_str(r.total)}"]
    for g in p.grids:
        out += ["", "[[record.grid]]", f"column = {_toml_str(g.column)}", f"label = {_toml_str(g.label)}", f"rows = {_toml_str(g.rows)}",
                f"total = {_toml_str(g.total)}"]
        if g.heading:
            out.append(f"heading = {_toml_str(g.heading)}")
        if g.labels:
            out += ["[record.grid.labels]"] + [f"{_toml_str(k)} = {_toml_str(v)}" for k, v in g.labels.items()]
    for c in p.counts:
        out += ["", "[[record.count]]"] + ([f"file = {_toml_str(c.file)}"] if c.file else []) + [f"pattern = {_toml_regex(c.pattern)}"]
        if c.where:
            inner = ", ".join(f"{_toml_str(k)} = {_toml_str(v[0])}" for k, v in c.where.items())
            out.append(f"where = {{ {inner} }}")
    return out


def render(proposals: list, skipped: list[str], findings: list[str] | None = None) -> str:
    out = [
        "# .mergedrv.toml proposed by `mergedrv init`. Review it, then run `mergedrv install`.",
        "# Records are markdown files whose table rows carry stable keys; logs only grow at their end.",
        "",
    ]
    for p in proposals:
        out += _comment(p.why)
        out += _render_record(p) if p.kind == "record" else ["[[log]]", f"path = {_toml_str(p.path)}"]
        out.append("")
    if skipped:
        first = sorted(skipped, key=_nearest)[:12]  # (folders, then the files nearest the top: a README's table before a spec's)
        shown = [_cut(s, 98) for s in first] + ([f"and {len(skipped) - 12} more"] if len(skipped) > 12 else [])
        out += ["# Left out (the first reason of each):"] + [f"# {s}" for s in shown] + [""]
    if findings:
        kinds: dict[str, list[str]] = {}
        for f in findings:
            kinds.setdefault(f.split(": ", 2)[1] if f.count(": ") >= 2 else "other", []).append(f)
        head = ", ".join(f"{len(v)} {k}" for k, v in kinds.items())
        out += _comment([f"The tree already has {len(findings)} finding{'s' * (len(findings) != 1)} under this proposal ({head});"
                         " `mergedrv check` lists them (not the first commit's doing). The first of each:"])
        out += [f"# {_cut(v[0], 98)}" for v in kinds.values()] + [""]
    return "\n".join(out)


def _nearest(reason: str) -> int:
    """How deep the file a left-out reason names sits (a folder's reason: 0)."""
    return 0 if reason.startswith("folder ") else 1 + reason.split(": ", 1)[0].count("/")


def _cut(line: str, width: int = 160) -> str:
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def summary(p) -> str:
    """One line saying what a proposal is (printed by `mergedrv init` when it writes the file)."""
    if p.kind == "log":
        return "log"
    extra = [f"{len(p.rollups)} rollup{'s' * (len(p.rollups) != 1)}"] if p.rollups else []
    extra += [f"{len(p.counts)} count{'s' * (len(p.counts) != 1)}"] if p.counts else []
    extra += [f"refs {', '.join(p.refs)}"] if p.refs else []
    extra += [f"{len(p.ref_files)} ref_files"] if p.ref_files else []
    extra += [f"{len(p.grids)} section grid{'s' * (len(p.grids) != 1)}"] if p.grids else []
    extra += [f"{len(p.detached)} detached rows"] if p.detached else []
    keys = " and ".join(repr(k) for k in ((p.key,) + tuple(c.header for c in p.more)))
    extra += [f"keys unique per {p.scope}"] if p.scope != "record" else []
    return f"record {p.name}: key {keys}, {p.key_pattern or 'no key_pattern'}, " + (f"pin {p.pin}" if p.pin is not None else "no pin") + "".join(f", {e}" for e in extra)
