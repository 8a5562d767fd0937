"""memhub's MCP launcher and the installation's own scripts in host files.

Every test drives real processes: `memhub apply` writes the host file, and the command that
host file names is run as the host would run it (a filtered environment, no venv on PATH).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.hubspec import load

# What a host's MCP child sees of PATH: system folders only, never this venv's bin.
BARE_PATH = "/usr/local/bin:/usr/bin:/bin"
SCRIPTS = Path(sysconfig.get_path("scripts"))
# A stand-in MCP server: writes the environment and argv it was started with, then exits.
DUMP = (
    "import json, os, sys; json.dump({'env': dict(os.environ), 'argv': sys.argv[1:], "
    "'cwd': os.getcwd()}, open(sys.argv[1], 'w'))"
)


def hub_with(tmp_path: Path, servers: str, runtime: str = "") -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: launch-probe, version: 0.1.0, description: Launcher probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        f"{runtime}"
        "mcp:\n  servers:\n" + servers
    )
    return hub


def dump_server(out: Path, env: str, args: str = "") -> str:
    return (
        "    dump:\n"
        f"      command: {sys.executable}\n"
        f'      args: ["-c", "{DUMP}", "{out}"{args}]\n'
        f"      env: {env}\n"
    )


def apply(capsys: pytest.CaptureFixture[str], hub: Path, hosts: str) -> str:
    code = main(["apply", str(hub), "--scope", "user", "--hosts", hosts])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    return out


def codex_servers() -> dict:
    config = Path(os.environ["CODEX_HOME"]) / "config.toml"
    return tomllib.loads(config.read_text())["mcp_servers"]


def start_like_codex(spec: dict, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Start a stdio server as Codex does: its command and args, and an environment of a few
    defaults plus `env` and the variables `env_vars` forwards (nothing else of the parent's)."""
    env = {"PATH": BARE_PATH, "HOME": environ.get("HOME", "/")}
    for item in spec.get("env_vars", []):
        name = item if isinstance(item, str) else item["name"]
        if name in environ:
            env[name] = environ[name]
    env.update(spec.get("env", {}))
    return subprocess.run(
        [spec["command"], *spec.get("args", [])],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=spec.get("cwd"),
    )


def test_codex_gets_a_renamed_variable_through_the_launcher(tmp_path: Path, capsys) -> None:
    out = tmp_path / "seen.json"
    hub = hub_with(tmp_path, dump_server(out, '{GITHUB_PERSONAL_ACCESS_TOKEN: "${env:GH_TOK}"}'))
    printed = apply(capsys, hub, "codex")
    spec = codex_servers()["dump"]
    # Codex 0.171 refuses the whole config for an env_vars source that is not local/remote.
    for item in spec.get("env_vars", []):
        assert isinstance(item, str) or item.get("source") in (None, "local", "remote"), item
    assert "launcher" in printed and "GITHUB_PERSONAL_ACCESS_TOKEN" in printed
    secret = "ghp_" + "x" * 36
    proc = start_like_codex(spec, {"GH_TOK": secret, "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(out.read_text())
    assert seen["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] == secret
    config = (Path(os.environ["CODEX_HOME"]) / "config.toml").read_text()
    assert secret not in config and "GH_TOK" in config


def test_the_launcher_reads_the_hubs_env_file_after_the_environment(tmp_path: Path, capsys) -> None:
    out = tmp_path / "seen.json"
    servers = dump_server(
        out,
        '{API_KEY: "${env:FROM_FILE}", AUTH: "Bearer ${env:FROM_ENV}"}',
        ', "--token=${env:FROM_FILE}"',
    )
    hub = hub_with(tmp_path, servers)
    (hub / ".env").write_text("# secrets\nexport FROM_FILE='file-value-1234'\nFROM_ENV=unused\n")
    (hub / ".env").chmod(0o600)
    apply(capsys, hub, "codex")
    spec = codex_servers()["dump"]
    proc = start_like_codex(spec, {"FROM_ENV": "env-value-5678", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(out.read_text())
    assert seen["env"]["API_KEY"] == "file-value-1234"
    assert seen["env"]["AUTH"] == "Bearer env-value-5678"  # the environment wins over .env
    assert seen["argv"] == [str(out), "--token=file-value-1234"]
    assert "file-value-1234" not in json.dumps(spec)


def test_a_reference_with_no_value_stops_the_launch_with_one_message(
    tmp_path: Path, capsys
) -> None:
    out = tmp_path / "seen.json"
    hub = hub_with(tmp_path, dump_server(out, '{RENAMED: "${env:NOT_SET_ANYWHERE}"}'))
    apply(capsys, hub, "codex")
    proc = start_like_codex(codex_servers()["dump"], {"HOME": str(tmp_path)})
    assert proc.returncode == 2
    assert "NOT_SET_ANYWHERE" in proc.stderr and "Fix:" in proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_secrets_launcher_starts_every_stdio_server_through_the_launcher(
    tmp_path: Path, capsys
) -> None:
    """A host started from a desktop launcher has no shell environment: with `runtime:
    secrets: launcher` the value comes from the hub's .env for every host."""
    out = tmp_path / "seen.json"
    hub = hub_with(
        tmp_path, dump_server(out, '{SAME: "${env:SAME}"}'), "runtime: {secrets: launcher}\n"
    )
    (hub / ".env").write_text("SAME=from-the-env-file\n")
    (hub / ".env").chmod(0o600)
    printed = apply(capsys, hub, "codex,claude,gemini,cursor")
    claude = json.loads((Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json").read_text())
    gemini = json.loads((Path(os.environ["HOME"]) / ".gemini" / "settings.json").read_text())
    cursor = json.loads((Path(os.environ["HOME"]) / ".cursor" / "mcp.json").read_text())
    specs = {
        "codex": codex_servers()["dump"],
        "claude": claude["mcpServers"]["dump"],
        "gemini": gemini["mcpServers"]["dump"],
        "cursor": cursor["mcpServers"]["dump"],
    }
    for host, spec in specs.items():
        assert spec["command"] == str(SCRIPTS / "memhub-launch"), host
        assert "from-the-env-file" not in json.dumps(spec), host
        out.unlink(missing_ok=True)
        proc = start_like_codex(spec, {"HOME": str(tmp_path)})  # no SAME in the environment
        assert proc.returncode == 0, (host, proc.stderr)
        assert json.loads(out.read_text())["env"]["SAME"] == "from-the-env-file", host
    assert printed.count("runtime: secrets: launcher") >= 4


def test_codex_leaves_out_an_http_server_whose_url_holds_a_reference(
    tmp_path: Path, capsys
) -> None:
    hub = hub_with(
        tmp_path,
        "    remote:\n      url: https://mcp.example.com/${env:TENANT}/mcp\n"
        "    bearer:\n      url: https://mcp.example.com/mcp\n"
        '      headers: {Authorization: "Bearer ${env:TOKEN}", X-Team: "${env:TEAM}"}\n',
    )
    printed = apply(capsys, hub, "codex")
    servers = codex_servers()
    assert "remote" not in servers and "URL" in printed
    assert servers["bearer"]["bearer_token_env_var"] == "TOKEN"
    assert servers["bearer"]["env_http_headers"] == {"X-Team": "TEAM"}
    assert "${" not in json.dumps(servers)


def test_the_codex_bundle_ships_the_launcher_and_forwards_names_only(tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    hub = load(hub_with(tmp_path, dump_server(out, '{RENAMED: "${env:ORIGINAL}"}')))
    result = build(hub, ["codex"])
    manifest = json.loads(
        result.artifact("plugins/launch-probe/.codex-plugin/plugin.json").content  # type: ignore[union-attr]
    )
    spec = manifest["mcpServers"]["dump"]
    assert spec["env_vars"] == ["ORIGINAL"]
    assert spec["command"] == "python3"
    # Codex expands no ${PLUGIN_ROOT} there, but starts a relative cwd in the plugin folder.
    assert (spec["args"][:2], spec["cwd"]) == (["-S", "./memhub_runtime/launcher.py"], ".")
    launcher = result.artifact("plugins/launch-probe/memhub_runtime/launcher.py")
    assert launcher is not None
    # The vendored copy runs on its own, stdlib only, as the host starts it.
    root = tmp_path / "plugin"
    (root / "memhub_runtime").mkdir(parents=True)
    (root / "memhub_runtime" / "launcher.py").write_bytes(launcher.content)
    proc = subprocess.run(
        [sys.executable, *spec["args"]],
        cwd=root / spec["cwd"],
        env={"PATH": BARE_PATH, "ORIGINAL": "orig-value-42"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["env"]["RENAMED"] == "orig-value-42"


# Where each host's bundle keeps its MCP servers, and how it names its plugin folder.
BUNDLE_SERVERS = {
    "claude": ("plugins/launch-probe/.mcp.json", "${CLAUDE_PLUGIN_ROOT}"),
    "codex": ("plugins/launch-probe/.codex-plugin/plugin.json", "."),
    "cursor": ("plugins/launch-probe/.cursor-plugin/plugin.json", "${CURSOR_PLUGIN_ROOT}"),
    "gemini": ("gemini/launch-probe/gemini-extension.json", "${extensionPath}"),
}


def test_secrets_launcher_bundles_start_servers_through_the_vendored_launcher(
    tmp_path: Path,
) -> None:
    out = tmp_path / "seen.json"
    hub = load(
        hub_with(
            tmp_path, dump_server(out, '{SAME: "${env:SAME}"}'), "runtime: {secrets: launcher}\n"
        )
    )
    result = build(hub, list(BUNDLE_SERVERS))
    for host, (path, root_ref) in BUNDLE_SERVERS.items():
        manifest = json.loads(result.artifact(path).content)  # type: ignore[union-attr]
        spec = manifest["mcpServers"]["dump"]
        folder = path.split("/")[0] + "/launch-probe"
        launcher = result.artifact(f"{folder}/memhub_runtime/launcher.py")
        assert launcher is not None, host
        assert spec["args"][:2] == ["-S", f"{root_ref}/memhub_runtime/launcher.py"], host
        root = tmp_path / host
        (root / "memhub_runtime").mkdir(parents=True)
        (root / "memhub_runtime" / "launcher.py").write_bytes(launcher.content)
        out.unlink(missing_ok=True)
        relative = root_ref == "."  # started in the plugin folder (Codex)
        proc = subprocess.run(
            [
                sys.executable,
                *(a if relative else a.replace(root_ref, str(root)) for a in spec["args"]),
            ],
            cwd=root / spec["cwd"] if relative else None,
            env={"PATH": BARE_PATH, "SAME": f"{host}-value"},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 0, (host, proc.stderr)
        assert json.loads(out.read_text())["env"]["SAME"] == f"{host}-value", host


def test_a_bundle_with_no_launched_server_ships_no_launcher(tmp_path: Path) -> None:
    # python3 is also the command a bundle starts its launcher with: not a launched server.
    server = '    plain:\n      command: python3\n      env: {SAME: "${env:SAME}"}\n'
    result = build(load(hub_with(tmp_path, server)), list(BUNDLE_SERVERS))
    assert not [a.path for a in result.artifacts if a.path.endswith("/launcher.py")]


def test_import_reads_a_launched_server_back_as_the_hub_wrote_it(tmp_path: Path, capsys) -> None:
    """A launched entry memhub does not own (another machine's, or a lost state.json) comes
    back from `memhub import` as the original server, not as a call of the launcher."""
    import shutil

    import yaml

    hub = hub_with(
        tmp_path,
        "    gh:\n      command: npx\n      args: [server-github, '--org=${env:GH_ORG}']\n"
        '      env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${env:GH_TOK}", LEVEL: debug}\n',
    )
    apply(capsys, hub, "codex")
    shutil.rmtree(Path(os.environ["MEMHUB_HOME"]))  # memhub no longer owns the entry
    into = tmp_path / "imported"
    code = main(["import", "--hosts", "codex", "--into", str(into), "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    server = yaml.safe_load((into / "hub.yaml").read_text())["mcp"]["servers"]["gh"]
    assert server == {
        "command": "npx",
        "args": ["server-github", "--org=${env:GH_ORG}"],
        "env": {"LEVEL": "debug", "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GH_TOK}"},
    }
