"""`build(hub) -> Build`: every selected host adapter, merged into one sorted file set. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memhub.compiler import links, rootplugin, rulebooks, skilldescriptions, skillgroups
from memhub.compiler.artifact import Artifact
from memhub.compiler.errors import BuildError
from memhub.compiler.hosts import (
    ADAPTERS,
    CoverageRow,
    agent_plugins_shared,
    cursor_rules,
    recall_settings,
    user_config,
)
from memhub.compiler.hosts.base import SkillNames
from memhub.compiler.hosts.common import (
    icon_artifacts,
    plugin_dir,
    readme_artifact,
    root_of,
    runtime_artifacts,
    skill_artifacts,
)
from memhub.hubspec import perhost
from memhub.hubspec.errors import HubError, Problem
from memhub.hubspec.files import README
from memhub.hubspec.marketplace import MarketplaceHub
from memhub.hubspec.model import Hub
from memhub.hubspec.vocabulary import KEBAB, NAME_MAX


@dataclass(frozen=True, slots=True)
class Build:
    """The files of one bundle and how each hub component landed on each host."""

    hub: Hub
    hosts: tuple[str, ...]
    artifacts: tuple[Artifact, ...]
    coverage: tuple[CoverageRow, ...]

    @property
    def warnings(self) -> tuple[CoverageRow, ...]:
        """Components a host could not carry (left out of that host's files)."""
        return tuple(row for row in self.coverage if row.status == "unsupported")

    def artifact(self, path: str) -> Artifact | None:
        return next((a for a in self.artifacts if a.path == path), None)


def select_hosts(hub: Hub | MarketplaceHub, hosts: Sequence[str] | None) -> tuple[str, ...]:
    """The hosts to build, in registry order; unknown names are an error."""
    wanted = tuple(hosts) if hosts else hub.hosts
    unknown = [h for h in wanted if h not in ADAPTERS]
    if unknown:
        raise BuildError(
            f"unknown host {', '.join(map(repr, unknown))}. Fix: use one of: {', '.join(ADAPTERS)}"
        )
    return tuple(h for h in ADAPTERS if h in wanted)


def build(hub: Hub, hosts: Sequence[str] | None = None, *, settle: bool = True) -> Build:
    """Compile `hub` for `hosts` (default: the hub's `hosts`). Same input, same bytes.

    `settle=False` leaves its links unchecked, for a marketplace build to check them over
    every plugin's files (a link may reach a sibling plugin's folder)."""
    selected = select_hosts(hub, hosts)
    clashes = rootplugin.root_problems(hub, selected)
    if clashes:
        raise HubError(clashes)
    produced: list[Artifact] = []
    roots = {h: root_of(hub, ADAPTERS[h]) for h in selected}
    for root in dict.fromkeys(roots.values()):
        hosts_here = [ADAPTERS[h] for h in selected if roots[h] == root]
        installs = [{"title": a.title, "steps": a.install_steps(hub)} for a in hosts_here]
        flat = skillgroups.flat(root, hosts_here)
        skills = perhost.shared(hub, [a.name for a in hosts_here])
        skills = skilldescriptions.without_dropped(skills, hosts_here)
        produced += skill_artifacts(skills, root, flat=flat)
        # the hub ships its own, or wants none
        if hub.plugin.readme and not any(item.path == README for item in hub.files):
            produced.append(readme_artifact(hub, root, installs))
        if any(a.shows_icon for a in hosts_here):
            produced += icon_artifacts(hub, root)
        if any(a.runs_hooks for a in hosts_here):
            produced += runtime_artifacts(hub, root) + recall_settings.bundle_artifacts(hub, root)
            produced += rulebooks.bundle_artifacts(hub, root)
    coverage: list[CoverageRow] = []
    for host in selected:
        seen, option_rows = user_config.host_view(perhost.view(hub, host), ADAPTERS[host])
        result = ADAPTERS[host].build(seen)
        produced.extend(result.artifacts)
        coverage.extend(result.coverage + tuple(option_rows))
        # an adapter without SKILL_NAMES loads such skills as they are (base.SkillNames)
        coverage += skill_name_rows(
            seen, host, getattr(ADAPTERS[host], "SKILL_NAMES", SkillNames())
        )
        folder = tuple(h for h in selected if roots[h] == roots[host])
        flat = skillgroups.flat(roots[host], [ADAPTERS[h] for h in folder])
        coverage += skillgroups.group_rows(seen, ADAPTERS[host], flat)
        coverage += skilldescriptions.description_rows(
            seen, ADAPTERS[host], [ADAPTERS[h] for h in folder]
        )
        if not getattr(ADAPTERS[host], "CURSOR_RULES", False):
            coverage += cursor_rules.elsewhere_rows(seen, host, ADAPTERS[host].title)
        coverage += [_limited_row(host, item) for item in perhost.limited(hub, host, folder)]
        books = f"{plugin_dir(hub, roots[host])}/{rulebooks.BUNDLED}/{{}}"
        vendored = hub.runtime.vendor != "never"
        coverage += rulebooks.coverage_rows(hub, host, result.coverage, books, vendored)
    coverage = agent_plugins_shared.codex_rows(hub, selected, coverage)
    failed = [row for row in coverage if row.required and row.status == "unsupported"]
    if failed:
        raise HubError([_required_problem(hub, row) for row in failed])
    merged = _merge(produced)
    return Build(hub, selected, links.settle(merged) if settle else merged, tuple(coverage))


def skill_name_rows(hub: Hub, host: str, rules: SkillNames) -> list[CoverageRow]:
    """A row for each skill the host takes otherwise than the hub has it: a SKILL.md without
    `name:` or a name that is not kebab-case equal to its folder (SKILL.md ships as written)."""
    rows = []
    for skill in hub.skills:
        other = skill.declared is not None and not (
            skill.declared == skill.name and KEBAB.match(skill.name) and len(skill.name) <= NAME_MAX
        )
        rule = rules.without_name if skill.declared is None else rules.other_name if other else None
        if rule is not None:
            where = f"skills/{skill.name}/SKILL.md"
            rows.append(CoverageRow(host, "skill", skill.name, rule[0], where, rule[1]))
    return rows


def _limited_row(host: str, item: perhost.Limited) -> CoverageRow:
    """A component `hosts:` keeps away from `host`: said, not silently dropped."""
    reason = f"limited to {', '.join(item.hosts)} (hosts:)"
    if item.shared_by:  # one skills folder serves them all: this host finds it there too
        reason += f"; but {host} reads the skills folder it shares with {', '.join(item.shared_by)}"
    return CoverageRow(host, item.component, item.id, "caveat", "-", reason)


def _required_problem(hub: Hub, row: CoverageRow) -> Problem:
    index, hook = next((i, h) for i, h in enumerate(hub.hooks) if h.id == row.id)
    return Problem(
        hook.origin_of("required"),
        f"hooks[{index}].required",
        f"{row.host} cannot carry required hook {row.id!r}: {row.reason}",
        f"leave {row.host} out of `hosts` (or build with --host), or set `required: false`",
    )


def _merge(produced: list[Artifact]) -> tuple[Artifact, ...]:
    """One artifact per path; hosts may share a file only if they agree on its bytes."""
    by_path: dict[str, Artifact] = {}
    for item in produced:
        seen = by_path.get(item.path)
        if seen is None:
            by_path[item.path] = item
            continue
        if (seen.content, seen.mode, seen.link) != (item.content, item.mode, item.link):
            raise BuildError(
                f"{item.path}: {', '.join(seen.owners)} and {', '.join(item.owners)} generate "
                "different contents. Fix: this is a memhub bug; please report it with your hub"
            )
        owners = tuple(sorted(set(seen.owners) | set(item.owners)))
        by_path[item.path] = Artifact(
            item.path, item.content, item.mode, owners, item.link, seen.origin or item.origin
        )
    return tuple(by_path[path] for path in sorted(by_path))
