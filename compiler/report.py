"""Plain-text tables for people; the same records go out as JSON with --json."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memhub.compiler.hosts import CoverageRow
from memhub.compiler.plan import Plan


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    """Left-aligned columns separated by two spaces; the last column is not padded."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [str(c).ljust(widths[i]) for i, c in enumerate(row[:-1])] + [str(row[-1])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def warning_line(row: CoverageRow) -> str:
    """A component a host cannot carry, as one line: `host: component 'id': reason`."""
    return f"{row.host}: {row.component} {row.id!r}: {row.reason}"


def coverage_table(rows: Iterable[CoverageRow]) -> str:
    data = [(r.host, r.component, r.id, r.status, r.target, r.reason) for r in rows]
    if not data:
        return "coverage: nothing to map (no hooks, MCP servers or instructions)\n"
    return table(data, ("host", "component", "id", "status", "target", "reason"))


def plan_lines(plan: Plan, *, show_unchanged: bool = False) -> str:
    """One status word per path (create, update, delete, unchanged)."""
    width = max((len(c.kind) for c in plan.changes), default=0)
    lines = [
        f"{c.kind.rjust(width)}  {c.path}"
        for c in plan.changes
        if show_unchanged or c.kind != "unchanged"
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def summary(plan: Plan) -> str:
    """`3 create, 1 update, 40 unchanged`: each status word with its count."""
    counts = plan.counts()
    return ", ".join(f"{n} {kind}" for kind, n in counts.items() if n) or "no files"
