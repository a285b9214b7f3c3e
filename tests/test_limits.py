"""The redesign's size limits (issue #11), read from the source with ast:
no module over 450 lines, no class over 200, no function over 60."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mergedrv"
MODULE, CLASS, FUNCTION = 450, 200, 60


def _too_long() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE.parent)
        if len(text.splitlines()) > MODULE:
            out.append(f"{name}: module of {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                length = node.end_lineno - node.lineno + 1
                limit = CLASS if isinstance(node, ast.ClassDef) else FUNCTION
                if length > limit:
                    out.append(f"{name}:{node.lineno}: {node.name}: {length} lines (limit {limit})")
    return out


def test_no_module_class_or_function_over_its_limit():
    assert _too_long() == []


def test_the_limits_are_measured(tmp_path):
    # the measure itself: a 61-line function is one over
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    tree = ast.parse(f"def f():\n{body}\n")
    node = tree.body[0]
    assert node.end_lineno - node.lineno + 1 == 61 > FUNCTION
