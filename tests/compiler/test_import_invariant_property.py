"""The import's invariant over generated repository shapes (hypothesis): `import --from-repo`
either writes a hub that `memhub build` builds (exit 0, or 1 with rows), or exits 2 with a
message naming a file and writes nothing. Plugin folders anywhere (plugins/x, x, a dot-folder,
the root), manifests per host with missing and extra keys, marketplaces per host with `./`
and sub-folder sources (one listing its own folder), skills, agents, commands, icons and other
assets, MCP servers with env-var URLs and placeholder headers, links inside and outside the
plugin folders, a SKILL.md that is a link, links that dangle or loop, one name in two folders,
plugin folders nested in others, Copilot CLI's root plugin.json and marketplace, a Gemini CLI
extension in the folder, and hooks files holding handlers the hub's hooks cannot hold."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.cli.main import main

from tests.compiler.test_import_invariant import write

HOSTS = {"claude": ".claude-plugin", "codex": ".codex-plugin", "cursor": ".cursor-plugin"}
OWN = {"copilot": "plugin.json", "gemini": "gemini-extension.json"}  # manifests at the root
ODD_HOOKS = {  # handlers Claude Code takes that a hub hook cannot hold: the file is kept
    "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "prompt", "prompt": "Done?"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi", "async": False}]}],
    }
}
SKILL = "---\nname: {name}\ndescription: Use {name}.\n---\nBody of {name}.\n"
AGENT = "---\nname: {name}\ndescription: Agent {name}.\n---\nYou are {name}.\n"
SERVERS = {
    "stdio": {"command": "node", "args": ["server.js"]},
    "env-url": {"type": "http", "url": "${SVC_MCP_URL}"},
    "env-default": {"type": "http", "url": "${SVC:-https://svc.example}/mcp"},
    "placeholder": {
        "type": "http",
        "url": "https://svc.example/mcp",
        "headers": {"Authorization": "Bearer <your-token>"},
    },
}
NAMES = st.sampled_from(["alpha", "beta", "gamma"])
MARKET_COPILOT = ".github/plugin/marketplace.json"


@st.composite
def plugin(draw: st.DrawFn, folder: str, name: str) -> dict[str, Any]:
    """One plugin folder's files (paths relative to the repository)."""
    base = f"{folder}/" if folder else ""
    files: dict[str, Any] = {}
    kinds = sorted(HOSTS) + sorted(OWN)
    hosts = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=3, unique=True))
    icon = draw(st.booleans())
    for host in (h for h in hosts if h in OWN):
        files[f"{base}{OWN[host]}"] = {"name": name, "version": "1.0.0"}
    if "gemini" in hosts and draw(st.booleans()):
        files[f"{base}commands/hello.toml"] = 'prompt = "Say hello"\n'
    hosts = [h for h in hosts if h in HOSTS]
    if "claude" in hosts and draw(st.booleans()):
        files[f"{base}hooks/hooks.json"] = ODD_HOOKS
    for host in hosts:
        doc: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            doc["version"] = "1.0.0"
        if draw(st.booleans()):
            doc["description"] = f"The {name} plugin"
        if draw(st.booleans()):
            doc["x-extra"] = {"kept": draw(st.sampled_from([1, "a", None, [1, 2]]))}
        if icon:
            doc["logo" if host != "codex" else "icon"] = "./assets/icon.svg"
        if host == "codex" and draw(st.booleans()):
            doc["skills"] = "./skills/"
        files[f"{base}{HOSTS[host]}/plugin.json"] = doc
    if icon:
        files[f"{base}assets/icon.svg"] = "<svg xmlns='http://www.w3.org/2000/svg'/>\n"
    if draw(st.booleans()):
        files[f"{base}assets/banner.png"] = "png\n"
    for skill in draw(st.lists(NAMES, max_size=2, unique=True)):
        files[f"{base}skills/{skill}/SKILL.md"] = SKILL.format(name=skill)
    if draw(st.booleans()):
        files[f"{base}agents/helper.md"] = AGENT.format(name=draw(NAMES))
    if draw(st.booleans()):
        files[f"{base}commands/go.md"] = "Run the thing.\n"
    if draw(st.booleans()):
        files[f"{base}README.md"] = f"# {name}\n"
    chosen = draw(st.lists(st.sampled_from(sorted(SERVERS)), max_size=2, unique=True))
    if chosen:
        files[f"{base}.mcp.json"] = {"mcpServers": {k: SERVERS[k] for k in chosen}}
    kinds = ["inside", "outside", "skill", "dangling-target", "dangling", "loop"]
    links = draw(st.sets(st.sampled_from(kinds)))
    if "dangling" in links:
        files[f"{base}docs/gone.md"] = ("link", "nowhere.md")
    if "loop" in links:
        files[f"{base}docs/loop"] = ("link", "loop")
    if "inside" in links and f"{base}README.md" in files:
        files[f"{base}docs/readme-link.md"] = ("link", "../README.md")
    if "outside" in links:
        files[f"{base}shared"] = ("link", "../" * (base.count("/") or 0) + "NOTICE")
    if "skill" in links:
        files[f"{base}SKILL-SOURCE.md"] = SKILL.format(name="linked")
        files[f"{base}skills/linked/SKILL.md"] = ("link", "../../SKILL-SOURCE.md")
    if "dangling-target" in links:  # a plugin.json the import leaves out, linked to
        files[f"{base}plugin.json"] = {"name": name}
        files[f"{base}.agy/plugin.json"] = ("link", "../plugin.json")
    return files


@st.composite
def repository(draw: st.DrawFn) -> dict[str, Any]:
    """A plugin or marketplace repository: 1-3 plugin folders, marketplaces per host."""
    layouts = ["root", "plugins", "top", "dot", "self-listing", "mixed", "nested"]
    layout = draw(st.sampled_from(layouts))
    count = 1 if layout in ("root", "self-listing") else draw(st.integers(1, 3))
    names = [draw(NAMES) if layout == "mixed" else n for n in ("alpha", "beta", "gamma")[:count]]
    folders = {
        "root": [""],
        "plugins": [f"plugins/{n}" for n in names],
        "top": list(names),
        "dot": [f".github/plugins/{n}" for n in names],
        "self-listing": ["sub"],
        "mixed": [f"{p}/{n}" for p, n in zip(["claude", "codex", "x"], names, strict=False)],
        "nested": [f"plugins/{'/plugins/'.join(names[: i + 1])}" for i in range(count)],
    }[layout]
    files: dict[str, Any] = {"NOTICE": "notice\n"}
    for folder, name in zip(folders, names, strict=True):
        files.update(draw(plugin(folder, name)))
    where = "sub" if layout == "self-listing" else ""
    markets = st.sampled_from(["claude", "codex", "copilot"])
    for host in draw(st.lists(markets, max_size=3, unique=True)):
        files.update(_marketplace(host, where, folders, names))
    return files


def _marketplace(host: str, where: str, folders: list[str], names: list[str]) -> dict[str, Any]:
    def source(folder: str) -> str:
        rel = folder[len(where) + 1 :] if where and folder.startswith(where + "/") else folder
        return "./" if folder == where else f"./{rel}"

    if host in ("claude", "copilot"):
        entries = [{"name": n, "source": source(f)} for f, n in zip(folders, names, strict=True)]
        doc: dict[str, Any] = {"name": "market", "owner": {"name": "o"}, "plugins": entries}
        path = ".claude-plugin/marketplace.json" if host == "claude" else MARKET_COPILOT
    else:
        entries = [
            {
                "name": n,
                "source": {"source": "local", "path": source(f)},
                "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                "category": "Coding",
            }
            for f, n in zip(folders, names, strict=True)
        ]
        doc = {"name": "market", "plugins": entries}
        path = ".agents/plugins/marketplace.json"
    return {f"{where}/{path}" if where else path: doc}


def check_invariant(files: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="memhub-invariant-") as temp:
        root = Path(temp)
        repo, hub = write(root / "repo", files), root / "hub"
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            code = main(["import", "--from-repo", str(repo), "--into", str(hub), "--yes", "--json"])
        reply = json.loads(shown.getvalue())
        assert code in (0, 1, 2), code
        if code == 2:
            assert not (hub / "hub.yaml").exists()  # exit 2 writes nothing
            assert ": " in reply["errors"][0]["message"]  # `<file>: what. Fix: ...`
            return
        rows = reply["data"]["round_trip"]["cannot_reproduce"]
        assert (code == 1) == bool(rows)
        assert all(row["path"] and row["reason"] for row in rows)
        with contextlib.redirect_stdout(io.StringIO()):
            built = main(["build", str(hub), "--out", str(root / "out")])
        assert built == 0, f"the written hub does not build: {json.dumps(files)[:2000]}"


@settings(
    max_examples=15,  # ~0.4 s each (an import builds the hub 3-6 times): CI budget
    deadline=None,
    derandomize=True,  # the same examples on every run: never flaky
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(repository())
def test_import_then_build_holds_the_invariant(files: dict[str, Any]) -> None:
    check_invariant(files)


def test_exit_2_names_the_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A marketplace file that is no JSON object: exit 2, the message names it, nothing
    written (a dangling link costs its own path alone: test_import_repo_unread.py)."""
    files = {".claude-plugin/plugin.json": {"name": "p"}, ".claude-plugin/marketplace.json": []}
    repo = write(tmp_path / "repo", files)
    code = main(["import", "--from-repo", str(repo), "--into", str(tmp_path / "hub"), "--yes"])
    assert code == 2
    assert ".claude-plugin/marketplace.json: is not a JSON object" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "hub" / "hub.yaml")
