"""Directive recall's rendering and accounting: the published plugin's text, within a budget.

    ## 📋 Relevant team directives for this action
    <note>
    - **[LESSON]** <content>  _(fired on: <trigger>; as of <as_of>; seen N×)_

A rendering longer than its character budget is cut, never dropped silently: the directive
that does not fit is shortened and ends with `TRIMMED`, and one that cannot fit at all is
named in a last line saying how many were left out. Pure, stdlib.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .directives import Hit

__all__ = ["DEFAULT_BUDGET", "HEADER", "NOTE", "TRIMMED", "Injection", "render"]

HEADER = "## 📋 Relevant team directives for this action"
NOTE = (
    "Your team's memory holds these for what you are about to do; follow them unless the"
    " user says otherwise."
)
NOTE_REACTIVE = "Your team's memory holds these for the failure you just hit; check them first."
TRIMMED = "… (cut to budget)"
DEFAULT_BUDGET = 2000  # characters
MIN_CONTENT = 40  # a directive cut to less text than this says nothing: left out (and counted)


class Injection:
    """One rendering and its accounting: the text, what fired and why, chars and tokens."""

    __slots__ = ("cut", "fired", "left_out", "text")

    def __init__(self, text: str, fired: list[dict[str, Any]], cut: bool, left_out: int) -> None:
        self.text, self.fired, self.cut, self.left_out = text, fired, cut, left_out

    @property
    def chars(self) -> int:
        """Characters injected."""
        return len(self.text)

    @property
    def tokens(self) -> int:
        """Estimated tokens injected (characters / 4, rounded up)."""
        return -(-len(self.text) // 4)

    def ids(self) -> list[str]:
        """The directives shown (to record as fired once the text is delivered)."""
        return [item["id"] for item in self.fired]

    def accounting(self) -> dict[str, Any]:
        """What a handler logs for this injection."""
        return {
            "fired": self.fired,
            "chars": self.chars,
            "tokens": self.tokens,
            "cut": self.cut,
            "left_out": self.left_out,
        }


def content(hit: Hit) -> str:
    """A directive's text: its title, then its body, on one line."""
    d = hit.directive
    return " ".join(f"{d.title}\n{d.body}".split())


def _as_of(stamp: str) -> str:
    return stamp[:10] if len(stamp) >= 10 else (stamp or "unknown")


def _tail(hit: Hit) -> str:
    d = hit.directive
    return f"  _(fired on: {hit.trigger}; as of {_as_of(d.updated)}; seen {d.seen}×)_"


def _item(hit: Hit, room: int | None = None) -> str:
    """One bullet; with `room`, its content shortened so the bullet fits in `room` characters."""
    head, text, tail = f"- **[{hit.directive.kind.upper()}]** ", content(hit), _tail(hit)
    line = head + text + tail
    if room is None or len(line) <= room:
        return line
    fenced = text.startswith("[unreviewed") and text.endswith("`")  # unreviewed.inline
    keep = room - len(head) - len(tail) - len(TRIMMED) - fenced
    body = text[: max(keep, 0)].rstrip() + TRIMMED
    if fenced and body.count("`") % 2:  # cut inside its fence: the span still closes
        body += "`"
    return head + body + tail


def _why(hit: Hit) -> dict[str, Any]:
    d = hit.directive
    return {"id": d.id, "kind": d.kind, "trigger": hit.trigger, "matched": hit.token}


def render(hits: Sequence[Hit], budget: int = DEFAULT_BUDGET, reactive: bool = False) -> Injection:
    """The additional context for `hits` in at most `budget` characters (empty: nothing)."""
    if not hits:
        return Injection("", [], False, 0)
    lines = [HEADER, NOTE_REACTIVE if reactive else NOTE]
    fired: list[dict[str, Any]] = []
    cut = False
    for index, hit in enumerate(hits):
        used = len("\n".join(lines)) + 1
        rest = len(hits) - index - 1
        reserve = len(_omitted(rest)) + 1 if rest else 0  # room to say what is left out
        room = budget - used - reserve
        line, shortened = _item(hit), False
        if len(line) > room:
            if room < len(_item(hit, 0)) + MIN_CONTENT:
                break
            line, shortened = _item(hit, room), True
        lines.append(line)
        fired.append({**_why(hit), "cut": shortened})
        cut = cut or shortened
    left_out = len(hits) - len(fired)
    if left_out:
        lines.append(_omitted(left_out))
        cut = True
    if len(fired) == 0:
        return _too_small(hits, budget)
    return Injection("\n".join(lines), fired, cut, left_out)


def _omitted(n: int) -> str:
    return f"_({n} more directive{'s' * (n != 1)} left out to fit the budget)_"


def _too_small(hits: Sequence[Hit], budget: int) -> Injection:
    """A budget too small for any directive: say so in what room there is."""
    text = f"{HEADER}\n{_omitted(len(hits))}"
    return Injection(text[: max(budget, 0)], [], True, len(hits))
