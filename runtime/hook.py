"""memhub's hook entry: `hook.py <host> <host-event> [<handler>[=<tool classes>]]...`.

Bundles run it as a script from the vendored copy, `python3 -S <root>/memhub_runtime/hook.py`;
installs run the `memhub-hook` console script (this module's `main`). The work is in
`dispatch.py`; this file stays small because a script is compiled on every run.
"""

import sys

# Annotations here are strings: this script must still reach its fallback answer on an
# interpreter too old for the runtime package, so nothing it defines may fail to evaluate.


def main(argv: "list[str] | None" = None) -> int:
    """Console-script entry (`memhub-hook`): always exits 0."""
    from .dispatch import run

    return run(sys.argv[1:] if argv is None else argv, watchdog=True)


def _fallback(argv: "list[str]") -> str:
    # The runtime could not even be imported: still answer the host (and exit 0).
    event = argv[1] if len(argv) > 1 else ""
    if argv[:1] == ["cursor"] and event in ("preToolUse", "beforeShellExecution",
                                            "beforeMCPExecution", "beforeReadFile"):  # fmt: skip
        return '{"permission":"allow"}'
    return '{"continue":true}' if event == "beforeSubmitPrompt" else "{}"


if __name__ == "__main__":
    if __package__:  # python -m memhub.runtime.hook
        sys.exit(main())
    # A script inside the vendored folder: import that folder as a package (relative imports),
    # from its parent, after the standard library (none of its modules may shadow one).
    # String operations instead of `import os`, which would cost every hook ~15 %.
    _sep = "\\" if sys.platform == "win32" else "/"
    _file = __file__
    if not (_file.startswith(_sep) or _file[1:3] in (":\\", ":/")):
        import posix

        _file = posix.getcwd() + _sep + _file
    if sys.path and not getattr(sys.flags, "safe_path", False):  # the flag is 3.11+
        del sys.path[0]  # the script's own folder: its modules must not shadow the stdlib
    _parent, _, _package = _file.rpartition(_sep)[0].rpartition(_sep)
    sys.path.append(_parent or _sep)
    if sys.pycache_prefix is None and _sep == "/":
        # Bytecode goes to memhub's own cache, never into the plugin folder, and is kept even
        # under PYTHONDONTWRITEBYTECODE: compiling the runtime on every tool call would double
        # the hook's cost. (Tagged per interpreter, checked against each source's mtime.)
        import posix

        _env = posix.environ
        _home = _env.get(b"MEMHUB_HOME") or _env.get(b"HOME", b"/nonexistent") + b"/.memhub"
        sys.pycache_prefix = _home.decode("utf-8", "surrogateescape") + "/cache/pyc"
        sys.dont_write_bytecode = False
    try:
        _dispatch = __import__(_package + ".dispatch", fromlist=["run"])
    except BaseException:
        sys.stdout.write(_fallback(sys.argv[1:]) + "\n")
        sys.exit(0)
    _code = _dispatch.run(sys.argv[1:], watchdog=True)
    # Tearing the interpreter down (freeing every module) was 1-2 ms of a hook's ~10, and
    # nothing a hook leaves needs it: its files are closed, the detached child runs on its
    # own. What a normal exit still does, flush the streams and run atexit, is done here.
    for _stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib would cost every hook an import
            _stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    import atexit  # built in

    atexit._run_exitfuncs()
    if sys.platform != "win32":
        import posix as _os
    else:  # pragma: no cover
        import os as _os
    _os._exit(_code)
