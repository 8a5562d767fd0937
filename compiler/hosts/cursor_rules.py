"""Cursor's rules: the `instructions` as `rules/<plugin>.mdc` (always applied), and the hub's
own rules (`rules:`, each file copied byte for byte; hubspec/cursorrules.py checks them)."""

from __future__ import annotations

import json

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import CoverageRow
from memhub.compiler.hosts.entries import instructions_row
from memhub.hubspec.model import Hub
from memhub.templates import fill

name = "cursor"
FOLDER = "rules"


def instructions_rule_path(plugin: str) -> str:
    """Where the rule memhub writes from `instructions` lies in the plugin folder."""
    return f"{FOLDER}/{plugin}.mdc"


def instructions_rule(title: str, text: str) -> bytes:
    """The always-applied rule memhub writes from the hub's `instructions` (import compares a
    repository's rule with it: cursor_repo)."""
    rule = fill(
        "cursor_rule.mdc.tmpl",
        description=json.dumps(f"{title} instructions", ensure_ascii=False),
        body=text,
    )
    return rule.encode("utf-8")


def has_rules(hub: Hub) -> bool:
    """Whether the plugin's rules/ folder holds anything (the manifest then names it)."""
    return hub.instructions is not None or bool(hub.rules)


def rule_artifacts(hub: Hub, base: str) -> tuple[list[Artifact], list[CoverageRow]]:
    """The rule files under `<base>/rules/` and a coverage row for each."""
    artifacts: list[Artifact] = []
    rows: list[CoverageRow] = []
    if hub.instructions:
        where = instructions_rule_path(hub.plugin.name)
        text = instructions_rule(hub.plugin.title, hub.instructions.text)
        artifacts.append(Artifact(f"{base}/{where}", text, owners=(name,)))
        rows += instructions_row(hub, name, "mapped", f"{where} (alwaysApply)", "")
    for rule in hub.rules:  # byte for byte
        where = f"{FOLDER}/{rule.name}"
        artifacts.append(Artifact(f"{base}/{where}", rule.content, owners=(name,)))
        rows.append(CoverageRow(name, "rule", rule.name, "mapped", where))
    return artifacts, rows


def elsewhere_rows(hub: Hub, host: str, title: str) -> list[CoverageRow]:
    """The hub's Cursor rules on another host: not carried (build.py asks for each host
    whose adapter has no CURSOR_RULES)."""
    why = f"a Cursor rule (rules:); {title} has no such files"
    return [CoverageRow(host, "rule", rule.name, "unsupported", "-", why) for rule in hub.rules]
