"""A command module holds its argument handling and output: no command
imports another (the modules beside them that are no command, such as
install_files or workdir, are shared)."""

from __future__ import annotations

import ast
from pathlib import Path

COMMANDS = Path(__file__).resolve().parents[2] / "mergedrv" / "commands"
# the subcommands cli.py dispatches (each module of that name)
NAMES = {"action", "anchors", "check", "claim_pins", "demo", "doctor", "fix", "init", "install", "merge", "mergetool", "next", "renumber", "resolve", "review", "update_branch"}


def _imported(path: Path) -> set[str]:
    """The mergedrv.commands modules ``path`` imports, anywhere in it."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mergedrv.commands"):
            parts = node.module.split(".")
            out |= {parts[2]} if len(parts) > 2 else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("mergedrv.commands.")}
    return out


def test_every_named_command_is_a_module():
    assert NAMES <= {p.stem for p in COMMANDS.glob("*.py")}


def test_no_command_imports_another():
    wrong = [f"commands/{p.name} imports commands.{name}" for p in sorted(COMMANDS.glob("*.py"))
             for name in sorted(_imported(p) & NAMES - {p.stem})]
    assert wrong == [], "\n".join(wrong)
