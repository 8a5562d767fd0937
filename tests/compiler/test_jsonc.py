"""jsonedit on JSONC (comments, trailing commas): every comment outside the edited spans
stays byte for byte (formats/jsonc.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memhub.compiler.formats import jsonc
from memhub.compiler.formats.document import Document, format_of
from memhub.compiler.formats.jsonedit import (
    JsonEditError,
    append_item,
    get_key,
    parse,
    remove_item,
    remove_key,
    set_key,
    set_keys,
)

COMMENTED = """\
{
  // the person's own theme
  "$schema": "https://opencode.ai/config.json",
  "theme": "x", /* inline */
  "mcp": {
    // servers
    "mine": {"type": "local", "command": ["a"]}, // mine
  },
  "list": [1, 2,],
}
"""


def test_blank_keeps_offsets_and_strings() -> None:
    view = jsonc.blank(COMMENTED)
    assert len(view) == len(COMMENTED)
    assert view.count("\n") == COMMENTED.count("\n")
    assert "https://opencode.ai/config.json" in view, "a // inside a string is no comment"
    assert "//" not in view.replace("https://", "") and "/*" not in view
    assert json.loads(view)["list"] == [1, 2]


def test_plain_json_is_returned_as_the_same_object() -> None:
    text = '{"a": "http://x", "b": [1, 2]}'
    assert jsonc.blank(text) == text and not jsonc.has_comments(text)
    plain = '{"a": 1}'
    assert jsonc.blank(plain) is plain
    assert jsonc.has_comments(COMMENTED)


def test_parse_and_get_read_through_comments() -> None:
    assert parse(COMMENTED)["mcp"]["mine"]["command"] == ["a"]
    assert get_key(COMMENTED, ["mcp", "mine"]) == {"type": "local", "command": ["a"]}
    assert get_key('{"a": {/* c */ "b": [1, /* d */ 2,],}}', ["a"]) == {"b": [1, 2]}


def test_adding_a_member_keeps_every_comment() -> None:
    out = set_key(COMMENTED, ["mcp", "memhub"], {"type": "local", "command": ["m"]})
    for line in ("// the person's own theme", "/* inline */", "// servers", "// mine"):
        assert line in out
    assert parse(out)["mcp"]["memhub"] == {"type": "local", "command": ["m"]}
    assert " \n" not in out.replace("/* inline */ \n", ""), "no blanked spaces copied"
    assert remove_key(out, ["mcp", "memhub"]) == COMMENTED


def test_a_new_top_level_member_after_a_trailing_comma() -> None:
    out = set_key(COMMENTED, ["autoupdate"], False)
    assert out.endswith('  "list": [1, 2,],\n  "autoupdate": false,\n}\n'), "the comma stays last"
    assert remove_key(out, ["autoupdate"]) == COMMENTED


def test_replacing_and_removing_keep_the_other_comments() -> None:
    out = set_key(COMMENTED, ["theme"], "y")
    assert out == COMMENTED.replace('"theme": "x"', '"theme": "y"')
    gone = remove_key(COMMENTED, ["mcp", "mine"], prune=False)
    assert "// servers" in gone and "// the person's own theme" in gone
    assert parse(gone)["mcp"] == {}


def test_arrays_and_batches_in_jsonc() -> None:
    out = append_item(COMMENTED, ["list"], 3)
    assert parse(out)["list"] == [1, 2, 3] and "/* inline */" in out
    assert remove_item(out, ["list"], 3) == COMMENTED
    batch = set_keys(COMMENTED, [(["mcp", "a"], 1), (["mcp", "b"], 2), (["theme"], "z")])
    one_by_one = set_key(
        set_key(set_key(COMMENTED, ["mcp", "a"], 1), ["mcp", "b"], 2), ["theme"], "z"
    )
    assert batch == one_by_one
    assert "// mine" in batch and parse(batch)["mcp"]["b"] == 2


def test_the_document_reads_jsonc_and_jsonc_names() -> None:
    doc = Document("json", COMMENTED)
    assert doc.get(("mcp", "mine", "type")) == "local"
    doc.set(("mcp", "new"), {"type": "remote", "url": "https://x.example/mcp"})
    assert "// mine" in doc.text
    assert format_of("opencode.jsonc") == "json"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{\n  // c\n  "a": 1 /* never closed\n}', "line 3 col 10"),
        ('{\n  "a": 1,,\n}', "line 3 col 1"),
        ('{\n  /* c */ , "a": 1\n}', "line 2 col 11"),
        ('{"a": "x // y" oops}', "line 1 col 16"),
    ],
)
def test_broken_jsonc_names_its_line_and_column(text: str, where: str) -> None:
    for edit in (lambda: parse(text), lambda: set_key(text, ["b"], 1)):
        with pytest.raises(JsonEditError, match=f"^{where}: "):
            edit()


comment = st.sampled_from(["", " // c", " /* c */"])


@given(
    values=st.lists(st.integers(), min_size=1, max_size=4),
    notes=st.lists(comment, min_size=5, max_size=5),
    trailing=st.booleans(),
    new=st.dictionaries(st.text("ab", min_size=1, max_size=3), st.integers(), max_size=3),
)
def test_comments_survive_any_edit_of_the_members(
    values: list[int], notes: list[str], trailing: bool, new: dict[str, Any]
) -> None:
    """Any set of added keys, then removed again, gives the commented text back."""
    lines = [f'  "k{i}": {v},{notes[i % 5]}' for i, v in enumerate(values)]
    if not trailing:
        lines[-1] = lines[-1].replace(f"{values[-1]},", f"{values[-1]}", 1)
    text = "{" + notes[4] + "\n" + "\n".join(lines) + "\n}\n"
    out = text
    for key, value in new.items():
        out = set_key(out, ["n", key], value)
    assert parse(out) == {
        **{f"k{i}": v for i, v in enumerate(values)},
        **({"n": new} if new else {}),
    }
    for note in notes:
        assert out.count(note) >= text.count(note) if note else True
    assert remove_key(out, ["n"]) == text


def test_huge_whitespace_and_comment_runs_stay_linear() -> None:
    """A comma before a long run of spaces that ends in no bracket must not backtrack."""
    import time

    text = (
        '{"a": 1, /* x */'
        + " " * 200_000
        + "\n// "
        + "y" * 100_000
        + '\n"b": ['
        + ", " * 50_000
        + "]}"
    )
    started = time.monotonic()
    with pytest.raises(JsonEditError):
        parse(text)
    good = '{"a": 1,' + " /* c */ " * 20_000 + '"b": 2,' + " " * 200_000 + "}"
    assert parse(good) == {"a": 1, "b": 2}
    assert time.monotonic() - started < 5


def test_comment_lookalikes_inside_strings_stay_strings() -> None:
    text = '{\n  "a": "/* not a comment */", // one\n  "b": "// nor this", /* "quoted" */\n}\n'
    assert parse(text) == {"a": "/* not a comment */", "b": "// nor this"}
    out = set_key(text, ["c"], "x")
    assert parse(out) == {"a": "/* not a comment */", "b": "// nor this", "c": "x"}
    assert "// one" in out and '/* "quoted" */' in out
    assert remove_key(out, ["c"]) == text
