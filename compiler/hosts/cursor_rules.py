"""Cursor's rules: the `instructions` as `rules/<plugin>.mdc` (always applied), and the hub's
own rules (`rules:`, each `.mdc` file copied byte for byte)."""

from __future__ import annotations

import json

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import CoverageRow
from memhub.compiler.hosts.entries import instructions_row
from memhub.hubspec.model import Hub
from memhub.templates import fill

name = "cursor"
FOLDER = "rules"


def has_rules(hub: Hub) -> bool:
    """Whether the plugin's rules/ folder holds anything (the manifest then names it)."""
    return hub.instructions is not None


def rule_artifacts(hub: Hub, base: str) -> tuple[list[Artifact], list[CoverageRow]]:
    """The rule files under `<base>/rules/` and a coverage row for each."""
    artifacts: list[Artifact] = []
    rows: list[CoverageRow] = []
    if hub.instructions:
        rule = fill(
            "cursor_rule.mdc.tmpl",
            description=json.dumps(f"{hub.plugin.title} instructions", ensure_ascii=False),
            body=hub.instructions.text,
        )
        where = f"{FOLDER}/{hub.plugin.name}.mdc"
        artifacts.append(Artifact(f"{base}/{where}", rule.encode("utf-8"), owners=(name,)))
        rows += instructions_row(hub, name, "mapped", f"{where} (alwaysApply)", "")
    return artifacts, rows
