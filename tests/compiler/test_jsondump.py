"""jsondump.dumps gives json.dumps's text byte for byte, and json's errors by type."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.compiler.formats.jsondump import dumps

INDENTS: tuple[int | str | None, ...] = (None, 0, 1, 2, 4, "\t", "  ")
SEPARATORS = ((",", ": "), (", ", ": "), (",", ":"), (" , ", " : "))

# every code point, lone surrogates included (json passes them through or escapes them)
texts = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=10)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(10**80), 10**80),
    st.floats(),  # nan and ±inf included: allow_nan decides
    texts,
)
keys = st.one_of(texts, st.integers(), st.floats(), st.booleans(), st.none())
json_values = st.recursive(
    scalars | st.just({}) | st.just([]) | st.just(()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.dictionaries(keys, inner, max_size=5),
    ),
    max_leaves=30,
)
sortable = st.recursive(
    scalars | st.just({}) | st.just([]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=30,
)


def outcome(encode: Any, value: Any, **options: Any) -> tuple[str, str]:
    """("ok", text) or ("error", the exception's type name)."""
    try:
        return "ok", encode(value, **options)
    except (TypeError, ValueError) as err:
        return "error", type(err).__name__


def same_as_json(value: Any, **options: Any) -> None:
    """Equal outcomes; separators as dumps's default, which json.dumps has only with indent."""
    options.setdefault("separators", (",", ": "))
    assert outcome(dumps, value, **options) == outcome(json.dumps, value, **options)


@settings(max_examples=300, deadline=None)
@given(
    value=json_values,
    indent=st.sampled_from(INDENTS),
    separators=st.sampled_from(SEPARATORS),
    ensure_ascii=st.booleans(),
    allow_nan=st.booleans(),
)
def test_same_text_as_json(
    value: Any, indent: Any, separators: tuple[str, str], ensure_ascii: bool, allow_nan: bool
) -> None:
    same_as_json(
        value, indent=indent, separators=separators, ensure_ascii=ensure_ascii, allow_nan=allow_nan
    )


@settings(max_examples=200, deadline=None)
@given(
    value=sortable,
    indent=st.sampled_from(INDENTS),
    separators=st.sampled_from(SEPARATORS),
    ensure_ascii=st.booleans(),
)
def test_same_text_as_json_sorted(
    value: Any, indent: Any, separators: tuple[str, str], ensure_ascii: bool
) -> None:
    same_as_json(
        value, indent=indent, separators=separators, ensure_ascii=ensure_ascii, sort_keys=True
    )


@pytest.mark.parametrize("indent", INDENTS)
@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        (),
        {"a": {}, "b": [], "c": ()},
        [[], [[]], {"x": {"y": {}}}],
        {"mcpServers": {"s": {"command": "npx", "args": ["-y", "x"], "env": {"K": "1"}}}},
        {2: "int", 1.5: "float", True: "bool", False: "no", None: "none", "s": "str"},
        [1.0, -0.0, 1e300, 10**40, -(10**40), True, False, None],
        "top level é \ud800",
        7,
        2.5,
        None,
    ],
)
def test_explicit_cases(indent: Any, value: Any) -> None:
    for ensure_ascii in (True, False):
        same_as_json(value, indent=indent, ensure_ascii=ensure_ascii)


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


class Number(float):
    def __repr__(self) -> str:
        return "not this"


def test_subclasses_encode_as_json_does() -> None:
    value = OrderedDict(
        [("enum", Colour.RED), ("text", Text("t")), ("num", Number(2.5)), (Text("k"), [Colour.RED])]
    )
    for indent in INDENTS:
        same_as_json(value, indent=indent, ensure_ascii=True)
        same_as_json([value, Text("x"), Number(1.5)], indent=indent, ensure_ascii=False)


@pytest.mark.parametrize("indent", INDENTS)
def test_circular_reference_is_a_value_error(indent: Any) -> None:
    loop: list[Any] = [1]
    loop.append(loop)
    nested: dict[str, Any] = {"a": {"b": []}}
    nested["a"]["b"].append(nested)
    for value in (loop, nested, {"k": [loop]}):
        with pytest.raises(ValueError, match="Circular reference"):
            dumps(value, indent=indent, ensure_ascii=False)


def test_shared_subtree_is_not_circular() -> None:
    shared = {"x": [1, {"y": 2}]}
    value = {"a": shared, "b": [shared, shared]}
    same_as_json(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("indent", INDENTS)
@pytest.mark.parametrize(
    "value", [{1, 2}, {"a": object()}, [1, b"bytes"], {"a": {"b": [complex(1, 2)]}}]
)
def test_unserialisable_value_is_a_type_error(indent: Any, value: Any) -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps(value, indent=indent, ensure_ascii=False)


@pytest.mark.parametrize("indent", INDENTS)
@pytest.mark.parametrize("value", [{(1, 2): "tuple key"}, {"a": {frozenset(): 1}}])
def test_bad_key_is_a_type_error(indent: Any, value: Any) -> None:
    with pytest.raises(TypeError, match="keys must be"):
        dumps(value, indent=indent, ensure_ascii=False)


@pytest.mark.parametrize("indent", INDENTS)
@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        [float("inf")],
        {"a": {"b": -float("inf")}},
        {float("nan"): 1},
        [[1, float("nan")]],
    ],
)
def test_nan_without_allow_nan_is_a_value_error(indent: Any, value: Any) -> None:
    with pytest.raises(ValueError, match="Out of range float"):
        dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)
    same_as_json(value, indent=indent, ensure_ascii=False, allow_nan=True)


def test_mixed_keys_with_sort_keys_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        dumps({"a": 1, 2: 3}, indent=2, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize("depth", [99, 100, 101, 102, 250])
def test_deep_values_past_the_depth_limit(depth: int) -> None:
    value: Any = {"leaf": [1, "x"]}
    for level in range(depth):
        value = [value, {"n": level}] if level % 2 else {"k": value, "s": "t"}
    for indent in (2, "\t"):
        same_as_json(value, indent=indent, ensure_ascii=False)


def test_options_sets_do_not_leak_into_each_other() -> None:
    value = {"a": [1, {"b": "é"}], "c": {"d": [2, 3]}}
    for indent in (2, 4, 2, "\t", 2):
        for ensure_ascii in (True, False):
            same_as_json(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=True)
            same_as_json(value, indent=indent, ensure_ascii=ensure_ascii, separators=(", ", ":"))
