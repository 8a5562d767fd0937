"""Run mypy on memhub's package folders under their installed names (`memhub.*`).

Why a wrapper: pyproject maps `memhub.hubspec` to `hubspec/` (and so on) through setuptools
`package-dir`, and the editable install resolves that mapping with an import hook that mypy
cannot follow. Given the folders, mypy would name the modules `hubspec.*`, so every
`from memhub.hubspec import ...` would be an unresolved import; given `-p memhub.hubspec`, it
finds nothing. A tree of symlinks would work but report its own paths. Here each file is
handed to mypy as a build source under its real path and its `memhub.*` name, so imports
resolve and every error points at the file you edit. Options come from `[tool.mypy]` in the
pyproject.toml beside the folders; extra arguments are passed to mypy as they are.

Usage: python .ci/typecheck.py [ROOT] [--] [MYPY-OPTIONS...]   (ROOT defaults to the repository)
Exit code: 0 clean, 1 type errors, 2 mypy could not run (as mypy's own).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mypy import util
from mypy.fscache import FileSystemCache
from mypy.main import process_options, run_build
from mypy.modulefinder import BuildSource

# The folders that setuptools installs as `memhub.<folder>` and that hold Python code.
PACKAGES = ("hubspec", "compiler", "runtime", "templates", "schemas")


def sources_under(root: Path) -> list[str]:
    """The package folders present under `root`, as paths relative to it."""
    return [name for name in PACKAGES if (root / name / "__init__.py").is_file()]


def as_installed(source: BuildSource) -> BuildSource:
    """The same file, named as the installed package names it (`hubspec.x` → `memhub.hubspec.x`)."""
    return BuildSource(source.path, f"memhub.{source.module}", source.text, source.base_dir)


def main(argv: list[str]) -> int:
    # [ROOT] then mypy's own options, with or without a `--` between them.
    given_root = bool(argv) and not argv[0].startswith("-")
    root = Path(argv[0]) if given_root else Path(__file__).resolve().parent.parent
    extra = argv[1:] if given_root else argv
    extra = extra[1:] if extra[:1] == ["--"] else extra
    folders = sources_under(root)
    if not folders:
        print(f"typecheck: no package folder ({', '.join(PACKAGES)}) under {root}", file=sys.stderr)
        return 2
    # mypy names files relative to the current folder, so run from the root: error locations
    # then read `compiler/cli.py:12`, the path of the file in the repository.
    os.chdir(root)
    t0 = time.time()
    fscache = FileSystemCache()
    args = ["--config-file", "pyproject.toml", *extra, *folders]
    sources, options = process_options(args, fscache=fscache)
    sources = [as_installed(source) for source in sources]
    _, messages, blockers = run_build(sources, options, fscache, t0, sys.stdout, sys.stderr)
    formatter = util.FancyFormatter(sys.stdout, sys.stderr, options.hide_error_codes)
    n_errors, _notes, n_files = util.count_stats(messages)
    if n_errors:
        print(formatter.format_error(n_errors, n_files, len(sources), blockers=blockers))
        return 2 if blockers else 1
    print(formatter.format_success(len(sources), options.color_output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
