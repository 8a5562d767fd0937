"""The spec reminders the hooks inject: after an edit to an owned path, and before a push or
`gh pr create` for specs whose code changed on the branch without a spec edit."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .specs import Spec

MAX_PATHS = 5  # changed paths named per spec; the rest are counted


def _name(spec: Spec) -> str:
    return f"**{spec.title}** (`{spec.path}`)"


def edit_reminder(specs: list[Spec], path: str, skills: str = "/memhub:") -> str:
    """Names the specs owning the path just edited; "" when none does."""
    if not specs:
        return ""
    names = ", ".join(_name(spec) for spec in specs)
    one = len(specs) == 1
    return (
        f"MemHub spec ownership: `{path}` is owned by {'spec' if one else 'specs'} {names}. "
        f"If this change alters what {'it requires' if one else 'they require'}, revise "
        f"{'it' if one else 'them'} in the same branch (`{skills}spec-maintain revise`)."
    )


def push_reminder(hits: list[tuple[Spec, list[str]]], skills: str = "/memhub:") -> str:
    """Names the specs whose code changed on the branch without a spec edit; "" for none."""
    if not hits:
        return ""
    lines = [
        "MemHub spec ownership: before this push or PR, these specs own code changed on this "
        "branch but were not edited:"
    ]
    for spec, paths in hits:
        shown = ", ".join(f"`{p}`" for p in paths[:MAX_PATHS])
        more = f" and {len(paths) - MAX_PATHS} more" if len(paths) > MAX_PATHS else ""
        lines.append(f"- {_name(spec)}: {shown}{more}")
    lines.append(
        f"Check the change against them (`{skills}spec-check`) and revise any it makes untrue "
        f"(`{skills}spec-maintain revise`), or confirm they still hold."
    )
    return "\n".join(lines)


def problem_lines(problems: list[tuple[str, str]]) -> list[str]:
    """Doctor-style lines for spec files that cannot fire."""
    return [f"{path}: {reason} (this spec never fires)" for path, reason in problems]
