"""Spec `owns` globs against repo-relative paths, without `re` or `fnmatch` (both compile
regexes): `*` and `?` stay inside one path segment, `[abc]` / `[!abc]` classes, `**` as a whole
segment is any number of directories, `{a,b}` alternatives; a pattern with no wildcard owns
that path and everything under it."""

from __future__ import annotations

_WILD = "*?[{"
MAX_EXPANSION = 64  # brace alternatives kept per pattern
MAX_SEGMENTS = 256  # deeper paths are owned by nothing (keeps the matcher's recursion bounded)


def expand(pattern: str) -> list[str]:
    """`{a,b}` alternatives spelled out (nested braces too), at most MAX_EXPANSION."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth, end, cuts = 0, -1, [start]
    for i in range(start, len(pattern)):
        c = pattern[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
        elif c == "," and depth == 1:
            cuts.append(i)
    if end < 0:
        return [pattern]  # an unmatched brace is a literal
    cuts.append(end)
    head, tail = pattern[:start], pattern[end + 1 :]
    out: list[str] = []
    for k in range(len(cuts) - 1):
        for rest in expand(head + pattern[cuts[k] + 1 : cuts[k + 1]] + tail):
            if len(out) < MAX_EXPANSION:
                out.append(rest)
    return out


def _class(pattern: str, i: int, ch: str) -> tuple[bool, int] | None:
    """Whether `ch` is in the class at `pattern[i] == '['`, and the index after it."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    first = j
    hit = False
    while j < len(pattern) and (pattern[j] != "]" or j == first):
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            hit = hit or pattern[j] <= ch <= pattern[j + 2]
            j += 3
        else:
            hit = hit or pattern[j] == ch
            j += 1
    if j >= len(pattern):
        return None  # no closing bracket: `[` is a literal
    return hit != negate, j + 1


def segment(pattern: str, name: str) -> bool:
    """One path segment against one pattern segment (`*`, `?`, `[...]`)."""
    p = n = 0
    star_p, star_n = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] == "*":
            star_p, star_n = p, n
            p += 1
            continue
        if p < len(pattern):
            c = pattern[p]
            if c == "[" and (found := _class(pattern, p, name[n])) is not None:
                if found[0]:
                    p, n = found[1], n + 1
                    continue
            elif c == "?" or c == name[n]:
                p, n = p + 1, n + 1
                continue
        if star_p < 0:
            return False
        p, star_n = star_p + 1, star_n + 1
        n = star_n
    return all(c == "*" for c in pattern[p:])


def _parts(pattern: list[str], path: list[str]) -> bool:
    """Segments against segments; `**` is any number of them. Each (pattern, path) index pair
    is decided once, so hostile patterns stay linear in pattern x path."""
    seen: dict[tuple[int, int], bool] = {}

    def at(p: int, n: int) -> bool:
        key = (p, n)
        if key in seen:
            return seen[key]
        if p == len(pattern):
            result = n == len(path)
        elif pattern[p] == "**":
            result = at(p + 1, n) or (n < len(path) and at(p, n + 1))
        else:
            result = n < len(path) and segment(pattern[p], path[n]) and at(p + 1, n + 1)
        seen[key] = result
        return result

    return at(0, 0)


def normal(path: str) -> str:
    """A repo-relative path in one spelling: forward slashes, no `./` or leading `/`."""
    path = path.replace("\\", "/")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts)


def matches(pattern: str, path: str) -> bool:
    """Whether `pattern` (an `owns` entry) owns the repo-relative `path`."""
    path = normal(path)
    if not path or path.count("/") > MAX_SEGMENTS:
        return False
    for alternative in expand(pattern.strip()):
        directory = alternative.rstrip().endswith("/")
        alt = normal(alternative)
        if not alt:
            continue
        if not any(c in alt for c in _WILD):
            if path == alt or path.startswith(alt + "/"):
                return True
            continue
        if directory:
            alt += "/**"
        if _parts(alt.split("/"), path.split("/")):
            return True
    return False
