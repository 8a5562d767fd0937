"""`memhub` ends with os._exit (cli/main.run): what a normal exit does must still happen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# memhub's console entry point, with an atexit function registered first and output left
# in the buffers: both must come out although the interpreter is not torn down.
CHILD = (
    "import atexit, sys\n"
    "from memhub.compiler.cli.main import run\n"
    "atexit.register(lambda: sys.stdout.write('atexit ran\\n'))\n"
    "sys.stdout.write('buffered ')\n"
    "sys.argv = ['memhub', *sys.argv[1:]]\n"
    "run()\n"
)


def child(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, check=False
    )


def test_output_and_atexit_functions_survive_the_fast_exit() -> None:
    done = child("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("buffered memhub, version")
    assert done.stdout.endswith("atexit ran\n")


def test_the_exit_code_of_a_failed_verb_is_kept(tmp_path: Path) -> None:
    done = child("validate", str(tmp_path / "missing"))
    assert done.returncode == 2, done.stderr
    assert "no hub file here" in done.stderr
    assert done.stdout.endswith("atexit ran\n")


def test_a_closed_stdout_is_an_error_message_not_a_traceback() -> None:
    """The reader of memhub's output went away before it wrote (`memhub hosts | true`)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memhub.compiler.cli.main", "hosts"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    code = proc.wait(timeout=60)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert code in (0, 1), (code, err)
