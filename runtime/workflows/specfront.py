"""The small front matter a spec carries, read without PyYAML: top-level `key: value`
scalars, `owns` as a block list (`- glob`), a flow list (`[a, b]`) or one string. Keys this
reader does not need may hold anything indented under them; they are skipped, not parsed."""

from __future__ import annotations

WANTED = ("owns", "status", "title", "name")


class FrontMatterError(ValueError):
    """Front matter a spec cannot be read from (the reason is the message)."""


def block(text: str) -> list[str] | None:
    """The lines between the opening `---` and the closing `---` / `...`; None when the text
    has no front matter; FrontMatterError when it is never closed."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return [line.rstrip("\r") for line in lines[1:index]]
    raise FrontMatterError("front matter is not closed (no line `---` after it)")


def _scalar(raw: str, where: str) -> str:
    """A plain or quoted scalar, its comment removed."""
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        end = raw.find(quote, 1)
        while quote == "'" and end >= 0 and raw[end + 1 : end + 2] == "'":
            end = raw.find(quote, end + 2)
        if end < 0:
            raise FrontMatterError(f"{where}: unterminated quote")
        rest = raw[end + 1 :].strip()
        if rest and not rest.startswith("#"):
            raise FrontMatterError(f"{where}: text after a quoted value")
        body = raw[1:end]
        return body.replace("''", "'") if quote == "'" else body.replace('\\"', '"')
    cut = raw.find(" #")
    return (raw[:cut] if cut >= 0 else raw).strip() if not raw.startswith("#") else ""


def _flow(raw: str, where: str) -> list[str]:
    body = raw.strip()
    cut = body.rfind("]")
    if cut < 0 or (body[cut + 1 :].strip() and not body[cut + 1 :].strip().startswith("#")):
        raise FrontMatterError(f"{where}: unterminated list")
    inner = body[1:cut].strip()
    if not inner:
        return []
    return [_scalar(item, where) for item in _split_commas(inner) if item.strip()]


def _split_commas(inner: str) -> list[str]:
    """A flow list's items: commas inside quotes or `{a,b}` braces do not split."""
    items: list[str] = []
    quote, depth, start = "", 0, 0
    for i, c in enumerate(inner):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return items


def _entries(lines: list[str]) -> list[tuple[int, str, str, list[str]]]:
    """(line number, key, inline value, indented lines under it) of each top-level key."""
    entries: list[tuple[int, str, str, list[str]]] = []
    for number, line in enumerate(lines, 2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" or line.startswith("- "):
            if not entries:
                raise FrontMatterError(f"line {number}: indented text before any key")
            entries[-1][3].append(line)
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or " " in key.strip() or key.strip()[0] in "[{'\"-":
            raise FrontMatterError(f"line {number}: expected `key: value`")
        entries.append((number, key.strip(), value, []))
    return entries


def parse(lines: list[str]) -> dict[str, object]:
    """The wanted keys of a front matter block: strings, and `owns` as a list of strings."""
    found: dict[str, object] = {}
    for number, key, value, nested in _entries(lines):
        if key in found:
            raise FrontMatterError(f"line {number}: `{key}` given twice")
        if key not in WANTED:
            continue
        where = f"line {number}"
        inline = value.strip()
        if key == "owns":
            found[key] = _owns(inline, nested, where)
        elif nested or inline.startswith(("[", "{", "|", ">")):
            raise FrontMatterError(f"{where}: `{key}` must be one line of text")
        else:
            found[key] = _scalar(inline, where)
    return found


def _owns(inline: str, nested: list[str], where: str) -> list[str]:
    if inline and not inline.startswith("#"):
        if nested:
            raise FrontMatterError(f"{where}: `owns` has both a value and lines under it")
        if inline.startswith("["):
            return _flow(inline, where)
        return [_scalar(inline, where)]
    items = []
    for line in nested:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if not text.startswith("- ") and text != "-":
            raise FrontMatterError(f"{where}: `owns` lists globs as `- glob` lines")
        items.append(_scalar(text[1:], where))
    return items
