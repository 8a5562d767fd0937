"""The credential detector side by side with a reference copy: import cost and find() speed.

Every command that loads a hub imports `memhub.runtime.credentials`, and the capture
redactor runs `find()` on every captured string. This times both for this checkout's
package and for a reference copy of it, in one run with interleaved rounds (medians):

- import: a fresh `python -S -I` importing the package (byte-compiled first, as an
  installed copy is), as wall time and as the package's own self time (`-X importtime`);
- find(): calls per second on prose, on transcript-like text that opens many rule gates
  but holds no secret, and on a text holding several secrets, each after a warm-up call.

The reference is, by default, this package with every rule compiled up front (its
`lazy.py` swapped for plain `re.compile`); `--against DIR` names another copy of the
package folder instead (an older commit's `runtime/credentials`, say).

    .venv/bin/python bench/bench_credentials.py
    .venv/bin/python bench/bench_credentials.py --against ../old/runtime/credentials --runs 21
"""

from __future__ import annotations

import argparse
import compileall
import functools
import importlib.util
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "runtime" / "credentials"
EAGER_LAZY = '''"""Every rule compiled at import: the reference for bench_credentials.py."""
import re

HOLDERS: list = []


def Lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(pattern, flags)
'''
IMPORT = "import sys; sys.path.append({root!r}); import credentials"
BASELINE = "import re, typing, collections.abc, __future__"

PROSE = [
    "The quick brown fox jumps over the lazy dog while the build runs in the background.",
    "I looked at the failing test and the fixture creates a temporary folder per case.",
    "Let me read the configuration file first, then update the three call sites below.",
    "All 214 tests pass now; the slow one took 3.2 seconds on the shared runner.",
    "We could cache the parsed schema, but the file is small and it changes often.",
] * 40
TRANSCRIPT = [
    "The token count is 12; use --verbose for details and see the auth section.",
    "def login(token=token):\n    return client.get(url, headers=headers)",
    "MAX_TOKENS=100 python run.py --bypass-cache --password-stdin < pass.txt",
    "See https://example.com/docs?page=2#auth for the authentication guide.",
    '{"max_tokens": 1024, "model": "claude", "api_key": "${env:API_KEY}"}',
    "docker run -u 1000:1000 image:latest && git clone git@github.com:org/repo.git",
    "password reset flow: the user gets a link; Bearer authentication is described later",
    "export GITHUB_TOKEN=$GITHUB_TOKEN; curl -H 'Authorization: Bearer $TOKEN' https://x",
] * 25
# Assembled here so that this file holds no token-shaped literal for secret scanners.
SECRETS = "\n".join(
    [
        "export GITHUB_TOKEN=" + "ghp_" + "0eyN1ygQdvpSfF5PH5nLZjMeI8cFSmj83LDU",
        "aws key " + "AKIA" + "OXYIMCFIP6NZB353 and " + "sk-" + "proj-" + "a" * 8 + "B3" * 10,
        "curl -H 'Authorization: Bearer " + "abcDEF123" * 3 + "' https://api.example.com",
        "git clone https://bob:" + "Pw12345xyz" + "@github.com/org/repo.git",
        "DB_PASSWORD=" + "S3cretV4lue9 mysql -u root -p" + "Another1 db",
        "slack " + "xoxb-" + "1234567890-abcdefghij" + " and password: hunter2xyz",
        "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEow" * 20 + "\n-----END RSA PRIVATE KEY-----",
    ]
)
TEXTS = {"prose": PROSE, "transcript": TRANSCRIPT, "secrets": [SECRETS]}


def _copy(source: Path, root: Path, eager: bool) -> Path:
    """`source` copied to `root/credentials`, byte-compiled (with lazy.py swapped if eager)."""
    target = root / "credentials"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    if eager:
        (target / "lazy.py").write_text(EAGER_LAZY)
    compileall.compile_dir(target, quiet=1)
    return target


def _load(folder: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _import_once(code: str) -> tuple[float, float]:
    """Wall seconds of a fresh interpreter running `code`, and the credentials modules'
    summed self time (seconds) from `-X importtime`."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - started
    own = 0
    for line in done.stderr.splitlines():
        fields = line.removeprefix("import time:").split("|")
        if len(fields) == 3 and fields[2].strip().startswith("credentials"):
            own += int(fields[0])
    return wall, own / 1e6


def _interleaved(rows: list[Callable[[], T]], runs: int) -> list[list[T]]:
    """Each row's samples; the rows take turns in each round, in a rotated order, so load
    from elsewhere on the machine falls on all of them alike."""
    samples: list[list[T]] = [[] for _ in rows]
    for round_ in range(runs):
        order = list(range(len(rows)))
        for index in order[round_ % len(rows) :] + order[: round_ % len(rows)]:
            samples[index].append(rows[index]())
    return samples


def _find_rounds(find: Callable[[str], object], texts: list[str], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        for text in texts:
            find(text)
    return (time.perf_counter() - started) / (calls * len(texts))


def bench_import(roots: list[Path], runs: int) -> None:
    codes = [BASELINE] + [IMPORT.format(root=str(root)) for root in roots]
    for code in codes:
        _import_once(code)  # warm the file cache
    pairs = _interleaved([functools.partial(_import_once, code) for code in codes], runs)
    walls = [statistics.median(wall for wall, _ in row) for row in pairs]
    owns = [statistics.median(own for _, own in row) for row in pairs]
    print(f"import (median of {runs}; baseline = python -S -I importing re and typing):")
    print(f"  baseline      wall {walls[0] * 1000:6.2f} ms")
    for label, wall, own in zip(("this checkout", "reference"), walls[1:], owns[1:], strict=True):
        extra = (wall - walls[0]) * 1000
        print(f"  {label:13} wall {wall * 1000:6.2f} ms (+{extra:5.2f})  self {own * 1000:5.2f} ms")


def bench_find(roots: list[Path], runs: int) -> None:
    finds = [
        _load(root / "credentials", f"bench_credentials_{i}").find for i, root in enumerate(roots)
    ]
    print(f"find() (median of {runs} interleaved rounds, warm):")
    for name, texts in TEXTS.items():
        calls = max(1, 20_000 // len(texts)) if name != "secrets" else 2_000
        assert all(finds[0](t) == find(t) for t in texts for find in finds), "results differ"
        rows = [functools.partial(_find_rounds, find, texts, calls) for find in finds]
        samples = _interleaved(rows, runs)
        ratios = [a / b for a, b in zip(samples[0], samples[1], strict=True)]
        mine, ref = (statistics.median(s) for s in samples)
        size = sum(map(len, texts)) / len(texts)
        print(
            f"  {name:10} ({size:5.0f} chars/call)  this {mine * 1e6:7.2f} us"
            f"  reference {ref * 1e6:7.2f} us  ratio {statistics.median(ratios):.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--against", type=Path, help="another credentials package folder")
    parser.add_argument("--only", choices=("import", "find"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        roots = [Path(scratch, "this"), Path(scratch, "reference")]
        _copy(PACKAGE, roots[0], eager=False)
        _copy(args.against or PACKAGE, roots[1], eager=args.against is None)
        print(f"reference: {args.against or 'this package, every rule compiled at import'}")
        if args.only != "find":
            bench_import(roots, args.runs)
        if args.only != "import":
            bench_find(roots, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
