"""One literal-credential corpus (tests/data/credentials.yaml), run through every consumer of
the one detector: `credentials.find`, the runtime redactor, the hub loader (`memhub
validate`), `memhub import` and apply's value check. All four must agree on every case:
each secret is found, and no negative case (references, placeholders, ordinary flags and
URLs) is flagged anywhere.
"""

from __future__ import annotations

import json
import os
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import tomlkit
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.install.secrets import SecretLeakError, refuse_leaks
from memhub.hubspec import HubError, load
from memhub.runtime import credentials
from memhub.runtime.capture.redact import redact_text

from tests.hubs import REPO

CORPUS = REPO / "tests" / "data" / "credentials.yaml"
WHERE = {"text", "config", "command", "args", "env", "header", "url"}


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    # `%%` splits each secret in the file so that it holds no token-shaped literal.
    return tuple(yaml.safe_load(CORPUS.read_text("utf-8").replace("%%", ""))["cases"])


def positives() -> list[dict[str, Any]]:
    return [c for c in corpus() if "secret" in c]


def negatives() -> list[dict[str, Any]]:
    return [c for c in corpus() if "secret" not in c]


def as_text(case: dict[str, Any]) -> str:
    """The case as one line of text, as a transcript would show it."""
    if case["where"] == "args":
        return " ".join(case["args"])
    if case["where"] == "env":
        return f"{case['key']}={case['value']}"
    if case["where"] == "header":
        return f"{case['key']}: {case['value']}"
    return case["text"]


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for c in cases]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- the corpus itself ------------------------------------------------------------------------


def test_the_corpus_is_one_shared_corpus_of_at_least_150_cases() -> None:
    cases = corpus()
    assert len(cases) >= 150
    assert len(negatives()) >= 40, "negatives keep validate from rejecting honest hubs"
    assert len(set(ids(list(cases)))) == len(cases), "ids are unique"
    for case in cases:
        assert case["where"] in WHERE, case["id"]
        if "secret" in case:
            assert case["secret"] in as_text(case), case["id"]
    assert "%%" not in CORPUS.read_text().replace("%%", ""), "only the splitting marker"


def test_the_corpus_file_holds_no_token_shaped_literal() -> None:
    raw = CORPUS.read_text("utf-8")
    kinds = {f.kind for f in credentials.find(raw)}
    assert not [k for k in kinds if k.endswith(" token") and k != "bearer token"], kinds


# -- the detector and the redactor ------------------------------------------------------------


@pytest.mark.parametrize("case", positives(), ids=ids(positives()))
def test_the_detector_finds_each_secret(case: dict[str, Any]) -> None:
    text = as_text(case)
    found = credentials.find(text)
    assert case["secret"] not in credentials.replace(text, found, "#"), found
    if case["where"] in ("env", "header"):
        assert credentials.literal_for_key(case["key"], case["value"])


@pytest.mark.parametrize("case", positives(), ids=ids(positives()))
def test_the_redactor_removes_each_secret(case: dict[str, Any]) -> None:
    out = redact_text(as_text(case))
    assert case["secret"] not in out, out
    assert "<redacted>" in out
    assert redact_text(out) == out, "redaction is idempotent"


@pytest.mark.parametrize("case", negatives(), ids=ids(negatives()))
def test_no_negative_is_flagged_or_redacted(case: dict[str, Any]) -> None:
    text = as_text(case)
    assert credentials.find(text) == []
    assert redact_text(text) == text
    if case["where"] in ("env", "header"):
        assert credentials.literal_for_key(case["key"], case["value"]) is None


# -- the hub loader ---------------------------------------------------------------------------

HUB_HEAD = {
    "version": 1,
    "plugin": {"name": "corpus", "version": "0.1.0", "description": "credential corpus"},
    "marketplace": {"name": "m", "owner": {"name": "o"}},
}


def place(cases: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    """A hub holding each case where it appears (a hook command for text), and the key
    path each case's problem must name."""
    servers: dict[str, Any] = {}
    hooks: list[dict[str, Any]] = []
    paths: dict[str, str] = {}
    for index, case in enumerate(cases):
        name = f"c{index}"
        where = case["where"]
        if where == "args":
            servers[name] = {"command": "tool", "args": case["args"]}
            paths[case["id"]] = f"mcp.servers.{name}.args["
        elif where == "env":
            servers[name] = {"command": "tool", "env": {case["key"]: case["value"]}}
            paths[case["id"]] = f"mcp.servers.{name}.env.{case['key']}"
        elif where == "header":
            servers[name] = {
                "url": "https://mcp.example.com/mcp",
                "headers": {case["key"]: case["value"]},
            }
            paths[case["id"]] = f"mcp.servers.{name}.headers.{case['key']}"
        elif where == "url" and case["text"].startswith("http"):
            servers[name] = {"url": case["text"]}
            paths[case["id"]] = f"mcp.servers.{name}.url"
        else:
            paths[case["id"]] = f"hooks[{len(hooks)}].command"
            hooks.append({"id": name, "event": "turn_end", "command": case["text"]})
    hub = {**HUB_HEAD, "mcp": {"servers": servers}, "hooks": hooks}
    return hub, paths


def write_hub(root: Path, data: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hub.yaml").write_text(yaml.safe_dump(data, sort_keys=False, width=1000))
    return root


def test_validate_flags_every_positive_where_it_is(tmp_path: Path) -> None:
    data, paths = place(positives())
    root = write_hub(tmp_path / "hub", data)
    with pytest.raises(HubError) as caught:
        load(root)
    shown = [str(p) for p in caught.value.problems]
    missed = [i for i, path in paths.items() if not any(f": {path}" in s for s in shown)]
    assert missed == []
    hub_file = str(root / "hub.yaml")
    for line in shown:
        position, _, rest = line.partition(": ")
        assert position.startswith(hub_file + ":") and position.count(":") >= 2, line
        assert "Fix:" in rest
    secrets = [c["secret"] for c in positives() if len(c["secret"]) >= 6]  # not `x`
    assert not [s for s in secrets if any(s in line for line in shown)], "no value in a message"


def test_validate_accepts_every_negative(tmp_path: Path) -> None:
    data, _ = place(negatives())
    load(write_hub(tmp_path / "hub", data))


def test_validate_cli_refuses_a_literal_in_overrides_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_" + "Qw3rTy7uI9oP" * 3
    data = {
        **HUB_HEAD,
        "mcp": {"servers": {"gh": {"url": "https://mcp.example.com/mcp"}}},
        "overrides": {
            "claude": {"mcp_servers": {"gh": {"headers": {"X-Token": token}}}},
            "codex": {"mcp_servers": {"gh": {"bearer_token": "s3cr3t-b3arer-value"}}},
            "cursor": {"mcp_servers": {"gh": {"args": ["--api-key", "k3y-v4lue-2024"]}}},
        },
    }
    root = write_hub(tmp_path / "hub", data)
    before = sorted(p.name for p in root.iterdir())
    code, out, err = run(capsys, "validate", str(root))
    assert code == 2
    assert "Traceback" not in err and token not in out + err
    assert "overrides.claude.mcp_servers.gh.headers.X-Token" in err
    assert "overrides.codex.mcp_servers.gh.bearer_token" in err
    assert "overrides.cursor.mcp_servers.gh.args[1]" in err
    assert f"{root / 'hub.yaml'}:" in err and "${env:" in err
    assert sorted(p.name for p in root.iterdir()) == before


def test_references_in_overrides_stay_valid(tmp_path: Path) -> None:
    data = {
        **HUB_HEAD,
        "mcp": {"servers": {"gh": {"url": "https://mcp.example.com/mcp"}}},
        "overrides": {
            "codex": {
                "mcp_servers": {
                    "gh": {
                        "bearer_token_env_var": "GH_TOKEN",
                        "env_http_headers": {"X-Api-Key": "GH_API_KEY"},
                        "startup_timeout_sec": 20,
                    }
                }
            }
        },
    }
    load(write_hub(tmp_path / "hub", data))


# -- memhub import ----------------------------------------------------------------------------

IMPORTABLE = ("args", "env", "header", "url", "command")


def claude_server(case: dict[str, Any]) -> dict[str, Any]:
    """The case as a person wrote it in ~/.claude.json (Claude's `${NAME}` references)."""

    def host(text: str) -> str:
        return text.replace("${env:", "${")

    where = case["where"]
    if where == "args":
        return {"command": "tool", "args": [host(a) for a in case["args"]]}
    if where == "env":
        return {"command": "tool", "env": {case["key"]: host(case["value"])}}
    if where == "header":
        return {
            "type": "http",
            "url": "https://mcp.example.com/mcp",
            "headers": {case["key"]: host(case["value"])},
        }
    if where == "url" and case["text"].startswith("http"):
        return {"type": "http", "url": host(case["text"])}
    return {"command": "bash", "args": ["-c", host(case["text"])]}


def hub_form(case: dict[str, Any]) -> dict[str, Any]:
    """What import must write for a negative case: the same server, unchanged."""
    server = claude_server(case)
    text = json.dumps({k: v for k, v in server.items() if k != "type"})
    text = text.replace("${", "${env:")
    spec = json.loads(text)
    if server.get("type") == "http":
        spec = {"url": spec.pop("url"), **spec}
    return spec


def test_import_moves_every_positive_to_env_and_keeps_every_negative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [c for c in corpus() if c["where"] in IMPORTABLE]
    servers = {f"c{i}": claude_server(c) for i, c in enumerate(cases)}
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"])
    folder.mkdir(parents=True)
    (folder / ".claude.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    into = tmp_path / "imported"
    code, out, err = run(capsys, "import", "--hosts", "claude", "--into", str(into), "--yes")
    assert code == 0, err
    hub_text = (into / "hub.yaml").read_text()
    env_text = (into / ".env").read_text()
    secrets = [c["secret"] for c in cases if "secret" in c]
    leaked = [c["id"] for c in cases if "secret" in c and c["secret"] in hub_text + out + err]
    assert leaked == []
    kept = [s for s in secrets if s in env_text]
    assert len(kept) >= len(secrets) - 1, "only the URL password goes as a Basic header"
    imported = yaml.safe_load(hub_text)["mcp"]["servers"]
    for index, case in enumerate(cases):
        if "secret" not in case:
            assert imported[f"c{index}"] == hub_form(case), case["id"]
    code, _, err = run(capsys, "validate", str(into))
    assert code == 0, err


# -- apply's value check ----------------------------------------------------------------------


def host_documents(case: dict[str, Any]) -> dict[str, bytes]:
    """The case as memhub would write it into a JSON and a TOML host file."""
    server = claude_server(case)
    if case["where"] in ("text", "config", "command"):
        server = {"command": case["text"]}  # one string, as a hook command is written
    return {
        ".claude.json": json.dumps({"mcpServers": {"s": server}}, indent=2).encode(),
        "config.toml": tomlkit.dumps({"mcp_servers": {"s": server}}).encode(),
    }


@pytest.mark.parametrize("case", positives(), ids=ids(positives()))
def test_apply_refuses_writing_each_positive(case: dict[str, Any]) -> None:
    for target, after in host_documents(case).items():
        with pytest.raises(SecretLeakError) as caught:
            refuse_leaks([(target, None, after)], {})
        if len(case["secret"]) >= 6:  # not `x`
            assert case["secret"] not in str(caught.value)


@pytest.mark.parametrize("case", negatives(), ids=ids(negatives()))
def test_apply_writes_each_negative(case: dict[str, Any]) -> None:
    for target, after in host_documents(case).items():
        refuse_leaks([(target, None, after)], {})


def test_apply_keeps_a_credential_the_person_wrote_themselves() -> None:
    case = positives()[0]
    (target, after), *_ = host_documents(case).items()
    refuse_leaks([(target, after, after + b"\n")], {})


@pytest.mark.parametrize("value", ['pa"ss-w0rd-2024', "C:\\keys\\k3y-2024", 'q\\"x\\y-2024'])
def test_apply_value_check_compares_decoded_strings(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A .env value with `"` or `\\` is written escaped; the check still sees it."""
    hub = tmp_path / "hub"
    shutil.copytree(REPO / "tests" / "data" / "install", hub)
    (hub / ".env").write_text(f"PROBE_TOKEN='{value}'\n")
    text = (hub / "hub.yaml").read_text()
    note = json.dumps(value)
    text += f"overrides:\n  claude:\n    mcp_servers:\n      probe-stdio: {{note: {note}}}\n"
    (hub / "hub.yaml").write_text(text)
    home = Path(os.environ["HOME"])
    before = sorted(p for p in home.rglob("*") if ".memhub" not in p.parts)
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2, out + err
    assert "the write would contain the value of ${env:PROBE_TOKEN}" in err
    assert value not in out + err and "Traceback" not in err
    assert sorted(p for p in home.rglob("*") if ".memhub" not in p.parts) == before


def test_apply_takes_a_variable_name_under_an_env_key_for_a_name() -> None:
    """Codex's `env_http_headers` maps a header to the variable that holds its value."""
    after = b'[mcp_servers.s]\nenv_http_headers = { "X-Api-Key" = "NOTION_KEY" }\n'
    refuse_leaks([("config.toml", None, after)], {})
    with pytest.raises(SecretLeakError):
        refuse_leaks([("config.toml", None, after.replace(b"env_http_", b"http_"))], {})


# -- the no-op memo ---------------------------------------------------------------------------


def unkeyed_guess(names: list[str], value: str) -> str:
    """What an offline guesser computes for a candidate secret value (no .env here)."""
    import hashlib

    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0{value}\n".encode())
    return digest.hexdigest()


def test_the_no_op_memo_holds_no_guessable_digest_of_secret_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhub.hubspec import statsig

    monkeypatch.setattr(statsig, "RACY_NS", 0)  # everything here was written a moment ago
    weak = "hunter2-weak"
    monkeypatch.setenv("PROBE_TOKEN", weak)
    hub = tmp_path / "hub"
    shutil.copytree(REPO / "tests" / "data" / "install", hub)
    for _ in range(2):
        code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
        assert code == 0, err
    memo_dir = Path(os.environ["MEMHUB_HOME"]) / "cache" / "noop"
    memos = [json.loads(p.read_text()) for p in memo_dir.glob("*.json")]
    assert memos, "the no-op was remembered"
    for memo in memos:
        assert weak not in json.dumps(memo)
        for guess in ("password", "hunter2", weak):
            assert memo["secrets"] != unkeyed_guess(memo["names"], guess)
    key = memo_dir / "key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert len(key.read_bytes()) == 32
    replay = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert replay[0] == 0 and "unchanged" in replay[1], "the memo still works"
