"""Folders inside a bundle that a hub names (`plugin.path`, a marketplace's `path`, a
relative `source:`): relative, plain segments, and clear of the folders memhub writes itself.
A plugin's folder may also be `.`, the bundle root (a repository that is one plugin)."""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*$")
# a folder of another repository (a git-subdir source) may be hidden, e.g. .github/plugins/x:
# memhub never writes there, so only '.' and '..' are refused
_REMOTE_SEGMENT = re.compile(r"^[A-Za-z0-9._-]+$")
# the roots other hosts' plugin folders live under (gemini, agent-plugins): a native plugin
# folder there would mix two hosts' manifests in one folder
RESERVED_ROOTS = ("gemini", "agent-plugins")
ROOT = "."  # a plugin folder at the bundle root


def bundle_path_problem(
    value: str, *, what: str = "the folder", root_ok: bool = False, remote: bool = False
) -> tuple[str, str] | None:
    """(message, fix) when `value` cannot name a folder inside a bundle (`.`, the root, only
    when `root_ok`; hidden segments and the reserved roots only when `remote`, a folder of
    another repository), else None."""
    if value == ROOT and root_ok:
        return None
    parts = value.split("/")
    if value.startswith("/") or value.startswith("~"):
        return f"{value!r} is an absolute path", f"write {what} relative to the bundle root"
    if any(p in (".", "..") for p in parts):
        return (
            f"{value!r} has a '.' or '..' segment",
            f"write {what} as plain folder names, e.g. plugins/my-plugin",
        )
    segment = _REMOTE_SEGMENT if remote else _SEGMENT
    if not all(segment.match(p) for p in parts):
        if remote:
            return (
                f"{value!r} is not a plain relative folder",
                "use letters, digits, '.', '_' and '-' in each segment, separated by single '/'",
            )
        return (
            f"{value!r} is not a plain relative folder",
            "use letters, digits, '.', '_' and '-' in each segment, none starting with '.', "
            "separated by single '/'",
        )
    if parts[0] in RESERVED_ROOTS and not remote:
        return (
            f"{value!r} is under {parts[0]}/, where memhub writes another host's plugin folders",
            "choose a folder outside " + " and ".join(f"{r}/" for r in RESERVED_ROOTS),
        )
    return None


def relative_to(folder: str, base: str) -> str | None:
    """`folder` as `./...` seen from `base` ('' is the bundle root; a `folder` of `.` is the
    root itself, `./` from there); None when it is not inside."""
    if folder == ROOT:
        return None if base else "./"
    if not base:
        return f"./{folder}"
    if folder == base:  # a marketplace listing its own folder (Claude Code takes `./`)
        return "./"
    if folder.startswith(base + "/"):
        return f"./{folder[len(base) + 1 :]}"
    return None
