"""GEMINI.md, .mcp.json and assets/icon.* that the build of the imported hub does not write:
a plain document in a plugin without Gemini, a .mcp.json no host of the plugin loads, an icon
no manifest names. Each is the plugin's own file, given back byte for byte; where the build
does write the path, it stays a `cannot_reproduce` row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.compiler.repofiles import trip_with_hub

PLUGIN = "plugins/kit"
MANIFEST = {"name": "kit", "version": "1.0.0", "description": "A kit"}
CLAUDE, CODEX = f"{PLUGIN}/.claude-plugin/plugin.json", f"{PLUGIN}/.codex-plugin/plugin.json"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>\n'


def _trip(root: Path, files: dict[str, Any]) -> tuple[dict[str, str], tuple[int, int], Any]:
    return trip_with_hub(root, files, "kit")


def test_a_gemini_md_document_of_a_plugin_without_gemini_comes_back(tmp_path: Path) -> None:
    listed, files, hub = _trip(
        tmp_path / "repo",
        {CLAUDE: MANIFEST, f"{PLUGIN}/GEMINI.md": "# Notes for Gemini users\n"},
    )
    assert listed == {} and files[0] == files[1]
    assert "gemini" not in hub["hosts"]
    assert {"from": "GEMINI.md"} in hub["files"]


def test_a_mcp_json_no_host_of_the_plugin_loads_comes_back(tmp_path: Path) -> None:
    """A Codex manifest's `mcp` key is no key Codex reads: the file is a plain one (and its
    `mcp_servers` shape no server file of Claude Code's)."""
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            CODEX: {**MANIFEST, "mcp": "./.mcp.json"},
            f"{PLUGIN}/.mcp.json": {"mcp_servers": {"ui": {"command": "npx"}}},
        },
    )
    assert listed == {} and files[0] == files[1]
    assert hub["hosts"] == ["codex"] and "mcp" not in hub


def test_an_icon_no_manifest_names_comes_back(tmp_path: Path) -> None:
    listed, files, hub = _trip(
        tmp_path / "repo", {CLAUDE: MANIFEST, f"{PLUGIN}/assets/icon.svg": SVG}
    )
    assert listed == {} and files[0] == files[1]
    assert "icon" not in hub["plugin"]


def test_a_gemini_md_beside_an_extension_naming_another_context_file_comes_back(
    tmp_path: Path,
) -> None:
    """The extension's context file is CONTEXT.md: the hub has no instructions, so its build
    writes no GEMINI.md and the plugin's own ships."""
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            CLAUDE: MANIFEST,
            f"{PLUGIN}/gemini-extension.json": {**MANIFEST, "contextFileName": "CONTEXT.md"},
            f"{PLUGIN}/CONTEXT.md": "Be brief.\n",
            f"{PLUGIN}/GEMINI.md": "# Not loaded\n",
        },
    )
    assert "gemini" in hub["hosts"] and "instructions" not in hub
    assert listed == {} and files[0] == files[1]


def test_a_gemini_md_the_gemini_build_writes_stays_a_row(tmp_path: Path) -> None:
    """Gemini and the instructions come from the extension memhub wrote apart (gemini/kit/),
    read after the plugin folder: the build writes the plugin's GEMINI.md from them, so the
    plugin folder's own is listed, and the hub still builds."""
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            CLAUDE: MANIFEST,
            f"{PLUGIN}/GEMINI.md": "# Notes\n",
            "gemini/kit/gemini-extension.json": {**MANIFEST, "contextFileName": "GEMINI.md"},
            "gemini/kit/GEMINI.md": "Be brief.\n",
        },
    )
    assert "gemini" in hub["hosts"] and hub.get("instructions")
    assert listed[f"{PLUGIN}/GEMINI.md"].startswith("memhub generates GEMINI.md")
    assert files[0] == files[1] - 1
