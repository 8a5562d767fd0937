"""One class per entry kind: how an owned entry is read, written, removed, put back when
it was adopted, reverted by undo, and digested for drift.

A kind works on an editor (`editors`): planning edits a document parsed once; undo works
on the text of a file and its pre-image. `KINDS` maps each `EntryKind` to its class;
changing how an entry is edited is one class here (and its format in `formats/`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.digest import skill_tree_value
from memhub.compiler.formats import jsonedit, textblock, tomledit
from memhub.compiler.formats.document import MISSING
from memhub.compiler.install.editors import (
    Editor,
    JsonEditor,
    Pruner,
    TextEditor,
    TomlEditor,
    json_get,
    remove_item,
    remove_member,
)
from memhub.compiler.install.entries import Entry, EntryKey, EntryKind, value_digest
from memhub.compiler.install.state import Owned
from memhub.compiler.safewrite.fsops import read_folder

Reverted = tuple[str, str | None]  # the text, and what conflicts (None: nothing)


def _changed(value: Any, owned: Owned | None) -> bool:
    """Whether an entry memhub wrote (`owned`) no longer holds what it wrote."""
    return owned is not None and (value is None or value_digest(value) != owned.digest)


class Kind(ABC):
    """What every kind of entry inside a document answers; `get` gives MISSING for an
    absent entry. (A skill folder is not inside a document: see `Tree`.)"""

    name: ClassVar[EntryKind]

    @abstractmethod
    def get(self, editor: Any, entry: Entry) -> Any: ...

    @abstractmethod
    def put(self, editor: Any, entry: Entry) -> None: ...

    @abstractmethod
    def remove(self, editor: Any, key: EntryKey, digest: str) -> None: ...

    @abstractmethod
    def restore(self, editor: Any, key: EntryKey, digest: str, value: Any) -> None:
        """Put an adopted entry's pre-image back."""

    @abstractmethod
    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        """Undo: `text` with this entry as it was in `old` (the run's pre-image)."""

    @abstractmethod
    def digest(self, text: str, key: EntryKey) -> str | None:
        """The digest of what the entry holds in `text`, None when it is absent."""


class JsonKey(Kind):
    """The member at `path` of a JSON object file (an MCP server by name)."""

    name: ClassVar[EntryKind] = "json-key"

    def get(self, editor: JsonEditor, entry: Entry) -> Any:
        return editor.get(entry.path)

    def put(self, editor: JsonEditor, entry: Entry) -> None:
        self.restore(editor, entry.entry_key, entry.digest, entry.value)

    def remove(self, editor: JsonEditor, key: EntryKey, digest: str) -> None:
        if editor.get(key.path) is not MISSING:
            text, pruned = remove_member(editor.text, key.path, editor.may_prune)
            editor.splice(text)
            editor.made_now([], pruned)

    def restore(self, editor: JsonEditor, key: EntryKey, digest: str, value: Any) -> None:
        created = editor.creating(key.kind, key.path)
        editor.doc.set(key.path, value)
        editor.made_now(created)

    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        if _changed(json_get(text, key.path), after):
            return text, key.name
        previous = json_get(old, key.path) if old.strip() else None
        if previous is not None:
            return jsonedit.set_key(text, key.path, previous), None
        return remove_member(text, key.path, may_prune)[0], None

    def digest(self, text: str, key: EntryKey) -> str | None:
        value = json_get(text, key.path)
        return None if value is None else value_digest(value)


class JsonDefault(JsonKey):
    """A member set only when absent and never removed (a format `version`)."""

    name: ClassVar[EntryKind] = "json-default"

    def remove(self, editor: JsonEditor, key: EntryKey, digest: str) -> None:
        return None

    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        return text, None


class JsonItem(Kind):
    """An element of the array at `path`, identified by its content (a hook)."""

    name = "json-item"

    def get(self, editor: JsonEditor, entry: Entry) -> Any:
        return _item(editor.get(entry.path), entry.digest)

    def put(self, editor: JsonEditor, entry: Entry) -> None:
        created = editor.creating(self.name, entry.path)
        editor.splice(jsonedit.append_item(editor.text, entry.path, entry.value))
        editor.made_now(created)

    def remove(self, editor: JsonEditor, key: EntryKey, digest: str) -> None:
        item = _item(editor.get(key.path), digest)
        if item is not MISSING:
            text, pruned = remove_item(editor.text, key.path, item, editor.may_prune)
            editor.splice(text)
            editor.made_now([], pruned)

    def restore(self, editor: JsonEditor, key: EntryKey, digest: str, value: Any) -> None:
        """An adopted hook was identical to memhub's: it stays (or comes back)."""
        created = editor.creating(self.name, key.path)
        if _item(editor.get(key.path), digest) is MISSING:
            editor.splice(jsonedit.append_item(editor.text, key.path, value))
        editor.made_now(created)

    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        if after is not None:
            item = _item(json_get(text, key.path), after.digest)
            if item is not MISSING:
                text = remove_item(text, key.path, item, may_prune)[0]
        if before is not None:
            item = _item(json_get(old, key.path), before.digest)
            if item is not MISSING:
                text = jsonedit.append_item(text, key.path, item)
        return text, None

    def digest(self, text: str, key: EntryKey) -> str | None:
        return key.item if _item(json_get(text, key.path), key.item or "") is not MISSING else None


def _item(items: Any, digest: str) -> Any:
    """The first element of `items` (when it is a list) whose digest is `digest`."""
    found = items if isinstance(items, list) else []
    return next((item for item in found if value_digest(item) == digest), MISSING)


class TomlTable(Kind):
    """The table at `path` of a TOML file (`[mcp_servers.<name>]`)."""

    name = "toml-table"

    def get(self, editor: TomlEditor, entry: Entry) -> Any:
        return editor.doc.get(entry.path)

    def put(self, editor: TomlEditor, entry: Entry) -> None:
        editor.doc.set(entry.path, entry.value)

    def remove(self, editor: TomlEditor, key: EntryKey, digest: str) -> None:
        editor.doc.remove(key.path)

    def restore(self, editor: TomlEditor, key: EntryKey, digest: str, value: Any) -> None:
        editor.doc.set(key.path, value)

    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        if _changed(tomledit.get_table(text, key.path), after):
            return text, key.name
        previous = tomledit.get_table(old, key.path) if old.strip() else None
        if previous is not None:
            return tomledit.set_table(text, key.path, previous), None
        return tomledit.remove_table(text, key.path), None

    def digest(self, text: str, key: EntryKey) -> str | None:
        value = tomledit.get_table(text, key.path)
        return None if value is None else value_digest(value)


class TextBlock(Kind):
    """The marked block `path[0]` of a Markdown file (instructions)."""

    name = "text-block"

    def get(self, editor: TextEditor, entry: Entry) -> Any:
        body = textblock.get(editor.text, entry.path[0])
        return MISSING if body is None else body

    def put(self, editor: TextEditor, entry: Entry) -> None:
        editor.text = textblock.put(editor.text, entry.path[0], entry.value)

    def remove(self, editor: TextEditor, key: EntryKey, digest: str) -> None:
        editor.text = textblock.remove(editor.text, key.name)

    def restore(self, editor: TextEditor, key: EntryKey, digest: str, value: Any) -> None:
        editor.text = textblock.put(editor.text, key.name, value)

    def adopt(self, editor: TextEditor, entry: Entry) -> str | None:
        """Wrap the person's own copy of the block's text in place; the text wrapped."""
        found = textblock.adopt(editor.text, entry.path[0], entry.value)
        if found is None:
            return None
        editor.text, original = found
        return original

    def unwrap(self, editor: TextEditor, key: EntryKey, original: str) -> None:
        """An adopted block goes: the person's text it wrapped stays, as it was."""
        editor.text = textblock.unwrap(editor.text, key.name, original)

    def revert(
        self,
        text: str,
        old: str,
        key: EntryKey,
        before: Owned | None,
        after: Owned | None,
        may_prune: Pruner,
    ) -> Reverted:
        name = key.name
        body = textblock.get(text, name)
        if _changed(body, after):
            return text, f"memhub block {name}"
        old_body = textblock.get(old, name)
        adopted = after.adopted if after is not None else None
        unwrapped = before.adopted if before is not None and body is None else None
        if old_body is not None and unwrapped is not None:
            # The run gave the person's adopted text back: wrap it again where it stands;
            # appending the block would put the text in the file twice.
            found = textblock.rewrap(text, name, old_body, unwrapped)
            if found is None:
                return text, f"memhub block {name} (the text it adopted)"
            return found[0], None
        if old_body is not None:
            return textblock.put(text, name, old_body), None
        if adopted is not None:
            return textblock.unwrap(text, name, adopted), None
        return textblock.remove(text, name), None

    def digest(self, text: str, key: EntryKey) -> str | None:
        body = textblock.get(text, key.name)
        return None if body is None else value_digest(body)


class Tree:
    """A whole folder (a skill); its value maps relative paths to [sha256, mode]. Folders
    are planned and written whole (`trees`), not edited inside a document, so this is not a
    `Kind`: only its digest is asked for."""

    name: ClassVar[EntryKind] = "tree"

    def digest_at(self, target: str) -> str | None:
        files = read_folder(Path(target))
        return None if files is None else tree_value_digest(files)


def tree_value_digest(files: dict[str, tuple[bytes, int]]) -> str:
    """A folder's files as the digest its skill entry would have (only exec bits count)."""
    modes = {rel: EXEC_MODE if mode & 0o100 else FILE_MODE for rel, (_, mode) in files.items()}
    return value_digest(
        skill_tree_value((rel, data, modes[rel]) for rel, (data, _) in files.items())
    )


# the kinds of entries inside a document; a skill folder is TREE
KINDS: dict[str, Kind] = {
    kind.name: kind for kind in (JsonKey(), JsonDefault(), JsonItem(), TomlTable(), TextBlock())
}
TREE = Tree()


__all__ = ["KINDS", "TREE", "Editor", "Kind", "tree_value_digest"]
