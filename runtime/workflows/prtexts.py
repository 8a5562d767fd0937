"""The instructions the PR workflow injects: the babysit loop after this session opened a
PR, and the judged link (link only if this session wrote the code)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .prs import PrDecision

_BABYSIT = (
    "MemHub: this session opened pull request {label} ({url}) and is linked to it. "
    "Start a self-paced loop that babysits it: `/loop {skills}pr-babysit {ref}` (one pass per "
    "iteration; on a host without loops, run `{skills}pr-babysit {ref}` once and say when to "
    "run it again). Skip this if the user said, in this session or in memory, not to babysit PRs."
)
_JUDGED = (
    "MemHub: this call names pull request {label}{paren}. If this session wrote that PR's "
    "code, link this session to it with `{skills}link-pr {ref}`. If it did not, do not link; "
    "offer `{skills}find-contributing-sessions {ref}` instead."
)
_UNPROVEN_CREATE = (
    "MemHub: this call ran `gh pr create` and its output names pull request {label}{paren}, "
    "but the shell around it can hide a failed create (whose error names the existing PR). "
    "If the create succeeded, this session opened that PR: link it with `{skills}link-pr {ref}` "
    "and offer to babysit it (`{skills}pr-babysit {ref}`). If it failed, link only if this "
    "session wrote that PR's code; otherwise offer `{skills}find-contributing-sessions {ref}`."
)


def render(decision: PrDecision, skills: str) -> tuple[str, bool]:
    """(text, whether it arms the babysit loop) for a decision that names a PR."""
    pr = decision.pr
    if pr is None:
        return "", False
    ref = pr.url or str(pr.number)
    fields = {
        "label": pr.label(),
        "url": pr.url,
        "paren": f" ({pr.url})" if pr.url else "",
        "ref": ref,
        "skills": skills,
    }
    if decision.kind == "self-link":
        return _BABYSIT.format(**fields), True
    if decision.reason == "create-unproven":
        return _UNPROVEN_CREATE.format(**fields), False
    return _JUDGED.format(**fields), False
