"""What doctor reports: one `Check` per finding, the check names, and their counts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memhub.compiler.doctor.documents import Documents
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import State

Status = Literal["ok", "warn", "fail"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail")

PARSE, DRIFT, LOCATION, HOOKS_ON = "parse", "drift", "location", "hooks-on"
TRUST, COMMAND, SKILL, MCP_SCOPES, HUB = "hook-trust", "hook-command", "skill", "mcp-scopes", "hub"
LOADER, STARTS = "host-loader", "server-start"


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: which host, which check, ok/warn/fail, the file it is about, and the fix."""

    host: str
    name: str
    status: Status
    target: str
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            "host": self.host,
            "name": self.name,
            "status": self.status,
            "target": self.target,
            "detail": self.detail,
            "fix": self.fix,
        }


def summary(checks: Iterable[Check]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
    for check in checks:
        counts[check.status] += 1
    return counts


@dataclass
class Run:
    """One doctor run: what it checks against, the documents read so far, and its findings."""

    scope: Scope
    state: State
    env: Mapping[str, str]
    docs: Documents = field(default_factory=Documents)
    checks: list[Check] = field(default_factory=list)
    asked: dict[Any, Any] = field(default_factory=dict)  # a host CLI's answers (hostcli.ask)

    def add(
        self, host: str, name: str, status: Status, target: str, detail: str, fix: str = ""
    ) -> None:
        self.checks.append(Check(host, name, status, target, detail, fix))
