"""Owned Markdown blocks: the person's bytes outside memhub's markers never change."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.compiler.formats import textblock
from memhub.compiler.formats.textblock import TextBlockError

# Arbitrary Markdown, including CRLF, unicode and marker look-alikes that are not markers.
lines = st.lists(
    st.one_of(
        st.text(
            st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=40
        ),
        st.sampled_from(["<!-- memhub -->", "<!-- memhub:begin -->", "# Title\r", "", "  - item"]),
    ),
    max_size=12,
)
texts = lines.map("\n".join)
bodies = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80).filter(
    lambda b: "<!-- memhub:" not in b
)


@settings(max_examples=300, deadline=None)
@given(text=texts, body=bodies)
def test_put_then_remove_gives_back_the_persons_text(text: str, body: str) -> None:
    written = textblock.put(text, "probe", body)
    expected = body if body.endswith("\n") else body + "\n"
    assert textblock.get(written, "probe") == expected
    assert written.startswith(text)
    assert textblock.put(written, "probe", body) == written
    removed = textblock.remove(written, "probe")
    # put may have to end the person's last line; nothing else of theirs changes
    assert removed in (text, text + "\n")
    if text == "" or text.endswith("\n"):
        assert removed == text


@settings(max_examples=200, deadline=None)
@given(before=texts, after=texts, old=bodies, new=bodies)
def test_replacing_a_block_keeps_text_on_both_sides(
    before: str, after: str, old: str, new: str
) -> None:
    head = before if before.endswith("\n") or not before else before + "\n"
    text = head + textblock.render("probe", old) + after
    replaced = textblock.put(text, "probe", new)
    assert replaced == head + textblock.render("probe", new) + after


def test_two_hubs_own_two_blocks_in_one_file() -> None:
    text = textblock.put("# Mine\n", "alpha", "A\n")
    text = textblock.put(text, "beta", "B\n")
    assert set(textblock.blocks(text)) == {"alpha", "beta"}
    assert textblock.remove(textblock.remove(text, "alpha"), "beta") == "# Mine\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x\n<!-- memhub:begin a -->\nbody\n", "line 2: memhub block 'a' has no end marker"),
        ("<!-- memhub:end a -->\n", "line 1: memhub:end 'a' without its begin"),
        (
            "<!-- memhub:begin a -->\n<!-- memhub:begin b -->\n",
            "line 2: memhub block 'b' begins inside block 'a'",
        ),
        (
            "<!-- memhub:begin a -->\n<!-- memhub:end a -->\n<!-- memhub:begin a -->\n"
            "<!-- memhub:end a -->\n",
            "line 3: a second memhub block 'a'",
        ),
    ],
)
def test_broken_markers_are_refused_with_their_line(text: str, message: str) -> None:
    with pytest.raises(TextBlockError, match=message):
        textblock.blocks(text)
