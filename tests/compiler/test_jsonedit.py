"""jsonedit: in-place JSON edits keep every byte outside the edited member or item."""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.formats.jsonedit import (
    JsonEditError,
    Style,
    append_item,
    detect_style,
    get_key,
    parse,
    remove_item,
    remove_key,
    set_key,
    set_keys,
)

BOM = "\ufeff"
MARK = "\x00memhub-mark\x00"

# --- generated documents ----------------------------------------------------------------------

keys = st.text(max_size=6)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
# st.deferred rather than st.recursive: the same shapes (nesting to depth ~8), 3x faster to draw.
values: st.SearchStrategy[Any] = st.deferred(
    lambda: scalars | st.lists(values, max_size=3) | st.dictionaries(keys, values, max_size=3)
)
documents = st.dictionaries(keys, values, max_size=6)
WHITESPACE = ["", " ", "  ", "\t", "\n", "\r\n", "\n  ", "\r\n\t\t", " \n    "]


@dataclass(frozen=True)
class Fmt:
    """How a generated document is written out."""

    indent: int | str | None
    separators: tuple[str, str]
    ensure_ascii: bool
    crlf: bool
    final_newline: bool
    bom: bool
    messy: tuple[str, ...] | None  # whitespace cycled through every gap, instead of json.dumps


formats = st.builds(
    Fmt,
    indent=st.sampled_from([2, 4, "\t", None]),
    separators=st.sampled_from([(",", ": "), (",", ":"), (", ", ": "), (" , ", " : ")]),
    ensure_ascii=st.booleans(),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    bom=st.booleans(),
    messy=st.none() | st.lists(st.sampled_from(WHITESPACE), min_size=1, max_size=6).map(tuple),
)


def messy(value: Any, gaps: Iterator[str], ensure_ascii: bool) -> str:
    """value as JSON with the next whitespace from gaps around every token."""
    if isinstance(value, dict):
        if not value:
            return "{" + next(gaps) + "}"
        members = [
            next(gaps)
            + json.dumps(key, ensure_ascii=ensure_ascii)
            + next(gaps)
            + ":"
            + next(gaps)
            + messy(item, gaps, ensure_ascii)
            + next(gaps)
            for key, item in value.items()
        ]
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        if not value:
            return "[" + next(gaps) + "]"
        items = [next(gaps) + messy(item, gaps, ensure_ascii) + next(gaps) for item in value]
        return "[" + ",".join(items) + "]"
    return json.dumps(value, ensure_ascii=ensure_ascii)


def render(doc: dict[str, Any], fmt: Fmt) -> str:
    """doc written out in fmt."""
    if fmt.messy is not None:
        text = messy(doc, itertools.cycle(fmt.messy), fmt.ensure_ascii)
    else:
        text = json.dumps(
            doc, indent=fmt.indent, separators=fmt.separators, ensure_ascii=fmt.ensure_ascii
        )
    if fmt.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if fmt.final_newline:
        text += "\r\n" if fmt.crlf else "\n"
    return (BOM if fmt.bom else "") + text


def ordered(value: Any) -> str:
    """A key-order-sensitive fingerprint of JSON data."""
    return json.dumps(value, ensure_ascii=False)


def canon(value: Any) -> Any:
    """A form where equal JSON values compare equal and booleans never equal numbers."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, dict):
        return ("object", sorted((key, canon(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("array", [canon(item) for item in value])
    return (type(value).__name__, value)


def at(doc: Any, path: Sequence[str]) -> Any:
    """The value at path in doc."""
    for key in path:
        doc = doc[key]
    return doc


def draw_parent(data: st.DataObject, doc: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A copy of doc and the path of an object in it 0-3 levels deep, added where doc has none."""
    doc = copy.deepcopy(doc)
    path: list[str] = []
    node = doc
    for _ in range(data.draw(st.integers(0, 3))):
        objects = [key for key, item in node.items() if isinstance(item, dict)]
        if objects and data.draw(st.booleans()):
            path.append(data.draw(st.sampled_from(objects)))
        else:
            path.append(fresh_key(data, node))
            node[path[-1]] = data.draw(st.dictionaries(keys, values, max_size=4))
        node = node[path[-1]]
    return doc, path


def fresh_key(data: st.DataObject, taken: dict[str, Any]) -> str:
    """A drawn key that is not in taken."""
    key = data.draw(keys)
    while key in taken:
        key += "~"
    return key


def single_insertion(before: str, after: str) -> bool:
    """Whether after is before with one piece of text inserted."""
    prefix = 0
    while prefix < len(before) and before[prefix] == after[prefix]:
        prefix += 1
    return after.endswith(before[prefix:])


def only_whitespace_replaced(before: str, after: str) -> bool:
    """Whether after is before with one run of whitespace (maybe empty) replaced."""
    prefix = 0
    while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < min(len(before), len(after)) - prefix and before[-1 - suffix] == after[-1 - suffix]
    ):
        suffix += 1
    return not before[prefix : len(before) - suffix].strip(" \t\r\n")


PROPERTY = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- properties --------------------------------------------------------------------------------


@PROPERTY
@given(doc=documents, fmt=formats, data=st.data())
def test_set_key_changes_only_that_member(
    doc: dict[str, Any], fmt: Fmt, data: st.DataObject
) -> None:
    doc, parents = draw_parent(data, doc)
    text = render(doc, fmt)
    parent = at(doc, parents)
    replacing = bool(parent) and data.draw(st.booleans())
    if replacing:
        path = [*parents, data.draw(st.sampled_from(list(parent)))]
    else:
        new = fresh_key(data, parent)
        path = [*parents, new, *data.draw(st.lists(keys, max_size=2))]
    value = data.draw(values)

    out = set_key(text, path, value)

    expected = copy.deepcopy(doc)
    node = expected
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    assert ordered(parse(out)) == ordered(expected)  # only that member changed, output parses
    assert get_key(out, path) == value
    assert out.startswith(BOM) == fmt.bom
    if replacing:
        # Outside the old value's text span nothing moved; locate the span with a marker value.
        before, after = set_key(text, path, MARK).split(json.dumps(MARK))
        assert text.startswith(before) and text.endswith(after)
        old = text[len(before) : len(text) - len(after)]
        assert old == old.strip(" \t\r\n")
        assert ordered(json.loads(old)) == ordered(at(doc, path))
        assert out.startswith(before) and out.endswith(after)
        assert ordered(json.loads(out[len(before) : len(out) - len(after)])) == ordered(value)
    elif parent:
        assert single_insertion(text, out)
        assert remove_key(out, path) == text
        assert remove_key(out, path[: len(parents) + 1], prune=False) == text
    else:  # the empty parent's inner whitespace gave way to the new member
        assert only_whitespace_replaced(text, out)
        if fmt.messy is None:  # an empty parent written `{}` comes back as `{}`
            assert remove_key(out, path[: len(parents) + 1], prune=False) == text


@PROPERTY
@given(doc=documents, fmt=formats, data=st.data())
def test_set_keys_gives_what_set_key_one_by_one_gives(
    doc: dict[str, Any], fmt: Fmt, data: st.DataObject
) -> None:
    doc, parents = draw_parent(data, doc)
    text = render(doc, fmt)
    parent = at(doc, parents)
    paths: list[list[str]] = [[*parents, key] for key in parent if data.draw(st.booleans())]
    taken = dict(parent)
    for _ in range(data.draw(st.integers(1, 4))):
        new = fresh_key(data, taken)
        taken[new] = None
        paths.append([*parents, new, *data.draw(st.lists(keys, max_size=1))])
    items = [(path, data.draw(values)) for path in paths]

    out = set_keys(text, items)

    one_by_one = text
    for path, value in items:
        one_by_one = set_key(one_by_one, path, value)
    assert out == one_by_one


def test_set_keys_adds_many_servers_in_one_piece() -> None:
    text = '{\n  "mcpServers": {\n    "mine": {"command": "x"}\n  },\n  "other": 1\n}\n'
    servers = [(("mcpServers", f"s{i}"), {"command": f"c{i}"}) for i in range(3)]
    out = set_keys(text, [*servers, (("mcpServers", "mine"), {"command": "y"})])
    assert parse(out)["mcpServers"] == {
        "mine": {"command": "y"},
        **{f"s{i}": {"command": f"c{i}"} for i in range(3)},
    }
    assert out.endswith('  },\n  "other": 1\n}\n')
    fresh = set_keys("", [(("mcpServers", "a"), 1), (("mcpServers", "b"), 2), (("x",), 3)])
    assert fresh == set_key(
        set_key(set_key("", ("mcpServers", "a"), 1), ("mcpServers", "b"), 2), ("x",), 3
    )


@PROPERTY
@given(doc=documents, fmt=formats, data=st.data())
def test_remove_key_removes_only_that_member(
    doc: dict[str, Any], fmt: Fmt, data: st.DataObject
) -> None:
    doc, parents = draw_parent(data, doc)
    text = render(doc, fmt)
    parent = at(doc, parents)
    missing = fresh_key(data, parent)
    assert remove_key(text, [*parents, missing]) == text
    if not parent:
        return
    path = [*parents, data.draw(st.sampled_from(list(parent)))]
    prune = data.draw(st.booleans())

    out = remove_key(text, path, prune=prune)

    expected = copy.deepcopy(doc)
    del at(expected, path[:-1])[path[-1]]
    while prune and len(path) > 1 and not at(expected, path[:-1]):
        path = path[:-1]
        del at(expected, path[:-1])[path[-1]]
    assert ordered(parse(out)) == ordered(expected)
    assert single_insertion(out, text)  # a pure deletion (an emptied object keeps its braces)


@PROPERTY
@given(doc=documents, fmt=formats, data=st.data())
def test_array_items_round_trip(doc: dict[str, Any], fmt: Fmt, data: st.DataObject) -> None:
    doc, parents = draw_parent(data, doc)
    value = data.draw(values)
    if data.draw(st.booleans()):
        check_existing_array(doc, fmt, data, parents, value)
    else:
        check_missing_array(doc, fmt, data, parents, value)


def check_existing_array(
    doc: dict[str, Any], fmt: Fmt, data: st.DataObject, parents: list[str], value: Any
) -> None:
    """append_item then remove_item on an array that exists gives the text back."""
    path = [*parents, data.draw(keys)]
    items = [item for item in data.draw(st.lists(values, max_size=4)) if item != value]
    at(doc, parents)[path[-1]] = items
    text = render(doc, fmt)

    out = append_item(text, path, value)
    assert ordered(get_key(out, path)) == ordered([*items, value])
    assert ordered(parse(remove_item(out, path, value))) == ordered(doc)
    assert only_whitespace_replaced(text, out)
    if items or fmt.messy is None:  # an empty array written `[]` comes back as `[]`
        assert remove_item(out, path, value) == text
    assert remove_item(text, path, value) == text
    if items:
        assert single_insertion(text, out)
        drop = data.draw(st.sampled_from(items))
        first = next(i for i, item in enumerate(items) if canon(item) == canon(drop))
        rest = items[:first] + items[first + 1 :]
        removed = remove_item(text, path, drop)
        assert ordered(get_key(removed, path)) == ordered(rest)
        assert single_insertion(removed, text)


def check_missing_array(
    doc: dict[str, Any], fmt: Fmt, data: st.DataObject, parents: list[str], value: Any
) -> None:
    """append_item creates a missing array (and parents); remove_key takes them away again."""
    text = render(doc, fmt)
    parent = at(doc, parents)
    path = [*parents, fresh_key(data, parent)]
    path += data.draw(st.lists(keys, max_size=2))

    out = append_item(text, path, value)

    expected = copy.deepcopy(doc)
    node = at(expected, parents)
    for key in path[len(parents) : -1]:
        node = node.setdefault(key, {})
    node[path[-1]] = [value]
    assert ordered(parse(out)) == ordered(expected)
    if parent:
        assert single_insertion(text, out)
        assert remove_key(out, path) == text
    else:
        assert only_whitespace_replaced(text, out)
        if fmt.messy is None:
            assert remove_key(out, path[: len(parents) + 1], prune=False) == text


# --- style detection ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "style"),
    [
        ('{\n  "a": {\n    "b": 1\n  }\n}\n', Style("  ", "\n", ": ", " ")),
        ('{\n    "a": 1,\n    "b": 2\n}', Style("    ", "\n", ": ", " ")),
        ('{\n\t"a": [\n\t\t1\n\t]\n}\n', Style("\t", "\n", ": ", " ")),
        ('{\r\n  "a": 1\r\n}\r\n', Style("  ", "\r\n", ": ", " ")),
        ('{"a":1,"b":{"c":2}}', Style(None, "\n", ":", "")),
        ('{"a": 1, "b": [1, 2]}\n', Style(None, "\n", ": ", " ")),
        ('{ "a" : 1 ,  "b" : 2 }', Style(None, "\n", " : ", "  ")),
        ('{"a": 1}', Style(None, "\n", ": ", " ")),
        ("{}", Style("  ", "\n", ": ", " ")),
        ("{}\n", Style("  ", "\n", ": ", " ")),
        ("", Style("  ", "\n", ": ", " ")),
        (BOM + '{\n   "a": 1\n}', Style("   ", "\n", ": ", " ")),
        ('  {\n    "a": 1\n  }', Style("  ", "\n", ": ", " ")),
        ('  {\n\n    "a": 1\n\n  }', Style("  ", "\n", ": ", " ")),
        ('{"a": {\n\t"b": 1}}', Style("\t", "\n", ": ", " ")),
    ],
)
def test_detect_style(text: str, style: Style) -> None:
    assert detect_style(text) == style


@pytest.mark.parametrize("indent", [2, 4, "\t"])
def test_new_members_follow_the_indent_unit(indent: int | str) -> None:
    before = {"mcpServers": {"old": {"command": "x", "args": ["-v"]}}, "z": []}
    after = copy.deepcopy(before)
    after["mcpServers"]["memhub"] = {"command": "memhub", "args": ["serve"], "env": {}}
    text = set_key(
        json.dumps(before, indent=indent), ["mcpServers", "memhub"], after["mcpServers"]["memhub"]
    )
    assert text == json.dumps(after, indent=indent)


def test_new_members_follow_their_parent_separators() -> None:
    text = '{"a": {"x":1,"y":2}, "b": {"k" : 1}}'
    assert set_key(text, ["a", "z"], {"q": 3}) == '{"a": {"x":1,"y":2,"z":{"q":3}}, "b": {"k" : 1}}'
    assert set_key(text, ["b", "m"], 2) == '{"a": {"x":1,"y":2}, "b": {"k" : 1, "m" : 2}}'


def test_inline_objects_in_an_indented_file_stay_inline() -> None:
    text = '{\n  "env": {"A": "1"},\n  "b": {"c": {}},\n  "d": {\n    "e": {}\n  }\n}\n'
    assert set_key(text, ["env", "B"], {"x": [1]}) == text.replace(
        '{"A": "1"}', '{"A": "1", "B": {"x": [1]}}'
    )
    assert set_key(text, ["env", "A"], {"x": [1]}) == text.replace('"1"', '{"x": [1]}')
    assert set_key(text, ["b", "c", "f"], 1) == text.replace('{"c": {}}', '{"c": {"f": 1}}')
    assert set_key(text, ["d", "e", "f"], [1]) == text.replace(
        '"e": {}', '"e": {\n      "f": [\n        1\n      ]\n    }'
    )


# --- host-shaped files -------------------------------------------------------------------------


def claude_json(projects: int) -> dict[str, Any]:
    """A ~/.claude.json-like document with many projects."""
    return {
        "numStartups": 184,
        "installMethod": "native",
        "autoUpdates": False,
        "tipsHistory": {"memory-command": 12, "theme-command": 3},
        "userID": "0f" * 32,
        "firstStartTime": "2025-03-01T09:00:00.000Z",
        "projects": {
            f"/home/ada/src/proj-{n}": {
                "allowedTools": [],
                "history": [{"display": f"fix módulo {n} — “quoted”", "pastedContents": {}}],
                "mcpContextUris": [],
                "mcpServers": {},
                "enabledMcpjsonServers": [],
                "hasTrustDialogAccepted": n % 2 == 0,
                "lastCost": 0.125 * n,
                "lastSessionId": f"{n:08x}-aaaa-bbbb-cccc-000000000000",
            }
            for n in range(projects)
        },
        "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}},
        "oauthAccount": {"emailAddress": "ada@example.com", "organizationRole": "admin"},
    }


SERVER = {"type": "stdio", "command": "memhub", "args": ["serve", "--stdio"], "env": {"A": "${A}"}}


def test_claude_json_user_and_project_servers() -> None:
    data = claude_json(300)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    user = set_key(text, ["mcpServers", "memhub"], SERVER)
    data["mcpServers"]["memhub"] = SERVER
    assert user == json.dumps(data, indent=2, ensure_ascii=False)
    assert remove_key(user, ["mcpServers", "memhub"]) == text

    project = ["projects", "/home/ada/src/proj-7", "mcpServers", "memhub"]
    both = set_key(user, project, SERVER)
    data["projects"]["/home/ada/src/proj-7"]["mcpServers"]["memhub"] = SERVER
    assert both == json.dumps(data, indent=2, ensure_ascii=False)
    assert remove_key(both, project, prune=False) == user
    pruned = remove_key(both, project)
    assert "mcpServers" not in parse(pruned)["projects"]["/home/ada/src/proj-7"]
    assert get_key(both, project) == SERVER


def test_claude_json_escaped_unicode_keys_are_found() -> None:
    text = json.dumps({"projects": {"/home/zoë/x": {"n": 1}}}, indent=2)
    assert "\\u00eb" in text
    out = set_key(text, ["projects", "/home/zoë/x", "n"], 2)
    assert out == text.replace('"n": 1', '"n": 2')


SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(git status:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}
        ]
    },
    "model": "opus",
}
BEFORE_TOOL = {
    "matcher": "Edit|Write",
    "hooks": [{"type": "command", "command": "memhub-hook before_tool", "timeout": 5}],
}
SESSION_START = {"hooks": [{"type": "command", "command": "memhub-hook session_start"}]}


def test_settings_hooks_append_and_remove() -> None:
    text = json.dumps(SETTINGS, indent=2) + "\n"
    data = copy.deepcopy(SETTINGS)
    one = append_item(text, ["hooks", "PreToolUse"], BEFORE_TOOL)
    data["hooks"]["PreToolUse"].append(BEFORE_TOOL)
    assert one == json.dumps(data, indent=2) + "\n"
    two = append_item(one, ["hooks", "SessionStart"], SESSION_START)
    data["hooks"]["SessionStart"] = [SESSION_START]
    assert two == json.dumps(data, indent=2) + "\n"
    three = append_item(two, ["permissions", "deny"], "Bash(rm -rf:*)")
    data["permissions"]["deny"].append("Bash(rm -rf:*)")
    assert three == json.dumps(data, indent=2) + "\n"

    assert remove_item(three, ["permissions", "deny"], "Bash(rm -rf:*)") == two
    emptied = remove_item(two, ["hooks", "SessionStart"], SESSION_START)
    assert '"SessionStart": []' in emptied
    assert remove_key(emptied, ["hooks", "SessionStart"]) == one
    assert remove_item(one, ["hooks", "PreToolUse"], BEFORE_TOOL) == text
    assert remove_item(text, ["hooks", "PreToolUse"], BEFORE_TOOL) == text
    assert remove_item(text, ["hooks", "Stop"], BEFORE_TOOL) == text


def test_settings_hooks_created_from_nothing() -> None:
    text = '{\n  "model": "opus"\n}\n'
    out = append_item(text, ["hooks", "SessionStart"], SESSION_START)
    expected = {"model": "opus", "hooks": {"SessionStart": [SESSION_START]}}
    assert out == json.dumps(expected, indent=2) + "\n"
    assert remove_key(out, ["hooks", "SessionStart"]) == text


def test_compact_one_line_file() -> None:
    text = '{"mcpServers":{"a":{"command":"x"}},"other":[1,2]}'
    out = set_key(text, ["mcpServers", "b"], {"url": "u", "headers": {"A": "1"}})
    assert (
        out
        == '{"mcpServers":{"a":{"command":"x"},"b":{"url":"u","headers":{"A":"1"}}},"other":[1,2]}'
    )
    assert remove_key(out, ["mcpServers", "b"]) == text
    assert append_item(text, ["other"], {"k": [3]}) == text.replace("[1,2]", '[1,2,{"k":[3]}]')
    spaced = '{"a": 1, "b": {"c": 2}}'
    assert (
        set_key(spaced, ["b", "d"], [1, {"e": 2}]) == '{"a": 1, "b": {"c": 2, "d": [1, {"e": 2}]}}'
    )
    assert set_key(spaced, ["a"], {"x": 1}) == '{"a": {"x": 1}, "b": {"c": 2}}'


def test_empty_file() -> None:
    for text in ["", "  \n", "\n\n"]:
        out = set_key(text, ["mcpServers", "memhub"], SERVER)
        assert out == json.dumps({"mcpServers": {"memhub": SERVER}}, indent=2) + "\n"
        assert remove_key(text, ["mcpServers", "memhub"]) == text
        assert parse(text) == {}
        with pytest.raises(KeyError):
            get_key(text, ["mcpServers"])
    assert (
        append_item("", ["hooks", "Stop"], 1)
        == '{\n  "hooks": {\n    "Stop": [\n      1\n    ]\n  }\n}\n'
    )


def test_file_with_only_braces() -> None:
    assert set_key("{}", ["a"], 1) == '{\n  "a": 1\n}'
    assert set_key("{}\n", ["a"], {"b": []}) == '{\n  "a": {\n    "b": []\n  }\n}\n'
    assert remove_key(set_key("{}\n", ["a"], 1), ["a"]) == "{}\n"
    assert set_key("{ }", ["a"], 1) == '{\n  "a": 1\n}'


def test_crlf_file() -> None:
    data = {"a": {"b": [1, 2]}, "c": "d"}
    text = json.dumps(data, indent=2).replace("\n", "\r\n") + "\r\n"
    out = set_key(text, ["a", "new"], {"x": [True]})
    data["a"]["new"] = {"x": [True]}
    assert out == json.dumps(data, indent=2).replace("\n", "\r\n") + "\r\n"
    assert remove_key(out, ["a", "new"]) == text
    assert "\n" not in out.replace("\r\n", "")


def test_bom_file() -> None:
    text = BOM + '{\n  "a": 1\n}\n'
    assert parse(text) == {"a": 1}
    assert get_key(text, ["a"]) == 1
    out = set_key(text, ["b"], "é")
    assert out == BOM + '{\n  "a": 1,\n  "b": "é"\n}\n'
    assert set_key(text, ["clé"], ["ü"]) == BOM + '{\n  "a": 1,\n  "clé": [\n    "ü"\n  ]\n}\n'
    assert remove_key(out, ["b"]) == text
    assert set_key(text, ["a"], 2) == BOM + '{\n  "a": 2\n}\n'
    assert set_key(BOM, ["a"], 1) == BOM + '{\n  "a": 1\n}\n'


def test_replaced_values_keep_their_position_and_surroundings() -> None:
    text = '{\n  "a": 1,\n  "b" :  [1, 2] ,\n  "c": 3\n}'
    assert set_key(text, ["b"], "x") == '{\n  "a": 1,\n  "b" :  "x" ,\n  "c": 3\n}'
    assert (
        set_key(text, ["b"], {"k": 1}) == '{\n  "a": 1,\n  "b" :  {\n    "k": 1\n  } ,\n  "c": 3\n}'
    )


def test_remove_member_in_each_position() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    assert remove_key(text, ["a"]) == '{\n  "b": 2,\n  "c": 3\n}\n'
    assert remove_key(text, ["b"]) == '{\n  "a": 1,\n  "c": 3\n}\n'
    assert remove_key(text, ["c"]) == '{\n  "a": 1,\n  "b": 2\n}\n'
    assert remove_key('{"a": 1}', ["a"]) == "{}"
    assert remove_key('{"a": {"b": 1}, "c": 2}', ["a", "b"]) == '{"c": 2}'
    assert remove_key('{"a": {"b": 1}, "c": 2}', ["a", "b"], prune=False) == '{"a": {}, "c": 2}'
    assert remove_key('{"a": {"b": 1}}', ["a", "b"]) == "{}"  # the root is never pruned


def test_duplicate_keys_edit_the_last_and_remove_all() -> None:
    text = '{"a": 1, "b": 2, "a": 3}'
    assert get_key(text, ["a"]) == 3
    assert set_key(text, ["a"], 4) == '{"a": 1, "b": 2, "a": 4}'
    assert remove_key(text, ["a"]) == '{"b": 2}'
    nested = '{"s": {"x": 1}, "s": {"y": 2}}'
    assert set_key(nested, ["s", "z"], 3) == '{"s": {"x": 1}, "s": {"y": 2, "z": 3}}'


def test_empty_containers_with_inner_whitespace() -> None:
    assert append_item('{"a": [ ]}', ["a"], 1) == '{"a": [1]}'
    assert set_key('{"a": {\n}}', ["a", "b"], 1) == '{"a": {"b": 1}}'
    assert remove_item('{"a": [1]}', ["a"], 1) == '{"a": []}'


def test_remove_item_takes_the_first_match_and_no_boolean_for_a_number() -> None:
    text = '{"a": [true, 1, {"k": 1}, 1]}'
    assert remove_item(text, ["a"], 1) == '{"a": [true, {"k": 1}, 1]}'
    assert remove_item(text, ["a"], True) == '{"a": [1, {"k": 1}, 1]}'
    assert remove_item(text, ["a"], {"k": 1}) == '{"a": [true, 1, 1]}'
    assert remove_item(text, ["a"], False) == text


def test_escapes_in_keys_and_strings() -> None:
    text = '{"caf\\u00e9": "\\"q\\" \\\\ \\n", "\\ud83d\\ude00": 1}'
    assert get_key(text, ["café"]) == '"q" \\ \n'
    assert set_key(text, ["😀"], 2) == text.replace(": 1}", ": 2}")
    assert set_key(text, ["tab\t"], "ü") == text[:-1] + ', "tab\\t": "ü"}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "a": 1,,\n}', "line 3 col 1: "),
        ('{\n  "a": 1 /* open\n}', "line 2 col 10: "),
        ('{\n  "a" 1\n}', "line 2 col 7: Expecting ':' delimiter"),
        ('{"a": [1 2]}', "line 1 col 10: "),
        ('{"a": tru}', "line 1 col 7: Expecting value"),
        ('{"a": 1}\n{"b": 2}', "line 2 col 1: Extra data"),
        ('{"a": "x\ny"}', "line 1 col 9: Invalid control character"),
        ('{"a": 1', "line 1 col 8: "),
        ("[1, 2]", "line 1 col 1: the document is not a JSON object"),
        ('"text"', "line 1 col 1: the document is not a JSON object"),
        ("\n\n  {'a': 1}", "line 3 col 4: "),
        ('{"a": ' + "1" * 5000 + "}", "line 1 col 7: "),
    ],
)
def test_invalid_json_names_line_and_column(text: str, message: str) -> None:
    for edit in (
        lambda: set_key(text, ["a"], 1),
        lambda: remove_key(text, ["a"]),
        lambda: append_item(text, ["a"], 1),
        lambda: get_key(text, ["a"]),
    ):
        with pytest.raises(JsonEditError, match="^" + re.escape(message)):
            edit()
    with pytest.raises(JsonEditError, match="^" + re.escape(message)):
        parse(text)


def test_paths_crossing_a_non_object() -> None:
    text = '{\n  "hooks": "oops",\n  "list": [1]\n}'
    with pytest.raises(JsonEditError, match=r"^line 2 col 12: hooks is not an object"):
        set_key(text, ["hooks", "Stop"], 1)
    with pytest.raises(JsonEditError, match=r"^line 2 col 12: hooks is not an object"):
        remove_key(text, ["hooks", "Stop"])
    with pytest.raises(JsonEditError, match=r"^line 2 col 12: hooks is not an array"):
        append_item(text, ["hooks"], 1)
    with pytest.raises(JsonEditError, match=r"^line 3 col 11: list is not an object"):
        get_key(text, ["list", "0"])
    assert set_key(text, ["hooks"], {"Stop": []}) == text.replace(
        '"oops"', '{\n    "Stop": []\n  }'
    )


def test_bad_paths_and_values() -> None:
    for path in ([], "a", ["a", 1]):
        with pytest.raises(JsonEditError, match="path"):
            set_key("{}", path, 1)  # type: ignore[arg-type]
    with pytest.raises(JsonEditError, match="cannot be written"):
        set_key("{}", ["a"], float("nan"))
    with pytest.raises(JsonEditError, match="cannot be written"):
        append_item("{}", ["a"], object())
    with pytest.raises(KeyError):
        get_key('{"a": {}}', ["a", "b"])


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        ({"a": 1}, {"a": 1}, True),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, True),  # member order is not data
        ({"a": 1}, {"a": 1.0}, True),  # one JSON number
        ([1, (2, 3)], [1, [2, 3]], True),  # a tuple is written as an array
        ({"a": True}, {"a": 1}, False),  # true is not 1
        ({"a": [False]}, {"a": [0]}, False),
        ({"a": float("nan")}, {"a": float("nan")}, False),  # NaN equals nothing
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ({}, [], False),
    ],
)
def test_the_verifier_compares_json_data(left: object, right: object, equal: bool) -> None:
    """jsonscan.same, which every edit's result is checked with: one canonical-JSON
    comparison for a matching document, the recursive one otherwise."""
    from memhub.compiler.formats.jsonscan import same

    assert same(left, right) is equal
    assert same(right, left) is equal


def test_set_keys_on_mixed_newlines_matches_one_by_one() -> None:
    # Found by hypothesis: replacing the value that holds the only CRLF turns the document LF,
    # so the nested object a later key adds is written with LF one by one; a batch must agree.
    text = '{\n  "":[\r\n]\n  }'
    items = [(("",), None), (("~", ""), None)]
    one_by_one = text
    for path, value in items:
        one_by_one = set_key(one_by_one, path, value)
    assert set_keys(text, items) == one_by_one
    assert parse(set_keys(text, items)) == {"": None, "~": {"": None}}
