"""Skill descriptions longer than a host loads: the coverage row of each host that truncates
or drops such a skill, and the skills a bundle folder leaves out because every host reading
that folder would drop them.

Each adapter says in `SKILL_DESCRIPTION_MAX` (a base.DescriptionMax, seen with the real CLI)
how long a description its host takes whole and what it does beyond; an adapter without one
loads any length tried (the hub itself refuses only past hubspec's sanity cap)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memhub.compiler.hosts.base import BundleHost, CoverageRow, DescriptionMax
from memhub.hubspec.model import Hub, Skill


def description_max(adapter: BundleHost) -> DescriptionMax | None:
    """The host's limit on a skill's description, or None when it loads any length tried."""
    limit: DescriptionMax | None = getattr(adapter, "SKILL_DESCRIPTION_MAX", None)
    return limit


def _over(skill: Skill, adapter: BundleHost) -> DescriptionMax | None:
    limit = description_max(adapter)
    return limit if limit is not None and len(skill.description) > limit.chars else None


def _drops(skill: Skill, adapter: BundleHost) -> bool:
    limit = _over(skill, adapter)
    return limit is not None and limit.status == "unsupported"


def without_dropped(hub: Hub, adapters: Sequence[BundleHost]) -> Hub:
    """The hub without the skills every host of one bundle folder drops for their description
    (a folder of its own is not written a skill its host will not load)."""
    if not adapters:
        return hub
    kept = tuple(s for s in hub.skills if not all(_drops(s, a) for a in adapters))
    return hub if len(kept) == len(hub.skills) else replace(hub, skills=kept)


def description_rows(
    hub: Hub, adapter: BundleHost, folder: Sequence[BundleHost]
) -> list[CoverageRow]:
    """A row per skill whose description is longer than the host takes whole; `folder`: the
    hosts sharing its bundle folder (a skill another of them loads is written there still)."""
    rows = []
    for skill in hub.skills:
        limit = _over(skill, adapter)
        if limit is None:
            continue
        reason = f"description is {len(skill.description)} characters: {limit.beyond}"
        others = [a.title for a in folder if a.name != adapter.name and not _drops(skill, a)]
        if limit.status == "unsupported" and others:
            reason += (
                f"; but it is written in the skills folder {adapter.title} shares with "
                f"{', '.join(others)}, where {adapter.title} reports it failing to load"
            )
        elif limit.status == "unsupported":
            reason += f"; not written for {adapter.title}"
        where = f"skills/{skill.folder}/SKILL.md"
        rows.append(CoverageRow(adapter.name, "skill", skill.name, limit.status, where, reason))
    return rows
