"""tomledit: whole-table edits of config.toml that keep every other byte, and undo exactly."""

from __future__ import annotations

import copy
import difflib
import itertools
import random
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.formats.tomledit import (
    TomlEditError,
    edit_tables,
    get_table,
    parse,
    remove_table,
    set_table,
)

MEMHUB = ("mcp_servers", "memhub")

# --------------------------------------------------------------------------------------------
# a realistic ~/.codex/config.toml

CODEX = """\
# Codex configuration (hand-edited)
model = "gpt-5-codex"
model_reasoning_effort = "high"  # think harder
approval_policy = "on-request"
notify = ["notify-send", "Codex"]

[tui]
notifications = true

# trusted checkouts
[projects."/home/me/src/app"]
trust_level = "trusted"

[projects."/home/me/src/other repo"]
trust_level = "untrusted"

[marketplaces.openai-curated]
source = "https://github.com/openai/codex-plugins"

[plugins."memhub@memhub-market"]
enabled = true

# docs server, added by hand
[mcp_servers.docs]
command = "npx"   # needs node 20
args = ["-y", "@acme/docs-mcp"]
env = { DOCS_LOG = "info" }

[mcp_servers.github]
url = "https://api.githubcopilot.com/mcp/"
bearer_token_env_var = "GITHUB_TOKEN"

[hooks.state."/home/me/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:4f2a"
"""

SERVER = {
    "command": "memhub-mcp",
    "args": ["serve", "--stdio"],
    "env": {"MEMHUB_HOME": "/home/me/.memhub"},
    "env_vars": ["MEMHUB_TOKEN"],
    "startup_timeout_sec": 20,
}

SERVER_TOML = """
[mcp_servers.memhub]
command = "memhub-mcp"
args = ["serve", "--stdio"]
env = { MEMHUB_HOME = "/home/me/.memhub" }
env_vars = ["MEMHUB_TOKEN"]
startup_timeout_sec = 20
"""


def changed_lines(before: str, after: str) -> list[str]:
    """The +/- lines of a diff, without headers."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]


def test_add_server_to_codex_config_after_its_siblings() -> None:
    out = set_table(CODEX, MEMHUB, SERVER)
    anchor = 'bearer_token_env_var = "GITHUB_TOKEN"\n'
    assert out == CODEX.replace(anchor, anchor + SERVER_TOML)
    assert tomllib.loads(out)["mcp_servers"]["memhub"] == SERVER
    assert remove_table(out, MEMHUB) == CODEX


def test_replace_changes_only_the_changed_value_and_keeps_its_comment() -> None:
    docs = dict(tomllib.loads(CODEX)["mcp_servers"]["docs"], command="bunx")
    out = set_table(CODEX, ("mcp_servers", "docs"), docs)
    assert changed_lines(CODEX, out) == [
        '-command = "npx"   # needs node 20',
        '+command = "bunx"   # needs node 20',
    ]


def test_replace_edits_keys_in_place_and_keeps_comment_lines() -> None:
    text = CODEX + '\n# memhub owns this\n[mcp_servers.memhub]\ncommand = "old"\n# note\nx = 1\n'
    out = set_table(text, MEMHUB, SERVER)
    assert out == CODEX + (
        '\n# memhub owns this\n[mcp_servers.memhub]\ncommand = "memhub-mcp"\n# note\n'
        'args = ["serve", "--stdio"]\nenv = { MEMHUB_HOME = "/home/me/.memhub" }\n'
        'env_vars = ["MEMHUB_TOKEN"]\nstartup_timeout_sec = 20\n'
    )
    assert set_table(out, MEMHUB, SERVER) == out


def test_remove_keeps_the_comment_lines_above_a_user_table() -> None:
    out = remove_table(CODEX, ("mcp_servers", "docs"))
    assert "# docs server, added by hand\n\n[mcp_servers.github]" in out
    assert "docs" not in tomllib.loads(out)["mcp_servers"]
    assert changed_lines(CODEX, out) == [
        "-[mcp_servers.docs]",
        '-command = "npx"   # needs node 20',
        '-args = ["-y", "@acme/docs-mcp"]',
        '-env = { DOCS_LOG = "info" }',
    ]


def test_new_table_goes_before_the_comment_that_belongs_to_the_next_table() -> None:
    text = '[mcp_servers.a]\ncommand = "a"\n# about other\n[other]\nx = 1\n'
    out = set_table(text, MEMHUB, {"command": "m"})
    expected = '[mcp_servers.a]\ncommand = "a"\n\n[mcp_servers.memhub]\ncommand = "m"\n'
    assert out == expected + "# about other\n[other]\nx = 1\n"
    assert remove_table(out, MEMHUB) == text


def test_get_table() -> None:
    assert get_table(CODEX, ("mcp_servers", "github"))["bearer_token_env_var"] == "GITHUB_TOKEN"
    assert get_table(CODEX, ("projects", "/home/me/src/app")) == {"trust_level": "trusted"}
    assert get_table(CODEX, MEMHUB) is None
    assert get_table("", ("a", "b")) is None
    with pytest.raises(TomlEditError, match="notify is not a table"):
        get_table(CODEX, ("notify",))


def test_parse_returns_plain_data() -> None:
    data = parse(CODEX)
    assert data["mcp_servers"]["docs"]["env"] == {"DOCS_LOG": "info"}
    assert type(data["hooks"]) is dict


# --------------------------------------------------------------------------------------------
# the tomlkit pitfalls, one by one


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("", SERVER_TOML.lstrip("\n"), id="empty"),
        pytest.param("\n\n", SERVER_TOML.lstrip("\n") + "\n\n", id="only-blank-lines"),
        pytest.param("a = 1", "a = 1\n" + SERVER_TOML.rstrip("\n"), id="no-final-newline"),
        pytest.param("a = 1\n\n\n", "a = 1\n" + SERVER_TOML + "\n\n", id="trailing-newlines"),
        pytest.param("a = 1\n  ", "a = 1\n" + SERVER_TOML + "  ", id="trailing-spaces"),
        pytest.param(
            "[mcp_servers]\n", "[mcp_servers]\n" + SERVER_TOML, id="explicit-empty-parent"
        ),
        pytest.param(
            "[mcp_servers.a]\nx = 1\n\n[other]\ny = 2\n\n[mcp_servers.b]\nx = 2\n\n[z]\n",
            "[mcp_servers.a]\nx = 1\n\n[other]\ny = 2\n\n[mcp_servers.b]\nx = 2\n"
            + SERVER_TOML
            + "\n[z]\n",
            id="out-of-order-siblings",
        ),
        pytest.param(
            'mcp_servers.a.command = "x"\nother = 1\n',
            'mcp_servers.a.command = "x"\n'
            'mcp_servers.memhub.command = "memhub-mcp"\n'
            'mcp_servers.memhub.args = ["serve", "--stdio"]\n'
            'mcp_servers.memhub.env = { MEMHUB_HOME = "/home/me/.memhub" }\n'
            'mcp_servers.memhub.env_vars = ["MEMHUB_TOKEN"]\n'
            "mcp_servers.memhub.startup_timeout_sec = 20\n"
            "other = 1\n",
            id="dotted-parent",
        ),
        pytest.param(
            'x = """\n[mcp_servers.fake]\n# not a comment\n"""\n',
            'x = """\n[mcp_servers.fake]\n# not a comment\n"""\n' + SERVER_TOML,
            id="header-inside-multiline-string",
        ),
    ],
)
def test_set_then_remove_round_trips(text: str, expected: str) -> None:
    out = set_table(text, MEMHUB, SERVER)
    assert out == expected
    assert tomllib.loads(out)["mcp_servers"]["memhub"] == SERVER
    assert remove_table(out, MEMHUB) == text


def test_crlf_files_stay_crlf() -> None:
    text = CODEX.replace("\n", "\r\n")
    out = set_table(text, MEMHUB, SERVER)
    assert "\n" not in out.replace("\r\n", "")
    assert out == set_table(CODEX, MEMHUB, SERVER).replace("\n", "\r\n")
    assert remove_table(out, MEMHUB) == text
    both = edit_tables(text, [(MEMHUB, SERVER), (("mcp_servers", "docs"), None)])
    assert "\n" not in both.replace("\r\n", "")


def test_super_table_with_only_a_sub_table_gets_its_own_header_above_it() -> None:
    text = 'a = 1\n\n# env for memhub\n[mcp_servers.memhub.env]\nX = "1"\n'
    out = set_table(text, MEMHUB, {"command": "m", "env": {"X": "1"}})
    assert out == 'a = 1\n\n[mcp_servers.memhub]\ncommand = "m"\n\n' + text[7:]
    assert remove_table(out, MEMHUB) == "a = 1\n\n# env for memhub\n"


def test_dotted_table_is_edited_as_dotted_keys() -> None:
    text = 'mcp_servers.memhub.command = "old"  # mine\nmcp_servers.memhub.gone = 1\nz = 2\n'
    out = set_table(text, MEMHUB, {"command": "new", "args": ["a"]})
    assert out == (
        'mcp_servers.memhub.command = "new"  # mine\nmcp_servers.memhub.args = ["a"]\nz = 2\n'
    )
    assert remove_table(out, MEMHUB) == "z = 2\n"


def test_sub_table_of_an_existing_table_is_edited_in_place() -> None:
    text = (
        '[mcp_servers.memhub]\ncommand = "m"\n\n[mcp_servers.memhub.env]\nA = "1"  # a\nB = "2"\n'
    )
    out = set_table(text, MEMHUB, {"command": "m", "env": {"A": "1", "C": "3"}})
    assert (
        out
        == '[mcp_servers.memhub]\ncommand = "m"\n\n[mcp_servers.memhub.env]\nA = "1"  # a\nC = "3"\n'
    )


def test_nested_tables_are_written_as_sub_tables_and_flat_maps_inline() -> None:
    value = {
        "url": "https://x",
        "http_headers": {"X-Team": "core"},
        "oauth": {"client_id": "abc"},
        "tools": {"search": {"approval": "auto"}},
        "profiles": {"a": {"b": {"c": 1}}},
        "empty": {},
    }
    out = set_table("", MEMHUB, value)
    assert out == (
        '[mcp_servers.memhub]\nurl = "https://x"\nhttp_headers = { X-Team = "core" }\n'
        'oauth = { client_id = "abc" }\nempty = {}\n\n'
        '[mcp_servers.memhub.tools]\nsearch = { approval = "auto" }\n\n'
        "[mcp_servers.memhub.profiles.a]\nb = { c = 1 }\n"
    )
    assert tomllib.loads(out)["mcp_servers"]["memhub"] == value


def test_inline_parent_is_rewritten_inline() -> None:
    text = 'mcp_servers = { a = { command = "x" } }  # inline\n'
    out = set_table(text, MEMHUB, {"command": "m"})
    assert out == 'mcp_servers = { a = { command = "x" }, memhub = { command = "m" } }  # inline\n'
    assert remove_table(out, MEMHUB) == text
    assert remove_table(out, ("mcp_servers",)) == ""


def test_prune_false_keeps_an_implicit_parent() -> None:
    text = "a = 1\n"
    out = set_table(text, MEMHUB, {"command": "m"})
    assert remove_table(out, MEMHUB) == text
    kept = remove_table(out, MEMHUB, prune=False)
    assert kept == "a = 1\n\n[mcp_servers]\n"
    assert tomllib.loads(kept) == {"a": 1, "mcp_servers": {}}
    assert remove_table("[mcp_servers]\n[mcp_servers.memhub]\n", MEMHUB) == "[mcp_servers]\n"


def test_removing_a_missing_table_returns_the_text_unchanged() -> None:
    for text in ("", "a = 1", CODEX, "[x]\r\n"):
        assert remove_table(text, MEMHUB) is text


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("a = 1\nb = \n", MEMHUB, r"^line 2, column 5: not valid TOML"),
        ("[x]\nk = 1\n[x]\n", MEMHUB, r"^line 3, column 1: not valid TOML"),
        ('model = "o3"\n', ("model", "x"), r"^line 1, column 1: model is not a table"),
        ("[a]\nb = 1\n", ("a", "b"), r"^line 2, column 1: a\.b is not a table"),
        ("[[a]]\n[[a]]\n", ("a", "b"), r"^line 1, column 1: a is not a table"),
        ("[[a]]\n", ("a",), r"a is not a table"),
    ],
)
def test_errors_name_line_and_column(text: str, path: tuple[str, ...], message: str) -> None:
    with pytest.raises(TomlEditError, match=message) as info:
        set_table(text, path, {})
    assert isinstance(info.value, ValueError)
    assert info.value.line is not None and info.value.col is not None


def test_bad_values_and_paths_are_refused() -> None:
    for value in ({"a": None}, {"a": object()}, {1: "x"}, {"a": 2**63}, {"a": "\ud800"}):
        with pytest.raises(TomlEditError):
            set_table("", MEMHUB, value)  # type: ignore[arg-type]
    for path in ((), "mcp_servers", (1,)):
        with pytest.raises(TomlEditError):
            set_table("", path, {})  # type: ignore[arg-type]


def test_unusual_values_round_trip() -> None:
    from datetime import UTC, date, datetime, time

    value = {
        "s": 'quote " back \\ tab \t nl \n del \x7f é 😀',
        "": "empty key",
        "a.b": 1,
        "f": 1.5e-07,
        "inf": float("inf"),
        "t": True,
        "dt": datetime(1979, 5, 27, 7, 32, tzinfo=UTC),
        "d": date(1979, 5, 27),
        "tm": time(7, 32, 0, 999),
        "mixed": [1, "a", [True]],
        "aot": [{"x": 1}, {"y": {"z": 2}}],
    }
    out = set_table("", ("t", 'we"ird key'), value)
    assert tomllib.loads(out)["t"]['we"ird key'] == value
    assert remove_table(out, ("t", 'we"ird key')) == ""


def test_nan_is_idempotent() -> None:
    out = set_table("", MEMHUB, {"x": float("nan")})
    assert set_table(out, MEMHUB, {"x": float("nan")}) == out


def test_type_changes_are_written() -> None:
    text = set_table("", MEMHUB, {"timeout": 30})
    for value in (30.0, True, "30", [30], {"v": 30}):
        out = set_table(text, MEMHUB, {"timeout": value})
        assert tomllib.loads(out)["mcp_servers"]["memhub"]["timeout"] == value
        assert type(tomllib.loads(out)["mcp_servers"]["memhub"]["timeout"]) is type(value)


def test_table_replaced_by_scalar_and_back() -> None:
    text = '[m]\nx = 1\n\n[m.env]\nA = "1"\n\n[[m.list]]\ny = 1\n\n[other]\n'
    out = set_table(text, ("m",), {"x": 1, "env": "flat", "list": 3})
    assert out == '[m]\nx = 1\nenv = "flat"\nlist = 3\n\n[other]\n'
    back = set_table(out, ("m",), {"x": 1, "env": {"A": {"b": 1}}, "list": [{"y": 1}]})
    assert back == "[m]\nx = 1\nenv = { A = { b = 1 } }\nlist = [{ y = 1 }]\n\n[other]\n"


def test_headers_with_spaces_and_quoted_parts_are_found() -> None:
    text = "[ mcp_servers . 'memhub' ]  # mine\ncommand = 'old'\n\n[z]\n"
    out = set_table(text, MEMHUB, {"command": "new"})
    assert out == "[ mcp_servers . 'memhub' ]  # mine\ncommand = \"new\"\n\n[z]\n"
    assert remove_table(out, MEMHUB) == "[z]\n"


def test_multiline_values_and_strings_with_brackets_are_skipped_whole() -> None:
    text = (
        "args = [\n  \"a\",  # first\n  '''\n[not.a.table]\n''',\n]\n"
        'x = """\n[[nor.this]]\n# nor a comment\n"""\n'
        '[mcp_servers.memhub]\ncommand = "m"\n'
    )
    out = set_table(text, MEMHUB, {"command": "m", "args": ["b"]})
    assert out == text + 'args = ["b"]\n'
    assert remove_table(out, MEMHUB) == text[: text.index("[mcp_servers")]


def test_toml_1_1_input_that_only_tomlkit_reads_is_edited_too() -> None:
    text = 'inline = {\n  a = 1,\n}\nesc = "\\e"\n'
    assert parse(text) == {"inline": {"a": 1}, "esc": "\x1b"}
    out = set_table(text, MEMHUB, SERVER)
    assert out == text + SERVER_TOML
    assert remove_table(out, MEMHUB) == text


def test_paths_inside_arrays_of_tables_are_refused() -> None:
    text = '[[hooks.PreToolUse]]\nmatcher = "Bash"\n'
    with pytest.raises(TomlEditError, match=r"^line 1, column 1: hooks\.PreToolUse is not a table"):
        set_table(text, ("hooks", "PreToolUse", "x"), {})
    with pytest.raises(TomlEditError, match="is not a table"):
        get_table(text, ("hooks", "PreToolUse"))
    with pytest.raises(TomlEditError, match="is not a table"):
        remove_table(text, ("hooks", "PreToolUse"))


# --------------------------------------------------------------------------------------------
# generated pre-existing configs
#
# Values are rendered by tomlkit, not by the code under test. Structure (which tables, which
# style for mcp_servers, order, newline) is drawn by hypothesis; the many small lexical choices
# (values, comments, spacing) come from a random.Random whose seed hypothesis draws: one draw
# instead of hundreds, so 500 configs take seconds. Strategies are built once, at import.
STRINGS = [
    *("", "x", "npx", "é", "ünï code", "😀", 'q"uote', "back\\slash", "tab\t", "nl\nx", "cr\r"),
    *("# hash", "[br]", "[[aot]]", "a.b", "'", "'''", '"""', "\x7f", "\u2028", "=", "{ }"),
    *("/abs/p", "C:\\x", "${env:TOKEN}", " lead", "trail "),
]
KEY_POOL = ["a", "b-1", "_", "A_B", "a.b", "a b", "ünï", "", '"', "'", "#", "[x]", "1", "é"]
COMMENT_POOL = ["", " plain", "# double", " [mcp_servers.x]", ' k = "v"', " ünï 😀", ' """', "\t"]
LITERALS = ["", "a", " #", "[b]", 'x = "y"', "{ },"]
INTS = [0, 1, -1, 42, 2**63 - 1, -(2**63)]
FLOATS = [0.0, -0.0, 1.5, 1e300, 5e-324, float("inf"), float("-inf")]
DATES = ["1979-05-27T07:32:00Z", "1979-05-27 07:32:00-08:00", "1979-05-27", "07:32:00"]
ML_BODIES = ["", "x", "\n[mcp_servers.fake]\n# no\n", "a'' \"\" b\n[[h]]"]
SEPARATORS = ["\n", "\n\n", "\n\n", "\n  \n", "\n\n\n"]
EOFS = ["\n", "\n", "", "\n\n", "\n  ", "\n\n\n"]

SEED = st.integers(0, 2**32 - 1)
BOOL = st.booleans()
SMALL = st.integers(0, 2)
NEWLINE = st.sampled_from(["\n", "\r\n"])
SERVER_NAMES = ["docs", "github", "memhub", "x.y", "ünï code", "a b", "memhub-old"]
SERVERS = st.lists(st.sampled_from(SERVER_NAMES), unique=True, max_size=3)
TABLE_KEYS = ["command", "args", "cwd", "url", "startup_timeout_sec", "enabled", "x-1", "ké y"]
SERVER_KEYS = st.lists(st.sampled_from(TABLE_KEYS), unique=True)
STYLE = st.sampled_from(["tables", "tables", "dotted", "both", "none"])
ROOT_KEYS = st.lists(
    st.sampled_from(["model", "approval_policy", "ünï", "a b", "x-1"]), unique=True
)
OTHERS = {
    "[tui]": ["notifications", "theme"],
    '[projects."/home/me/src/app"]': ["trust_level"],
    "[marketplaces.openai-curated]": ["source"],
    '[plugins."memhub@memhub-market"]': ["enabled"],
    '[hooks.state."/h/hooks.json:pre_tool_use:0:0"]': ["trusted_hash"],
    "[profiles.fast]": ["model", "model_reasoning_effort"],
    "[profiles.fast.features]": ["x"],
}
OTHER_TABLES = st.lists(st.sampled_from(sorted(OTHERS)), unique=True)


def _key(k: str) -> str:
    """A TOML key rendered by tomlkit (independent of the code under test)."""
    return tomlkit.key(k).as_string()


def _value(v: Any) -> str:
    """A TOML value rendered by tomlkit."""
    return tomlkit.item(v).as_string()


Comments = list[tuple[str, str | None, str]]  # (comment, the key whose line it ends, role)


@dataclass
class Unit:
    """One block of a generated config: a table (with its comments) or the root keys."""

    text: str
    server: str | None = None  # the mcp server it defines (partly), if any
    comments: Comments = field(default_factory=list)
    table: str = "main"  # "env" for a server's env sub-table


@dataclass
class Config:
    """A generated config.toml and what the generator knows about it."""

    text: str
    units: list[Unit]
    servers: list[str]
    nl: str
    dotted: list[tuple[str | None, str, Comments]] = field(default_factory=list)

    def comments(self) -> list[tuple[str | None, str, str, str | None, str]]:
        """(server, table, comment, key it ends, role) for every comment."""
        units = [(u.server, u.table, u.comments) for u in self.units]
        return [(s, t, *c) for s, t, cs in units + self.dotted for c in cs]


class _Gen:
    """Writes the pieces of one config; numbers comments so each is unique."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.ids = itertools.count()

    def comment(self, comments: Comments, role: str, key: str | None = None) -> str:
        """A unique comment; role: above (a header), header, line, eol (of `key`), array."""
        text = f"# c{next(self.ids)}:{self.rnd.choice(COMMENT_POOL)}"
        comments.append((text, key, role))
        return text

    def scalar(self) -> str:
        pick = self.rnd.choice
        kind = pick(["str", "str", "lit", "int", "float", "bool", "date", "ml", "mll"])
        if kind == "str":
            return _value(pick(STRINGS))
        if kind == "lit":
            return "'" + pick(LITERALS) + "'"
        if kind == "int":
            return str(pick(INTS))
        if kind == "float":
            return _value(pick(FLOATS))
        if kind == "bool":
            return pick(["true", "false"])
        if kind == "date":
            return pick(DATES)
        body = pick(ML_BODIES)
        if kind == "ml":
            return '"""' + body.replace('""', '\\"\\"') + '"""'
        return "'''" + body.replace("''", "'") + "'''"

    def scalars(self, low: int = 0) -> list[str]:
        return [self.scalar() for _ in range(low + self.rnd.randrange(3))]

    def keys(self) -> list[str]:
        return self.rnd.sample(KEY_POOL, self.rnd.randrange(4))

    def value(self, comments: Comments) -> str:
        kind = self.rnd.choice(["scalar", "scalar", "array", "inline", "multiline-array"])
        if kind == "scalar":
            return self.scalar()
        if kind == "array":
            return "[" + ", ".join(self.scalars()) + "]"
        if kind == "inline":
            pairs = [f"{_key(k)} = {self.scalar()}" for k in self.keys()]
            return "{ " + ", ".join(pairs) + " }"
        items = self.scalars(low=1)
        return "[\n  " + ",\n  ".join(items) + f",  {self.comment(comments, 'array')}\n]"

    def body(self, keys: list[str], comments: Comments, prefix: str = "") -> list[str]:
        """Key/value lines with comments between keys and at the ends of lines."""
        lines = []
        for k in keys:
            if self.rnd.random() < 0.25:
                lines.append(self.comment(comments, "line"))
            line = f"{prefix}{_key(k)} = {self.value(comments)}"
            if self.rnd.random() < 0.5:
                line += self.rnd.choice([" ", "  ", "\t"]) + self.comment(comments, "eol", k)
            lines.append(line)
        return lines

    def table(self, header: str, keys: list[str], server: str | None = None) -> Unit:
        """A `[header]` unit, maybe with comment lines above it and a comment on its header."""
        comments: Comments = []
        lines = [self.comment(comments, "above") for _ in range(self.rnd.choice([0, 0, 1, 2]))]
        head = header
        if self.rnd.random() < 0.25:
            head += "  " + self.comment(comments, "header")
        lines += [head, *self.body(keys, comments)]
        return Unit("\n".join(lines), server, comments)


@st.composite
def configs(draw: st.DrawFn) -> Config:
    """A valid config.toml: root keys, tables, sub-tables, arrays of tables, comments, CRLF."""
    gen = _Gen(draw(SEED))
    root_comments: Comments = []
    root_lines = gen.body(draw(ROOT_KEYS), root_comments)
    if gen.rnd.random() < 0.5:
        root_lines.insert(
            gen.rnd.randrange(len(root_lines) + 1), gen.comment(root_comments, "line")
        )
    if draw(BOOL):
        root_lines.append("features.web_search = true")
    units: list[Unit] = []

    style = draw(STYLE)
    servers = [] if style == "none" else draw(SERVERS)
    dotted = servers[: len(servers) // 2 + 1] if style in ("dotted", "both") else []
    dotted_comments: list[tuple[str | None, str, Comments]] = []
    for name in dotted:  # mcp_servers.<name>.<key> = ... among the root keys
        found: Comments = []
        root_lines += gen.body(draw(SERVER_KEYS), found, prefix=f"mcp_servers.{_key(name)}.")
        dotted_comments.append((name, "main", found))
    for name in servers:
        if name not in dotted:
            units.append(gen.table(f"[mcp_servers.{_key(name)}]", draw(SERVER_KEYS), name))
            if draw(BOOL):  # a sub-table, shuffled anywhere like every unit
                env = gen.table(f"[mcp_servers.{_key(name)}.env]", gen.keys(), name)
                env.table = "env"
                units.append(env)
    if style == "tables" and draw(BOOL):
        units.append(gen.table("[mcp_servers]", []))
    for header in draw(OTHER_TABLES):
        units.append(gen.table(header, OTHERS[header]))
    for _ in range(draw(SMALL)):
        hook = gen.table("[[hooks.PreToolUse]]", ["matcher"])
        handler = gen.table("[[hooks.PreToolUse.hooks]]", ["type", "command"])
        hook.text += "\n" + gen.rnd.choice(["", "\n"]) + handler.text
        hook.comments += handler.comments
        units.append(hook)
    for _ in range(draw(SMALL)):
        units.append(gen.table("[[notes]]", gen.keys()))

    root = Unit("\n".join(root_lines), comments=root_comments)
    units = [root, *draw(st.permutations(units))]
    text = root.text
    for unit in units[1:]:
        sep = gen.rnd.choice(SEPARATORS)
        text += (sep if text else sep.lstrip("\n")) + unit.text
    text += gen.rnd.choice(EOFS)
    nl = draw(NEWLINE)
    if nl == "\r\n":
        text = text.replace("\n", "\r\n")
        for unit in units:
            unit.text = unit.text.replace("\n", "\r\n")
    return Config(text, units, servers, nl, dotted_comments)


# Values memhub writes: real unicode text from hypothesis, and the corner cases from the pools.
_UNICODE = st.characters(codec="utf-8", exclude_categories=("Cs",))
TEXT = st.text(_UNICODE, max_size=6) | st.sampled_from(STRINGS)
KEY = st.text(_UNICODE, max_size=4) | st.sampled_from(KEY_POOL)
STRING_MAP = st.dictionaries(KEY, TEXT, max_size=3)


def server_values() -> st.SearchStrategy[dict[str, Any]]:
    """Values of an `[mcp_servers.<name>]` table, with unicode and nested tables."""
    return st.fixed_dictionaries(
        {},
        optional={
            "command": TEXT,
            "args": st.lists(TEXT, max_size=3),
            "env": STRING_MAP,
            "env_vars": st.lists(TEXT, max_size=2),
            "cwd": TEXT,
            "url": TEXT,
            "bearer_token_env_var": TEXT,
            "http_headers": STRING_MAP,
            "env_http_headers": STRING_MAP,
            "oauth": st.fixed_dictionaries({"client_id": TEXT}),
            "scopes": st.lists(TEXT, max_size=2),
            "startup_timeout_sec": st.integers(0, 600) | st.floats(0, 600),
            "enabled": st.booleans(),
            "tools": st.dictionaries(
                KEY,
                st.fixed_dictionaries({"approval": st.sampled_from(["auto", "prompt"])}),
                max_size=2,
            ),
        },
    )


def has(data: dict[str, Any], path: tuple[str, ...]) -> bool:
    """`path` names something in `data`."""
    for k in path:
        if not isinstance(data, dict) or k not in data:
            return False
        data = data[k]
    return True


SERVER_VALUES = server_values()


def with_table(data: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of `data` with `path` set to `value`."""
    data = copy.deepcopy(data)
    cur = data
    for k in path[:-1]:
        cur = cur.setdefault(k, {})
    cur[path[-1]] = value
    return data


def assert_kept(cfg: Config, name: str | None, value: dict[str, Any], out: str) -> None:
    """Property 2: every comment and every unrelated table's text survive, newlines unmixed."""
    env = value.get("env")
    for server, table, comment, key, role in cfg.comments():
        if server == name and lost(table, key, role, value, env):
            continue
        assert comment in out, comment
    for unit in cfg.units[1:]:
        if unit.server != name:
            assert unit.text in out, unit.text
    nl = "\r\n" if "\r\n" in cfg.text else "\n"  # a text without newlines gets LF
    assert "\n" not in out.replace(nl, "")


def lost(table: str, key: str | None, role: str, value: dict[str, Any], env: Any) -> bool:
    """A comment of the target server that set_table may delete with what it is part of."""
    if role == "array":
        return True  # inside a multi-line array value that may be rewritten
    if table == "main":
        return role == "eol" and key not in value  # on the line of a deleted key
    gone = not isinstance(env, dict)  # the env sub-table is deleted, its header and body too
    return role != "above" and (gone or (role == "eol" and key not in env))


OTHER_PATHS = [("memhub",), ("profiles", "memhub"), ("tui", "memhub"), ("a", "b", "c")]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_edit_properties(data: st.DataObject) -> None:
    """The four properties of set_table/remove_table (and edit_tables) on 500 configs."""
    # (1) the data is the original plus exactly that table; (2) every comment and unrelated
    # table's text survive; (3) removing a new table (or item) gives back the original bytes;
    # (4) setting an existing table to the same value again changes nothing.
    cfg = data.draw(configs(), "config")
    servers = [("mcp_servers", n) for n in [*cfg.servers, "memhub", "new one"]]
    path = data.draw(st.sampled_from(servers + OTHER_PATHS), "path")
    value = data.draw(SERVER_VALUES, "value")
    before = tomllib.loads(cfg.text)

    out = set_table(cfg.text, path, value)
    assert tomllib.loads(out) == with_table(before, path, value)  # (1)
    assert get_table(out, path) == value
    assert_kept(cfg, path[-1] if path[0] == "mcp_servers" else None, value, out)  # (2)
    if not has(before, path):
        assert remove_table(out, path) == cfg.text  # (3)
    assert set_table(out, path, value) == out  # (4)

    second = data.draw(SERVER_VALUES, "second value")  # replace the existing table
    once = set_table(out, path, second)
    assert tomllib.loads(once) == with_table(before, path, second)  # (1)
    assert set_table(once, path, second) == once  # (4)

    # edit_tables: many tables in one pass give what the same edits one by one give
    fresh = [("mcp_servers", f"new-{i}") for i in range(data.draw(st.integers(2, 6), "new"))]
    gone = data.draw(st.lists(st.sampled_from(servers[:-2] or [path]), unique=True), "gone")
    edits = [(p, value) for p in fresh] + [(p, None) for p in gone if p not in fresh]
    batch = edit_tables(cfg.text, edits)
    one_by_one = cfg.text
    for p, v in edits:
        one_by_one = set_table(one_by_one, p, v) if v is not None else remove_table(one_by_one, p)
    assert tomllib.loads(batch) == tomllib.loads(one_by_one)  # (1)
    if not gone:
        assert batch == one_by_one
        assert edit_tables(batch, [(p, None) for p in fresh]) == cfg.text  # (3)
    assert edit_tables(batch, [(p, value) for p in fresh]) == batch  # (4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_removing_a_user_table_keeps_everything_else(data: st.DataObject) -> None:
    cfg = data.draw(configs(), "config")
    name = data.draw(st.sampled_from(cfg.servers or ["absent"]), "server")
    out = remove_table(cfg.text, ("mcp_servers", name))
    expected = tomllib.loads(cfg.text)
    expected.get("mcp_servers", {}).pop(name, None)
    if expected.get("mcp_servers") == {} and "[mcp_servers]" not in cfg.text:
        del expected["mcp_servers"]
    assert tomllib.loads(out) == expected
    for unit in cfg.units[1:]:
        if unit.server != name:
            assert unit.text in out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_tomlkit_reads_the_output_like_tomllib(data: st.DataObject) -> None:
    """memhub's diff reads config.toml with tomlkit: it must see the same edit."""
    cfg = data.draw(configs(), "config")
    path = ("mcp_servers", data.draw(st.sampled_from([*cfg.servers, "memhub"]), "server"))
    value = data.draw(SERVER_VALUES, "value")
    out = set_table(cfg.text, path, value)
    # tomlkit keeps CRLF inside multi-line strings where tomllib gives LF: compare like with like
    assert tomlkit.parse(out).unwrap() == with_table(tomlkit.parse(cfg.text).unwrap(), path, value)


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        ({"a": {"b": 1}}, {"a": {"b": 1}}, True),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, True),
        ({"a": [1, 2]}, {"a": (1, 2)}, True),
        ({"a": 1}, {"a": 1.0}, False),  # a TOML integer is not a float
        ({"a": True}, {"a": 1}, False),
        ({"a": float("nan")}, {"a": float("nan")}, True),  # nan equals nan as TOML data
        ({"a": datetime(2024, 1, 1)}, {"a": datetime(2024, 1, 1)}, True),
        ({"a": datetime(2024, 1, 1)}, {"a": datetime(2024, 1, 1, tzinfo=UTC)}, False),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
)
def test_the_verifier_compares_toml_data(left: object, right: object, equal: bool) -> None:
    """tomlvalues.same, which every edit's result is checked with: one canonical-JSON
    comparison for a matching document, the type-aware walk otherwise."""
    from memhub.compiler.formats.tomlvalues import same

    assert same(left, right) is equal
    assert same(right, left) is equal


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b-c", "d.e", "memhub", "new one"]), SERVER_VALUES),
        max_size=6,
    )
)
def test_a_new_file_is_text_the_scanner_reads(servers: list[tuple[str, Any]]) -> None:
    """A file memhub writes from nothing is not scanned when its edit is verified (only its
    data is checked): the serializer's output must scan, for the next edit of that file."""
    from memhub.compiler.formats.tomldoc import scanned
    from memhub.compiler.formats.tomlvalues import same

    wanted = dict(servers)
    out = edit_tables("", [(("mcp_servers", name), value) for name, value in wanted.items()])
    assert len(scanned(out).stmts) >= len(wanted)  # the scanner reads it (or raises)
    assert same(tomllib.loads(out).get("mcp_servers", {}), wanted)
