"""hub.yaml for an import, as text: each item under a `# imported from <file> <key>` comment.

Pure: `hub_yaml` renders; importing/writer.py `write_hub` writes the files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml
from memhub.compiler.importing.hostconfig import InstalledInstructions, InstalledServer
from memhub.hubspec.vocabulary import bundle_hosts

SCHEMA_FILE = ".memhub/hub.schema.json"
# A server as the hub will hold it: hub name, spec, the installed servers it came from.
Server = tuple[str, dict[str, Any], list[InstalledServer]]
# Instructions as the hub will hold them: hub path, the document, where else it was found.
Instructions = tuple[str, InstalledInstructions, list[str]]


def hub_yaml(
    *,
    name: str,
    owner: str,
    scope: str,
    hosts: list[str],
    servers: list[Server],
    skill_sources: dict[str, list[str]],
    instructions: list[Instructions],
    overrides: dict[str, dict[str, Any]],
    secrets: bool,
) -> str:
    listed = ", ".join(hosts) or "no host"
    out = [
        f"# yaml-language-server: $schema={SCHEMA_FILE}",
        f"# Imported by `memhub import` from the {scope} scope of {listed}; each item names",
        "# the file (and key) it came from. The host files were left as they were.",
    ]
    if secrets:
        out += [
            "# Secrets are ${env:NAME} references: their values are in .env beside this file",
            "# (mode 0600; never commit it).",
        ]
    out += [
        "version: 1",
        "plugin:",
        f"  name: {_scalar(name)}",
        "  version: 0.1.0",
        f"  description: {_scalar(f'Agent setup imported from {listed} by memhub import.')}",
        "marketplace:",
        f"  name: {_scalar(name + '-market')}",
        "  owner:",
        f"    name: {_scalar(owner)}",
    ]
    bundle = [h for h in bundle_hosts() if h in hosts]
    if bundle:
        out += ["hosts:", *(f"  - {_scalar(h)}" for h in bundle)]
    if servers:
        out += ["mcp:", "  servers:"]
        for hub_name, spec, members in servers:
            out += _source_comments(members[0].where, [m.where for m in members[1:]], "    ")
            out += _block(hub_name, spec, "    ")
    if skill_sources:
        for skill, paths in skill_sources.items():
            out += _source_comments(paths[0], paths[1:], "", label=f"skills/{skill}/")
        out.append("skills: skills")
    if instructions:
        target, doc, also = instructions[0]
        out += _source_comments(doc.path, also, "")
        for other, other_doc, _ in instructions[1:]:
            out.append(_comment(f"not used until merged: {other} from {other_doc.path}", ""))
        out.append(f"instructions: {_scalar(target)}")
    if overrides:
        out.append("overrides:")
        for host, by_server in overrides.items():
            out += [f"  {_scalar(host)}:", "    mcp_servers:"]
            for hub_name, keys in by_server.items():
                wheres = sorted({where for _, where in keys.values()})
                out += _source_comments(wheres[0], wheres[1:], "      ")
                out += _block(hub_name, {k: v for k, (v, _) in keys.items()}, "      ")
    return "\n".join(out) + "\n"


def _comment(text: str, indent: str) -> str:
    return f"{indent}# " + re.sub(r"[\r\n]+", " ", text)


def _source_comments(first: str, others: list[str], indent: str, label: str = "") -> list[str]:
    head = f"{label} imported from {first}" if label else f"imported from {first}"
    return [_comment(head, indent), *(_comment(f"  also in {o}", indent) for o in others)]


def _block(key: str, value: Any, indent: str) -> list[str]:
    """`key: value` as block YAML at `indent`."""
    head = f"{indent}{_scalar(key)}:"
    if isinstance(value, Mapping):
        if not value:
            return [head + " {}"]
        lines = [head]
        for k, v in value.items():
            lines += _block(str(k), v, indent + "  ")
        return lines
    if isinstance(value, list | tuple):
        if not value:
            return [head + " []"]
        lines = [head]
        for item in value:
            if isinstance(item, Mapping | list | tuple):
                lines.append(f"{indent}  -")
                nested = _block("x", item, indent + "  ")[1:]
                lines += nested
            else:
                lines.append(f"{indent}  - {_scalar(item)}")
        return lines
    return [f"{head} {_scalar(value)}"]


_PLAIN = re.compile(r"[A-Za-z0-9_$~./-][^\r\n\t#]*")


def _scalar(value: Any) -> str:
    """A YAML scalar that reads back as `value`: plain when that is safe, else quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text == text.strip() and _reads_back(text, text):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if _reads_back(quoted, text) else json.dumps(text)


def _reads_back(written: str, value: str) -> bool:
    try:
        return yaml.safe_load(f"k: {written}") == {"k": value}
    except yaml.YAMLError:
        return False
