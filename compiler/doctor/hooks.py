"""Hook checks: each owned hook where the host reads it, switched on, trusted, runnable."""

from __future__ import annotations

from typing import Any

from memhub.compiler.doctor.commands import check_command
from memhub.compiler.doctor.documents import at
from memhub.compiler.doctor.places import places
from memhub.compiler.doctor.records import COMMAND, HOOKS_ON, LOCATION, TRUST, Run
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.entries import value_digest

TRUST_FIX = "open codex, run /hooks and trust it (only memhub's handlers, never 'Trust all')"


def handlers_of(item: Any) -> list[dict[str, Any]]:
    """The handlers of one owned hook: a group's `hooks` (Claude style), or the item itself."""
    if isinstance(item, dict) and isinstance(item.get("hooks"), list):
        return [h for h in item["hooks"] if isinstance(h, dict)]
    return [item] if isinstance(item, dict) else []


def check_hook(run: Run, host: str, target: str, path: tuple[str, ...], digest: str) -> None:
    """One owned hook group, found by content: its event, switches, trust and commands."""
    module = INSTALLERS[host]
    items = at(run.docs.read(target), path)
    items = items if isinstance(items, list) else []
    index = next((i for i, item in enumerate(items) if value_digest(item) == digest), None)
    if index is None:
        return
    item = items[index]
    event = path[-1]
    events = {s.host_event for s in module.EVENTS.values() if s.host_event}
    events |= set(module.NATIVE_EVENTS)  # hooks bound to a host's own event (`event: {host: ...}`)
    if len(path) != 2 or event not in events:
        run.add(
            host,
            LOCATION,
            "fail",
            target,
            f"{'/'.join(path)}: {module.title} reads hooks at hooks/<event>, events "
            f"{', '.join(sorted(events))}",
            "`memhub apply` writes the hook where the host reads it",
        )
    read = run.docs.read
    switches = module.hook_switches
    reason = switches.one_off(run.scope, item, read) if isinstance(item, dict) else None
    if reason:
        run.add(
            host,
            HOOKS_ON,
            "fail",
            target,
            f"{event} hook switched off: {reason}",
            "remove it from that list",
        )
    if switches.trust is not None and isinstance(item, dict):
        for key, status in switches.trust(run.scope, target, event, index, item, read):
            trust_check(run, host, target, event, key, status)
    for handler in handlers_of(item):
        command = handler.get("command")
        if not isinstance(command, str):
            continue
        status, detail, fix = check_command(command, run.env)
        run.add(host, COMMAND, status, target, f"{event}: {detail}", fix)


def trust_check(run: Run, host: str, target: str, event: str, key: str, status: str) -> None:
    if status == "trusted":
        run.add(host, TRUST, "ok", target, f"{event} hook trusted ({key})")
        return
    detail = {
        "untrusted": "is not trusted: Codex skips it until it is",
        "modified": "changed since it was trusted: Codex skips it until it is trusted again",
        "disabled": "is turned off in /hooks (enabled = false)",
    }.get(status, f"has trust status {status}")
    fix = "open codex, run /hooks and turn it on" if status == "disabled" else TRUST_FIX
    run.add(host, TRUST, "fail", target, f"{event} hook {detail} ({key})", fix)


def check_hooks_on(run: Run, host: str) -> None:
    """The settings that turn all of a host's hooks off, and hook files it would not read."""
    module = INSTALLERS[host]
    switches = module.hook_switches
    reasons = switches.all_off(run.scope, run.docs.read)
    for reason in reasons:
        file, _, what = reason.partition(": ")
        run.add(
            host,
            HOOKS_ON,
            "fail",
            file,
            f"{what}: {module.title} runs none of its hooks",
            "remove that setting to let hooks run",
        )
    found = False
    for file in sorted(places(host, run.scope).hook_files):
        data = run.docs.read(file)
        for problem in switches.file_problems(data) if data is not None else []:
            found = True
            run.add(host, HOOKS_ON, "fail", file, problem, "`memhub apply` sets it again")
    if not reasons and not found:
        run.add(host, HOOKS_ON, "ok", "", "no setting turns hooks off")
