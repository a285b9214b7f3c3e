"""The documentation: a short README that starts with the two commands, links
and #anchors between the pages that resolve, the generated pages current, and
every docs/ section the code cites there."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from mergedrv.config import reference, schema

from tests.helpers import ROOT

PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def headings(path: Path) -> set[str]:
    """The GitHub anchors of a markdown file's headings (fenced code skipped)."""
    out: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6} (.*)", line)
        if m:
            slug = "".join(c for c in m.group(1).strip().lower() if c.isalnum() or c in "-_ ").replace(" ", "-")
            n, base = 0, slug
            while slug in out:
                n += 1
                slug = f"{base}-{n}"
            out.add(slug)
    return out


def links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


def broken(path: Path) -> list[str]:
    bad = []
    for target in links(path):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            bad.append(f"{path.name}: {target}: no such file")
        elif anchor and (dest.suffix != ".md" or anchor not in headings(dest)):
            bad.append(f"{path.name}: {target}: no such section")
    return bad


def test_every_link_and_anchor_between_the_pages_resolves():
    assert [p.name for p in PAGES[:2]] == ["README.md", "CHANGELOG.md"] and len(PAGES) > 8
    assert [b for p in PAGES for b in broken(p)] == []


def test_the_link_check_finds_a_broken_link_and_a_missing_section(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## Real one\n\n[ok](#real-one) [gone](b.md) [no](#nope) [also](a.md#real-one)\n")
    assert broken(tmp_path / "a.md") == ["a.md: b.md: no such file", "a.md: #nope: no such section"]


def test_the_readme_is_short_and_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    first = re.search(r"```sh\n(.*?)```", text, re.S).group(1).splitlines()
    assert [line.split("#")[0].strip() for line in first] == [
        "./install.sh && .venv/bin/mergedrv demo",
        "./install.sh && .venv/bin/python -m pytest",
    ]
    assert "![" in text and "(docs/demo.svg)" in text
    order = [text.index(s) for s in ("```sh", "## Quick start", "docs/demo.svg", "## Documentation")]
    assert order == sorted(order)


def test_the_ci_runs_the_readme_test_command():
    assert "./install.sh && .venv/bin/python -m pytest" in (ROOT / ".ci" / "run").read_text()


# --- generated pages -----------------------------------------------------------------


def test_configuration_md_is_generated_from_the_schema_and_current():
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == reference.reference(), "docs/configuration.md is stale: run python scripts/config_reference.py"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "config_reference.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_option_of_the_schema_is_described_with_type_default_and_example():
    page = reference.reference()
    for entry, many in reference._subsections() if False else reference.sections():
        for key in entry.KEYS:
            assert (entry.SECTION, key.name) in reference.DOCS, f"describe [{entry.HEADER}] {key.name} in mergedrv/config/reference.py"
            assert f"| `{key.name}` | {reference.type_name(key)} | {reference.default_text(entry.SECTION, key)} |" in page
    assert "(not described yet)" not in page
    assert set(schema.SECTIONS) <= {e.SECTION for e, _ in reference.sections()}


def test_the_configuration_examples_load():
    """Each section's example, put together, is a configuration `mergedrv` loads."""
    from mergedrv import config

    blocks = re.findall(r"```toml\n(.*?)```", reference.reference(), re.S)
    record = next(b for b in blocks if b.startswith("[[record]]\n"))
    text = "\n".join([record, *(b for b in blocks if b.startswith("# inside a [[record]]")), *(b for b in blocks if b[:1] == "[" and b is not record)])
    tomllib.loads(text)
    loaded = config.loads(text, ".mergedrv.toml")
    assert loaded.records[0].name == "MODEL" and loaded.records[0].counts and loaded.records[0].grids


def test_the_demo_picture_is_current_and_truthful():
    svg = (ROOT / "docs" / "demo.svg").read_text(encoding="utf-8")
    from mergedrv.commands import demo as demo_picture

    plain, keyed = demo_picture.merges()
    assert svg == demo_picture.svg(plain, keyed), "docs/demo.svg is stale: run python scripts/demo_picture.py"
    # what it shows is what the merges did
    assert f"{len(plain.conflicted)} files conflicted" in svg and len(keyed.conflicted) == 1
    assert "clean, but a key is defined twice:" in svg and "double-definition: MODEL-TEXT-glm4" in svg
    assert "&lt;&lt;&lt;&lt;&lt;&lt;&lt;" in svg and "/tmp" not in svg and "mergedrv-picture-" not in svg


# --- the code cites the docs ---------------------------------------------------------

CITE = re.compile(r"docs/([a-z][a-z-]*\.md)(?:#([\w-]+))?")  # our pages are lower case (docs/NOTES.md in an example is a user's)


def test_every_docs_section_the_code_cites_exists_and_no_spec_outside_it():
    cited = 0
    for path in sorted((ROOT / "mergedrv").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\bSPEC\b", text), f"{path}: cites a SPEC the repository does not hold; cite docs/spec.md#section"
        for page, anchor in CITE.findall(text):
            target = ROOT / "docs" / page
            assert target.is_file(), f"{path}: cites docs/{page}, which does not exist"
            assert not anchor or anchor in headings(target), f"{path}: cites docs/{page}#{anchor}, which has no such section"
            cited += 1
    assert cited >= 3


# --- the Quick start works as written ------------------------------------------------


def test_the_quick_start_runs_as_written(tmp_path):
    """The README's Quick start block, run by bash in this checkout, with `cd` going to a scratch repository."""
    from tests.install_helpers import seed

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text[text.index("## Quick start"):]
    block = re.search(r"```sh\n(.*?)```", quick, re.S).group(1)
    assert "cd ~/src/your-repo" in block and '"$MERGEDRV" install' in block
    repo = tmp_path / "your-repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    seed(repo)
    (repo / ".mergedrv.toml").unlink()  # init proposes it
    subprocess.run(["git", "commit", "-qam", "no configuration yet"], cwd=repo, check=True)
    script = "set -e\n" + block.replace("cd ~/src/your-repo", f'cd "{repo}"')
    proc = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "mergedrv install: done in" in proc.stdout
    log = subprocess.run(["git", "log", "-1", "--format=%s", "--name-only"], cwd=repo, capture_output=True, text=True).stdout
    assert log.split()[:4] == ["records", "merge", "by", "key"] and ".mergedrv.toml" in log and ".gitattributes" in log
