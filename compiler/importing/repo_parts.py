"""What the per-host repo readers (compiler/hosts/*_repo.py) collect for one plugin folder."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memhub.compiler.importing.shapes import NotImportable
from memhub.hubspec import userconfig

# manifest keys every host's manifest shares with the hub's `plugin:` (common.plugin_metadata)
SHARED_FIELDS = (
    "name",
    "version",
    "description",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
)


REQUIRED = ("name", "version", "description")  # the hub's required plugin fields


@dataclass(frozen=True, slots=True)
class Unreproduced:
    """A repository path the imported hub cannot give back, and why."""

    path: str
    reason: str


@dataclass
class ReadPlugin:
    """One plugin folder as read so far: hub fields, servers, overrides, what cannot be kept."""

    folder: str
    servers: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    consumed: set[str] = field(default_factory=set)
    unreproduced: list[Unreproduced] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # why a generated file may differ
    manifests: dict[str, Mapping[str, tuple[str, Any, Any]]] = field(default_factory=dict)
    written: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # host -> the .mcp.json servers its manifest carries (None: all, by naming the file)
    carried: dict[str, set[str] | None] = field(default_factory=dict)
    mcp_flat: bool = False  # .mcp.json holds its servers at the top level (`mcp.flat`)
    # server -> host -> its host-only keys the hub holds as `extra:` (server_extras.py)
    server_extra: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def host(self, host: str) -> None:
        if host not in self.hosts:
            self.hosts.append(host)

    def fields(
        self,
        fields: Mapping[str, tuple[str, Any, Any]],
        host: str,
        written: tuple[str, ...] = SHARED_FIELDS,
    ) -> None:
        """One host's manifest fields (hub key -> manifest key, manifest value, hub value);
        `written`: the fields that host's adapter writes (only those count as its say)."""
        self.host(host)
        self.manifests[host] = fields
        self.written[host] = written

    @property
    def plugin(self) -> dict[str, Any]:
        """The hub's `plugin:` fields: those every manifest agrees on, and the required ones
        (from the first manifest that has them)."""
        plugin: dict[str, Any] = {}
        for key in dict.fromkeys(k for f in self.manifests.values() for k in f):
            values = [
                f[key][2] if key in f else None
                for host, f in self.manifests.items()
                if key in f or key in self.written.get(host, SHARED_FIELDS)
            ]
            if key in REQUIRED or all(v == values[0] for v in values):
                plugin[key] = next(v for v in values if v is not None)
        return plugin

    @property
    def overrides(self) -> dict[str, dict[str, Any]]:
        """`overrides:`: each manifest's value the plugin's fields do not give, and the rest."""
        plugin = self.plugin
        out: dict[str, dict[str, Any]] = {}
        for host, fields in self.manifests.items():
            differ = {m: raw for k, (m, raw, v) in fields.items() if plugin.get(k) != v}
            if differ:
                _merge(out.setdefault(host, {}).setdefault("manifest", {}), differ)
        for host, sections in self.extra.items():
            _merge(out.setdefault(host, {}), sections)
        return out

    def server(self, server: str, spec: Any, host: str) -> None:
        known = self.servers.setdefault(server, spec)
        if known != spec:
            self.notes.append(f"{host}: server {server!r} differs from the first host's")

    def manifest(
        self,
        host: str,
        doc: Mapping[str, Any],
        renames: Mapping[str, str] | None = None,
        written: tuple[str, ...] = SHARED_FIELDS,
    ) -> None:
        """One host's manifest: its hub fields (`renames`: the host's own key names for
        them) and every other key as `overrides.<host>.manifest`."""
        fields, extra = plugin_fields(doc, renames or {})
        self.fields(fields, host, written)
        self.override(host, "manifest", extra)

    def server_keys(self, host: str, server: str, keys: Mapping[str, Any]) -> None:
        """A server's keys only `host` writes: those in the host's `EXTRA_KEYS`, of its type,
        as the server's `extra.<host>`; any other as `overrides.<host>.mcp_servers`. The build
        writes a server's overrides before its `extra` keys, so only the trailing run of
        fitting keys becomes `extra` (the file's key order comes back)."""
        from memhub.compiler.hosts.server_extras import known_keys, type_problem

        known = known_keys().get(host, {})
        fits: dict[str, Any] = {}
        for key in reversed(list(keys)):
            if key not in known or type_problem(known[key], keys[key]) is not None:
                break
            fits[key] = keys[key]
        fits = dict(reversed(list(fits.items())))
        if fits:
            self.server_extra.setdefault(server, {}).setdefault(host, {}).update(fits)
        rest = {k: v for k, v in keys.items() if k not in fits}
        self.override(host, "mcp_servers", {server: rest} if rest else {})

    def override(self, host: str, section: str, data: Mapping[str, Any]) -> None:
        if not data:
            return
        into = self.extra.setdefault(host, {}).setdefault(section, {})
        _merge(into, data)

    def cannot(self, path: str, reason: str) -> None:
        self.unreproduced.append(Unreproduced(path, reason))

    def note(self, text: str) -> None:
        self.notes.append(text)


def _merge(into: dict[str, Any], data: Mapping[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?"
)
_EMAIL = re.compile(r"[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+")


def person(raw: Mapping[str, Any]) -> dict[str, Any] | None:
    """An author or owner object in the hub's shape (name, email, url), None when the hub
    cannot hold it (it checks the e-mail address)."""
    picked = {k: raw[k] for k in ("name", "email", "url") if isinstance(raw.get(k), str)}
    if "email" in picked and not _EMAIL.fullmatch(picked["email"]):
        return None
    return picked if "name" in picked else None


def plugin_fields(
    doc: Mapping[str, Any], renames: Mapping[str, str]
) -> tuple[dict[str, tuple[str, Any, Any]], dict[str, Any]]:
    """A manifest's hub fields (hub key -> manifest key, raw, hub value) and its other keys."""
    fields: dict[str, tuple[str, Any, Any]] = {}
    extra: dict[str, Any] = {}
    for key, raw in doc.items():
        hub_key = key if key in SHARED_FIELDS else renames.get(key)
        value = _field_value(hub_key, raw) if hub_key else None
        if hub_key and value is not None:
            fields[hub_key] = (key, raw, value)
        else:
            extra[key] = raw
    return fields, extra


def _field_value(key: str, raw: Any) -> Any:
    """`raw` as the hub holds field `key`, or None when the hub cannot hold it."""
    if key == "author":
        return (
            person(raw) if isinstance(raw, Mapping) and len(person(raw) or {}) == len(raw) else None
        )
    if key in ("keywords", "tags"):
        ok = isinstance(raw, list) and all(isinstance(k, str) for k in raw)
        return list(raw) if ok and raw else None
    if key == "user_config":  # Claude Code's userConfig, kept as written when the hub can
        return dict(raw) if userconfig.importable(raw) else None
    if key == "version":  # the hub's is a semantic version; another (`v2.0.3`) stays as written
        return raw if isinstance(raw, str) and _SEMVER.fullmatch(raw) else None
    if key == "min_client_versions":  # only what the hub's schema takes (cursor: semver)
        ok = isinstance(raw, Mapping) and set(raw) == {"cursor"}
        return dict(raw) if ok and _SEMVER.fullmatch(str(raw["cursor"])) else None
    return raw if isinstance(raw, str) and raw else None


def from_git_source(base: dict[str, Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    """A hub git source: `base` plus the entry's `ref` and `sha` pins."""
    pins = {k: raw[k] for k in ("ref", "sha") if isinstance(raw.get(k), str)}
    return {k: v for k, v in {**base, **pins}.items() if v is not None}


def url_source(raw: Mapping[str, Any]) -> Any:
    """A `url` source: a folder of this repository when the url is `./...` (a published
    Codex marketplace lists its root plugin as `{source: url, url: ./}`; the entry's own
    source comes back as an override), else a hub git source."""
    url = raw.get("url")
    if isinstance(url, str) and url.startswith("./"):
        return url
    return from_git_source({"git": url}, raw)


def marketplace_entries(
    doc: Mapping[str, Any], source_of: Callable[[object], Any]
) -> list[dict[str, Any]]:
    """A marketplace file's `plugins`: each entry's name, its source as `source_of` reads
    it (a bare folder name under `metadata.pluginRoot`, as `./<root>/<name>`), and its other
    keys as they stand."""
    entries = []
    for raw in doc.get("plugins") or []:
        if isinstance(raw, Mapping):
            rest = {k: v for k, v in raw.items() if k not in ("name", "source")}
            source = source_of(_under_root(doc, raw.get("source")))
            entries.append({"name": raw.get("name"), "source": source, **rest})
    return entries


ServerReader = Callable[[str, Mapping[str, Any]], tuple[Any, Mapping[str, Any], list[str]]]


def read_server_map(
    servers: Mapping[str, Any],
    read: ReadPlugin,
    where: str,
    host: str,
    to_hub: ServerReader,
    folders: Mapping[str, str],
) -> None:
    """A host's `mcpServers` object (from `where`) into hub servers: each read by the host's
    `to_hub` (its servers module's hub_spec), the host's folder variables (`folders`: the
    `${env:VAR}` the reader gives -> `${plugin_root}`, ...) put back, host-only keys as
    `extra.<host>` or overrides, and a server the hub cannot hold listed with why."""
    for server, raw in servers.items():
        if not isinstance(raw, Mapping):
            read.cannot(where, f"server {server!r} is not an object")
            continue
        try:
            spec, extras, notes = to_hub(str(server), raw)
        except NotImportable as exc:
            read.cannot(where, f"server {server!r}: {exc}")
            continue
        read.server(str(server), with_folders(spec, folders), host)
        if extras:
            read.server_keys(host, str(server), extras)
        for note in notes:
            read.note(f"{where}: {server}: {note}")


def with_folders(value: Any, folders: Mapping[str, str]) -> Any:
    """`value` with each `${env:VAR}` of `folders` replaced by its hub reference."""
    if isinstance(value, str):
        for var, ref in folders.items():
            value = value.replace("${env:" + var + "}", ref)
        return value
    if isinstance(value, Mapping):
        return {k: with_folders(v, folders) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [with_folders(v, folders) for v in value]
    return value


def metadata_marketplace(
    doc: Mapping[str, Any], source_of: Callable[[object], Any]
) -> dict[str, Any]:
    """A marketplace file of Cursor's shape (its description under `metadata.description`,
    which Copilot's shares): name, owner, description, entries and extra keys."""
    owner = doc.get("owner")
    metadata = doc.get("metadata")
    described = metadata.get("description") if isinstance(metadata, Mapping) else None
    extra = {k: v for k, v in doc.items() if k not in ("name", "owner", "metadata", "plugins")}
    if isinstance(metadata, Mapping) and set(metadata) - {"description"}:
        extra["metadata"] = {k: v for k, v in metadata.items() if k != "description"}
    return {
        "name": doc.get("name"),
        "owner": person(owner) if isinstance(owner, Mapping) else None,
        "description": described,
        "entries": marketplace_entries(doc, source_of),
        "extra": extra,
    }


def _under_root(doc: Mapping[str, Any], source: Any) -> Any:
    """`source` as `./folder`: Claude Code and Cursor read a bare name (no `./`) under the
    marketplace's `metadata.pluginRoot`; the entry's own `source` comes back as an override."""
    metadata = doc.get("metadata")
    root = metadata.get("pluginRoot") if isinstance(metadata, Mapping) else None
    if not isinstance(source, str) or source.startswith("./") or not isinstance(root, str):
        return source
    return "./" + posixpath.normpath(posixpath.join(root, source))
