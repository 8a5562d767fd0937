"""The doctor report as text: grouped by host, warnings and failures in full, ok counted."""

from __future__ import annotations

import os
from collections.abc import Sequence

from memhub.compiler.doctor.records import Check, summary


def render(checks: Sequence[Check], hosts: Sequence[str], *, home: str = "") -> str:
    """A report grouped by host: warnings and failures in full, ok checks counted."""

    def short(path: str) -> str:
        return "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path

    groups: dict[str, list[Check]] = {}
    for check in checks:
        groups.setdefault(check.host, []).append(check)
    order = [h for h in hosts if h in groups] + sorted(h for h in groups if h not in hosts)
    lines: list[str] = []
    for host in order:
        found = groups[host]
        counts = summary(found)
        head = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        lines.append(f"{host}: {head}")
        oks: dict[str, int] = {}
        for check in found:
            if check.status == "ok":
                oks[check.name] = oks.get(check.name, 0) + 1
        if oks:
            lines.append("  ok    " + ", ".join(f"{name} {n}" for name, n in oks.items()))
        for check in sorted(found, key=lambda c: (c.status != "fail", c.name)):
            if check.status == "ok":
                continue
            where = f" {short(check.target)}:" if check.target else ""
            lines.append(f"  {check.status:<5} {check.name}{where} {check.detail}")
            if check.fix:
                lines.append(f"        fix: {check.fix}")
    counts = summary(checks)
    lines.append(", ".join(f"{n} {status}" for status, n in counts.items()))
    return "\n".join(lines) + "\n"
