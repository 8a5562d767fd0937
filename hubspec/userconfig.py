"""`plugin.user_config`: options a person sets when installing the plugin (Claude Code's
plugin `userConfig`), named in server values as `${user_config.KEY}`.

Each option is kept as written (its keys in their order: Claude Code's own shape, so a build
writes it back byte for byte). The schema checks the shape; here, what it cannot: a
`sensitive` option never has a default, no default is a literal credential, a default has
the option's type, `min`/`max` fit a number, and `multiple` fits a path or string list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.runtime import credentials

from .checks import Checker
from .model import frozen_map
from .refs import DEFAULT_MAX, literal_secret
from .vocabulary import ENV_NAME
from .yamlsrc import KeyPath

TYPES = ("string", "number", "boolean", "directory", "file")
KEYS = (
    "type",
    "title",
    "description",
    "sensitive",
    "required",
    "default",
    "multiple",
    "min",
    "max",
)
LISTABLE = ("string", "directory", "file")  # the types `multiple: true` takes


def default_problem(key: str, option: Mapping[str, Any]) -> tuple[str, str] | None:
    """(message, fix) when `option`'s default is unusable, else None."""
    if "default" not in option:
        return None
    default, kind = option["default"], option.get("type")
    if option.get("sensitive"):
        return (
            f"option {key!r} is sensitive and has a default; a secret is never written in a hub",
            "remove `default` (the person installing the plugin enters it)",
        )
    values = default if isinstance(default, list) and option.get("multiple") else [default]
    for value in values:
        if kind == "number" and (isinstance(value, bool) or not isinstance(value, int | float)):
            return f"the default {value!r} is not a number", "write a number, or change `type`"
        if kind == "boolean" and not isinstance(value, bool):
            return f"the default {value!r} is not true or false", "write true or false"
        if kind in LISTABLE and not isinstance(value, str):
            return f"the default {value!r} is not a string", "quote it"
        if isinstance(value, str) and len(value) > DEFAULT_MAX:
            return f"the default is {len(value)} characters (at most {DEFAULT_MAX})", "shorten it"
        if isinstance(value, str) and (credentials.find(value) or literal_secret(key, value)):
            return (
                f"the default of option {key!r} looks like a literal credential",
                "remove `default` and set `sensitive: true` (the person enters it at install)",
            )
    return None


def range_problem(key: str, option: Mapping[str, Any]) -> tuple[str, str] | None:
    """(message, fix) when `min`/`max`/`multiple` do not fit the option's type."""
    kind = option.get("type")
    bounds = [b for b in ("min", "max") if b in option]
    if bounds and kind != "number":
        return f"`{bounds[0]}` applies to a number option, not a {kind}", f"remove `{bounds[0]}`"
    low, high = option.get("min"), option.get("max")
    if low is not None and high is not None and low > high:
        return f"`min` {low} is above `max` {high}", "swap them"
    default: Any = option.get("default")
    number = isinstance(default, int | float) and not isinstance(default, bool)
    if kind == "number" and number and not _within(default, low, high):
        return f"the default {default} is outside {low}..{high}", "pick a default in range"
    if option.get("multiple") and kind not in LISTABLE:
        return f"`multiple` applies to {', '.join(LISTABLE)} options", "remove `multiple`"
    return None


def importable(raw: Any) -> bool:
    """Whether a host's `userConfig` is one the hub holds as it is (`memhub import`): the
    schema's shape and the checks above; otherwise it stays a manifest override."""
    if not isinstance(raw, Mapping) or not raw:
        return False
    for key, option in raw.items():
        if not (isinstance(key, str) and ENV_NAME.match(key) and isinstance(option, Mapping)):
            return False
        texts = [option.get("title"), option.get("description")]
        if option.get("type") not in TYPES or set(option) - set(KEYS):
            return False
        if not all(isinstance(t, str) and 0 < len(t) <= DEFAULT_MAX for t in texts):
            return False
        if default_problem(key, option) or range_problem(key, option):
            return False
    return True


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


class UserConfigChecks(Checker):
    """`plugin.user_config`, and the option names `${user_config.KEY}` may use."""

    user_config_keys: frozenset[str] = frozenset()

    def _user_config(self, raw: Mapping[str, Any]) -> Mapping[str, Mapping[str, Any]]:
        for key, option in raw.items():
            path: KeyPath = ("plugin", "user_config", key)
            for found in (default_problem(key, option), range_problem(key, option)):
                if found is not None:
                    where = (*path, "default") if "default" in found[0] else path
                    self.problem(where, *found, at_key=where == path)
        self.user_config_keys = frozenset(raw)
        return frozen_map({key: frozen_map(dict(option)) for key, option in raw.items()})
