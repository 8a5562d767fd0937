"""memhub.templates: Jinja2 templates for text outputs, rendered deterministically."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2


@cache
def environment() -> jinja2.Environment:
    """One strict environment: undefined names fail, output is byte-stable."""
    import jinja2  # imported on first render: most commands render nothing

    return jinja2.Environment(
        loader=jinja2.PackageLoader("memhub.templates", ""),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)
