"""runtime/launcher.py on its own: its `.env` reading agrees with the one apply uses, and its
template syntax round-trips what the compiler writes."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import dotenv_values
from memhub.compiler.hosts.launcher import launch_template
from memhub.runtime import launcher

# Lines a person writes in a .env: apply checks leaks with python-dotenv's reading of them,
# so the launcher must hand the server the same values.
ENV_LINES = [
    "PLAIN=value-1",
    "export EXPORTED=value-2",
    "SPACED = value-3",
    "SINGLE='single quoted # not a comment'",
    'DOUBLE="double \\"quoted\\" \\\\ with\\nnewline"',
    "COMMENTED=value-4 # a comment",
    "HASH=val#ue",
    "EMPTY=",
    "# COMMENT=not-a-value",
    "",
    "URL=https://example.com/a?b=c&d=e",
    "EQUALS=a=b=c",
    "  INDENTED=value-5",
    "TAB=\tvalue-6",
]


def test_the_launcher_reads_a_env_file_as_python_dotenv_does(tmp_path: Path) -> None:
    text = "\n".join(ENV_LINES) + "\n"
    (tmp_path / ".env").write_text(text)
    expected = {
        k: v
        for k, v in dotenv_values(tmp_path / ".env", interpolate=False).items()
        if v is not None
    }
    assert launcher.parse_env_file(text) == expected


# Whole .env texts (one case each): every one reads as python-dotenv reads it, or is refused.
ENV_CORPUS = {
    "plain": "A=1\n",
    "export": "export A=1\n",
    "export_tabs": "export\tA=1\n",
    "spaces": "A = 1 \n",
    "comment_line": "# A=1\nB=2\n",
    "inline_comment": "A=1 # c\n",
    "hash_inside": "A=a#b\n",
    "tab_comment": "A=1\t# c\n",
    "single": "A='x # y'\n",
    "single_escape": "A='it\\'s'\n",
    "single_backslash": "A='a\\\\b'\n",
    "single_n": "A='a\\nb'\n",
    "double": 'A="x # y"\n',
    "double_escapes": 'A="a\\nb\\tc\\"d\\\\e"\n',
    "double_other_escape": 'A="a\\$b"\n',
    "double_unicode_escape": 'A="a\\u00e9"\n',
    "double_x": 'A="a\\x41"\n',
    "double_bell": 'A="a\\ab"\n',
    "double_comment_after": 'A="x" # c\n',
    "double_trailing_junk": 'A="x"y\n',
    "single_trailing_junk": "A='x'y\n",
    "empty": "A=\n",
    "empty_quotes": 'A=""\n',
    "empty_single": "A=''\n",
    "no_equals": "A\n",
    "crlf": "A=1\r\nB=2\r\n",
    "crlf_quoted": "A=\"1\"\r\nB='2'\r\n",
    "cr_only": "A=1\rB=2\r",
    "bom": "\ufeffA=1\n",
    "duplicates": "A=1\nA=2\n",
    "multiline_double": 'A="line1\nline2"\n',
    "multiline_single": "A='line1\nline2'\n",
    "unterminated_double": 'A="abc\nB=2\n',
    "unterminated_single": "A='abc\nB=2\n",
    "dotted": "A.B=1\n",
    "dash": "A-B=1\n",
    "digit_start": "1A=1\n",
    "interp": "A=${B}\nB=1\n",
    "equals_in_value": "A=a=b\n",
    "indented": "   A=1\n",
    "unicode": "A=héllo\n",
    "space_in_value": "A=a b c\n",
    "quote_in_middle": 'A=a"b\n',
    "leading_quote_only": 'A="abc\n',
    "export_only": "export A\n",
    "empty_name": "=1\n",
    "nbsp": "A=\u00a01\n",
    "trailing_space_quoted": 'A="x"   \n',
    "hash_no_space": 'A="x"#c\n',
    "blank_lines": "\n\n  \nA=1\n\n",
    "no_final_newline": "A=1",
    "export_spaces": "export   A=1\n",
    "colon": "A: 1\n",
    "value_with_tab": "A=a\tb\n",
    "line_separators_inside": "A=a\x0cb\u2028c\x85d\nB=2\n",
    "vertical_tab": "A=a\x0bb\n",
    "comment_after_empty_no_space": "A=#x\n",
    "quoted_key": "'A'=1\n",
    "escaped_quote_unterminated": 'A="a\\"\nB=2\n',
    "single_then_double": "A='a\"b'\nB=\"c'd\"\n",
    "crlf_multiline": 'A="1\r\n2"\r\nB=3\r\n',
    "export_named_export": "export=1\nexport export=2\n",
    "bom_then_comment": "\ufeff# c\nA=1\n",
    "many_duplicates": "A=1\nexport A=2\nA='3'\n",
    "garbage_line_between": "A=1\nthis is not a binding\nB=2\n",
}
# what python-dotenv 1.0 and 1.2 read differently: the launcher stops, naming the line
ENV_REFUSED = {
    "empty_then_comment": "A=1\nB= # a comment\n",
    "quoted_backslash_end": 'A=1\nB="a\\\\"\n',
    "single_backslash_end": "B='a\\\\'\n",
}


@pytest.mark.parametrize("name", sorted(ENV_CORPUS))
def test_the_launcher_reads_the_env_corpus_as_python_dotenv_does(name: str) -> None:
    text = ENV_CORPUS[name]
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    expected = {k: v for k, v in values.items() if v is not None}
    assert launcher.parse_env_file(text) == expected


@pytest.mark.parametrize("name", sorted(ENV_REFUSED))
def test_what_dotenv_versions_read_differently_is_refused(name: str, tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_bytes(ENV_REFUSED[name].encode())
    with pytest.raises(launcher.LaunchError, match=r"read it differently\)\. Fix: "):
        launcher.parse_env_file(ENV_REFUSED[name])
    with pytest.raises(launcher.LaunchError) as caught:
        launcher.read_env_file(str(path))
    line = 1 if name.startswith("single") else 2
    assert str(caught.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    "hub_text",
    ["plain", "${env:TOKEN}", "Bearer ${env:TOKEN}", "%{env:LITERAL} and ${env:TOKEN}", "50%{x}"],
)
def test_a_template_expands_to_the_hub_value(hub_text: str) -> None:
    template = launch_template(hub_text, plugin_root="R", plugin_data="D")
    values = {"TOKEN": "t0ken"}
    assert launcher.expand(template, values.__getitem__) == hub_text.replace(
        "${env:TOKEN}", "t0ken"
    )


def test_bad_launcher_arguments_get_one_message_and_exit_2() -> None:
    for argv in (
        ["--server", "x"],
        ["--bogus", "1", "--", "true"],
        ["--env", "NOEQUALS", "--", "true"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "memhub.runtime.launcher", *argv],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 2, (argv, proc)
        assert proc.stderr.startswith("memhub-launch: ") and "Traceback" not in proc.stderr


def test_a_missing_server_command_says_how_to_fix_it(capsys: pytest.CaptureFixture[str]) -> None:
    code = launcher.main(["--server", "s", "--", "/nonexistent/memhub-probe-server"])
    assert code == 127
    assert "cannot start '/nonexistent/memhub-probe-server'" in capsys.readouterr().err


def test_plugin_root_is_the_folder_the_vendored_launcher_sits_in(tmp_path: Path) -> None:
    """Codex expands no ${PLUGIN_ROOT} in a plugin server's command line: the vendored
    launcher resolves %{plugin_root} from its own place, `<root>/memhub_runtime/`."""
    root = tmp_path / "plugin"
    (root / "memhub_runtime").mkdir(parents=True)
    (root / "memhub_runtime" / "launcher.py").write_bytes(Path(launcher.__file__).read_bytes())
    template = launch_template(
        "${plugin_root}/bin/tool", plugin_root="%{plugin_root}", plugin_data=""
    )
    start = [sys.executable, "-S", str(root / "memhub_runtime" / "launcher.py"), "--server", "s"]
    proc = subprocess.run(
        [*start, "--", sys.executable, "-c", "import sys; print(sys.argv[1])", template],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{root}/bin/tool"
    assert launcher.to_hub(template) == "${plugin_root}/bin/tool"
