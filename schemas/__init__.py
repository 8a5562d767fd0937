"""memhub.schemas: the hub JSON Schema (hub.schema.json, JSON Schema 2020-12).

Its one list of host names (`$defs.host`) is the host adapters' (compiler/hosts: ADAPTERS):
hubspec fills it in when it loads the schema, and `python -m memhub.schemas` writes it into
the published file, which a test keeps equal to the adapters.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

SCHEMA_FILE = "hub.schema.json"


def with_hosts(schema: dict[str, Any], hosts: Sequence[str]) -> dict[str, Any]:
    """A copy of `schema` whose host names (in `hosts:` and `overrides:`) are `hosts`."""
    filled = copy.deepcopy(schema)
    filled["$defs"]["host"]["enum"] = list(hosts)
    return filled


def schema_hosts(schema: dict[str, Any]) -> list[str]:
    """The host names `schema` accepts."""
    return list(schema["$defs"]["host"]["enum"])


def schema_text(schema: dict[str, Any]) -> str:
    """The published form: two-space JSON, one trailing newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
