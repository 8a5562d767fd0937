"""Apply and undo on generated pre-existing configs: nothing outside memhub's entries moves.

Each example writes a random `.claude.json` (JSON: arbitrary nesting, unicode, key order,
indent style) and a random Codex `config.toml` (comments, inline tables, arrays of tables),
applies a hub's MCP servers to both, checks that removing exactly memhub's entries from the
result gives the original bytes back, then undoes and checks the files are byte-identical.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.formats import jsonedit, tomledit
from memhub.compiler.install.engine import apply_install, plan_install, undo_install
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load

HUB_YAML = """\
version: 1
plugin: {name: prop-probe, version: 0.1.0, description: Property probe}
marketplace: {name: prop-market, owner: {name: Probe}}
mcp:
  servers:
    prop-stdio: {command: python3, args: ["-c", "pass"], env: {TOKEN: "${env:PROP_TOKEN}"}}
    prop-remote: {url: "https://prop.example/mcp"}
"""
SERVERS = ("prop-stdio", "prop-remote")

keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)  # fmt: skip
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
json_docs = st.tuples(
    st.dictionaries(keys.filter(lambda k: k != "mcpServers"), json_values, max_size=5),
    st.sampled_from([None, 2, 4, "\t"]),
    st.booleans(),  # an existing mcpServers object with a server of the user's
    st.booleans(),  # ensure_ascii
)

bare = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
toml_scalar = st.one_of(
    st.integers(-1000, 1000).map(str), st.sampled_from(["true", "false"]), st.text(st.characters(codec="ascii",
    min_codepoint=32, max_codepoint=126, exclude_characters='"\\'), max_size=10).map(
    lambda t: f'"{t}"'),
)  # fmt: skip
comment = st.text(st.characters(codec="ascii", min_codepoint=32, max_codepoint=126), max_size=15)


@st.composite
def toml_docs(draw: st.DrawFn) -> str:
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(f"# {draw(comment)}")
    for key in draw(st.lists(bare.map(lambda k: f"k_{k}"), max_size=3, unique=True)):
        note = f"  # {draw(comment)}" if draw(st.booleans()) else ""
        lines.append(f"{key} = {draw(toml_scalar)}{note}")
    tables = draw(st.lists(bare.map(lambda t: f"t_{t}"), max_size=3, unique=True))
    if draw(st.booleans()):
        tables.append("mcp_servers.mine")
    for table in tables:
        lines.append("")
        if draw(st.booleans()):
            lines.append(f"# about {table}: {draw(comment)}")
        lines.append(f"[{table}]")
        for key in draw(st.lists(bare, max_size=3, unique=True)):
            if draw(st.booleans()):
                lines.append(f"{key} = {{ a = {draw(toml_scalar)} }}")
            else:
                lines.append(f"{key} = [{draw(toml_scalar)}, {draw(toml_scalar)}]")
    if draw(st.booleans()):
        lines += ["", "[[hooks.Stop]]", 'matcher = ""', "[[hooks.Stop.hooks]]", 'type = "command"',
                  'command = "true"']  # fmt: skip
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + (newline if draw(st.booleans()) else "")


def render_json(doc: tuple[dict[str, Any], Any, bool, bool]) -> str:
    data, indent, with_servers, ascii_only = doc
    data = dict(data)
    if with_servers:
        data["mcpServers"] = {"mine": {"command": "x"}}
    return json.dumps(data, indent=indent, ensure_ascii=ascii_only) + "\n"


def without_memhub(json_text: str, toml_text: str) -> tuple[str, str]:
    for name in SERVERS:
        json_text = jsonedit.remove_key(json_text, ("mcpServers", name))
        toml_text = tomledit.remove_table(toml_text, ("mcp_servers", name))
    return json_text, toml_text


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_doc=json_docs, toml_text=toml_docs())
def test_apply_keeps_everything_else_and_undo_restores_bytes(
    json_doc: tuple[dict[str, Any], Any, bool, bool], toml_text: str
) -> None:
    json_text = render_json(json_doc)
    with tempfile.TemporaryDirectory(prefix="memhub-prop-") as tmp:
        root = Path(tmp)
        (root / "hub").mkdir()
        (root / "hub" / "hub.yaml").write_text(HUB_YAML)
        home, memhub_home = root / "home", root / "home" / ".memhub"
        claude_json = home / ".claude" / ".claude.json"
        config_toml = home / ".codex" / "config.toml"
        claude_json.parent.mkdir(parents=True)
        config_toml.parent.mkdir(parents=True)
        claude_json.write_bytes(json_text.encode())
        config_toml.write_bytes(toml_text.encode())
        env = {"CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}
        scope = Scope("user", home, None, env)
        hub = load(root / "hub")

        def make_plan() -> Any:
            return plan_install(hub, scope, ("claude", "codex"), memhub_home)

        apply_install(memhub_home, make_plan)
        after_json = claude_json.read_bytes().decode()
        after_toml = config_toml.read_bytes().decode()
        assert json.loads(after_json)["mcpServers"]["prop-stdio"]["command"] == "python3"
        assert "prop-remote" in tomledit.parse(after_toml)["mcp_servers"]
        assert without_memhub(after_json, after_toml) == (json_text, toml_text)

        undo_install(memhub_home)
        assert claude_json.read_bytes() == json_text.encode()
        assert config_toml.read_bytes() == toml_text.encode()
