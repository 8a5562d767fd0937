"""`hooks_kept`: hosts whose hooks file ships byte for byte from the hub folder.

`import --from-repo` writes it for a hooks file the hub's `hooks:` cannot hold (a `prompt`
handler, `async: false`, a key memhub does not write, ...), so no handler of it is lost. The
file becomes a shipped file of those hosts (one per path: two hosts that load one file share
it), and no hub hook may reach such a host: memhub writes one hooks file per host.
"""

from __future__ import annotations

from collections.abc import Mapping

from .checks import Checker
from .model import Hook, ShippedFile
from .perhost import host_tables


class KeptHookChecks(Checker):
    """`hooks_kept`, read into shipped files of the hosts that keep them."""

    def _kept_hooks(
        self,
        kept: tuple[str, ...],
        hub_hosts: tuple[str, ...],
        hook_files: Mapping[str, str],
        hooks: tuple[Hook, ...],
    ) -> tuple[ShippedFile, ...]:
        tables = host_tables()
        by_path: dict[str, list[str]] = {}
        for index, host in enumerate(kept):
            default = getattr(tables.get(host), "HOOKS_FILE", None)
            if host not in hub_hosts or default is None:
                self.problem(
                    ("hooks_kept", index),
                    f"{host} writes no hooks file for this hub"
                    + ("" if host in hub_hosts else " (it is not in `hosts:`)"),
                    "name a host of `hosts:` that has a hooks file",
                )
                continue
            for hook in hooks:
                if hook.hosts is None or host in hook.hosts:
                    self.problem(
                        ("hooks_kept", index),
                        f"hook {hook.id!r} reaches {host}, whose hooks file ships as it is",
                        f"limit the hook to other hosts (`hosts:`), or take {host} out of "
                        "`hooks_kept`",
                    )
                    break
            by_path.setdefault(hook_files.get(host, default), []).append(host)
        return tuple(self._kept_file(path, hosts) for path, hosts in by_path.items())

    def _kept_file(self, path: str, hosts: list[str]) -> ShippedFile:
        """The hub folder's `path`, shipped to `hosts` (empty, with a problem, if unreadable)."""
        source = self.root / path
        try:
            content = source.read_bytes()
            executable = bool(source.stat().st_mode & 0o111)
        except OSError as exc:
            self.problem(
                ("hooks_kept",),
                f"{path} (the hooks file of {', '.join(hosts)}) cannot be read "
                f"({exc.strerror or exc})",
                "put the hooks file there, or take the hosts out of `hooks_kept`",
            )
            content, executable = b"", False
        return ShippedFile(path, content, executable, source=path, hosts=tuple(hosts))
