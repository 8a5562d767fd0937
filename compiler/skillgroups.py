"""Skills in group folders (`skills/<group>/<name>/SKILL.md`): where each bundle folder puts
them and the coverage row of each host that does not load them there.

Each adapter says in `SKILL_GROUPS` whether its host loads a skill of a group folder: None
when it does (seen with the real CLI), else why not. The plugin folder Claude Code, Codex and
Cursor share keeps the groups as the hub has them (a repository's layout, byte for byte); a
folder of its own is written flat (`skills/<name>/`, lossless: skill folder names are unique
across groups) when one of its hosts does not load groups."""

from __future__ import annotations

from collections.abc import Sequence

from memhub.compiler.hosts.base import BundleHost, CoverageRow
from memhub.compiler.hosts.common import NATIVE_ROOT
from memhub.hubspec.model import Hub


def groups_reason(adapter: BundleHost) -> str | None:
    """None when the host loads `skills/<group>/<name>/SKILL.md`, else why not."""
    default = f"{adapter.title} loads only skills/<name>/SKILL.md"
    reason: str | None = getattr(adapter, "SKILL_GROUPS", default)
    return reason


def flat(root: str, adapters: Sequence[BundleHost]) -> bool:
    """Whether the bundle folder `root` of `adapters` holds its skills flat."""
    return root != NATIVE_ROOT and any(groups_reason(a) is not None for a in adapters)


def group_rows(hub: Hub, adapter: BundleHost, flattened: bool) -> list[CoverageRow]:
    """A row per skill of a group folder that the host does not load where the hub has it."""
    reason = groups_reason(adapter)
    if reason is None:
        return []
    rows = []
    for skill in (s for s in hub.skills if s.group):
        where = f"skills/{skill.folder}/SKILL.md"
        if flattened:
            row = CoverageRow(
                adapter.name,
                "skill",
                skill.name,
                "caveat",
                f"skills/{skill.name}/SKILL.md",
                f"written flat, out of its group folder {skill.group}/: {reason}",
            )
        else:
            row = CoverageRow(adapter.name, "skill", skill.name, "unsupported", where, reason)
        rows.append(row)
    return rows
