"""compiler/digest.py is the one place each kind of content digest is computed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from memhub.compiler import digest
from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.codex import hook_trust_hash

COMPILER = Path(digest.__file__).parent
# Where file, tree and value digests were computed by hand before; none may import hashlib.
# (install/ keeps digests of other kinds: no-op memo keys, an HMAC, the hub revision.)
NO_HASHLIB = ["plan.py", "artifact.py", "hosts", "safewrite", "cli", "install/entries.py"]


def test_each_kind_has_one_stable_value() -> None:
    assert digest.file_digest(None) == digest.ABSENT
    assert digest.file_digest(b"x") == "sha256:" + hashlib.sha256(b"x").hexdigest()
    assert digest.value_digest({"b": 1, "a": "é"}) == (
        "sha256:" + hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()
    )
    tree = {"SKILL.md": (b"body", 0o644), "run.sh": (b"#!", 0o755)}
    assert digest.tree_digest(tree) == digest.tree_digest({**tree, "SKILL.md": (b"body", 0o600)})
    value = digest.skill_tree_value([("SKILL.md", b"body", 0o644)])
    assert value == {"SKILL.md": [hashlib.sha256(b"body").hexdigest(), 0o644]}
    assert digest.digest_hex(digest.file_digest(b"x")) == digest.bytes_hex(b"x")
    assert Artifact("a.txt", b"x").fingerprint == digest.file_digest(b"x")


def test_codex_trusted_hash_is_the_canonical_json_value_digest() -> None:
    handler = {"command": "memhub-hook run", "timeout": 5}
    identity = {
        "event_name": "pre_tool_use",
        "hooks": [{"type": "command", "command": "memhub-hook run", "timeout": 5, "async": False}],
        "matcher": "Bash",
    }
    canonical = json_canonical(identity)
    expected = "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert hook_trust_hash("PreToolUse", "Bash", handler) == expected


def json_canonical(value: object) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_no_module_computes_a_content_digest_of_its_own() -> None:
    by_hand = []
    for path in COMPILER.rglob("*.py"):
        rel = path.relative_to(COMPILER).as_posix()
        text = path.read_text("utf-8")
        if rel != "digest.py" and re.search(r"[\"']sha256:[\"'] \+ hashlib", text):
            by_hand.append(rel)
        if any(rel == n or rel.startswith(n + "/") for n in NO_HASHLIB) and "hashlib" in text:
            by_hand.append(rel)
    assert by_hand == []
