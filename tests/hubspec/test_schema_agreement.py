"""The fast validator (jsonschema-rs) and the explaining one (jsonschema) agree on validity.

The loader trusts the fast verdict for valid hubs and asks jsonschema to explain invalid
ones; a disagreement would either let an invalid hub through or report no problem.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.hubspec.schema_check import _validator, is_valid

from tests.hubs import HUBS


def _documents() -> list[Any]:
    return [yaml.safe_load((path / "hub.yaml").read_text()) for path in HUBS.values()]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _set(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(document)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return copied


REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**31), max_value=2**31),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["session_start", "claude", "Bad Name", "https://x.example", "0.1.0", ""]),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3),
)


def test_examples_are_valid_for_both() -> None:
    for document in _documents():
        assert is_valid(document) is True
        assert list(_validator().iter_errors(document)) == []


@settings(max_examples=250, deadline=None, derandomize=True)
@given(data=st.data())
def test_validators_agree_on_mutated_hubs(data: st.DataObject) -> None:
    document = data.draw(st.sampled_from(_documents()))
    path = data.draw(st.sampled_from(_paths(document)))
    mutated = _set(document, path, data.draw(REPLACEMENTS))
    if data.draw(st.booleans()) and isinstance(mutated, dict):
        mutated = {**mutated, data.draw(st.text(min_size=1, max_size=8)): 1}
    fast = is_valid(mutated)
    full = not list(_validator().iter_errors(mutated))
    assert fast == full, (path, mutated)
