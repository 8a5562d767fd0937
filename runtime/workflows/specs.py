"""Spec ownership: specs are Markdown files under `docs/specs/` (or `MEMHUB_SPEC_DIR`) whose
front matter `owns` globs tie them to code. After an edit to an owned path the owning spec is
named (once per session, the caller's state); before a push or `gh pr create` the specs whose
code changed on the branch without a spec edit are named. Retired specs and malformed front
matter never fire; malformed ones are reported (`problems`) for doctor-style output.
"""

from __future__ import annotations

from ..shellcmd import commands, milestone
from . import globs
from .specfront import FrontMatterError, block, parse

DEFAULT_DIR = "docs/specs"
MAX_SPECS = 500  # files read from one spec directory
MAX_DEPTH = 4  # folders below the spec directory
HEAD_BYTES = 65_536  # front matter must close within this many bytes


class Spec:
    """One spec: its repo-relative path, title, status and `owns` globs."""

    __slots__ = ("owns", "path", "status", "title")

    def __init__(self, path: str, title: str, status: str, owns: tuple[str, ...]) -> None:
        self.path = path
        self.title = title
        self.status = status
        self.owns = owns

    @property
    def retired(self) -> bool:
        return self.status.lower() == "retired"

    def owns_path(self, path: str) -> bool:
        return any(globs.matches(pattern, path) for pattern in self.owns)

    def __repr__(self) -> str:
        return f"Spec({self.path!r}, {self.status!r}, {self.owns!r})"


class SpecSet:
    """The specs of one repository and the files that could not be read as specs."""

    __slots__ = ("problems", "specs")

    def __init__(self) -> None:
        self.specs: list[Spec] = []
        self.problems: list[tuple[str, str]] = []  # (path, reason)

    def active(self) -> list[Spec]:
        return [spec for spec in self.specs if not spec.retired]

    def paths(self) -> set[str]:
        return {spec.path for spec in self.specs} | {path for path, _ in self.problems}


def spec_dir(repo_root: str, environ: dict[str, str] | None = None) -> str:
    """The spec directory: `MEMHUB_SPEC_DIR` (relative to the repo root, or absolute), else
    `docs/specs/`."""
    import os  # here, not at import: `before_push` runs on every shell call and needs none

    env = os.environ if environ is None else environ
    chosen = (env.get("MEMHUB_SPEC_DIR") or "").strip() or DEFAULT_DIR
    return os.path.join(repo_root, chosen)


def _relative(repo_root: str, path: str) -> str:
    """`path` (absolute, or relative to the repo root) relative to the root in forward
    slashes; "" when it lies outside (`..` included)."""
    import os

    full = os.path.normpath(os.path.join(repo_root, path.replace("\\", "/")))
    rel = os.path.relpath(full, os.path.normpath(repo_root))
    return "" if rel == ".." or rel.startswith(".." + os.sep) else globs.normal(rel)


def _files(top: str) -> list[str]:
    """The regular `.md` files under `top` (no symlink followed, bounded depth and count)."""
    import os

    found: list[str] = []
    stack = [(top, 0)]
    while stack and len(found) < MAX_SPECS:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and depth < MAX_DEPTH:
                stack.append((entry.path, depth + 1))
            elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
                found.append(entry.path)
    return sorted(found)[:MAX_SPECS]


def _read(path: str, shown: str) -> Spec:
    """The spec in one file; FrontMatterError naming what is wrong."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as error:
        raise FrontMatterError(f"cannot read: {error.strerror or error}") from None
    lines = block(head.decode("utf-8", "replace"))
    if lines is None:
        raise FrontMatterError("no front matter")
    fields = parse(lines)
    owns = fields.get("owns")
    if not isinstance(owns, list) or not owns or not all(isinstance(g, str) and g for g in owns):
        raise FrontMatterError("`owns` is missing or empty")
    title = str(fields.get("title") or fields.get("name") or "") or shown.rsplit("/", 1)[-1][:-3]
    return Spec(shown, title, str(fields.get("status") or "active"), tuple(owns))


def load_specs(repo_root: str, directory: str | None = None) -> SpecSet:
    """Every spec under the spec directory (`directory`, else `spec_dir(repo_root)`); never
    raises: unreadable or malformed files land in `problems`."""
    found = SpecSet()
    top = directory if directory is not None else spec_dir(repo_root)
    for path in _files(top):
        shown = _relative(repo_root, path) or path
        try:
            found.specs.append(_read(path, shown))
        except FrontMatterError as error:
            found.problems.append((shown, str(error)))
    return found


def owning_specs(repo_root: str, path: str, specs: SpecSet | None = None) -> list[Spec]:
    """The active specs that own `path` (absolute, or relative to the repo root). A spec
    file itself, or a path outside the repository, is owned by none."""
    found = specs if specs is not None else load_specs(repo_root)
    relative = _relative(repo_root, path)
    if not relative or relative in found.paths():
        return []
    return [spec for spec in found.active() if spec.owns_path(relative)]


def unreviewed_specs(
    changed_paths: list[str] | tuple[str, ...] | set[str],
    edited_specs: list[str] | tuple[str, ...] | set[str],
    specs: SpecSet,
) -> list[tuple[Spec, list[str]]]:
    """The active specs owning code in `changed_paths` (repo-relative) that were not edited
    themselves (their path in `edited_specs` or in `changed_paths`), each with the changed
    paths it owns, in spec path order."""
    edited = {globs.normal(p) for p in edited_specs} | {globs.normal(p) for p in changed_paths}
    spec_files = specs.paths()
    code = sorted({globs.normal(p) for p in changed_paths} - spec_files - {""})
    found = []
    for spec in sorted(specs.active(), key=lambda s: s.path):
        if spec.path in edited:
            continue
        owned = [path for path in code if spec.owns_path(path)]
        if owned:
            found.append((spec, owned))
    return found


def before_push(command: object) -> bool:
    """Whether a shell command pushes (`git push`) or opens a PR (`gh pr create`)."""
    if not isinstance(command, (str, list, tuple)):
        return False
    if isinstance(command, str) and "push" not in command and "pr" not in command:
        return False
    for argv in commands(command):
        if milestone(argv) == "gh pr create":
            return True
        if argv and argv[0].rsplit("/", 1)[-1] == "git" and _git_push(argv):
            return True
    return False


def _git_push(argv: list[str]) -> bool:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else 1
    rest = argv[i + 1 :]
    return argv[i : i + 1] == ["push"] and not {"-n", "--dry-run", "-h", "--help"} & set(rest)
