"""A corpus of malformed hubs: each one must be refused with exit 2, a file:line, a fix, and no write.

Every case starts from a valid hub (`SMALL`, or the every-key `BASE` when the key it breaks
is not in SMALL, plus the files in `BASE_FILES`), changes one thing (the YAML data, the raw
text, or the files around it) and is written into its own tmp_path. Each case is run through the real CLI entry point `memhub.compiler.cli.main.main`
in-process (`validate`, `validate --json`, `build --out`), and a fixed sample of cases is run
again as real subprocesses (`python -m memhub.compiler.cli.main ...`).

What a case asserts:
  * exit code 2 for `validate`, `validate --json` and `build`;
  * stderr names the file and line (`hub.yaml:<line>:<col>:` or `SKILL.md:<line>:<col>:`) and,
    where the case knows it, the line is the one holding the bad key or value (computed from
    the mutated text with `yaml.compose`, independently of memhub's own position tracking);
  * stderr says how to fix it (`Fix:`), and no output holds a `Traceback`;
  * `validate --json` prints exactly `{"valid": false, "problems": [{file, line, col, key,
    message, fix}, ...], ...}`;
  * after `build --out OUT`, OUT does not exist and nothing else appeared or changed
    (no staging folder, no crash log, the hub folder untouched).
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.cli.main import main

# --------------------------------------------------------------------------------------------
# The valid base hub
# --------------------------------------------------------------------------------------------

BASE: dict[str, Any] = {
    "version": 1,
    "plugin": {
        "name": "demo-plugin",
        "version": "1.2.3",
        "description": "A demo plugin for the malformed-hub corpus.",
        "display_name": "Demo Plugin",
        "author": {
            "name": "Ann Example",
            "email": "ann@example.com",
            "url": "https://example.com/ann",
        },
        "homepage": "https://example.com",
        "repository": "https://github.com/example/demo",
        "license": "Apache-2.0",
        "keywords": ["demo", "testing"],
        "category": "Testing",
    },
    "marketplace": {
        "name": "demo-market",
        "display_name": "Demo Market",
        "description": "Demo plugins",
        "owner": {"name": "Ann Example", "email": "ann@example.com", "url": "https://example.com"},
    },
    "hosts": ["claude", "codex", "cursor", "gemini", "agent-plugins"],
    "mcp": {
        "servers": {
            "local": {
                "command": "${plugin_root}/bin/server",
                "args": ["--verbose", "${env:DEMO_FLAG}"],
                "env": {"DEMO_TOKEN": "${env:DEMO_TOKEN}", "MODE": "fast"},
                "cwd": "./work",
                "description": "A local stdio server",
            },
            "remote": {
                "url": "https://mcp.example.com/mcp",
                "transport": "http",
                "headers": {"Authorization": "Bearer ${env:REMOTE_TOKEN}", "X-Team": "demo"},
                "oauth": {
                    "client_id": "public-client-id",
                    "callback_port": 8765,
                    "auth_server_metadata_url": "https://auth.example.com/.well-known/openid-configuration",
                    "scopes": ["read", "write"],
                },
                "description": "A remote server",
            },
        }
    },
    "skills": "skills",
    "instructions": "INSTRUCTIONS.md",
    "hooks": [
        {
            "id": "greet",
            "event": "session_start",
            "command": "echo hello",
            "timeout": 10,
            "async": False,
            "required": False,
            "status_message": "Greeting",
        },
        {
            "id": "guard-shell",
            "event": "before_tool",
            "tools": ["shell", "edit"],
            "command": "${plugin_root}/bin/guard ${env:GUARD_MODE}",
        },
    ],
    "runtime": {"python": "python3", "vendor": "auto"},
    "overrides": {
        "claude": {
            "manifest": {"x-demo": True},
            "marketplace": {},
            "marketplace_entry": {},
            "mcp_servers": {"local": {}},
        }
    },
}


# A smaller valid hub for the cases that do not need every key: hub.yaml is parsed by a
# pure-Python YAML loader three times per case, so a short file keeps the corpus fast.
# A case mutates SMALL when the parent of the key it changes exists there, else BASE.
SMALL: dict[str, Any] = {
    "version": 1,
    "plugin": {
        "name": "demo-plugin",
        "version": "1.2.3",
        "description": "A demo plugin for the malformed-hub corpus.",
        "author": {"name": "Ann Example"},
    },
    "marketplace": {"name": "demo-market", "owner": {"name": "Ann Example"}},
    "mcp": {
        "servers": {
            "local": {
                "command": "${plugin_root}/bin/server",
                "args": ["--verbose", "${env:DEMO_FLAG}"],
                "env": {"DEMO_TOKEN": "${env:DEMO_TOKEN}", "MODE": "fast"},
                "cwd": "./work",
            },
            "remote": {
                "url": "https://mcp.example.com/mcp",
                "headers": {"Authorization": "Bearer ${env:REMOTE_TOKEN}", "X-Team": "demo"},
            },
        }
    },
    "skills": "skills",
    "instructions": "INSTRUCTIONS.md",
    "hooks": [
        {"id": "greet", "event": "session_start", "command": "echo hello", "timeout": 10},
        {
            "id": "guard-shell",
            "event": "before_tool",
            "tools": ["shell", "edit"],
            "command": "${plugin_root}/bin/guard ${env:GUARD_MODE}",
        },
    ],
}


def skill_md(name: str, description: str = "Use when testing the malformed-hub corpus.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nBody.\n"


# path inside the hub folder -> (content, executable)
BASE_FILES: dict[str, tuple[str | bytes, bool]] = {
    "skills/alpha/SKILL.md": (skill_md("alpha"), False),
    "skills/beta/SKILL.md": (skill_md("beta"), False),
    "skills/beta/scripts/run.sh": ("#!/bin/sh\necho beta\n", True),
    "INSTRUCTIONS.md": ("# Demo\n\nBe kind to the repository.\n", False),
    "work/.keep": ("", False),
}
# Files outside the hub folder (targets for links and traversal).
OUTSIDE_FILES: dict[str, str] = {
    "secret.md": "top secret\n",
    "skills/evil/SKILL.md": skill_md("evil"),
}

MISSING = object()  # a `set_in` value that deletes the key
KeyPath = tuple[str | int, ...]


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True, width=4096)


BASE_TEXT = dump(BASE)
SMALL_TEXT = dump(SMALL)


def has_path(data: Any, path: KeyPath) -> bool:
    for part in path:
        in_map = isinstance(data, dict) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if not (in_map or in_list):
            return False
        data = data[part]
    return True


def set_in(data: Any, path: KeyPath, value: Any) -> Any:
    """A deep copy of `data` with the value at `path` replaced (or deleted with MISSING)."""
    out = copy.deepcopy(data)
    node = out
    for part in path[:-1]:
        node = node[part]
    if value is MISSING:
        del node[path[-1]]
    elif isinstance(node, list) and path[-1] == len(node):
        node.append(copy.deepcopy(value))
    else:
        node[path[-1]] = copy.deepcopy(value)
    return out


def rename_key(data: Any, path: KeyPath, new: Any) -> Any:
    """A deep copy of `data` with the key ending `path` renamed, keeping the key order."""
    out = copy.deepcopy(data)
    node = out
    for part in path[:-1]:
        node = node[part]
    items = list(node.items())
    node.clear()
    for key, value in items:
        node[new if key == path[-1] else key] = value
    return out


def write_files(root: Path, files: dict[str, tuple[str | bytes, bool]]) -> None:
    for rel, (content, executable) in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, "utf-8")
        target.chmod(0o755 if executable else 0o644)


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------

Setup = Callable[[Path, Path], None]  # (hub folder, outside folder)


@dataclass(frozen=True)
class Case:
    """One malformed hub and what its refusal must point at."""

    id: str
    data: Any = None  # hub.yaml as data (dumped with `dump`); default SMALL
    text: str | bytes | None = None  # or hub.yaml as raw text/bytes
    setup: Setup | None = None  # extra changes to the files around hub.yaml
    where: str = "hub.yaml"  # the file the location must name (a path suffix)
    focus: KeyPath | None = None  # the key path whose line must be reported
    line: int | None = None  # or the exact line that must be reported
    expect: str | None = None  # a phrase the message must contain
    hub_arg: str | None = None  # HUB argument relative to tmp_path (default: "hub")

    def hub_text(self) -> str | bytes:
        if self.text is not None:
            return self.text
        return SMALL_TEXT if self.data is None else dump(self.data)

    def expected_lines(self) -> set[int] | None:
        if self.line is not None:
            return {self.line}
        if self.focus is not None:
            text = self.hub_text()
            assert isinstance(text, str)
            return node_lines(text, self.focus)
        return None


def node_lines(text: str, path: KeyPath) -> set[int]:
    """1-based lines of the key and the value at `path` (or of its nearest existing ancestor)."""
    node = yaml.compose(text, Loader=yaml.CSafeLoader)
    lines = {node.start_mark.line + 1}
    for part in path:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    lines = {key_node.start_mark.line + 1, value_node.start_mark.line + 1}
                    node = value_node
                    break
            else:
                return lines
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(part, int)
            and 0 <= part < len(node.value)
        ):
            node = node.value[part]
            lines = {node.start_mark.line + 1}
        else:
            return lines
    return lines


CASES: list[Case] = []


def case(id: str, **kwargs: Any) -> None:
    assert all(c.id != id for c in CASES), f"duplicate case id {id}"
    if kwargs.get("text") is None and kwargs.get("data") is not None:
        kwargs["text"] = dump(kwargs.pop("data"))  # dumped once, here
    CASES.append(Case(id, **kwargs))


def setv(id: str, path: KeyPath, value: Any, **kwargs: Any) -> None:
    """A case that sets (or adds) the value at `path`; the problem is reported at `path`."""
    kwargs.setdefault("focus", path)
    base = kwargs.pop("base", None) or (SMALL if has_path(SMALL, path[:-1]) else BASE)
    case(id, data=set_in(base, path, value), **kwargs)


def drop(id: str, path: KeyPath, **kwargs: Any) -> None:
    """A case that deletes the key at `path`; the problem is reported at its parent."""
    kwargs.setdefault("focus", path[:-1])
    base = kwargs.pop("base", None) or (SMALL if has_path(SMALL, path) else BASE)
    case(id, data=set_in(base, path, MISSING), **kwargs)


def fs(id: str, setup: Setup, **kwargs: Any) -> None:
    """A case that changes the files around hub.yaml."""
    case(id, setup=setup, **kwargs)


def dotted(path: KeyPath) -> str:
    return ".".join(str(p) for p in path) or "root"


# Fake credentials, assembled at import time so this file holds no token-shaped literal.
TOKENS: dict[str, str] = {
    "github-classic": "ghp_" + "A1b2C3d4" * 5,
    "github-oauth": "gho_" + "Z9y8X7w6" * 5,
    "github-app": "ghs_" + "Q1w2E3r4" * 5,
    "github-fine-grained": "github_" + "pat_" + "11AAAA_" + "b2C3d4E5f6" * 3,
    "openai-legacy": "sk-" + "T3BlbkFJ" * 6,
    "openai-project": "sk-" + "proj-" + "Ab12Cd34Ef56" * 4,
    "anthropic": "sk-" + "ant-api03-" + "Xy12Zz34" * 4,
    "slack-bot": "xox" + "b-" + "123456789012-" + "1234567890123-" + "AbCdEfGhIjKlMnOp",
    "slack-user": "xox" + "p-" + "123456789012-" + "AbCdEfGhIjKl",
    "aws-access-key": "AKIA" + "IOSFODNN7EXAMPLE",
    "google-api-key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6",
    "gitlab": "glpat-" + "xxxxxxxxxxxxxxxxxxxx",
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0In0" + "." + "abcdefghijklmnop",
}

SERVER_LOCAL: KeyPath = ("mcp", "servers", "local")
SERVER_REMOTE: KeyPath = ("mcp", "servers", "remote")
OAUTH: KeyPath = (*SERVER_REMOTE, "oauth")
HOOK0: KeyPath = ("hooks", 0)
HOOK1: KeyPath = ("hooks", 1)
LONG = "a" * 65

# ---- bad YAML syntax (raw text) -------------------------------------------------------------

MIN_TEXT = """\
version: 1
plugin:
  name: demo-plugin
  version: 1.2.3
  description: A demo plugin.
marketplace:
  name: demo-market
  owner:
    name: Ann
"""
MIN_LINES = MIN_TEXT.splitlines(keepends=True)


def with_line(number: int, new: str) -> str:
    """MIN_TEXT with line `number` (1-based) replaced by `new`."""
    lines = list(MIN_LINES)
    lines[number - 1] = new
    return "".join(lines)


case(
    "yaml-tab-indent",
    text=with_line(3, "\tname: demo-plugin\n"),
    line=3,
    expect="YAML syntax error",
)
case("yaml-tab-in-nested-block", text=MIN_TEXT.replace("    name: Ann", "\t  name: Ann"), line=9)
case("yaml-tab-before-list-item", text=MIN_TEXT + "hosts:\n\t- claude\n", line=11)
EOF_BUG = (
    "an unclosed quote, [ or { is reported where the scanner gave up, not where it opens "
    "(end of file: hub.yaml:46:1 for a 45-line file whose quote opens on line 19; or the "
    "next line's token): yamlsrc.parse_yaml prefers exc.problem_mark and drops "
    "exc.context_mark, which is where the scalar or flow collection starts"
)
case(
    "yaml-unclosed-double-quote",
    text=with_line(5, '  description: "A demo plugin.\n'),
    line=5,
)
case(
    "yaml-unclosed-single-quote",
    text=with_line(5, "  description: 'A demo plugin.\n"),
    line=5,
)
case("yaml-unclosed-bracket", text=MIN_TEXT + "hosts: [claude, codex\n", line=10)
case(
    "yaml-unclosed-brace",
    text=with_line(8, "  owner: {name: Ann\n").replace("    name: Ann\n", ""),
    line=8,
)
case("yaml-closing-bracket-only", text=MIN_TEXT + "hosts: claude]\n", line=10)
case("yaml-bad-indent-deeper", text=with_line(4, "   version: 1.2.3\n"), line=4)
case("yaml-bad-indent-shallower", text=with_line(9, " name: Ann\n"), line=9)
case("yaml-bad-indent-list", text=MIN_TEXT + "hosts:\n  - claude\n - codex\n", line=12)
case("yaml-mapping-in-scalar", text=with_line(3, "  name: demo: plugin\n"), line=3)
case("yaml-invalid-escape", text=with_line(5, '  description: "bad \\q escape"\n'), line=5)
case("yaml-undefined-alias", text=MIN_TEXT + "hosts: *nowhere\n", line=10)
case("yaml-multiple-documents", text=MIN_TEXT + "---\nversion: 1\n", line=10)
case("yaml-python-tag", text=MIN_TEXT + "skills: !!python/object/apply:os.system [ls]\n", line=10)
case("yaml-unknown-tag", text=with_line(3, "  name: !shout demo-plugin\n"), line=3)
case(
    "yaml-duplicate-top-key",
    text=MIN_TEXT + "plugin:\n  name: other\n",
    line=10,
    expect="duplicate key",
)
case(
    "yaml-duplicate-nested-key",
    text=with_line(4, "  name: again\n"),
    line=4,
    expect="duplicate key",
)
case("yaml-duplicate-deep-key", text=MIN_TEXT + "    name: Bob\n", line=10, expect="duplicate key")
case("yaml-duplicate-via-merge", text=MIN_TEXT + "hosts: [claude]\nhosts: [codex]\n", line=11)
case("yaml-int-key-top", text=MIN_TEXT + "1: one\n", line=10, expect="not a string")
case(
    "yaml-bool-key-plugin",
    text=with_line(5, "  true: A demo plugin.\n"),
    line=5,
    expect="not a string",
)
case("yaml-null-key", text=MIN_TEXT + "~: nothing\n", line=10, expect="not a string")
case(
    "yaml-float-key-env",
    text=MIN_TEXT + "mcp:\n  servers:\n    s:\n      command: x\n      env:\n        1.5: x\n",
    line=15,
)
case("yaml-complex-key", text=MIN_TEXT + "? [a, b]\n: c\n", line=10, expect="not a string")
case("yaml-empty-file", text="", line=1, expect="must be a mapping")
case("yaml-only-comments", text="# nothing here\n\n# still nothing\n", line=1)
case("yaml-explicit-null", text="null\n", line=1)
case("yaml-top-level-list", text="- version: 1\n- plugin: {}\n", line=1, expect="must be a mapping")
case("yaml-top-level-scalar", text="just some words\n", line=1, expect="must be a mapping")
case("yaml-top-level-number", text="42\n", line=1)
READER_BUG = (
    "a NUL or other non-printable character in hub.yaml crashes the loader: "
    "yaml.SafeLoader(text) raises yaml.reader.ReaderError in its constructor, before the "
    "try in yamlsrc.parse_yaml -> exit 70 'unexpected error: ReaderError: unacceptable "
    "character #x0000: special characters are not allowed' instead of exit 2"
)
case("yaml-binary-nul-bytes", text=b"version: 1\x00\x01\x02\nplugin: {}\n", line=1)
case("yaml-binary-png-header", text=b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", line=1)
case(
    "yaml-latin1-bytes",
    text=MIN_TEXT.replace("Ann", "Ren\xe9").encode("latin-1"),
    line=1,
    expect="UTF-8",
)
case("yaml-utf16", text=MIN_TEXT.encode("utf-16"), line=1)
case(
    "yaml-control-character",
    text=with_line(5, "  description: bell \x07 here\n"),
    line=5,
)

# ---- wrong types for every key ------------------------------------------------------------

# Free-form objects whose contents the schema does not type (only the object itself is typed).
FREE_FORM = {
    ("overrides", "claude", "manifest"),
    ("overrides", "claude", "marketplace"),
    ("overrides", "claude", "marketplace_entry"),
    ("overrides", "claude", "mcp_servers", "local"),
}


def walk(data: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    if path:
        yield path, data
    if path in FREE_FORM:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            yield from walk(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from walk(value, (*path, index))


def wrong_values(path: KeyPath, value: Any) -> list[tuple[str, Any]]:
    """One value of the wrong type; top-level keys also get `key:` alone (null)."""
    top = len(path) == 1
    if isinstance(value, bool):
        return [("string", "yes")]
    if isinstance(value, int):
        return [("string", "ten")] + ([("null", None)] if top else [])
    if isinstance(value, str):
        return [("integer", 42)] + ([("null", None)] if top else [])
    if isinstance(value, dict):
        return [("string", "text")] + ([("null", None)] if top else [])
    return [("string", "text")] + ([("mapping", {"a": 1}), ("null", None)] if top else [])


def representative(path: KeyPath) -> bool:
    """Skip keys whose type check repeats another's: later list items, the second hook,
    the second entry of a string map."""
    if path[:2] == ("hooks", 1):
        return path[2:] in {(), ("tools",), ("tools", 0)}
    if any(isinstance(part, int) and part > 0 for part in path):
        return False
    return path[-1] not in {"MODE", "X-Team"}


for _path, _value in walk(BASE):
    if not representative(_path):
        continue
    for _kind, _wrong in wrong_values(_path, _value):
        setv(f"type-{dotted(_path)}-{_kind}", _path, _wrong)

# A few wrong types YAML makes easy to write by accident.
setv("type-plugin.version-float", ("plugin", "version"), 1.2)
setv("type-plugin.version-date", ("plugin", "version"), datetime.date(2024, 1, 2))
setv("type-plugin.description-bytes", ("plugin", "description"), b"binary")
setv("type-version-true", ("version",), True)
setv("type-hooks.0.timeout-float", (*HOOK0, "timeout"), 1.5)
setv("type-oauth.callback_port-bool", (*OAUTH, "callback_port"), True)
setv("type-tools-bare-word", (*HOOK1, "tools"), "shell")
setv("type-keywords-comma-string", ("plugin", "keywords"), "demo, testing")

# Values a YAML reader turns into dates, bytes or sets where the schema wants an enum or const.
DATE_BUG = (
    "schema_check._explain crashes on enum/const errors for non-JSON values: "
    "json.dumps(instance) raises TypeError: Object of type date is not JSON serializable "
    "-> exit 70 'unexpected error' instead of exit 2"
)
setv("type-version-date", ("version",), datetime.date(2024, 1, 2))
setv("type-hooks.0.event-date", (*HOOK0, "event"), datetime.date(2024, 1, 2))
setv("type-hosts.0-date", ("hosts", 0), datetime.date(2024, 1, 2))
setv(
    "type-transport-bytes",
    (*SERVER_REMOTE, "transport"),
    b"http",
)

# ---- unknown keys at every level (typos of real keys and plain strangers) -------------------

UNKNOWN_KEYS: list[tuple[KeyPath, str, str | None]] = [
    ((), "plugins", "plugin"),
    ((), "marketplce", "marketplace"),
    ((), "hook", "hooks"),
    ((), "instruction", "instructions"),
    ((), "mcp_servers", None),
    (("plugin",), "nmae", "name"),
    (("plugin",), "descripton", "description"),
    (("plugin",), "authors", "author"),
    (("plugin", "author"), "mail", "email"),
    (("marketplace",), "ownr", "owner"),
    (("marketplace", "owner"), "emial", "email"),
    (("mcp",), "server", "servers"),
    ((*SERVER_LOCAL,), "comand", "command"),
    ((*SERVER_LOCAL,), "environment", None),
    ((*SERVER_REMOTE,), "URL", None),
    ((*SERVER_REMOTE,), "header", "headers"),
    ((*OAUTH,), "clientid", "client_id"),
    ((*OAUTH,), "client_secret", "client_id"),
    ((*HOOK0,), "evnt", "event"),
    ((*HOOK0,), "handlr", "handler"),
    ((*HOOK1,), "matchers", "matcher"),
    (("runtime",), "pyhton", "python"),
    (("overrides", "claude"), "manifst", "manifest"),
    (("overrides", "claude"), "mcp-servers", "mcp_servers"),
]
for _path, _key, _meant in UNKNOWN_KEYS:
    setv(
        f"unknown-key-{dotted(_path)}-{_key}",
        (*_path, _key),
        "x",
        expect=f"did you mean {_meant!r}" if _meant else "unknown key",
    )
NAME_LINE_BUG = (
    "a bad name in a map with `propertyNames` (overrides.<host>, mcp.servers.<name>) is "
    "reported at the map's first entry, not at the bad name: jsonschema reports the "
    "propertyNames failure as an `enum`/`pattern` error whose path is the map, so "
    "schema_check._explain uses positions.of_value(map) (and key path 'overrides' / "
    "'mcp.servers' instead of the entry)"
)
for _host in ("claude-code", "windsurf"):  # names no adapter has (copilot is one now)
    setv(
        f"unknown-override-host-{_host}",
        ("overrides", _host),
        {"manifest": {}},
        base=BASE,
    )

# ---- missing required keys ----------------------------------------------------------------

for _path in [
    ("version",),
    ("plugin",),
    ("marketplace",),
    ("plugin", "name"),
    ("plugin", "version"),
    ("plugin", "description"),
    ("plugin", "author", "name"),
    ("marketplace", "name"),
    ("marketplace", "owner"),
    ("marketplace", "owner", "name"),
    (*OAUTH, "client_id"),
    (*HOOK0, "id"),
    (*HOOK0, "event"),
]:
    drop(
        f"missing-{dotted(_path)}",
        _path,
        expect=f"missing required key {_path[-1]!r}",
    )

# ---- bad enum values ----------------------------------------------------------------------

for _event in ("session-start", "SessionStart", "on_stop", ""):
    setv(f"enum-event-{_event or 'empty'}", (*HOOK0, "event"), _event, expect="is not allowed")
for _name, _tools in {
    "bash": ["bash"],
    "Shell": ["Shell"],
    "write": ["shell", "write"],  # reported at tools[1]
    "empty": [],
    "duplicate": ["shell", "shell"],
}.items():
    _focus = (*HOOK1, "tools", 1) if _name == "write" else (*HOOK1, "tools")
    setv(f"enum-tools-{_name}", (*HOOK1, "tools"), _tools, focus=_focus)
for _name, _hosts in {
    "vscode": ["vscode"],
    "windsurf": ["windsurf"],
    "Claude": ["Claude"],
    "claude-code": ["claude", "claude-code"],
    "empty": [],
    "duplicate": ["claude", "claude"],
}.items():
    _bad = [i for i, host in enumerate(_hosts) if host not in BASE["hosts"]]
    setv(f"enum-hosts-{_name}", ("hosts",), _hosts, focus=("hosts", *_bad[:1]))
for _transport in ("websocket", "HTTP", "stdio"):
    setv(f"enum-transport-{_transport}", (*SERVER_REMOTE, "transport"), _transport)
for _vendor in ("sometimes",):
    setv(f"enum-vendor-{_vendor}", ("runtime", "vendor"), _vendor)
setv("enum-version-2", ("version",), 2)
setv("enum-version-0", ("version",), 0)
setv("enum-version-string", ("version",), "1")

# ---- names: kebab-case and length limits --------------------------------------------------

for _label, _name in {
    "spaces": "My Plugin",
    "underscore": "my_plugin",
    "leading-hyphen": "-demo",
    "trailing-hyphen": "demo-",
    "double-hyphen": "demo--plugin",
    "non-ascii": "d\xe9mo",
    "65-chars": LONG,
    "empty": "",
}.items():
    setv(f"name-plugin-{_label}", ("plugin", "name"), _name)
for _label, _name in {
    "65-chars": "m" * 65,
    "spaces": "Demo Market",
}.items():
    setv(f"name-marketplace-{_label}", ("marketplace", "name"), _name)
for _label, _name in {
    "capital": "Greet",
    "underscore": "greet_hello",
    "65-chars": "h" * 65,
}.items():
    setv(f"name-hook-id-{_label}", (*HOOK0, "id"), _name)
for _label, _name in {
    "spaces": "my server",
    "65-chars": "s" * 65,
    "slash": "srv/name",
}.items():
    case(
        f"name-mcp-server-{_label}",
        data=rename_key(SMALL, SERVER_REMOTE, _name),
        focus=(*SERVER_REMOTE[:2], _name),
    )
for _path in [
    ("plugin", "description"),
    ("plugin", "display_name"),
    ("plugin", "author", "name"),
    (*SERVER_LOCAL, "command"),
    (*SERVER_LOCAL, "cwd"),
    (*OAUTH, "client_id"),
    (*HOOK0, "command"),
    (*HOOK0, "status_message"),
    ("skills",),
    ("instructions",),
]:
    setv(f"empty-{dotted(_path)}", _path, "", expect="must not be empty")
setv("empty-keyword", ("plugin", "keywords"), ["demo", ""], focus=("plugin", "keywords", 1))
setv("duplicate-keyword", ("plugin", "keywords"), ["demo", "demo"], expect="duplicate")
setv("empty-oauth-scope", (*OAUTH, "scopes"), [""])
setv("runtime-python-with-space", ("runtime", "python"), "python3 -S")
setv("runtime-python-shell", ("runtime", "python"), "python3;rm -rf ~")

# ---- paths: traversal, absolute, home, links ----------------------------------------------

for _label, _value in {
    "parent": "../x",
    "parent-nested": "skills/../../x",
    "dot-parent": "./../skills",
    "absolute": "/etc",
    "home": "~/x",
    "tilde": "~",
}.items():
    setv(f"path-skills-{_label}", ("skills",), _value)
for _label, _value in {
    "parent-parent": "../../secret.md",
    "parent-outside": "../outside/secret.md",
    "absolute": "/etc/passwd",
    "home": "~/notes.md",
    "nested-parent": "docs/../../secret.md",
    "nul-byte": "INSTRUCTIONS\x00.md",
}.items():
    setv(f"path-instructions-{_label}", ("instructions",), _value)
for _label, _value in {
    "parent": "../work",
    "absolute": "/srv/work",
    "plugin-root-parent": "${plugin_root}/../x",
    "plugin-data-parent": "${plugin_data}/../../x",
    "home": "~/work",
    "bare-relative": "work",
    "nested-parent": "./a/../../b",
}.items():
    setv(f"path-cwd-{_label}", (*SERVER_LOCAL, "cwd"), _value)


def link_skills_outside(hub: Path, outside: Path) -> None:
    _remove_tree(hub / "skills")
    (hub / "skills").symlink_to(outside / "skills", target_is_directory=True)


def link_named_skills_outside(hub: Path, outside: Path) -> None:
    (hub / "shared-skills").symlink_to(outside / "skills", target_is_directory=True)


def link_instructions_outside(hub: Path, outside: Path) -> None:
    (hub / "LINKED.md").symlink_to(outside / "secret.md")


def link_instructions_dangling_outside(hub: Path, outside: Path) -> None:
    (hub / "LINKED.md").symlink_to(outside / "gone.md")


def link_loop(hub: Path, outside: Path) -> None:
    (hub / "loop").symlink_to("loop")


def link_skill_entry_outside(hub: Path, outside: Path) -> None:
    (hub / "skills" / "evil").symlink_to(outside / "skills" / "evil", target_is_directory=True)


def link_file_inside_skill(hub: Path, outside: Path) -> None:
    (hub / "skills" / "alpha" / "notes.md").symlink_to(outside / "secret.md")


def fifo_inside_skill(hub: Path, outside: Path) -> None:
    os.mkfifo(hub / "skills" / "alpha" / "pipe")


def stray_file_in_skills(hub: Path, outside: Path) -> None:
    (hub / "skills" / "README.md").write_text("# Skills\n", "utf-8")


def _remove_tree(path: Path) -> None:
    for child in sorted(path.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        child.rmdir() if child.is_dir() and not child.is_symlink() else child.unlink()
    path.rmdir()


LOOP_BUG = (
    "a self-referencing symlink crashes the loader: Path.resolve() raises "
    "RuntimeError('Symlink loop from ...') on Python 3.11, uncaught in load._relative_file "
    "-> exit 70 'unexpected error' instead of exit 2"
)
fs("link-skills-folder-outside", link_skills_outside, focus=("skills",), expect="outside the hub")
fs(
    "link-skills-folder-outside-implicit",
    link_skills_outside,
    data=set_in(SMALL, ("skills",), MISSING),
    line=1,
    expect="outside the hub",
)
fs(
    "link-named-skills-folder-outside",
    link_named_skills_outside,
    data=set_in(SMALL, ("skills",), "shared-skills"),
    focus=("skills",),
)
fs(
    "link-instructions-outside",
    link_instructions_outside,
    data=set_in(SMALL, ("instructions",), "LINKED.md"),
    focus=("instructions",),
)
fs(
    "link-instructions-dangling-outside",
    link_instructions_dangling_outside,
    data=set_in(SMALL, ("instructions",), "LINKED.md"),
    focus=("instructions",),
)
fs(
    "link-skills-loop",
    link_loop,
    data=set_in(SMALL, ("skills",), "loop"),
    focus=("skills",),
)
fs(
    "link-instructions-loop",
    link_loop,
    data=set_in(SMALL, ("instructions",), "loop"),
    focus=("instructions",),
)
fs("link-skill-entry-outside", link_skill_entry_outside, where="skills/evil", line=1)
fs("link-file-inside-skill", link_file_inside_skill, where="skills/alpha/notes.md", line=1)
fs("fifo-inside-skill", fifo_inside_skill, where="skills/alpha/pipe", line=1)

# ---- missing files and folders ------------------------------------------------------------


def no_files(hub: Path, outside: Path) -> None:
    pass


def latin1_instructions(hub: Path, outside: Path) -> None:
    (hub / "INSTRUCTIONS.md").write_bytes("Caf\xe9\n".encode("latin-1"))


def remove_hub_yaml(hub: Path, outside: Path) -> None:
    (hub / "hub.yaml").unlink()


def hub_yaml_is_folder(hub: Path, outside: Path) -> None:
    (hub / "hub.yaml").unlink()
    (hub / "hub.yaml").mkdir()


setv("missing-skills-folder", ("skills",), "nope", expect="does not exist")
setv("missing-instructions-file", ("instructions",), "nope.md", expect="does not exist")
setv("instructions-is-a-folder", ("instructions",), "skills", expect="does not exist")
setv("skills-is-a-file", ("skills",), "INSTRUCTIONS.md", expect="does not exist")
fs("instructions-not-utf8", latin1_instructions, focus=("instructions",), expect="UTF-8")
fs("no-hub-yaml", remove_hub_yaml, expect="no hub file here")
fs("no-hub-folder", no_files, hub_arg="nowhere", where="nowhere", line=1, expect="no hub file")
fs("hub-yaml-is-a-folder", hub_yaml_is_folder, line=1, expect="no hub file here")

# ---- SKILL.md problems --------------------------------------------------------------------


def skill_file(content: str | bytes, folder: str = "alpha") -> Setup:
    def setup(hub: Path, outside: Path) -> None:
        target = hub / "skills" / folder / "SKILL.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, "utf-8")

    return setup


def skill_md_is_folder(hub: Path, outside: Path) -> None:
    (hub / "skills" / "alpha" / "SKILL.md").unlink()
    (hub / "skills" / "alpha" / "SKILL.md").mkdir()


def skill_without_skill_md(hub: Path, outside: Path) -> None:
    (hub / "skills" / "gamma").mkdir()
    (hub / "skills" / "gamma" / "README.md").write_text("# gamma\n", "utf-8")


SKILL_CASES: dict[str, tuple[Setup, int, str | None]] = {
    "no-front-matter": (skill_file("# Alpha\n\nNo front matter.\n"), 1, "no front matter"),
    "empty-file": (skill_file(""), 1, "no front matter"),
    "front-matter-not-first": (skill_file("\n---\nname: alpha\ndescription: x\n---\n"), 1, None),
    "unclosed-front-matter": (
        skill_file("---\nname: alpha\ndescription: Use when x.\n\n# Alpha\n"),
        1,
        "no front matter",
    ),
    "missing-description": (skill_file("---\nname: alpha\n---\n\nBody\n"), 2, "no `description`"),
    "empty-description": (skill_file("---\nname: alpha\ndescription: ''\n---\n"), 3, "non-empty"),
    "blank-description": (skill_file("---\nname: alpha\ndescription: '   '\n---\n"), 3, None),
    "list-description": (skill_file("---\nname: alpha\ndescription: [a, b]\n---\n"), 3, None),
    "description-over-cap": (skill_file(skill_md("alpha", "U" * 65537)), 3, "65536"),
    "name-not-a-string": (skill_file("---\nname: 123\ndescription: Use when x.\n---\n"), 2, None),
    "name-blank": (skill_file("---\nname: '  '\ndescription: Use when x.\n---\n"), 2, "not text"),
    "name-a-list": (skill_file("---\nname: [a, b]\ndescription: Use when x.\n---\n"), 2, None),
    "name-two-lines": (skill_file('---\nname: "a\\nb"\ndescription: x\n---\n'), 2, "line break"),
    "name-control-char": (skill_file('---\nname: "a\\tb"\ndescription: x\n---\n'), 2, "control"),
    "name-trailing-space": (skill_file("---\nname: 'ab '\ndescription: x\n---\n"), 2, "spaces"),
    "skill-two-groups-deep": (skill_file(skill_md("inner"), "a/b/inner"), 1, "two group folders"),
    # another skill's folder name, in another case: Gemini CLI and case-insensitive disks conflate
    "name-is-another-folder": (skill_file(skill_md("Beta")), 1, "is the name of skill"),
    "folder-case-duplicate": (skill_file(skill_md("x"), "ALPHA"), 1, "is the name of skill"),
    "front-matter-is-a-list": (skill_file("---\n- name\n- alpha\n---\n"), 2, "not a mapping"),
    "front-matter-empty": (skill_file("---\n---\nBody\n"), 2, "not a mapping"),
    "front-matter-yaml-error": (
        skill_file("---\nname: alpha\ndescription: [unclosed\n---\n"),
        3,
        "YAML syntax error",
    ),
    "front-matter-tab": (skill_file("---\nname: alpha\n\tdescription: x\n---\n"), 3, None),
    "front-matter-duplicate-key": (
        skill_file("---\nname: alpha\nname: alpha\ndescription: Use when x.\n---\n"),
        3,
        "duplicate key",
    ),
    "not-utf8": (skill_file(skill_md("alpha", "Caf\xe9").encode("latin-1")), 1, "UTF-8"),
    "skill-md-is-a-folder": (skill_md_is_folder, 1, "missing SKILL.md"),
    "missing-skill-md": (skill_without_skill_md, 1, "missing SKILL.md"),
}
for _label, (_setup, _line, _expect) in SKILL_CASES.items():
    fs(f"skill-{_label}", _setup, where="SKILL.md", line=_line, expect=_expect)

# A skill folder name no host path may carry (a separator, a control character).
fs(
    "skill-folder-backslash",
    skill_file(skill_md("a"), "a\\b"),
    where="skills/a\\b",
    line=1,
    expect="safe",
)
fs("skill-folder-control", skill_file(skill_md("a"), "a\x01b"), where="skills/a\x01b", line=1)

# ---- literal secrets in env and headers ---------------------------------------------------

ENV: KeyPath = (*SERVER_LOCAL, "env")
HEADERS: KeyPath = (*SERVER_REMOTE, "headers")
for _label, _token in TOKENS.items():
    setv(f"secret-env-{_label}", (*ENV, "UPSTREAM"), _token, expect="credential")
for _label in ("github-classic", "slack-bot"):
    setv(f"secret-header-{_label}", (*HEADERS, "X-Upstream"), TOKENS[_label], expect="credential")
setv(
    "secret-env-token-beside-reference",
    (*ENV, "UPSTREAM"),
    "${env:OTHER}:" + TOKENS["github-classic"],
    expect="credential",
)
for _key, _value in {
    "API_KEY": "hunter2",
    "DB_PASSWORD": "hunter2",
    "GITHUB_TOKEN": "abc123",
    "CLIENT_SECRET": "s3cr3t",
}.items():
    setv(f"secret-env-name-{_key}", (*ENV, _key), _value, expect="credential")
for _label, (_key, _value) in {
    "bearer": ("Authorization", "Bearer abc"),
    "basic": ("Authorization", "Basic dXNlcjpwYXNz"),
    "token-scheme": ("Authorization", "token abc"),
    "bearer-lowercase": ("authorization", "bearer abc"),
    "x-api-key": ("X-Api-Key", "hunter2"),
}.items():
    setv(f"secret-header-{_label}", (*HEADERS, _key), _value, expect="credential")
setv(
    "secret-url-userinfo",
    (*SERVER_REMOTE, "url"),
    "https://user:hunter2@mcp.example.com/mcp",
    expect="credentials",
)
# Credential-shaped tokens outside env/headers reach the generated files just the same.
TOKEN_GAP = (
    "a credential-shaped token ({}) is accepted outside env/headers: load.py runs "
    "refs.literal_secret only on mcp env and headers, so `validate` exits 0 and the token is "
    "written into every host's generated files (DESIGN.md: no secret value is ever written "
    "into a generated file)"
)
setv(
    "secret-args-github-token",
    (*SERVER_LOCAL, "args", 1),
    "--token=" + TOKENS["github-classic"],
    expect="credential",
)
setv(
    "secret-url-query-token",
    (*SERVER_REMOTE, "url"),
    "https://mcp.example.com/mcp?key=" + TOKENS["openai-project"],
    expect="credential",
)
setv(
    "secret-hook-command-bearer-token",
    (*HOOK0, "command"),
    "curl -H 'Authorization: Bearer " + TOKENS["slack-bot"] + "' https://example.com",
    expect="credential",
)

# ---- bad references ---------------------------------------------------------------------

BAD_REFS = {
    "env-empty": "${env:}",
    "env-digit": "${env:1BAD}",
    "env-hyphen": "${env:BAD-NAME}",
    "home": "${HOME}",
    "empty": "${}",
    "unknown-plugin-var": "${plugin_home}/x",
    "unterminated": "${env:X",
}
for _label, _value in BAD_REFS.items():
    setv(f"ref-env-value-{_label}", (*ENV, "MODE"), _value)
for _label in ("env-digit", "home", "unterminated"):
    setv(f"ref-header-{_label}", (*HEADERS, "X-Team"), BAD_REFS[_label])
for _label in ("home", "unterminated"):
    setv(f"ref-args-{_label}", (*SERVER_LOCAL, "args", 1), BAD_REFS[_label])
for _label in ("env-empty", "home"):
    setv(f"ref-command-{_label}", (*SERVER_LOCAL, "command"), BAD_REFS[_label] + "/bin/server")
setv(
    "ref-url-plugin-root",
    (*SERVER_REMOTE, "url"),
    "https://${plugin_root}/mcp",
    expect="not allowed",
)
setv("ref-url-home", (*SERVER_REMOTE, "url"), "https://${HOSTNAME}/mcp")
setv("ref-url-unterminated", (*SERVER_REMOTE, "url"), "https://mcp.example.com/${env:X")
setv("ref-header-plugin-data", (*HEADERS, "X-Team"), "${plugin_data}", expect="not allowed")
setv("ref-cwd-home", (*SERVER_LOCAL, "cwd"), "${HOME}/work")
setv("ref-cwd-unterminated", (*SERVER_LOCAL, "cwd"), "./${env:X")
setv("ref-hook-command-env-empty", (*HOOK0, "command"), "echo ${env:}")
setv("ref-hook-command-env-digit", (*HOOK0, "command"), "echo ${env:1BAD}")
setv(
    "ref-hook-command-unterminated",
    (*HOOK0, "command"),
    "echo ${env:X",
)

# ---- MCP server shape ---------------------------------------------------------------------

setv(
    "server-both-command-and-url",
    (*SERVER_LOCAL, "url"),
    "https://x.example.com/mcp",
    focus=SERVER_LOCAL,
    expect="both `command` and `url`",
)
setv(
    "server-remote-both-url-and-command",
    (*SERVER_REMOTE, "command"),
    "npx",
    focus=SERVER_REMOTE,
    expect="both `command` and `url`",
)
drop(
    "server-neither-stdio", (*SERVER_LOCAL, "command"), focus=SERVER_LOCAL, expect="needs `command`"
)
drop(
    "server-neither-remote", (*SERVER_REMOTE, "url"), focus=SERVER_REMOTE, expect="needs `command`"
)
setv("server-empty-mapping", SERVER_LOCAL, {}, expect="needs `command`")
for _key, _value in {
    "transport": "http",
    "headers": {"X-Team": "demo"},
    "oauth": {"client_id": "abc"},
}.items():
    setv(f"server-stdio-with-{_key}", (*SERVER_LOCAL, _key), _value, expect="remote servers only")
for _key, _value in {"args": ["--x"], "env": {"MODE": "fast"}, "cwd": "./work"}.items():
    setv(f"server-remote-with-{_key}", (*SERVER_REMOTE, _key), _value, expect="stdio servers only")

# ---- hooks ----------------------------------------------------------------------------------

for _event in ("session_start", "prompt_submit", "turn_end"):
    _data = set_in(set_in(SMALL, (*HOOK0, "event"), _event), (*HOOK0, "tools"), ["shell"])
    case(
        f"hook-tools-on-{_event}",
        data=_data,
        focus=(*HOOK0, "tools"),
        expect="only applies to tool",
    )
setv("hook-duplicate-id", (*HOOK1, "id"), "greet", expect="duplicate hook id")
setv(
    "hook-duplicate-id-third",
    ("hooks", 2),
    {"id": "guard-shell", "event": "turn_end", "command": "true"},
    focus=("hooks", 2, "id"),
    expect="duplicate hook id",
)
_handler_base = set_in(SMALL, (*HOOK0, "command"), MISSING)
for _label, _handler in {"capture-turn": "capture.turn", "nope": "does.not.exist"}.items():
    setv(
        f"hook-unknown-handler-{_label}",
        (*HOOK0, "handler"),
        _handler,
        base=_handler_base,
        expect="unknown runtime handler",
    )
for _label, _handler in {
    "capitals": "Capture.Turn",
    "hyphen": "capture-turn",
    "digit": "1abc",
}.items():
    setv(
        f"hook-bad-handler-name-{_label}",
        (*HOOK0, "handler"),
        _handler,
        base=_handler_base,
        expect="not a handler name",
    )
setv(
    "hook-both-handler-and-command",
    (*HOOK0, "handler"),
    "capture.turn",
    focus=HOOK0,
    expect="both `handler` and `command`",
)
drop("hook-neither-handler-nor-command", (*HOOK0, "command"), focus=HOOK0, expect="needs `handler`")
for _timeout in (0, 601, -1):
    setv(f"hook-timeout-{_timeout}", (*HOOK0, "timeout"), _timeout)
case(
    "hook-required-unsupported-on-a-host",
    data=set_in(SMALL, (*HOOK0, "required"), True),
    focus=(*HOOK0, "required"),
)

# ---- versions and URLs ------------------------------------------------------------------

for _label, _version in {
    "two-parts": "1.2",
    "v-prefix": "v1.2.3",
    "leading-zero": "01.2.3",
    "four-parts": "1.2.3.4",
    "word": "latest",
    "empty-prerelease": "1.2.3-",
    "with-space": "1.2.3 beta",
}.items():
    setv(f"semver-{_label}", ("plugin", "version"), _version)
for _label, _url in {
    "http": "http://example.com",
    "ftp": "ftp://example.com",
    "bare": "example.com",
    "space": "https://exa mple.com",
}.items():
    setv(f"url-homepage-{_label}", ("plugin", "homepage"), _url, expect="not an https:// URL")
setv("url-repository-ssh", ("plugin", "repository"), "git@github.com:example/demo.git")
setv("url-repository-http", ("plugin", "repository"), "http://github.com/example/demo")
setv("url-author-http", ("plugin", "author", "url"), "http://example.com/ann")
setv("url-owner-http", ("marketplace", "owner", "url"), "http://example.com")
setv("url-oauth-metadata-http", (*OAUTH, "auth_server_metadata_url"), "http://auth.example.com/x")
for _label, _url in {
    "ftp": "ftp://mcp.example.com/mcp",
    "bare": "mcp.example.com/mcp",
    "space": "https://mcp.example .com/mcp",
}.items():
    setv(f"url-remote-{_label}", (*SERVER_REMOTE, "url"), _url)
for _label, _email in {"no-at": "ann", "double-at": "ann@@example.com"}.items():
    setv(f"email-author-{_label}", ("plugin", "author", "email"), _email, expect="e-mail")
setv("email-owner-no-at", ("marketplace", "owner", "email"), "ann.example.com")
for _port in (0, 65536, -1):
    setv(f"oauth-callback-port-{_port}", (*OAUTH, "callback_port"), _port)

CASE_IDS = [c.id for c in CASES]
BY_ID = {c.id: c for c in CASES}


def params(cases: list[Case]) -> list[Any]:
    return [pytest.param(c, id=c.id) for c in cases]


# --------------------------------------------------------------------------------------------
# Running a case
# --------------------------------------------------------------------------------------------

LOCATION = re.compile(r"(?P<file>[^\s:]*):(?P<line>\d+):(?P<col>\d+): ")
PROBLEM_KEYS = {"file", "line", "col", "key", "message", "fix"}


@dataclass
class Materialized:
    root: Path  # tmp_path: holds hub/ and outside/, and nothing else
    hub: Path
    hub_arg: Path
    out: Path


def materialize(c: Case, root: Path) -> Materialized:
    hub = root / "hub"
    outside = root / "outside"
    write_files(hub, BASE_FILES)
    write_files(outside, {rel: (text, False) for rel, text in OUTSIDE_FILES.items()})
    text = c.hub_text()
    (hub / "hub.yaml").write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    if c.setup is not None:
        c.setup(hub, outside)
    return Materialized(root, hub, root / (c.hub_arg or "hub"), root / "out")


def snapshot(root: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Everything under `root` (without following links): path -> (mode, content or target)."""
    found: dict[str, tuple[int, bytes | str | None]] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = (info.st_mode, os.readlink(path))
        elif path.is_file():
            found[rel] = (info.st_mode, path.read_bytes())
        else:
            found[rel] = (info.st_mode, None)
    return found


def check_refusal(c: Case, stdout: str, stderr: str, code: int, what: str) -> None:
    assert "Traceback" not in stdout + stderr, f"{what}: traceback\n{stderr}"
    assert code == 2, f"{what}: exit {code}, expected 2\nstdout: {stdout}\nstderr: {stderr}"
    locations = [m for m in LOCATION.finditer(stderr) if m.group("file").endswith(c.where)]
    assert locations, f"{what}: no {c.where}:<line>:<col>: in stderr:\n{stderr}"
    assert "Fix:" in stderr, f"{what}: no 'Fix:' in stderr:\n{stderr}"
    if c.expect is not None:
        assert c.expect in stderr, f"{what}: {c.expect!r} not in stderr:\n{stderr}"


def check_json(c: Case, stdout: str) -> None:
    document = json.loads(stdout)
    assert document["data"]["valid"] is False, document
    problems = document["errors"][0]["problems"]
    assert isinstance(problems, list) and problems, document
    for problem in problems:
        assert set(problem) >= PROBLEM_KEYS, problem
        assert isinstance(problem["file"], str) and problem["file"], problem
        assert isinstance(problem["line"], int) and problem["line"] >= 1, problem
        assert isinstance(problem["col"], int) and problem["col"] >= 1, problem
        assert isinstance(problem["key"], str), problem
        assert isinstance(problem["message"], str) and problem["message"], problem
        assert isinstance(problem["fix"], str) and problem["fix"], problem
    ours = [p for p in problems if p["file"].endswith(c.where)]
    assert ours, f"no problem in {c.where}: {problems}"
    lines = c.expected_lines()
    if lines is not None:
        reported = sorted({p["line"] for p in ours})
        assert set(reported) & lines, (
            f"problem reported at line(s) {reported} of {c.where}, expected one of "
            f"{sorted(lines)}: {problems}"
        )


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Run `memhub` in-process: (exit code, stdout, stderr). Crash logs go under tmp_path."""
    monkeypatch.setenv("MEMHUB_HOME", str(tmp_path / "memhub-home"))

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_corpus_is_large_and_distinct() -> None:
    assert len(CASES) >= 200, len(CASES)
    assert len(set(CASE_IDS)) == len(CASE_IDS)
    texts = [
        (
            c.hub_text() if isinstance(c.hub_text(), bytes) else c.hub_text().encode(),
            c.setup,
            c.hub_arg,
        )
        for c in CASES
    ]
    assert len({(t, id(s), a) for t, s, a in texts}) == len(texts), "two cases build the same hub"


@pytest.mark.parametrize("base", [BASE, SMALL], ids=["BASE", "SMALL"])
def test_base_hub_is_valid(tmp_path: Path, cli, base: dict[str, Any]) -> None:
    """The corpus starts from hubs that validate and build; each case breaks one thing."""
    m = materialize(Case("base", text=dump(base)), tmp_path)
    code, _, err = cli("validate", str(m.hub))
    assert code == 0, err
    code, _, err = cli("build", str(m.hub), "--out", str(m.out))
    assert code == 0, err
    assert (m.out / ".memhub-build.json").is_file()


@pytest.mark.parametrize(
    "path,value",
    [
        (("plugin", "name"), "p" * 64),
        (("marketplace", "name"), "m" * 64),
        ((*HOOK0, "id"), "h" * 64),
        ((*HOOK0, "timeout"), 1),
        ((*HOOK0, "timeout"), 600),
        ((*OAUTH, "callback_port"), 65535),
        (("plugin", "version"), "1.0.0-rc.1+build.5"),
    ],
    ids=lambda v: str(v)[:24],
)
def test_limits_are_inclusive(tmp_path: Path, cli, path: KeyPath, value: Any) -> None:
    """The boundary values next to the corpus's rejected ones are accepted."""
    m = materialize(Case("limit", data=set_in(BASE, path, value)), tmp_path)
    code, _, err = cli("validate", str(m.hub))
    assert code == 0, err


def test_skill_limits_are_inclusive(tmp_path: Path, cli) -> None:
    m = materialize(
        Case("limit", setup=skill_file(skill_md("k" * 64, "U" * 65536), "k" * 64)), tmp_path
    )
    code, _, err = cli("validate", str(m.hub))
    assert code == 0, err


@pytest.mark.parametrize("c", params(CASES))
def test_malformed_hub_is_refused(c: Case, tmp_path: Path, cli) -> None:
    m = materialize(c, tmp_path)
    before = snapshot(tmp_path)

    code, stdout, stderr = cli("validate", str(m.hub_arg))
    check_refusal(c, stdout, stderr, code, "validate")
    assert stdout == "", f"validate printed to stdout: {stdout}"

    code, stdout, stderr = cli("validate", "--json", str(m.hub_arg))
    assert "Traceback" not in stdout + stderr
    assert code == 2, f"validate --json: exit {code}\n{stdout}\n{stderr}"
    check_json(c, stdout)

    code, stdout, stderr = cli("build", str(m.hub_arg), "--out", str(m.out))
    check_refusal(c, stdout, stderr, code, "build")
    assert not m.out.exists(), "build wrote its output folder for an invalid hub"
    assert snapshot(tmp_path) == before, "something under tmp_path changed on bad input"


# --------------------------------------------------------------------------------------------
# The same checks through real subprocesses, for a fixed sample
# --------------------------------------------------------------------------------------------

SUBPROCESS_SAMPLE = [
    "yaml-tab-indent",
    "yaml-duplicate-nested-key",
    "yaml-latin1-bytes",
    "yaml-top-level-list",
    "type-plugin.name-integer",
    "unknown-key-plugin-descripton",
    "missing-plugin.version",
    "enum-event-SessionStart",
    "name-plugin-65-chars",
    "path-instructions-parent-parent",
    "link-skills-folder-outside",
    "skill-name-two-lines",
    "secret-header-bearer",
    "ref-env-value-unterminated",
    "hook-duplicate-id",
]
# `validate --json` through a subprocess too, for the first few.
SUBPROCESS_JSON_SAMPLE = SUBPROCESS_SAMPLE[:2]


def _run_cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module", autouse=True)
def subprocess_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Any]]]:
    """Start validate (+ --json) and build for every sampled case in background threads.

    Started when the module's first test runs, so the subprocesses overlap the in-process
    corpus instead of adding to it; the real-CLI tests below collect the results.
    """
    selected = any(
        getattr(item, "originalname", "") == "test_malformed_hub_is_refused_by_real_cli"
        for item in request.session.items
    )
    if not selected:
        yield {}
        return
    env = {key: value for key, value in os.environ.items() if not key.startswith("MEMHUB")}
    env["HOME"] = str(tmp_path_factory.mktemp("subprocess-home"))
    env["MEMHUB_HOME"] = str(Path(env["HOME"]) / ".memhub")

    def run(c: Case, m: Materialized, before: Any) -> tuple[Any, ...]:
        validate = _run_cli(["validate", str(m.hub_arg)], m.root, env)
        as_json = None
        if c.id in SUBPROCESS_JSON_SAMPLE:
            as_json = _run_cli(["validate", "--json", str(m.hub_arg)], m.root, env)
        built = _run_cli(["build", str(m.hub_arg), "--out", str(m.out)], m.root, env)
        return c, m, before, validate, as_json, built

    pool = ThreadPoolExecutor(max_workers=2)
    futures = {}
    for case_id in SUBPROCESS_SAMPLE:
        c = BY_ID[case_id]
        root = tmp_path_factory.mktemp(case_id)
        m = materialize(c, root)
        futures[case_id] = pool.submit(run, c, m, snapshot(root))
    try:
        yield futures
    finally:
        pool.shutdown(wait=True)


def test_subprocess_sample_is_in_corpus() -> None:
    assert len(SUBPROCESS_SAMPLE) >= 15
    for case_id in SUBPROCESS_SAMPLE:
        assert case_id in BY_ID, case_id


@pytest.mark.parametrize("case_id", SUBPROCESS_SAMPLE)
def test_malformed_hub_is_refused_by_real_cli(
    case_id: str, subprocess_results: dict[str, Future[Any]]
) -> None:
    c, m, before, validate, as_json, built = subprocess_results[case_id].result()
    check_refusal(c, validate.stdout, validate.stderr, validate.returncode, "validate")
    if as_json is not None:
        assert "Traceback" not in as_json.stdout + as_json.stderr
        assert as_json.returncode == 2, as_json
        check_json(c, as_json.stdout)
    check_refusal(c, built.stdout, built.stderr, built.returncode, "build")
    assert not m.out.exists()
    assert snapshot(m.root) == before


# --------------------------------------------------------------------------------------------
# Generated mutations: any value at any key is refused cleanly or accepted, never a crash
# --------------------------------------------------------------------------------------------

PATHS = [path for path, _ in walk(BASE)]
JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(st.characters(blacklist_categories=("Cs",)), max_size=8), inner, max_size=3
        )
    ),
    max_leaves=6,
)


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=st.sampled_from(PATHS), value=JSONISH)
def test_generated_mutation_never_crashes(
    path: KeyPath, value: Any, tmp_path_factory: pytest.TempPathFactory, cli
) -> None:
    c = Case("generated", data=set_in(BASE, path, value))
    m = materialize(c, tmp_path_factory.mktemp("gen"))
    code, stdout, stderr = cli("validate", str(m.hub))
    assert "Traceback" not in stdout + stderr
    assert code in (0, 2), f"{dotted(path)}={value!r}: exit {code}\n{stderr}"
    if code == 2:
        assert LOCATION.search(stderr) and "Fix:" in stderr, stderr
        code, stdout, stderr = cli("build", str(m.hub), "--out", str(m.out))
        assert code == 2, stderr
        assert not m.out.exists()
