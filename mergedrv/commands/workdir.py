"""Where a command runs and with which configuration: the top of the
working tree (entered: configured paths are relative to it), and
`.mergedrv.toml` from --config or from the snapshot being checked.  Shared
by `check` and `fix`; no command of its own."""

from __future__ import annotations

import os

from .. import config as cfgmod
from ..errors import Error
from ..git import GitError, Snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Configured(Protocol):
        """A request with --config (`check.Request`, `fix.Request`)."""

        config: str | None
        config_file: str | None

UsageError = Error  # a problem with the command line or the repository: exit 2, one line


def root() -> str:
    """The top of the working tree (found without a git process when plain)."""
    if not any(k in os.environ for k in ("GIT_DIR", "GIT_WORK_TREE")):
        d = os.getcwd()
        while True:
            if os.path.exists(os.path.join(d, ".git")):
                return d
            up = os.path.dirname(d)
            if up == d:
                break
            d = up
    try:
        from ..git import toplevel

        return toplevel(".")
    except GitError:
        found = cfgmod.find_path(".")
        if found is None:
            raise UsageError("not inside a git working tree, and no .mergedrv.toml here or above") from None
        return os.path.dirname(found)


def enter() -> str:
    """Go to the top of the working tree (configured paths are relative to it)."""
    top = root()
    os.chdir(top)
    return top


def config_for(req: Configured, snap: Snapshot, where: str) -> tuple[cfgmod.Config, dict]:
    """The configuration: --config, else the snapshot's own .mergedrv.toml."""
    if req.config:
        try:
            data = cfgmod.read(req.config_file or req.config, req.config)
        except OSError as exc:
            raise UsageError(f"cannot read --config {req.config}: {exc.strerror}") from None
        return cfgmod.load_bytes(data, req.config), {"config_path": req.config, "config_data": data}
    data = snap.read(cfgmod.CONFIG_NAME)
    if data is None:
        raise UsageError(f"no {cfgmod.CONFIG_NAME} in {where}; run `mergedrv init` to propose one, or pass --config PATH")
    return cfgmod.load_bytes(data), {"config_path": cfgmod.CONFIG_NAME, "config_data": data}


def configured_paths(cfg: cfgmod.Config) -> list[str] | None:
    """The configured paths, or None if a glob needs the whole tree (or
    they are so many that git matching each pathspec against every path
    costs more than listing the whole tree: 0.6 s for 8,000)."""
    paths = [cfgmod.CONFIG_NAME] + [r.path for r in cfg.records] + [g.path for g in cfg.logs]
    paths += [r.retired for r in cfg.records if r.retired] + [f for r in cfg.records for f in r.ref_files]
    paths += [f for r in cfg.records for f in r.counted_files()]
    if len(paths) > 256 or any(cfgmod.is_glob(p) for p in paths):
        return None
    return [p.lstrip("/") for p in paths]


def records_as_at_head(root: str, cfg: cfgmod.Config) -> bool:
    """No configured file differs from HEAD's, staged or not (right after a
    commit, or a merge or rebase that ran no hook): the change is HEAD's own."""
    from ..git import git_or_none

    paths = configured_paths(cfg)
    return git_or_none(root, "diff", "--quiet", "HEAD", "--", *([f":(literal){p}" for p in paths] if paths else [])) is not None
