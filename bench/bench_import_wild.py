"""Round trip of `memhub import --from-repo` + `memhub build` over published plugin repositories.

The corpus (bench/import_corpus/corpus.json) names public repositories and a commit of each;
none of their files is in this repository. Give the folder holding bare git mirrors of them
(one per repository, `owner+name/repo` or `owner+name.git` or `owner/name`) with --mirrors or
MEMHUB_IMPORT_CORPUS_MIRRORS; an entry whose mirror or commit is absent is skipped (nothing
is fetched). Per repository it checks the commit out into a temporary folder, runs
`memhub import --from-repo CHECKOUT --into HUB --yes --json`, then `memhub build HUB --out
OUT`, and compares every plugin file of the checkout with OUT:

  plugin files   marketplace files, and every file under a plugin folder (one holding a
                 host manifest: .claude-plugin/plugin.json, .codex-plugin/plugin.json,
                 .cursor-plugin/plugin.json, gemini-extension.json, a Copilot plugin.json
                 named by .github/plugin/marketplace.json, or any folder a marketplace lists
                 as a local source). Decided from the checkout alone, so a refused import
                 counts every one of them as lost.
  given back     JSON files JSON-equal with the same key order; others byte-identical with
                 the same executable bit (a link: the same target text).
  key paths      leaf key paths of the plugin JSON files whose value the rebuild holds.
  builds         `memhub build` of the imported hub exits 0.

It is a report, not a test: exit 0 whatever the figures. Stdlib and memhub only.

    python bench/bench_import_wild.py --mirrors DIR             # table
    python bench/bench_import_wild.py --mirrors DIR --json      # one JSON document
    python bench/bench_import_wild.py --mirrors DIR --only owner/name --keep OUT
    python bench/bench_import_wild.py --mirrors DIR --describe  # host layouts per mirror
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "import_corpus" / "corpus.json"
sys.path.insert(0, str(HERE))

from import_wild_compare import compare_file, key_paths_kept, layouts, normalise, plugin_files  # noqa: E402

# ---- running ----


def read_tree(root: Path) -> dict[str, bytes]:
    """Every file of a checkout (links as their target's bytes, b'' when dangling)."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            try:
                out[rel] = p.read_bytes() if p.suffix == ".json" else b""
            except OSError:
                out[rel] = b""
    return out


def find_mirror(mirrors: Path, repo: str) -> Path | None:
    for cand in (
        mirrors / repo.replace("/", "+") / "repo",
        mirrors / (repo.replace("/", "+") + ".git"),
        mirrors / repo,
    ):
        if (cand / "HEAD").is_file() or (cand / ".git").exists():
            return cand
    return None


def checkout(mirror: Path, commit: str, dest: Path) -> bool:
    """Check COMMIT of MIRROR out into DEST (no .git left); False when the commit is absent."""

    def git(*args: str) -> int:
        return subprocess.run(
            ["git", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL
        ).returncode

    if git("clone", "-q", "--shared", "--no-checkout", str(mirror), str(dest)):
        return False
    if git("-C", str(dest), "checkout", "-q", commit):
        return False
    shutil.rmtree(dest / ".git", ignore_errors=True)
    return True


def memhub(args: list[str], timeout: int) -> tuple[int, str, str]:
    cmd = [sys.executable, "-m", "memhub.compiler.cli.main", *args]
    try:
        p = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return -9, "", f"timeout after {timeout} s"
    return p.returncode, p.stdout, p.stderr


def run_one(
    entry: dict[str, Any], mirror: Path, work: Path, timeout: int, hosts: list[str] | None = None
) -> dict[str, Any]:
    src, hub, out = work / "repo", work / "hub", work / "out"
    row: dict[str, Any] = {"repo": entry["repo"], "commit": entry["commit"]}
    if not checkout(mirror, entry["commit"], src):
        return {**row, "skipped": "commit absent from the mirror"}
    tree = read_tree(src)
    wanted = plugin_files(tree)
    t0 = time.process_time()
    code, stdout, stderr = memhub(
        ["import", "--from-repo", str(src), "--into", str(hub), "--yes", "--json"], timeout
    )
    row["import_exit"] = code
    try:
        doc = json.loads(stdout)
    except ValueError:
        doc = {}
    data = doc.get("data", {}) if isinstance(doc, dict) else {}
    rt = data.get("round_trip", {}) if isinstance(data, dict) else {}
    row["cannot_reproduce"] = rt.get("cannot_reproduce", []) if isinstance(rt, dict) else []
    # the import's own figures, beside ours: they count its own idea of the plugin files
    row["import_round_trip"] = (
        {k: rt.get(k) for k in ("files", "json_key_paths")} if isinstance(rt, dict) else {}
    )
    if code not in (0, 1) or not (hub / "hub.yaml").is_file():
        row["import_error"] = (stderr.strip() or stdout.strip())[-600:]
    bcode = None
    if (hub / "hub.yaml").is_file():
        bcode, _, berr = memhub(["build", str(hub), "--out", str(out)], timeout)
        if bcode != 0:
            row["build_error"] = berr.strip()[-600:]
    row["build_exit"] = bcode
    row["hub_builds"] = bcode == 0
    lost: dict[str, str] = {}
    keys_kept = keys_total = 0
    for rel in wanted:
        cause = compare_file(src / rel, out / rel) if bcode == 0 else "no build"
        if cause:
            lost[rel] = cause
        if rel.endswith(".json"):
            rebuilt = out / rel
            kept, total, _ = key_paths_kept(
                tree[rel], rebuilt.read_bytes() if bcode == 0 and rebuilt.is_file() else None
            )
            keys_kept, keys_total = keys_kept + kept, keys_total + total
    row.update(
        files_total=len(wanted),
        files_back=len(wanted) - len(lost),
        keys_total=keys_total,
        keys_back=keys_kept,
        lost=lost,
        cpu_s=round(time.process_time() - t0, 2),
    )
    if hosts:  # after the figures: the CLIs' own time is not the import's
        from import_wild_hosts import measure

        row["hosts"] = measure(src, out if bcode == 0 else None, hosts, min(timeout, 120))
    return row


def describe(corpus: list[dict[str, Any]], mirrors: Path) -> None:
    for entry in corpus:
        mirror = find_mirror(mirrors, entry["repo"])
        if mirror is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            if checkout(mirror, entry["commit"], Path(tmp) / "r"):
                tree = read_tree(Path(tmp) / "r")
                entry["layouts"] = layouts(tree)
                entry["plugin_files"] = len(plugin_files(tree))
    print(json.dumps(corpus, indent=2))


def in_group(group: str, wanted: str) -> bool:
    """Whether an entry of GROUP is run for --group WANTED (all leaves heldout2 out)."""
    if wanted == "every":
        return True
    if wanted == "all":
        return group != "heldout2"
    return group == wanted


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| repository | import | build | files back | key paths | top cause |",
        "|---|---|---|---|---|---|",
    ]
    fb = ft = kb = kt = builds = 0
    for r in rows:
        if "skipped" in r:
            continue
        causes = Counter(r["lost"].values()).most_common(1)
        lines.append(
            f"| {r['repo']} | {r['import_exit']} | {'yes' if r['hub_builds'] else 'no'} | "
            f"{r['files_back']}/{r['files_total']} | {r['keys_back']}/{r['keys_total']} | "
            f"{causes[0][0] + ' ' + str(causes[0][1]) if causes else ''} |"
        )
        fb, ft, kb, kt = (
            fb + r["files_back"],
            ft + r["files_total"],
            kb + r["keys_back"],
            kt + r["keys_total"],
        )
        builds += bool(r["hub_builds"])
    n = sum("skipped" not in r for r in rows)
    lines.append(
        f"| **all {n}** | | {builds}/{n} | {fb}/{ft} ({pct(fb, ft)}) | {kb}/{kt} ({pct(kb, kt)}) | |"
    )
    return "\n".join(lines)


def causes(rows: list[dict[str, Any]]) -> Counter[str]:
    """Lost plugin files per cause: the import's refusal, the build's refusal, else its row."""
    out: Counter[str] = Counter()
    for r in rows:
        if "skipped" in r or not r["lost"]:
            continue
        if r.get("import_error"):
            out["import refused: " + normalise(r["import_error"].removeprefix("memhub: "))] += len(
                r["lost"]
            )
            continue
        if not r["hub_builds"]:
            said = [x["reason"] for x in r["cannot_reproduce"] if x["path"] == "hub.yaml"]
            err = (said[0] if said else r.get("build_error", "")).splitlines()
            msgs = [m.strip() for m in err[1:]] if len(err) > 1 and "problem" in err[0] else err[:1]
            what = " + ".join(normalise(m.split(": ", 1)[-1]) for m in msgs)
            out["hub does not build: " + what] += len(r["lost"])
            continue
        why = {x["path"]: x["reason"] for x in r["cannot_reproduce"]}
        for path, cause in r["lost"].items():
            out[normalise(why[path]) if path in why else f"(not in cannot_reproduce) {cause}"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirrors", type=Path, default=os.environ.get("MEMHUB_IMPORT_CORPUS_MIRRORS"))
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument(
        "--group",
        default="others",
        choices=["others", "tuned", "heldout2", "all", "every"],
        help="all = tuned + others; heldout2 = the second held-out set (measure it only at the "
        "end); every = all three",
    )
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--save", type=Path, help="also write the JSON document there")
    ap.add_argument("--keep", type=Path, help="keep each checkout, hub and build under this folder")
    ap.add_argument(
        "--describe", action="store_true", help="print the corpus with layouts filled in"
    )
    ap.add_argument("--from-saved", type=Path, help="print the report of a saved run; run nothing")
    ap.add_argument(
        "--hosts",
        default="",
        help="also run these real host CLIs (claude,codex,copilot,gemini) on the original and "
        "the rebuild: components each loads before and after (import_wild_hosts.py)",
    )
    args = ap.parse_args(argv)
    hosts = [h for h in args.hosts.split(",") if h]
    if unknown := [h for h in hosts if h not in ("claude", "codex", "copilot", "gemini")]:
        ap.error(f"--hosts: unknown host {unknown[0]!r} (claude, codex, copilot, gemini)")
    if args.from_saved:
        rows = json.loads(args.from_saved.read_text())["rows"]
        report(rows)
        return 0
    corpus = json.loads(args.corpus.read_text())["repositories"]
    corpus = [e for e in corpus if in_group(e.get("group", "others"), args.group)]
    if args.only:
        corpus = [e for e in corpus if e["repo"] in args.only]
    if args.mirrors is None:
        print(
            "no mirrors folder (--mirrors or MEMHUB_IMPORT_CORPUS_MIRRORS): every entry skipped",
            file=sys.stderr,
        )
        return 0
    if args.describe:
        describe(corpus, args.mirrors)
        return 0
    rows = []
    for entry in corpus:
        mirror = find_mirror(args.mirrors, entry["repo"])
        if mirror is None:
            rows.append({"repo": entry["repo"], "skipped": "no mirror"})
            continue
        print(f"{entry['repo']} ...", file=sys.stderr, flush=True)
        if args.keep:
            work = args.keep / entry["repo"].replace("/", "+")
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            rows.append(run_one(entry, mirror, work, args.timeout, hosts))
        else:
            with tempfile.TemporaryDirectory(prefix="memhub-wild-") as tmp:
                rows.append(run_one(entry, mirror, Path(tmp), args.timeout, hosts))
        if args.save:  # after each repository: a stopped run keeps what it measured
            args.save.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    doc = {"rows": rows}
    if args.save:
        args.save.write_text(json.dumps(doc, indent=1) + "\n")
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        report(rows)
    return 0


def report(rows: list[dict[str, Any]]) -> None:
    print(table(rows) + "\n\n| lost files | cause |\n|---|---|")
    print("\n".join(f"| {n} | {c} |" for c, n in causes(rows).most_common()))
    if any(r.get("hosts") for r in rows):
        from import_wild_hostparse import hosts_table

        print("\n" + hosts_table(rows))


if __name__ == "__main__":
    raise SystemExit(main())
