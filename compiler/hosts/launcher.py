"""memhub's MCP launcher (runtime/launcher.py): when a host's server is started through it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memhub.compiler.artifact import FILE_MODE, Artifact
from memhub.compiler.hosts.common import RUNTIME_PACKAGE, SHARED, plugin_dir
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import PROJECT_IN_CWD, has_default, references, substitute

LAUNCHER_SCRIPT = "launcher.py"
LAUNCHER_EXECUTABLE = "memhub-launch"  # the console script beside memhub-hook
LAUNCH_BY_HUB = "the hub asks for the launcher (runtime: secrets: launcher)"
LAUNCH_FOR_DEFAULT = "the host has no ${VAR:-default}; the launcher applies the default"
LAUNCHED_BY = "started through memhub's launcher"  # how each launched server's caveat starts
HTTP_NOT_LAUNCHED = (
    "an HTTP server cannot go through memhub's launcher (runtime: secrets: launcher); the "
    "host reads its references from its own environment"
)


@dataclass(frozen=True, slots=True)
class Launcher:
    """How one host file starts memhub's launcher: the command and its first arguments;
    `cwd`: the folder the host must start it in (the hub's cwd then goes to the launcher)."""

    command: str
    lead: tuple[str, ...]
    cwd: str | None = None


def install_launcher(hub: Hub, script: str) -> Launcher:
    """An install's launcher: this installation's `memhub-launch` (`script`, an absolute
    path from Scope.script) with the hub's folder, whose `.env` it reads after the
    environment. The folder is the hub's identity in the ownership state too."""
    return Launcher(script, ("--hub", os.path.abspath(hub.root)))


def bundle_launcher(hub: Hub, root: str) -> Launcher:
    """A bundle's launcher: the vendored copy in `<root>/memhub_runtime/` (no pip install)."""
    return Launcher(hub.runtime.python, ("-S", f"{root}/{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"))


PLUGIN_ROOT_TEMPLATE = "%{plugin_root}"  # the launcher finds its plugin folder itself


def relative_bundle_launcher(hub: Hub) -> Launcher:
    """A bundle's launcher for a host that expands no plugin-folder reference in a server's
    command line but starts a plugin server's relative `cwd` in the plugin folder (Codex):
    started there, by relative path; `%{plugin_root}` stands for the folder."""
    return Launcher(hub.runtime.python, ("-S", f"./{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"), ".")


def launcher_artifact(hub: Hub, root: str) -> Artifact:
    """The launcher module a bundle's launched servers need, whether or not hooks vendor the
    rest of the runtime (the same bytes as runtime_artifacts' copy, so the two merge)."""
    from importlib import resources  # only a bundle ships the launcher script

    content = resources.files("memhub.runtime").joinpath(LAUNCHER_SCRIPT).read_bytes()
    path = f"{plugin_dir(hub, root)}/{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"
    return Artifact(path, content, FILE_MODE, (SHARED,))


def launch_template(
    text: str, *, plugin_root: str, plugin_data: str, project_dir: str = PROJECT_IN_CWD
) -> str:
    """`text` in launcher syntax: `${env:NAME}` as `%{env:NAME}` (no host expands it, so the
    launcher sees the name; a default as `%{env:NAME:-default}`), a literal `%{` as `%%{`,
    plugin and project folders in the host's syntax."""
    escaped = text.replace("%{", "%%{")
    return substitute(
        escaped,
        env=lambda name: "%{env:" + name + "}",
        env_default=lambda name, default: "%{env:" + name + ":-" + default + "}",
        plugin_root=plugin_root,
        plugin_data=plugin_data,
        project_dir=project_dir,
    )


def env_names(values: Iterable[str]) -> list[str]:
    """Every NAME referenced as `${env:NAME}` in `values`, in order of first use."""
    return list(
        dict.fromkeys(ref.name for v in values for ref in references(v) if ref.kind == "env")
    )


@dataclass(frozen=True, slots=True)
class Launched:
    """A stdio server as started through the launcher: what the host file holds."""

    command: str
    args: list[str]
    env: dict[str, str]  # values without a reference, in host syntax
    names: list[str]  # the variables the launcher reads (a host that filters must pass them)
    cwd: str | None  # the host's cwd for the launcher process


def launched(
    server: StdioServer,
    launcher: Launcher,
    *,
    plain: Callable[[str], str],
    plugin_root: str,
    plugin_data: str,
    project_dir: str = PROJECT_IN_CWD,
) -> Launched:
    """`server` started by `launcher`: its command line, env values and cwd holding a
    reference become launcher arguments; the rest stays in the host's own keys (`plain`).
    A launcher with a `cwd` of its own takes the server's cwd as an argument."""

    def template(text: str) -> str:
        return launch_template(
            text, plugin_root=plugin_root, plugin_data=plugin_data, project_dir=project_dir
        )

    args = [*launcher.lead, "--server", server.name]
    env: dict[str, str] = {}
    for key, value in server.env.items():
        if env_names([value]):
            args += ["--env", f"{key}={template(value)}"]
        else:
            env[key] = plain(value)
    cwd = launcher.cwd
    if server.cwd and (launcher.cwd is not None or env_names([server.cwd])):
        args += ["--cwd", template(server.cwd)]
    elif server.cwd:
        cwd = plain(server.cwd)
    args += ["--", template(server.command), *(template(a) for a in server.args)]
    names = env_names([server.command, *server.args, *server.env.values(), server.cwd or ""])
    return Launched(launcher.command, args, env, names, cwd)


def server_values(server: StdioServer | RemoteServer) -> list[str]:
    """Every string of `server` that may hold a reference."""
    if isinstance(server, StdioServer):
        return [server.command, *server.args, *server.env.values(), server.cwd or ""]
    return [server.url, *server.headers.values()]


def launch_reason(hub: Hub, server: StdioServer | RemoteServer) -> str:
    """For a host with no `${VAR:-default}` of its own: why stdio `server` starts through
    the launcher ("" when it need not). A remote server cannot; see `default_dropped`."""
    if not isinstance(server, StdioServer):
        return ""
    if hub.runtime.secrets == "launcher":
        return LAUNCH_BY_HUB
    return LAUNCH_FOR_DEFAULT if has_default(server_values(server)) else ""


def default_dropped(host_title: str, server: StdioServer | RemoteServer) -> str:
    """The caveat for the defaults of a server not started through the launcher on a host
    with no `${VAR:-default}` ("" when it has none): the host reads the variable alone."""
    if not has_default(server_values(server)):
        return ""
    return (
        f"{host_title} has no ${{VAR:-default}}: the variable is written alone, the default "
        "is not carried (set the variable)"
    )


def remote_caveats(hub: Hub, host_title: str, server: RemoteServer, carried: Iterable[str]) -> str:
    """The caveats of a remote server on a host with no `${VAR:-default}` ("" when none):
    not launched (the hub asks for the launcher), OAuth settings not `carried`, defaults."""
    reasons = [
        HTTP_NOT_LAUNCHED if hub.runtime.secrets == "launcher" else "",
        oauth_not_carried(host_title, server, carried),
        default_dropped(host_title, server),
    ]
    return "; ".join(r for r in reasons if r)


def oauth_not_carried(host_title: str, server: RemoteServer, carried: Iterable[str]) -> str:
    """The caveat for the hub's OAuth settings a host has no per-server field for ("" when
    it carries all that are set). `carried` names the fields the host does carry."""
    oauth = server.oauth
    if oauth is None:
        return ""
    given = {
        "callback_port": oauth.callback_port is not None,
        "auth_server_metadata_url": oauth.auth_server_metadata_url is not None,
        "scopes": bool(oauth.scopes),
    }
    dropped = [key for key, is_set in given.items() if is_set and key not in set(carried)]
    if not dropped:
        return ""
    return f"{host_title} has no per-server OAuth {', '.join(dropped)}; not carried"
