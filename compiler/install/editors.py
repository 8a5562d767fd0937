"""One host document being edited by an install: its text, parsed once, and the JSON
containers memhub made in it.

The entry kinds (`kinds`) say what an entry is; an editor is where their edits land. JSON
and TOML editors hold a `formats.document.Document` (lookups from one parse, member and
table edits in one batch); the text editor holds a Markdown file with marked blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memhub.compiler.formats import jsonedit, textblock, tomledit
from memhub.compiler.formats.document import MISSING, Document
from memhub.compiler.install.state import Container

PARSE_ERRORS = (jsonedit.JsonEditError, tomledit.TomlEditError, textblock.TextBlockError)
Pruner = Callable[[Container], bool]  # whether an empty container is memhub's to remove


class JsonEditor:
    """Entry edits on one JSON document, through the format-preserving jsonedit.

    `made` is what lets a removal tell memhub's containers from the person's: an object or
    array an entry's put created is recorded there, and a removal prunes only recorded
    ones (all of them when it is None: a state written before they were recorded)."""

    format = "json"

    def __init__(self, text: str, made: set[Container] | None = None) -> None:
        self.doc = Document("json", text)
        self.made = made
        self._present: set[Container] = set()  # containers known to exist in the text

    @property
    def text(self) -> str:
        return self.doc.text

    def get(self, path: tuple[str, ...]) -> Any:
        return self.doc.get(path)

    def creating(self, kind: str, path: tuple[str, ...]) -> list[Container]:
        """The containers of an entry at `path` that are missing now (its put makes them),
        innermost first, stopping at one that exists (all above it do)."""
        missing: list[Container] = []
        if self.made is None:
            return missing
        for container in reversed(containers_of(kind, path)):
            if container in self._present or self.get(container) is not MISSING:
                break
            missing.append(container)
        self._present.update(containers_of(kind, path))  # the put that follows makes them
        return missing

    def made_now(self, created: list[Container], pruned: Iterable[Container] = ()) -> None:
        """Record the containers an edit created and pruned."""
        self._present.difference_update(pruned)
        if self.made is not None:
            self.made.update(created)
            self.made.difference_update(pruned)

    def may_prune(self, container: Container) -> bool:
        return self.made is None or container in self.made

    def splice(self, text: str) -> None:
        """Take the text of an edit made through jsonedit directly."""
        self.doc.replace(text)


class TomlEditor:
    """Entry edits on one TOML document (tomledit: comments and layout kept)."""

    format = "toml"

    def __init__(self, text: str) -> None:
        self.doc = Document("toml", text)

    @property
    def text(self) -> str:
        return self.doc.text


class TextEditor:
    """Entry edits on one Markdown file: memhub's marked blocks, every other byte kept."""

    format = "text"

    def __init__(self, text: str) -> None:
        self.text = text
        textblock.blocks(text)  # broken markers refuse the file before any edit


Editor = JsonEditor | TomlEditor | TextEditor


def editor_for(fmt: str, text: str, made: set[Container] | None) -> Editor:
    if fmt == "json":
        return JsonEditor(text, made)
    return TomlEditor(text) if fmt == "toml" else TextEditor(text)


def containers_of(kind: str, path: tuple[str, ...]) -> list[Container]:
    """The objects (and, for a hook, the array) an entry at `path` sits in, outermost first."""
    depth = len(path) if kind == "json-item" else len(path) - 1
    return [path[:i] for i in range(1, depth + 1)]


def json_get(text: str, path: tuple[str, ...]) -> Any:
    """The value at `path` of a JSON text, None when absent (or the text is blank)."""
    if not text.strip():
        return None
    try:
        return jsonedit.get_key(text, path)
    except KeyError:
        return None


def remove_item(
    text: str, path: tuple[str, ...], item: Any, may_prune: Pruner
) -> tuple[str, list[Container]]:
    """Remove one array item; the array and parents it leaves empty go too, when memhub
    made them (`may_prune`). The text, and the containers pruned."""
    text = jsonedit.remove_item(text, path, item)
    return prune_empty(text, containers_of("json-item", path), may_prune)


def remove_member(
    text: str, path: tuple[str, ...], may_prune: Pruner
) -> tuple[str, list[Container]]:
    """Remove one member; the parents it leaves empty go too, when memhub made them."""
    text = jsonedit.remove_key(text, path, prune=False)
    return prune_empty(text, containers_of("json-key", path), may_prune)


def prune_empty(
    text: str, containers: list[Container], may_prune: Pruner
) -> tuple[str, list[Container]]:
    """`text` without the empty ones of `containers`, innermost first, up to the first that
    is not empty or is the person's (an empty `"hooks": {}` they wrote stays theirs)."""
    pruned: list[Container] = []
    for container in reversed(containers):
        if json_get(text, container) not in ({}, []) or not may_prune(container):
            break
        text = jsonedit.remove_key(text, container, prune=False)
        pruned.append(container)
    return text, pruned
