"""Redaction corpus: no key, home path, e-mail or command-line credential survives."""

from __future__ import annotations

import pytest
from memhub.runtime.capture.redact import redact, redact_text

SECRET = "s3cr3tV4lue9"  # every secret below contains this, so one check covers them all

LEAKS = [
    # MemHub-style keys and other token shapes
    f"key mhk_{SECRET}abcdefgh in the text",
    f"old key xtk_{SECRET}zzzzzz",
    f"sk-ant-api03-{SECRET}abcdef",
    f"OPENAI sk-{SECRET}abcdefghijkl",
    f"ghp_{SECRET}abcdefghijklmnop",
    f"github_pat_{SECRET}abcdefghijklmnop",
    f"xoxb-{SECRET}-123456",
    f"glpat-{SECRET}abcdefgh",
    f"token eyJhbGciOiJIUzI1.eyJzdWIiOiIx{SECRET}.sig{SECRET}abc",
    # command lines, unquoted and quoted
    f"mytool --token {SECRET} --verbose",
    f"mytool --token={SECRET}",
    f'mytool --password "{SECRET} with spaces"',
    f"mytool --password='{SECRET}'",
    f"deploy --api-key {SECRET}",
    f"deploy --api_key={SECRET}",
    f"oauth --client-secret {SECRET}",
    f"mysql --db-pass {SECRET}",
    f"curl -H 'Authorization: Bearer {SECRET}' https://api.example.com",
    f'curl -H "Authorization: Basic {SECRET}" https://api.example.com',
    f"curl -H 'X-Api-Key: {SECRET}' https://api.example.com",
    f"Authorization: token {SECRET}",
    f"bearer {SECRET}abcd",
    f"curl -u alice:{SECRET} https://api.example.com",
    f"curl --user 'alice:{SECRET}' https://api.example.com",
    f"git clone https://alice:{SECRET}@github.com/org/repo.git",
    f"postgres://app:{SECRET}@db.internal:5432/app",
    f"export GITHUB_TOKEN={SECRET}",
    f"export MY_API_KEY='{SECRET} x'",
    f'export DB_PASSWORD="{SECRET}"',
    f"AWS_SECRET_ACCESS_KEY={SECRET} aws s3 ls",
    f"NPM_AUTH_TOKEN={SECRET} npm publish",
    f'{{"password": "{SECRET}"}}',
    f"api_key: '{SECRET}'",
    f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl{SECRET}\n-----END OPENSSH PRIVATE KEY-----",
    f"bash -lc \"curl -H 'Authorization: Bearer {SECRET}' x\"",
]


@pytest.mark.parametrize("text", LEAKS)
def test_no_credential_survives(text: str) -> None:
    out = redact_text(text)
    assert SECRET not in out, out
    assert "<redacted>" in out


def test_aws_access_key_id() -> None:
    assert redact_text("id AKIAIOSFODNN7EXAMPLE here") == "id <redacted> here"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("mhk_abcdefghijklmnop", "mhk_<redacted>"),
        ("mytool --token abc123", "mytool --token <redacted>"),
        ("mytool --password 'a b'", "mytool --password '<redacted>'"),
        ("curl -u bob:pw https://x", "curl -u bob:<redacted> https://x"),
        ("https://bob:pw@h.example/p", "https://bob:<redacted>@h.example/p"),
        ("export GH_TOKEN=abc", "export GH_TOKEN=<redacted>"),
    ],
)
def test_what_remains_still_reads(text: str, kept: str) -> None:
    assert redact_text(text) == kept


HOME_PATHS = [
    "/home/alice/project/main.py",
    "/Users/alice/Library/x",
    "C:\\Users\\alice\\AppData\\y",
    "C:/Users/alice/code",
    "/root/.ssh/id_ed25519",
    "cd /home/alice && ls",
    "in '/home/alice/.claude/projects/-home-alice-proj/s.jsonl'",
]


@pytest.mark.parametrize("text", HOME_PATHS)
def test_no_home_path_survives(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/alice")
    out = redact_text(text)
    assert "alice" not in out and "/root" not in out, out
    assert "~" in out


def test_the_current_home_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/srv/people/carol")
    out = redact_text("opened /srv/people/carol/notes.md and -srv-people-carol-repo")
    assert "carol" not in out
    assert out == "opened ~/notes.md and -~-repo"


EMAILS = [
    "mail alice@example.com",
    "Author: Bob Smith <bob.smith+ci@corp.co.uk>",
    "first.last@sub.domain.org, x_y@a-b.io",
]


@pytest.mark.parametrize("text", EMAILS)
def test_no_email_survives(text: str) -> None:
    out = redact_text(text)
    assert "@" not in out.replace("<email>", ""), out


NORMAL = [
    "The token count is 12; use --verbose for details.",
    "def login(token=token):\n    return client.get(url, headers=headers)",
    "MAX_TOKENS=100 python run.py --bypass-cache",
    "docker login --password-stdin < pass.txt",
    "docker run -u 1000:1000 image:latest",
    "git clone git@github.com:org/repo.git",
    "npm i @types/node lodash@4.17.21",
    "ratio 3:4, range a-b, path /usr/local/bin/python3, ./src/app.py",
    "See https://example.com/docs?page=2#auth for the authentication guide.",
    "SELECT * FROM users WHERE id = 3;",
    '{"max_tokens": 1024, "model": "claude"}',
    "password reset flow: the user gets a link",
    "x = {'a': 1}; y = x['a'] * 2",
    "/workspace/home/readme.md and /opt/Users-guide.txt",
]


@pytest.mark.parametrize("text", NORMAL)
def test_normal_text_is_not_mangled(text: str) -> None:
    assert redact_text(text) == text


def test_nested_data_keys_and_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/alice")
    data = {
        "type": "record",
        "raw": {
            "cwd": "/home/alice/repo",
            "message": {
                "content": [
                    {"type": "tool_use", "input": {"command": "curl -u a:b https://x"}},
                    {"type": "text", "text": "mail me at alice@example.com"},
                ]
            },
            "/home/alice/file": 3,
            "usage": {"input_tokens": 5},
        },
        "ok": True,
        "n": None,
    }
    out = redact(data)
    flat = repr(out)
    assert "alice" not in flat and "a:b" not in flat
    assert out["raw"]["usage"] == {"input_tokens": 5}
    assert out["ok"] is True and out["n"] is None
    assert data["raw"]["cwd"] == "/home/alice/repo"  # the input is not modified
