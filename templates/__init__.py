"""memhub.templates: templates for text outputs, rendered deterministically.

Two kinds: `*.tmpl` are stdlib `string.Template` files for what every build renders (a
Jinja2 import costs about a quarter of the CLI's time budget on a small machine), and
`*.j2` are Jinja2 templates for `memhub init`, where the cost is paid once.
"""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path
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


@cache
def _text_template(name: str) -> string.Template:
    # beside this file (memhub runs from a folder, never a zip): importlib.resources would
    # cost every command that loads an adapter a few ms to import
    return string.Template(Path(__file__).with_name(name).read_text("utf-8"))


def fill(template: str, **values: str) -> str:
    """Substitute `${name}` placeholders of a `.tmpl` file; a missing value is an error."""
    return _text_template(template).substitute(values)
