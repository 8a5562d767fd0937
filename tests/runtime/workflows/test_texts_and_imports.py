"""The reminder texts, and that the package imports under `python -S -I` (as a bundle vendors
it) with nothing but the standard library and without `re`, `typing` or `dataclasses`."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from memhub.runtime.workflows.specs import Spec
from memhub.runtime.workflows.spectexts import edit_reminder, problem_lines, push_reminder

RUNTIME = Path(__file__).resolve().parents[3] / "runtime"
AUTH = Spec("docs/specs/auth.md", "Authentication", "active", ("src/auth/**",))
BILLING = Spec("docs/specs/billing.md", "billing", "active", ("src/billing/**",))


def test_edit_reminder() -> None:
    text = edit_reminder([AUTH], "src/auth/x.py")
    assert "`src/auth/x.py` is owned by spec **Authentication** (`docs/specs/auth.md`)" in text
    assert "/memhub:spec-maintain revise" in text
    both = edit_reminder([AUTH, BILLING], "src/x.py", skills="$")
    assert "specs **Authentication**" in both and "revise them" in both and "$spec-maintain" in both
    assert edit_reminder([], "src/x.py") == ""


def test_push_reminder() -> None:
    paths = [f"src/billing/{i}.py" for i in range(7)]
    text = push_reminder([(AUTH, ["src/auth/a.py"]), (BILLING, paths)])
    assert "- **Authentication** (`docs/specs/auth.md`): `src/auth/a.py`" in text
    assert "`src/billing/4.py` and 2 more" in text and "src/billing/5.py" not in text
    assert "/memhub:spec-check" in text
    assert push_reminder([]) == ""


def test_problem_lines() -> None:
    assert problem_lines([("docs/specs/x.md", "no front matter")]) == [
        "docs/specs/x.md: no front matter (this spec never fires)"
    ]


_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
from memhub_runtime.workflows import prs, specs
loaded = set(sys.modules) - before
heavy = sorted(loaded & {"re", "typing", "dataclasses", "json", "enum", "fnmatch", "glob"})
d = prs.pr_decision("shell", "git push && gh pr create --fill", "https://github.com/a/b/pull/3\\n", True)
found = specs.load_specs(sys.argv[1])
print(heavy, d.kind, d.pr.number, len(found.specs), sorted(set(sys.modules) - before - loaded & {"re", "typing"}))
"""


def test_imports_under_python_s_i(tmp_path: Path) -> None:
    shutil.copytree(
        RUNTIME, tmp_path / "memhub_runtime", ignore=shutil.ignore_patterns("__pycache__")
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-B", "-c", _PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "self-link", "3", "0", "[]"]
