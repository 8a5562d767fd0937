"""The host-loader check: each host whose CLI is on PATH loads its own config."""

from __future__ import annotations

from memhub.compiler.doctor.hostcli import Answer, ask, host_executable, shown
from memhub.compiler.doctor.records import LOADER, Run
from memhub.compiler.hosts import INSTALLERS


def check_loader(run: Run, host: str) -> None:
    """Ask the host's own CLI to load its config: the only oracle for what it accepts."""
    loader = INSTALLERS[host].loader
    exe = host_executable(host, run.env) if loader else None
    if loader is None or exe is None:
        return  # no loader, or not installed here: nothing to ask, and not a failure
    said = shown(exe, loader.args)
    answer = ask(run, [exe, *loader.args], loader.env)
    if not isinstance(answer, Answer):
        run.add(host, LOADER, "warn", exe, f"`{said}` {answer}")
        return
    refusal = loader.refusal(answer.returncode, answer.stdout, answer.stderr)
    if refusal is None:
        run.add(host, LOADER, "ok", exe, f"`{said}` loads the config")
        return
    run.add(
        host,
        LOADER,
        "fail",
        exe,
        f"`{said}` refuses the config: {refusal}",
        "fix the entry it names; if memhub wrote it, `memhub undo` reverts the last apply",
    )
