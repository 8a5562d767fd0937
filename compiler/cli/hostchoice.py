"""Which hosts an install-side command works on (`--hosts`, else the hub's hosts on PATH)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from memhub.compiler.hosts import INSTALLERS
from memhub.hubspec import MemhubError


def parse_hosts(value: str | None, bound: Sequence[str] | None = None) -> tuple[str, ...]:
    """`--hosts a,b`, else the hosts whose CLI is on PATH (among `bound`, when given)."""
    return choose_hosts(value, bound).hosts


@dataclass(frozen=True, slots=True)
class HostChoice:
    """The hosts an install command works on, and one line saying why those."""

    hosts: tuple[str, ...]
    why: str

    def line(self) -> str:
        return f"hosts: {', '.join(self.hosts)} ({self.why})"


def choose_hosts(
    value: str | None, bound: Sequence[str] | None = None, hub_file: str = "hub.yaml"
) -> HostChoice:
    """`--hosts a,b` as given; else the hosts in `bound` (the hub's `hosts:`) whose CLI is on
    PATH. A hub written for Claude alone must not land in Codex because codex is installed."""
    if value:
        hosts = tuple(h.strip() for h in value.split(",") if h.strip())
        unknown = [h for h in hosts if h not in INSTALLERS]
        if unknown:
            import click  # only to refuse: a plain apply runs without it

            raise click.BadParameter(
                f"unknown host {', '.join(unknown)}; use some of: {', '.join(INSTALLERS)}",
                param_hint="--hosts",
            )
        return HostChoice(hosts, "as named by --hosts")
    candidates = [name for name in INSTALLERS if bound is None or name in bound]
    if not candidates:
        raise MemhubError(
            f"{hub_file}: `hosts:` ({', '.join(bound or ())}) names no host memhub installs "
            f"into ({', '.join(INSTALLERS)}). Fix: add one to `hosts:`, or name them with "
            "--hosts claude,codex"
        )
    found = tuple(name for name in candidates if _on_path(name))
    missing = [name for name in candidates if name not in found]
    if not found:
        names = ", ".join(exe for name in candidates for exe in INSTALLERS[name].executables)
        fix = f"Fix: name the hosts with --hosts {','.join(candidates[:2])}"
        if bound is None:
            raise MemhubError(f"no host CLI ({names}) found on PATH. {fix}")
        raise MemhubError(
            f"{hub_file}: `hosts:` lists {', '.join(candidates)}, and none of their CLIs "
            f"({names}) is on PATH. {fix}, or add a host whose CLI is installed to `hosts:`"
        )
    why = "the hub's `hosts:` whose CLI is on PATH" if bound is not None else "CLI on PATH"
    if missing:
        why += f"; not on PATH: {', '.join(missing)}"
    left_out = [name for name in INSTALLERS if name not in candidates and _on_path(name)]
    if left_out:
        why += f"; on PATH but not in `hosts:`: {', '.join(left_out)}"
    return HostChoice(found, why + "; --hosts chooses")


def _on_path(host: str) -> bool:
    return any(shutil.which(exe) for exe in INSTALLERS[host].executables)
