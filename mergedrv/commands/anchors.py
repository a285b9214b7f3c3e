"""`mergedrv anchors`: are the records' citations of an upstream still true at
the pin, and what changed when the pin moves (`--to`)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import config as configmod
from ..errors import Error
from ..git import GitError

PROGRESS_AT = 50  # citations from which a terminal gets a progress bar


UsageError = Error  # bad arguments or configuration: one line on stderr, exit 2


@dataclass(slots=True)
class Request:
    """`mergedrv anchors` as the command line asked for it (built once, in cli.py)."""

    upstream: str | None = None
    pin: str | None = None
    to: str | None = None
    fmt: str = "text"
    config: str | None = None
    files: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)


def run(opts: Request) -> int:
    """The command: 0 all fresh at the pin, 1 otherwise (an Error: 2, from the CLI)."""
    from ..anchors import check, report, upstream

    cfg, root = _config(opts.config)
    anchors = cfg.anchors if cfg else configmod.Anchors()
    upstream_path = opts.upstream or (os.path.normpath(root / os.path.expanduser(anchors.upstream)) if anchors.upstream else None)
    if not upstream_path:
        raise UsageError("no upstream: pass --upstream REPO or set [anchors] upstream in .mergedrv.toml")
    pin = opts.pin or anchors.pin or _pin_from_file(anchors, root)
    if not pin:
        raise UsageError("no pin: pass --pin REV, or set [anchors] pin, or pin_file and pin_pattern")
    cites = _citations(cfg, root, opts, anchors)
    up = upstream.Upstream(upstream_path)
    pin_rev = up.revision(pin)
    to_rev = up.revision(opts.to) if opts.to else None
    targets = len({c.target for c in cites})
    if targets >= PROGRESS_AT and sys.stderr.isatty() and opts.fmt == "text":
        bar, step = report.progress(targets)
        with bar:
            result = check.run(up, cites, pin_rev, to_rev, step)
    else:
        result = check.run(up, cites, pin_rev, to_rev)
    sys.stdout.write(report.render(result, opts.fmt))
    return report.exit_code(result)


def _config(path: str | None) -> tuple[configmod.Config | None, Path]:
    """The configuration (None without one) and the repository root it governs."""
    if path:
        cfg_path = Path(path)
        return configmod.load(cfg_path), cfg_path.resolve().parent
    found = configmod.find(".")
    if found is not None:
        return configmod.load(found), found.parent
    try:
        from ..git import toplevel

        return None, Path(toplevel("."))
    except GitError:
        return None, Path(".").resolve()


def _pin_from_file(anchors: configmod.Anchors, root: Path) -> str | None:
    """The pin stated in prose: group 1 of pin_pattern on a line of pin_file."""
    if not anchors.pin_file:
        return None
    if not anchors.pin_pattern:
        raise UsageError("[anchors] pin_file needs pin_pattern, a regex whose group 1 is the pin")
    path = root / anchors.pin_file
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve()):  # a symlink out of the repository
            raise UsageError(f"{anchors.pin_file}: the pin file leads outside the repository (a symlink); name a file inside it")
        text = real.read_text("utf-8", "replace")
    except OSError as exc:
        raise UsageError(f"{anchors.pin_file}: cannot read the pin file ({exc.strerror})") from None
    from .. import patterns

    try:
        rx = patterns.compile(anchors.pin_pattern)
    except patterns.PatternError as exc:
        raise UsageError(f"[anchors] pin_pattern: {exc}") from None
    for line in text.splitlines():
        if len(line) > patterns.MAX_TEXT:
            continue
        m = rx.search(line.encode("utf-8", "surrogateescape"))
        if m:
            if rx.groups < 1 or not m.group(1):
                raise UsageError(f"[anchors] pin_pattern '{anchors.pin_pattern}' has no group 1 around the pin")
            return m.group(1).decode("utf-8", "replace")
    raise UsageError(f"{anchors.pin_file}: no line matches pin_pattern '{anchors.pin_pattern}'")


def _citations(cfg, root: Path, opts: Request, anchors: configmod.Anchors):
    """The citations of the record files, [anchors] files and FILE arguments."""
    from ..git import WorkTree
    from ..anchors import citations

    chosen: dict[str, configmod.Record | None] = {}  # relative path -> record or None
    if opts.files:
        for name in opts.files:
            p = Path(name)
            if not p.is_file():
                raise UsageError(f"{name}: no such file")
            rel = _relative(p, root)
            chosen[rel] = cfg.record_for(rel) if cfg else None
    elif cfg is not None:
        paths = WorkTree(root).paths()
        for rec in cfg.records:
            for rel in paths:
                if configmod.glob_match(rec.path, rel):
                    chosen.setdefault(rel, rec)
        for pattern in anchors.files:
            for rel in paths:
                if configmod.glob_match(pattern, rel):
                    chosen.setdefault(rel, cfg.record_for(rel))
    if not chosen:
        raise UsageError("no markdown files to scan: name them (FILE...) or configure [[record]] / [anchors] files in .mergedrv.toml")
    exclude = [*anchors.exclude, *opts.exclude]
    show = tuple(anchors.show)
    out = []
    for rel, rec in chosen.items():
        data = _read(root, rel)
        for cite in citations.scan(rel, data, key=rec.key if rec else None, record=rec.name if rec else None, show=show,
                                     key_pattern=rec.key_pattern if rec else None):
            if not any(configmod.glob_match(pat, cite.path) for pat in exclude):
                out.append(cite)
    return out


def _relative(p: Path, root: Path) -> str:
    try:
        return p.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def _read(root: Path, rel: str) -> bytes:
    if not Path(rel).is_absolute() and (root / rel).is_symlink():
        from ..git import WorkTree

        return WorkTree(root).read(rel) or b""  # the link as git stores it, not the file it names
    p = Path(rel) if Path(rel).is_absolute() else root / rel
    if not p.exists() and Path(rel).exists():
        p = Path(rel)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{rel}: cannot read ({exc.strerror})") from None
