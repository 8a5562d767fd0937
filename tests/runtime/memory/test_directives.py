"""directives: trigger matching, the precision gate, boundaries, caps and ordering."""

from __future__ import annotations

import pytest
from memhub.runtime.memory.directives import (
    GENERIC,
    Call,
    Directive,
    blocked,
    call_of,
    match,
    select,
    trigger_key,
)

STOP = blocked(account="jane.doe", repo="acme-billing")


def lesson(
    rid: str, title: str = "", kind: str = "lesson", seen: int = 1, **triggers: object
) -> Directive:
    return Directive(
        rid, kind, title or f"title of {rid}", "", triggers, "2026-03-04T05:06:07Z", seen
    )  # type: ignore[arg-type]


# realistic directives, as a team's memory holds them
MIGRATIONS = lesson(
    "r-migrations",
    "Never edit an applied Alembic migration; add a new revision",
    paths=("alembic/versions/*.py",),
    commands=("alembic upgrade", "alembic downgrade"),
)
SETTINGS = lesson(
    "r-settings", "Settings are loaded once: restart the worker", paths=("billing/settings.py",)
)
PUSH = lesson("r-push", "Run `make check` before pushing", kind="procedure", commands=("git push",))
DEPLOY = lesson("r-deploy", "Deploys go through `make deploy ENV=…`", commands=("kubectl apply",))
LEDGER = lesson("r-ledger", "LedgerEntry amounts are integer cents", identifiers=("LedgerEntry",))
PGERR = lesson(
    "r-pg", "The test database needs `make db-up`", errors=("could not connect to server",)
)
ALL = [MIGRATIONS, SETTINGS, PUSH, DEPLOY, LEDGER, PGERR]


def fired(call: Call, directives: list[Directive] = ALL, **kw: object) -> list[str]:
    return [h.directive.id for h in select(directives, call, STOP, **kw)]  # type: ignore[arg-type]


def edit(path: str) -> Call:
    return call_of({"file_path": path, "old_string": "x", "new_string": "y"})


def shell(command: str, output: str | None = None) -> Call:
    return call_of({"command": command, "description": "run"}, output)


def test_path_globs_match_trailing_parts_of_the_edited_file() -> None:
    assert fired(edit("/home/jane/acme/alembic/versions/0042_add_refunds.py")) == ["r-migrations"]
    assert fired(edit("C:\\src\\acme\\alembic\\versions\\0042.py")) == ["r-migrations"]
    assert fired(edit("/home/jane/acme/alembic/env.py")) == []
    # a command's path-like words count as paths too
    assert fired(shell("rm alembic/versions/0042_add_refunds.py")) == ["r-migrations"]


def test_literal_paths_match_themselves_their_basename_or_stem_on_boundaries() -> None:
    assert fired(edit("/srv/acme/billing/settings.py")) == ["r-settings"]
    assert fired(edit("/srv/acme/other/settings.py")) == ["r-settings"]  # basename
    # the stem fires on boundaries (`_` is one), as the published plugin's gate does
    assert fired(edit("/srv/acme/billing/settings_test.py")) == ["r-settings"]
    assert fired(edit("/srv/acme/billing/settingsx.py")) == []
    assert fired(edit("/srv/acme/billing/oldsettings.py")) == []
    assert fired(shell("sed -i s/a/b/ billing/settings.py")) == ["r-settings"]


def test_commands_match_a_command_the_shell_runs() -> None:
    assert fired(shell("git push -f origin main")) == ["r-push"]
    assert fired(shell("cd repo && GIT_TRACE=1 git  push")) == ["r-push"]
    assert fired(shell("sudo kubectl apply -f deploy.yaml")) == ["r-deploy"]
    assert fired(shell("echo git push")) == []  # a mention is not a run
    assert fired(shell("git commit -m 'then git push'")) == []  # quoted text
    assert fired(shell("git pushy")) == []
    assert fired(shell("cat <<EOF > notes.md\ngit push\nEOF")) == []  # heredoc body


def test_identifiers_match_in_any_handle_on_alphanumeric_boundaries() -> None:
    assert fired(shell("grep -rn LedgerEntry billing/")) == ["r-ledger"]
    assert fired(edit("/srv/acme/billing/ledgerentry.py")) == ["r-ledger"]  # case-folded
    assert fired(shell("grep -rn LedgerEntryV2 billing/")) == []
    assert fired(shell("grep -rn OldLedgerEntry billing/")) == []
    assert fired(shell("grep -rn ledger_entry_id billing/")) == []


def test_errors_match_only_the_failing_output() -> None:
    output = "psycopg2.OperationalError: could not connect to server: Connection refused\n"
    assert fired(shell("pytest -q", output)) == ["r-pg"]
    assert fired(shell("pytest -q")) == []
    assert fired(shell("echo 'could not connect to server'")) == []  # the command is not output
    # only the output's tail counts: an old error far above the end is not the failure
    assert fired(shell("pytest", output + "x" * 2000)) == []


@pytest.mark.parametrize("word", sorted(GENERIC))
def test_generic_filler_never_fires(word: str) -> None:
    d = lesson("r-x", identifiers=(word,), paths=(word,), commands=(word,), errors=(word,))
    call = shell(f"{word} --x {word}/{word}.py", output=f"{word}: {word}")
    assert select([d], call, STOP) == []


def test_account_and_repo_names_and_their_parts_never_fire() -> None:
    for name in ("jane.doe", "acme-billing", "billing", "acme"):
        d = lesson("r-x", identifiers=(name,), paths=(name,))
        call = edit(f"/home/jane.doe/acme-billing/billing/{name}")
        assert select([d], call, STOP) == [], name
    # parts shorter than four characters are not blocked on their own; too short to fire anyway
    assert "doe" not in STOP and "jane" in STOP
    # a longer trigger holding a blocked name still fires
    d = lesson("r-y", identifiers=("acme_billing_client",))
    assert [h.directive.id for h in select([d], shell("grep acme_billing_client ."), STOP)] == [
        "r-y"
    ]


def test_short_triggers_and_bare_extension_globs_never_fire() -> None:
    d = lesson("r-x", commands=("git",), identifiers=("id",), paths=("*.py", "**/*.ts"))
    assert select([d], shell("git status && vim a.py b/c.ts --id 3"), STOP) == []
    assert match(lesson("r-y", paths=("**/*.lock",)), edit("/r/uv.lock"), STOP) is not None


def test_at_most_two_longer_matches_first_then_seen_then_id() -> None:
    short = lesson("r-a", identifiers=("refund",))
    longer = lesson("r-b", identifiers=("refund_policy",))
    longest = lesson("r-c", paths=("billing/refund_policy.py",))
    also = lesson("r-d", identifiers=("refund",), seen=5)
    call = edit("/srv/billing/refund_policy.py")
    assert fired(call, [short, longer, longest, also]) == ["r-c", "r-b"]
    assert fired(call, [short, also]) == ["r-d", "r-a"]  # equal length: more often seen first
    assert fired(call, [lesson("r-z", identifiers=("refund",)), short]) == ["r-a", "r-z"]
    assert fired(call, [short, longer, longest], limit=5) == ["r-c", "r-b", "r-a"]


def test_a_directive_fires_once_and_records_its_longest_trigger() -> None:
    d = lesson("r-a", identifiers=("refund",), paths=("billing/refund_policy.py",))
    hit = match(d, edit("/srv/billing/refund_policy.py"), STOP)
    assert hit is not None and hit.trigger == "billing/refund_policy.py"
    assert fired(edit("/srv/billing/refund_policy.py"), [d], already_fired=["r-a"]) == []
    assert fired(edit("/srv/billing/refund_policy.py"), [d, d]) == [
        "r-a",
        "r-a",
    ]  # caller dedups ids


def test_no_triggers_never_fire_and_codex_argv_commands_are_read() -> None:
    assert fired(shell("git push"), [lesson("r-none")]) == []
    call = call_of({"command": ["bash", "-lc", "git push origin HEAD"]})
    assert fired(call) == ["r-push"]


@pytest.mark.parametrize(
    ("kind", "trigger", "text"),
    [
        ("paths", "alembic/versions/*.py", "/r/alembic/versions/0042.py"),
        ("paths", "src/**/*.py", "/r/src/a.py"),
        ("paths", "Dockerfile*", "/r/dockerfile.prod"),
        ("paths", "billing/settings.py", "/r/other/settings.py"),
        ("paths", ".env.local", "/r/.env.local"),
        ("commands", "alembic  upgrade", "alembic upgrade head"),
        ("identifiers", "LedgerEntry", "grep ledgerentry"),
        ("errors", "ModuleNotFoundError", "modulenotfounderror: x"),
    ],
)
def test_trigger_keys_are_in_every_call_they_fire_for(kind: str, trigger: str, text: str) -> None:
    key = trigger_key(kind, trigger)
    assert key and key in text.lower()
