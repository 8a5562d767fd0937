"""The registry of runtime handlers a hub hook may name (`hooks[].handler`).

The compiler validates hub hooks against these names; the hook entry point
dispatches to them. Handlers arrive with the runtime issues (capture, recall,
orientation); until one is registered here, hubs use plain `command` hooks.
"""

from __future__ import annotations

# handler name -> one-line description shown by `memhub hosts`
HANDLERS: dict[str, str] = {}
