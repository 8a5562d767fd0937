"""What the real host CLIs load from a plugin repository and from its rebuild, for
bench/bench_import_wild.py --hosts.

Per host, on the original checkout and on the rebuild alike, in a fresh temporary HOME each
(its own config folders, a proxy that refuses every connection, nothing of the real user):

  claude   `claude plugin validate --json` on every .claude-plugin/plugin.json, and on every
           folder a Claude marketplace lists without one: its `provides` (skills, agents,
           commands, hooks, MCP and LSP servers, ...)
  codex    `codex plugin marketplace add` per Codex marketplace (a plugin folder no
           marketplace lists gets a one-entry marketplace of its own in a temporary folder),
           `codex plugin add` each plugin it lists, then `codex plugin list --json` and
           `codex mcp list --json`
  copilot  `copilot plugin marketplace add` per .github/plugin/marketplace.json, `plugin
           install` each plugin `marketplace browse` lists (a root plugin.json without a
           marketplace: --plugin-dir), then `plugin list`, `mcp list` and `skill list --json`
  gemini   `gemini extensions link --consent` per gemini-extension.json folder, then
           `gemini extensions list` (extensions, MCP servers, skills, context files)

The CLIs are the pinned ones tests/e2e/hostcli.py installs (under MEMHUB_HOST_CACHE or
~/.cache/memhub/host-clis); none is installed here: a missing CLI, a timeout or a failing
call is reported as such, never guessed. Stdlib only.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import import_wild_hostparse as hp

HOSTS = ("claude", "codex", "copilot", "gemini")
REPO = Path(__file__).resolve().parents[1]
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
}
Components = dict[str, list[str]]


@functools.cache
def _hostcli() -> Any:
    """tests/e2e/hostcli.py (stdlib only): the pinned versions and where they are cached."""
    path = REPO / "tests" / "e2e" / "hostcli.py"
    spec = importlib.util.spec_from_file_location("memhub_bench_hostcli", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def cli_path(host: str) -> Path | None:
    """The pinned CLI of HOST if it is installed (tests/e2e/hostcli.py's cache layout)."""
    hostcli = _hostcli()
    exe = Path(hostcli.install_dir(host)) / "node_modules" / ".bin" / hostcli.PINS[host][2]
    return exe if exe.exists() else None


class Sandbox:
    """A fresh temporary HOME and the environment a host CLI runs in, offline."""

    def __init__(self, exe: Path, timeout: float) -> None:
        self.exe, self.timeout = exe, timeout
        self._tmp = tempfile.TemporaryDirectory(prefix="memhub-hosts-")
        root = Path(self._tmp.name)
        self.home = root / "home"
        for d in (
            "tmp",
            ".claude",
            ".codex",
            ".gemini",
            ".config",
            ".cache",
            ".local/share",
            ".local/state",
        ):
            (self.home / d).mkdir(parents=True, exist_ok=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_SETTINGS))
        dead = "http://127.0.0.1:9"  # discard port: every outside connection is refused
        cache = exe.parents[3] / "copilot-cache"
        self.env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
        self.env.update(
            HOME=str(self.home),
            TMPDIR=str(self.home / "tmp"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_STATE_HOME=str(self.home / ".local/state"),
            CLAUDE_CONFIG_DIR=str(self.home / ".claude"),
            CODEX_HOME=str(self.home / ".codex"),
            HTTPS_PROXY=dead,
            HTTP_PROXY=dead,
            https_proxy=dead,
            http_proxy=dead,
            NO_PROXY="127.0.0.1,localhost,::1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            COPILOT_OFFLINE="true",
            COPILOT_AUTO_UPDATE="false",
            COPILOT_CACHE_HOME=str(cache),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
        )

    def run(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        try:
            p = subprocess.run(
                [str(self.exe), *args],
                env=self.env,
                cwd=self.home,
                input=stdin if stdin is not None else "",
                capture_output=True,
                text=True,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            return -9, "", f"timeout after {self.timeout:g} s"
        except OSError as exc:
            return -1, "", str(exc)
        return p.returncode, p.stdout, p.stderr

    def close(self) -> None:
        self._tmp.cleanup()


def _fail(what: str, code: int, out: str, err: str) -> str:
    """WHAT failed with CODE and the end of what it printed (the cause comes last)."""
    lines = [x.strip() for x in (err.strip() or out.strip()).splitlines() if x.strip()] or [""]
    said = lines[-1] if len(lines) < 2 or len(lines[-2]) > 120 else " ".join(lines[-2:])
    return f"{what}: exit {code}: {said[-240:]}"


def _json_or(out: str, default: Any) -> Any:
    try:
        return json.loads(out)
    except ValueError:
        return default


# ---- per host: (components, errors) of one tree, in one sandbox ----


def _both(tree: Path, ref: Path, find: Callable[[dict[str, bytes]], list[str]]) -> list[str]:
    """FIND's folders in the original REF and in TREE: a user adds the marketplaces and
    extensions the original has, so a rebuild that moves or drops one shows as a failure."""
    own = find(hp.tree_files(tree))
    return sorted(set(own) | set(find(hp.tree_files(ref)) if ref != tree else []))


def claude_loads(box: Sandbox, tree: Path, ref: Path) -> tuple[Components, list[str]]:
    comps: Components = {}
    errors = []
    for plugin, target in hp.claude_targets(hp.tree_files(tree)):
        code, out, err = box.run("plugin", "validate", "--json", str(tree / target))
        report = _json_or(out, None)
        if not isinstance(report, dict):
            errors.append(_fail(f"validate {target}", code, out, err))
            continue
        for kind, keys in hp.claude_components(plugin, report).items():
            comps.setdefault(kind, []).extend(keys)
    return comps, errors


def _codex_synth(tree: Path, folders: list[str], work: Path) -> Path:
    """A marketplace folder listing copies of plugin folders no Codex marketplace lists."""
    plugins = []
    for i, folder in enumerate(folders):
        manifest = tree / folder / ".codex-plugin" / "plugin.json"
        doc = hp._json(manifest.read_bytes()) if manifest.is_file() else None
        name = str(doc.get("name") if isinstance(doc, dict) and doc.get("name") else f"p{i}")
        shutil.copytree(tree / folder, work / "plugins" / f"p{i}", symlinks=True)
        plugins.append({"name": name, "source": {"source": "local", "path": f"./plugins/p{i}"}})
    (work / ".agents" / "plugins").mkdir(parents=True)
    doc = {"name": "memhub-bench-unlisted", "plugins": plugins}
    (work / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps(doc))
    return work


def _git_commit(box: Sandbox, tree: Path) -> None:
    """Make TREE a one-commit git repository (a user clones one): Codex installs a plugin whose
    source is a URL like `./` with `git clone`, which needs it."""
    if (tree / ".git").exists():
        return
    env = {**box.env, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=tree, env=env, capture_output=True, check=False)


def codex_loads(box: Sandbox, tree: Path, ref: Path) -> tuple[Components, list[str]]:
    _git_commit(box, tree)
    roots = [tree / r for r in _both(tree, ref, _codex_markets)]
    errors = []
    unlisted = _both(tree, ref, hp.unlisted_codex_plugins)
    if missing := [f for f in unlisted if not (tree / f).is_dir()]:
        errors.append(f"plugin folders missing: {', '.join(missing)[:200]}")
    if unlisted := [f for f in unlisted if (tree / f).is_dir()]:
        roots.append(_codex_synth(tree, unlisted, box.home / "unlisted"))
    for root in roots:
        code, out, err = box.run("plugin", "marketplace", "add", str(root))
        if code:
            errors.append(_fail(f"marketplace add {root.name}", code, out, err))
    code, out, err = box.run("plugin", "list", "--available", "--json")
    listed = _json_or(out, {})
    for plugin in listed.get("available", []) if isinstance(listed, dict) else []:
        code, out, err = box.run("plugin", "add", str(plugin.get("pluginId")), "--json")
        if code:
            errors.append(_fail(f"plugin add {plugin.get('pluginId')}", code, out, err))
    code, out, err = box.run("plugin", "list", "--json")
    installed = _json_or(out, {})
    comps: Components = {
        "plugins": [
            str(p.get("pluginId"))
            for p in (installed.get("installed", []) if isinstance(installed, dict) else [])
            if p.get("enabled")
        ]
    }
    code, out, err = box.run("mcp", "list", "--json")
    servers = _json_or(out, None)
    if not isinstance(servers, list):
        errors.append(_fail("mcp list", code, out, err))
    else:
        comps["mcp servers"] = [str(s.get("name")) for s in servers if isinstance(s, dict)]
    return comps, errors


def _codex_markets(files: dict[str, bytes]) -> list[str]:
    return hp.market_roots(files, ".agents/plugins/marketplace.json")


def _copilot_markets(files: dict[str, bytes]) -> list[str]:
    return hp.market_roots(files, ".github/plugin/marketplace.json")


def copilot_loads(box: Sandbox, tree: Path, ref: Path) -> tuple[Components, list[str]]:
    errors: list[str] = []
    extra: list[str] = []
    roots = _both(tree, ref, _copilot_markets)
    if not roots and isinstance(hp._json(hp.tree_files(ref).get("plugin.json")), dict):
        extra = ["--plugin-dir", str(tree)]  # Copilot's own layout, no marketplace
    for root in roots:
        code, out, err = box.run("plugin", "marketplace", "add", str(tree / root))
        market = hp.copilot_market_name(out + err)
        if code or market is None:
            errors.append(_fail(f"marketplace add {root}", code, out, err))
            continue
        code, out, err = box.run("plugin", "marketplace", "browse", market, "--json")
        for plugin in _json_or(out, []) if not code else []:
            spec = f"{plugin.get('name')}@{market}"
            code, out, err = box.run("plugin", "install", spec)
            if code:
                errors.append(_fail(f"plugin install {spec}", code, out, err))
    comps: Components = {}
    for kind, args in (
        ("plugins", ["plugin", "list"]),
        ("skills", ["skill", "list"]),
        ("mcp servers", ["mcp", "list"]),
    ):
        code, out, err = box.run(*extra, *args, "--json")
        doc = _json_or(out, None)
        if doc is None:
            errors.append(_fail(" ".join(args), code, out, err))
            continue
        comps[kind] = _copilot_keys(kind, doc)
    return comps, errors


def _copilot_keys(kind: str, doc: Any) -> list[str]:
    if kind == "mcp servers":
        servers = doc.get("mcpServers", {}) if isinstance(doc, dict) else {}
        return [
            f"{s.get('sourcePlugin')}:{name}"
            for name, s in servers.items()
            if isinstance(s, dict) and s.get("source") == "plugin"
        ]
    items = doc if isinstance(doc, list) else []
    if kind == "skills":
        return [
            str(s.get("name")) for s in items if isinstance(s, dict) and s.get("source") == "plugin"
        ]
    return [
        f"{p.get('name')}@{p.get('marketplace', '')}"
        for p in items
        if isinstance(p, dict) and p.get("enabled", True)
    ]


def gemini_loads(box: Sandbox, tree: Path, ref: Path) -> tuple[Components, list[str]]:
    errors = []
    for folder in _both(tree, ref, hp.gemini_extensions):
        manifest = tree / folder / "gemini-extension.json"
        doc = hp._json(manifest.read_bytes()) if manifest.is_file() else None
        verb = ["link"]
        if isinstance(doc, dict) and doc.get("settings"):
            # `link` asks for each setting on a terminal, even with --consent; `install` (a
            # copy) can skip them
            verb = ["install", "--skip-settings"]
        args = [verb[0], str(tree / folder), "--consent", *verb[1:]]
        code, out, err = box.run("extensions", *args, stdin="y\n")
        if code:
            errors.append(_fail(f"extensions {verb[0]} {folder}", code, out, err))
    code, out, err = box.run("extensions", "list")
    if code:
        return {}, [*errors, _fail("extensions list", code, out, err)]
    return hp.gemini_components(hp.parse_gemini_list(out + "\n" + err)), errors


LOADERS: dict[str, Callable[[Sandbox, Path, Path], tuple[Components, list[str]]]] = {
    "claude": claude_loads,
    "codex": codex_loads,
    "copilot": copilot_loads,
    "gemini": gemini_loads,
}


def has_layout(host: str, tree: Path) -> bool:
    files = hp.tree_files(tree)
    return bool(
        {
            "claude": hp.claude_targets(files),
            "codex": hp._with_suffix(files, ".codex-plugin/plugin.json")
            or hp._with_suffix(files, ".agents/plugins/marketplace.json"),
            "copilot": hp._with_suffix(files, ".github/plugin/marketplace.json")
            or isinstance(hp._json(files.get("plugin.json")), dict),
            "gemini": hp.gemini_extensions(files),
        }[host]
    )


def loads(host: str, tree: Path, ref: Path, timeout: float) -> dict[str, Any]:
    """{status, components, errors} of what HOST loads from TREE (the original: REF), in a
    fresh HOME."""
    exe = cli_path(host)
    if exe is None:
        return {"status": "missing", "errors": [f"{host} CLI not installed (tests/e2e/hostcli.py)"]}
    box = Sandbox(exe, timeout)
    try:
        comps, errors = LOADERS[host](box, tree, ref)
    finally:
        box.close()
    comps = {k: v for k, v in comps.items() if v}
    errors = [e.replace(str(tree), "<tree>") for e in errors]
    return {
        "status": "ok" if comps or not errors else "failed",
        "components": comps,
        "errors": errors,
    }


def measure(src: Path, out: Path | None, hosts: list[str], timeout: float) -> dict[str, Any]:
    """Per host: what it loads from the original SRC and from the rebuild OUT, compared."""
    result: dict[str, Any] = {}
    for host in hosts:
        if not has_layout(host, src):
            continue
        before = loads(host, src, src, timeout)
        after: dict[str, Any] = (
            loads(host, out, src, timeout)
            if out is not None
            else {"status": "no rebuild", "components": {}, "errors": []}
        )
        result[host] = {
            "original": {"status": before["status"], "errors": before.get("errors", [])},
            "rebuild": {"status": after["status"], "errors": after.get("errors", [])},
            "kinds": hp.compare(before.get("components", {}), after.get("components", {})),
        }
    return result
