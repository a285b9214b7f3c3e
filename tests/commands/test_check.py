"""Mutation tests: each check catches the mutation it exists for, on the real
vllm.cpp records, with the right check id and line; unmutated records pass."""

from __future__ import annotations

import subprocess

import pytest

from tests.checks_helpers import LEDGER, MATRIX, RETIRED, ROADMAP, check, check_json, edit, key_line, line_of, make_records_repo, row_line
from tests.helpers import MERGEDRV, git

ARCEE = "MODEL-TEXT-arcee-arcee-for-causal-lm"  # an INVENTORIED row nothing else names
QWEN_MM = "MODEL-MM-qwen3-5-qwen3-5-for-conditional-generation"  # PARTIAL, named by the roadmap and the checklist


@pytest.fixture
def records(repo):
    return make_records_repo(repo)


def found(lines: list[str], check_id: str) -> list[str]:
    return [line for line in lines if f": {check_id}: " in line]


def delete_row(path, key: str) -> int:
    """Delete the row keyed ``key``; returns its 1-based line."""
    line = key_line(path, key)
    lines = path.read_text(encoding="utf-8").split("\n")
    del lines[line - 1]
    path.write_text("\n".join(lines), encoding="utf-8")
    return line


def set_pin(repo, value: int) -> None:
    edit(repo / ".mergedrv.toml", "pin = 326", f"pin = {value}")


# --- unmutated -------------------------------------------------------------------


def test_unmutated_records_pass_in_every_mode(records):
    assert check(records) == (0, [], "")
    assert check(records, "--staged")[:2] == (0, [])
    assert check(records, "--commit", "HEAD")[:2] == (0, [])
    rc, data = check_json(records)
    assert (rc, data) == (0, [])


def test_unmutated_older_matrix_passes_its_own_config(repo):
    # model-matrix 40ddeb59 has no checklist: only its static summary rollup
    config = (
        "[[record]]\nname = \"MODEL\"\npath = \".agents/model-matrix.md\"\nkey = \"ID\"\n"
        "key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'\npin = 326\n"
        "[[record.rollup]]\nheading = \"Static summary and invariants\"\ngroup = \"ID\"\nlabel = \"Block\"\ncount = \"Implementation targets\"\n"
        "[[record.count]]\npattern = '\\*\\*(\\d+) category/target rows\\*\\*'\n"
        "where = { ID = '~^MODEL-(TEXT|EMBED|LATE|REWARD|TOKCLS|SEQCLS|MM|SPEC|HFALIAS|HFBACKEND)-' }\n"
    )
    make_records_repo(repo, "model-matrix.40ddeb59.md", config)
    assert check(repo) == (0, [], "")
    path = repo / MATRIX
    line = delete_row(path, ARCEE)
    rc, out, _ = check(repo)
    assert rc == 1
    assert f"{MATRIX}:{line}: ratchet: MODEL: key {ARCEE} was removed" in "\n".join(out)
    assert found(out, "rollup")  # MODEL-TEXT 114 -> 113 and 324 -> 323


# --- keys-unique ------------------------------------------------------------------


def test_keys_unique_catches_a_row_added_twice(records):
    path = records / MATRIX
    first = key_line(path, ARCEE)
    row = row_line(path, ARCEE)
    bloom = key_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    edit(path, row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm"), row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm") + "\n" + row)
    rc, out, _ = check(records, "--only", "keys-unique")
    assert rc == 1
    assert out == [f"{MATRIX}:{bloom + 1}: keys-unique: MODEL: key {ARCEE} is defined twice (first at line {first})"]


# --- key-format -------------------------------------------------------------------


def test_key_format_catches_a_malformed_key(records):
    path = records / MATRIX
    line = key_line(path, ARCEE)
    edit(path, f"| `{ARCEE}` |", "| `model-text-arcee` |")
    rc, out, _ = check(records)
    assert rc == 1
    assert f"{MATRIX}:{line}: key-format: MODEL: key model-text-arcee does not match key_pattern '^MODEL-[A-Za-z0-9_.-]+$'" in out
    # the old key is gone without retirement: the ratchet names it too
    assert any(ARCEE in f for f in found(out, "ratchet"))


# --- column-format (seed 001 mutation B: an anchor cell in the wrong form) -------


def test_column_format_catches_an_anchor_in_the_wrong_form(records):
    path = records / MATRIX
    line = key_line(path, ARCEE)
    edit(path, "arcee.py::ArceeForCausalLM", "arcee.py:ArceeForCausalLM")
    rc, out, _ = check(records)
    assert rc == 1
    assert len(out) == 1, out
    assert out[0].startswith(f"{MATRIX}:{line}: column-format: MODEL: {ARCEE}: column Upstream holds")


def test_column_format_catches_a_state_outside_the_lifecycle(records):
    path = records / MATRIX
    line = key_line(path, ARCEE)
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("`INVENTORIED`", "`FINISHED`"))
    rc, out, _ = check(records, "--only", "column-format")
    assert rc == 1
    assert out == [f"{MATRIX}:{line}: column-format: MODEL: {ARCEE}: column State holds '`FINISHED`', which does not match '^`(?:INVENTORIED|SPIKE|READY|ACTIVE|GATING|DONE|PARTIAL|BLOCKED)`'"]


# --- table-shape ------------------------------------------------------------------


def test_table_shape_catches_an_extra_cell_and_an_unescaped_pipe(records):
    path = records / MATRIX
    line = key_line(path, ARCEE)
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("model loader/forward |", "model loader/forward | extra |"))
    bloom = key_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    brow = row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    edit(path, brow, brow.replace("`BloomForCausalLM`", "`Bloom|ForCausalLM`", 1))
    rc, out, _ = check(records, "--only", "table-shape")
    assert rc == 1
    assert out == [
        f"{MATRIX}:{line}: table-shape: {ARCEE}: row has 10 cells, its header (line 146) has 9; escape a literal pipe as \\| (inside code spans too)",
        f"{MATRIX}:{bloom}: table-shape: MODEL-TEXT-bloom-bloom-for-causal-lm: row has 10 cells, its header (line 146) has 9; escape a literal pipe as \\| (inside code spans too)",
    ]
    # an escaped pipe is one cell: no finding
    edit(path, "`Bloom|ForCausalLM`", "`Bloom\\|ForCausalLM`")
    assert check(records, "--only", "table-shape")[1] == [out[0]]


def test_table_shape_catches_a_line_read_as_a_one_cell_row(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    line = key_line(path, ARCEE)
    edit(path, row, row + "\nsee the spike for details")
    rc, out, _ = check(records, "--only", "table-shape")
    assert rc == 1
    assert len(out) == 1 and out[0].startswith(f"{MATRIX}:{line + 1}: table-shape: this line has no cell separator")


def test_table_shape_in_a_log_judges_only_new_rows(records):
    # the real ledger holds ragged rows already; only what a change appends counts
    path = records / LEDGER
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\n| 2026-07-25 `abc1234` | two cells only |\n", encoding="utf-8")
    n = len(path.read_text(encoding="utf-8").split("\n")) - 1
    rc, out, _ = check(records)
    assert rc == 1
    assert out == [f"{LEDGER}:{n}: table-shape: row has 2 cells, its header (line 15) has 4; escape a literal pipe as \\| (inside code spans too)"]


# --- refs -------------------------------------------------------------------------


def test_refs_catches_a_reference_column_naming_no_key(records):
    path = records / MATRIX
    line = line_of(path, "| `MODEL-TEXT-opt-optfor-causal-lm` |")
    assert line < 100  # the engaged-architectures table, not the row itself
    edit(path, "| `MODEL-TEXT-opt-optfor-causal-lm` |", "| `MODEL-TEXT-opt-opt-for-causal-lm` |")
    rc, out, _ = check(records)
    assert rc == 1
    assert out == [f"{MATRIX}:{line}: refs: MODEL: column Row: MODEL-TEXT-opt-opt-for-causal-lm names no key of any record"]


def test_refs_catches_a_dangling_id_in_a_reference_file(records):
    path = records / ROADMAP
    line = line_of(path, f"`{QWEN_MM}`")
    edit(path, f"`{QWEN_MM}`", "`MODEL-MM-qwen3-5-qwen3-5-for-generation`")
    rc, out, _ = check(records)
    assert rc == 1
    assert out == [f"{ROADMAP}:{line}: refs: MODEL: MODEL-MM-qwen3-5-qwen3-5-for-generation names no key of any record"]


# --- ratchet (seed 001 mutations A and C) -----------------------------------------


def test_mutation_a_delete_a_named_row_and_lower_the_pin(records):
    path = records / MATRIX
    line = delete_row(path, QWEN_MM)
    set_pin(records, 325)
    rc, out, _ = check(records)
    assert rc == 1
    assert f"{MATRIX}:{line}: ratchet: MODEL: key {QWEN_MM} was removed (parent line {line}) but is not retired; list it in {RETIRED} or restore the row" in out
    assert found(out, "refs")  # the roadmap and the checklist still name it
    assert found(out, "rollup")  # PARTIAL 2 -> 1, Total 326 -> 325


def test_mutation_c_delete_a_row_nothing_names_and_lower_the_pin(records):
    path = records / MATRIX
    line = delete_row(path, ARCEE)
    set_pin(records, 325)
    rc, out, _ = check(records, "--only", "ratchet,refs,keys-unique,key-format")
    assert rc == 1
    assert out == [f"{MATRIX}:{line}: ratchet: MODEL: key {ARCEE} was removed (parent line {line}) but is not retired; list it in {RETIRED} or restore the row"]
    # also staged, and as a commit
    git(records, "add", "-A")
    assert found(check(records, "--staged")[1], "ratchet") == out
    git(records, "commit", "-q", "-m", "drop a row\n\nMODEL 326 -> 325")
    assert found(check(records, "--commit", "HEAD")[1], "ratchet") == out


def test_delete_one_row_and_add_another_fails_naming_the_key(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    line = delete_row(path, ARCEE)
    new = row.replace(ARCEE, "MODEL-TEXT-arcee2-arcee2-for-causal-lm")
    edit(path, row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm"), row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm") + "\n" + new)
    rc, out, _ = check(records)
    assert rc == 1
    assert out == [f"{MATRIX}:{line}: ratchet: MODEL: key {ARCEE} was removed (parent line {line}) but is not retired "
                   f"(this change adds MODEL-TEXT-arcee2-arcee2-for-causal-lm); list it in {RETIRED} or restore the row"]


def test_a_renamed_key_is_reported_at_its_row(records):
    """The old key is gone and the new one stands on its line: the finding points there."""
    path = records / MATRIX
    line = key_line(path, ARCEE)
    edit(path, f"`{ARCEE}`", "`MODEL-TEXT-arcee-renamed`")
    rc, out, _ = check(records, "--only", "ratchet")
    assert rc == 1
    assert out == [f"{MATRIX}:{line}: ratchet: MODEL: key {ARCEE} was removed (parent line {line}) but is not retired "
                   f"(this change adds MODEL-TEXT-arcee-renamed); list it in {RETIRED} or restore the row"]


def test_adding_a_row_without_moving_the_pin_names_the_key(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row + "\n" + row.replace(ARCEE, "MODEL-TEXT-zeta-zeta-for-causal-lm"))
    rc, out, _ = check(records, "--only", "ratchet")
    assert rc == 1
    assert out == [
        f"{MATRIX}:{key_line(path, ARCEE) + 1}: ratchet: MODEL has 327 keys but its pin is 326 (.mergedrv.toml:7); the count moved 326 -> 327 "
        "without moving the pin; against the parent (HEAD): added MODEL-TEXT-zeta-zeta-for-causal-lm; `mergedrv fix` raises the pin to the count"
    ]


def test_retired_keys_may_go(records):
    path = records / MATRIX
    delete_row(path, ARCEE)
    set_pin(records, 325)
    with open(records / RETIRED, "a") as fh:
        fh.write(f"- `{ARCEE}`: upstream dropped the architecture (2026-09-01)\n")
    assert found(check(records)[1], "ratchet") == []
    proc = git(records, "status", "--porcelain")
    assert MATRIX in proc.stdout


# --- rollup -----------------------------------------------------------------------


def test_rollup_catches_a_state_change_without_the_rollup(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("`INVENTORIED`", "`SPIKE`"))
    rc, out, _ = check(records)
    assert rc == 1
    assert [line.split(": rollup: ")[0] for line in out] == [f"{MATRIX}:{n}" for n in (19, 20, 44, 46, 50)]
    assert f"{MATRIX}:46: rollup: MODEL: rollup 'Architecture-support checklist' row 'INVENTORIED' says 290, the rows give 289 (`mergedrv fix` rewrites it)" in out


def test_rollup_catches_a_new_row_without_its_counts(records):
    # seed 001: a row deleted with the pin lowered is still caught "via the rollup"
    path = records / MATRIX
    delete_row(path, ARCEE)
    set_pin(records, 325)
    with open(records / RETIRED, "a") as fh:
        fh.write(f"- {ARCEE}\n")
    rc, out, _ = check(records)
    assert rc == 1
    lines = {line.split(": rollup: ")[0] for line in found(out, "rollup")}
    assert lines == {f"{MATRIX}:{n}" for n in (19, 20, 46, 48, 114, 126)}


def test_fix_rewrites_the_numbers_and_only_them(records):
    path = records / MATRIX
    before = path.read_text(encoding="utf-8")
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("`INVENTORIED`", "`SPIKE`"))
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=records, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"{MATRIX}:46: fixed: MODEL: rollup 'Architecture-support checklist' row 'INVENTORIED': 290 -> 289" in proc.stdout
    assert check(records) == (0, [], "")
    after = path.read_text(encoding="utf-8")
    changed = [(a, b) for a, b in zip(before.split("\n"), after.split("\n")) if a != b]
    assert len(changed) == 6  # the row, two rollup rows, three prose lines
    assert "| SPIKE | 13 |" in after and "| INVENTORIED | 289 |" in after
    assert "**326 architecture rows are inventoried at the pin**; 37 are past `INVENTORIED`" in after
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=records, capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_rollup_names_a_group_it_does_not_list(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    line = key_line(path, ARCEE)
    edit(path, row, row.replace("`INVENTORIED`", "`RETIRED`"))
    rc, out, _ = check(records, "--only", "rollup")
    assert f"{MATRIX}:38: rollup: MODEL: rollup 'Architecture-support checklist' lists no row for State 'RETIRED' (line {line})" in out


# --- log-append-only --------------------------------------------------------------


def _ledger_rows(path):
    return [(n, line) for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if line.startswith("| 2026")]


def test_log_append_only_catches_an_edited_row(records):
    path = records / LEDGER
    n, row = _ledger_rows(path)[5]
    edit(path, row, row.replace("|", "| (amended)", 2).replace("| (amended)", "|", 1))
    rc, out, _ = check(records, "--only", "log-append-only")
    assert rc == 1
    assert len(out) == 1 and out[0].startswith(f"{LEDGER}:{n}: log-append-only: the log row of line {n} was changed")


def test_log_append_only_catches_an_insertion_and_a_removal(records):
    path = records / LEDGER
    rows = _ledger_rows(path)
    n, row = rows[3]
    edit(path, row, "| 2026-07-25 `abc1234` | inserted | none | n/a |\n" + row)
    rc, out, _ = check(records, "--only", "log-append-only")
    assert rc == 1
    assert len(out) == 1 and out[0].startswith(f"{LEDGER}:{n}: log-append-only: a row was inserted before existing rows")
    git(records, "checkout", "--", LEDGER)
    m, gone = rows[10]
    edit(path, gone + "\n", "")
    rc, out, _ = check(records, "--only", "log-append-only")
    assert rc == 1
    assert len(out) == 1 and out[0].startswith(f"{LEDGER}:{m}: log-append-only: the log row of line {m} was removed")


def test_log_append_only_accepts_an_append(records):
    path = records / LEDGER
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + "\n| 2026-07-25 `abc1234` | appended | none | n/a |\n", encoding="utf-8")
    assert check(records) == (0, [], "")


# --- pin-claims -------------------------------------------------------------------


def _move_pin_and_add_row(records):
    path = records / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row + "\n" + row.replace(ARCEE, "MODEL-TEXT-zeta-zeta-for-causal-lm"))
    set_pin(records, 327)
    subprocess.run([*MERGEDRV, "fix"], cwd=records, check=True, capture_output=True)
    git(records, "add", "-A")


def test_pin_claims_a_moved_pin_must_be_claimed(records):
    _move_pin_and_add_row(records)
    git(records, "commit", "-q", "-m", "row the zeta architecture")
    rc, out, _ = check(records, "--commit", "HEAD")
    assert rc == 1
    assert out == [".mergedrv.toml:7: pin-claims: MODEL pin moved 326 -> 327, but the commit message does not say `MODEL 326 -> 327` on a line of its own"]


def test_pin_claims_a_true_claim_passes_and_a_false_one_fails(records):
    _move_pin_and_add_row(records)
    msg = records / "msg.txt"
    msg.write_text("row the zeta architecture\n\n- MODEL pin 326 → 327.\n# a comment: MODEL 1 -> 2\n")
    assert check(records, "--message-file", str(msg))[:2] == (0, [])
    msg.write_text("row the zeta architecture\n\nMODEL 326 -> 328\n")
    rc, out, _ = check(records, "--message-file", str(msg))
    assert rc == 1
    assert out == [f"{msg}:3: pin-claims: the message claims `MODEL 326 -> 328`, but the pin moved 326 -> 327"]
    git(records, "commit", "-q", "-m", "row zeta\n\nMODEL 326 -> 327")
    assert check(records, "--commit", "HEAD")[:2] == (0, [])


def test_pin_claims_a_claim_for_a_pin_that_did_not_move(records):
    git(records, "commit", "-q", "--allow-empty", "-m", "tidy\n\nMODEL 326 -> 327")
    rc, out, _ = check(records, "--commit", "HEAD")
    assert (rc, out) == (1, ["HEAD^{message}:3: pin-claims: the message claims `MODEL 326 -> 327`, but the pin stayed at 326".replace("HEAD", out[0].split("^")[0])])



def test_pin_claims_a_quoted_checker_line_is_no_claim(records):
    """vllm.cpp's history: a message quoting a checker's output is not a claim,
    in --commit and in range mode; the same claim on a line of its own is."""
    base = git(records, "rev-parse", "HEAD").stdout.strip()
    edit(records / MATRIX, "model loader/forward | ☐ required | `INVENTORIED` | none | unassigned |", "model loader/forward | ☐ required | `INVENTORIED` | none | alice |")
    quoted = "tidy a cell\n\ncheck-agent-record.py: MODEL 327 -> 326 (expected), all checkers green.\n"
    git(records, "commit", "-q", "--no-verify", "-am", quoted)
    assert check(records, "--commit", "HEAD")[:2] == (0, [])
    assert check(records, "--base", base, "--head", "HEAD")[:2] == (0, [])
    edit(records / MATRIX, "| none | alice |", "| none | bob |")
    git(records, "commit", "-q", "--no-verify", "-am", "tidy\n\n  MODEL 327 -> 326.")
    rc, out, _ = check(records, "--base", base, "--head", "HEAD")
    assert rc == 1 and len(out) == 1 and "the message claims `MODEL 327 -> 326`" in out[0], out

# --- the command line -------------------------------------------------------------


def test_json_output_and_only(records):
    path = records / MATRIX
    edit(path, "arcee.py::ArceeForCausalLM", "arcee.py:ArceeForCausalLM")
    rc, data = check_json(records)
    assert rc == 1
    assert [(d["path"], d["check"]) for d in data] == [(MATRIX, "column-format")]
    assert check(records, "--only", "ratchet")[:2] == (0, [])


def test_usage_and_configuration_errors_exit_2_in_one_line(records):
    rc, out, err = check(records, "--only", "nonsense")
    assert rc == 2 and out == [] and err.count("\n") == 1 and "unknown check id 'nonsense'" in err
    (records / ".mergedrv.toml").write_text("[[record]]\nname = 'MODEL'\n")
    rc, out, err = check(records)
    assert rc == 2 and err.strip() == ".mergedrv.toml:1: [[record]] is missing 'path'; add `path = ...` under it".join(["mergedrv check: ", ""])
    rc, out, err = check(records, "--commit", "no-such-rev")
    assert rc == 2 and "Traceback" not in err and err.count("\n") == 1


# --- hostile input ------------------------------------------------------------------


def test_a_pathological_pattern_and_a_huge_cell_do_not_hang(records):
    edit(records / ".mergedrv.toml", "[record.columns]", "[record.columns]\nOwner = '^(\\w+\\s?)+$'")
    path = records / MATRIX
    row = row_line(path, ARCEE)
    huge = "a" * 200_000 + "!"
    edit(path, row, row.replace("| unassigned |", f"| {huge} |"))
    rc, out, err = check(records, "--only", "column-format")  # a backtracking engine would not return
    assert rc == 1 and "Traceback" not in err
    line = key_line(path, ARCEE)
    assert f"{MATRIX}:{line}: column-format: MODEL: {ARCEE}: column Owner holds 200001 characters, too long to match" in out


def test_a_pattern_the_engine_refuses_is_a_config_error(records):
    """One engine (RE2) for every configured pattern: a pattern it refuses is a
    configuration error at the pattern's own line, exit 2."""
    edit(records / ".mergedrv.toml", "key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'", "key_pattern = '^(?!x)MODEL-.+$'")
    rc, out, err = check(records, "--only", "key-format")
    assert rc == 2 and "Traceback" not in err
    line = (records / ".mergedrv.toml").read_text().splitlines().index("key_pattern = '^(?!x)MODEL-.+$'") + 1
    assert f".mergedrv.toml:{line}: [record] key_pattern is not a valid regular expression: pattern '^(?!x)MODEL-.+$' cannot be used" in err


def test_unreadable_record_is_reported_not_a_traceback(records):
    path = records / MATRIX
    path.write_bytes(path.read_bytes() + b"\0")
    rc, out, err = check(records)
    assert rc == 1 and "Traceback" not in err
    assert any(": table-shape: cannot be read as markdown tables:" in line and "NUL" in line for line in out)


def test_a_record_holding_a_conflict_region_is_reported_once_at_its_line(records):
    """Issue #12: each region once, at its line; nothing else in the file (no
    refs to its keys, ratchet or rollups) is judged until it is resolved."""
    path = records / MATRIX
    n = path.read_bytes().count(b"\n")
    path.write_bytes(path.read_bytes() + b"\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n")
    rc, out, err = check(records)
    assert rc == 1 and "Traceback" not in err
    assert out == [f"{MATRIX}:{n + 2}: table-shape: a conflict region from a merge (lines {n + 2}-{n + 6}): resolve it; nothing else in this file is checked until then, and `mergedrv fix` sets its derived numbers after"]


# --- cells as bytes: the same verdicts as on decoded text -----------------------


def test_column_format_strips_unicode_padding_as_the_rollup_does(records):
    """A State cell padded with a no-break space still reads `INVENTORIED`."""
    path = records / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("| `INVENTORIED` |", "|\u00a0`INVENTORIED`\u00a0|"))
    assert check(records)[:2] == (0, [])


def test_a_long_non_ascii_cell_is_measured_in_characters(records):
    """60,000 characters of é are 120,000 bytes: still under the limit, so matched."""
    edit(records / ".mergedrv.toml", "[record.columns]", "[record.columns]\nOwner = '^[a-zé]+$'")
    path = records / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row.replace("| unassigned |", f"| {'é' * 60_000} |"))
    rc, out, err = check(records, "--only", "column-format")
    assert not [line for line in out if f"{MATRIX}:{key_line(path, ARCEE)}:" in line], out


def test_refs_reports_a_backticked_id_that_is_not_utf8(records):
    edit(records / ".mergedrv.toml", 'ref_files = [".agents/roadmap_v1.md",', 'ref_files = ["notes.md", ".agents/roadmap_v1.md",')
    edit(records / ".mergedrv.toml", "key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'", "key_pattern = '^MODEL-\\S+$'")
    (records / "notes.md").write_bytes(b"# Notes\n\nsee `MODEL-TEXT-caf\xe9` and `MODEL-TEXT-nope`\n")
    rc, out, _ = check(records, "--only", "refs")
    assert rc == 1
    assert out == ["notes.md:3: refs: MODEL: MODEL-TEXT-caf\ufffd names no key of any record",
                   "notes.md:3: refs: MODEL: MODEL-TEXT-nope names no key of any record"]


def test_a_pattern_matching_the_empty_text_over_no_rows(repo):
    """Nothing to match, and a pattern that matches nothing at all: no finding, no traceback."""
    (repo / "m.md").write_text("| ID | Note |\n|---|---|\n")
    (repo / ".mergedrv.toml").write_text('[[record]]\nname = "M"\npath = "m.md"\nkey = "ID"\npin = 0\n\n[record.columns]\nNote = ".*"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "empty")
    rc, out, err = check(repo)
    assert (rc, out, err) == (0, [], "")


def test_commit_naming_a_tree_is_a_usage_error(records):
    git(records, "tag", "-a", "vtree", "-m", "a tree", "HEAD^{tree}")
    rc, out, err = check(records, "--commit", "vtree")
    assert (rc, out, err) == (2, [], "mergedrv check: --commit 'vtree' names a tag of a tree, not a commit\n")


def test_a_relative_config_is_read_from_where_the_user_is(records):
    (records / "src").mkdir()
    (records / "src" / "alt.toml").write_text((records / ".mergedrv.toml").read_text())
    proc = subprocess.run([*MERGEDRV, "check", "--config", "alt.toml"], cwd=records / "src", capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    proc = subprocess.run([*MERGEDRV, "check", "--config", "missing.toml"], cwd=records / "src", capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr == "mergedrv check: missing.toml: no such file; run `mergedrv init` to write one\n"


def test_a_folder_in_ref_files_names_the_files_under_it(records):
    """`ref_files = ["docs/"]` is a glob (git's trailing-slash form), as checkpoint reads it."""
    edit(records / ".mergedrv.toml", 'ref_files = [".agents/roadmap_v1.md",', 'ref_files = ["docs/", ".agents/roadmap_v1.md",')
    (records / "docs").mkdir()
    (records / "docs" / "notes.md").write_text("# Notes\n\nsee `MODEL-TEXT-nope`\n")
    rc, out, _ = check(records, "--only", "refs")
    assert (rc, out) == (1, ["docs/notes.md:3: refs: MODEL: MODEL-TEXT-nope names no key of any record"])


def test_group_labels_are_not_keys_for_the_checks_as_for_the_merge(repo):
    """`| **Core** | | |` rows (a key cell that does not match key_pattern, the
    other cells empty) are labels: the driver merges them as keyless lines, and
    the checks neither count them nor hold them to the key format."""
    (repo / "m.md").write_text(
        "| ID | Name | State |\n|---|---|---|\n| **Core** | | |\n| M-1 | one | `DONE` |\n"
        "| **Extra** | | |\n| M-2 | two | `DONE` |\n| **Core** | | |\n| M-3 | three | `DONE` |\n"
    )
    (repo / ".mergedrv.toml").write_text("[[record]]\nname = \"M\"\npath = \"m.md\"\nkey = \"ID\"\nkey_pattern = '^M-\\d+$'\npin = 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "labels")
    assert check(repo) == (0, [], "")
    edit(repo / "m.md", "| M-3 | three | `DONE` |", "| m_3 | three | `DONE` |")  # a malformed key is still one
    rc, out, _ = check(repo, "--only", "key-format")
    assert rc == 1 and [line.split(": ")[1] for line in out] == ["key-format"]
