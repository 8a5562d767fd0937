"""A shell command that is read-only at a glance: the test both recall and `shellmutate` use.

`read_only(command)` is true when the command has no shell operator and its first word is a
plain read-only tool (`grep`, `cat`, `ls` ...) or `git` with a read-only subcommand. It reads
no table and imports nothing, so the `recall.directives` handler can answer a read-only
`before_tool` call before importing its own module; `shellmutate.why` asks it first too.
"""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# First words that never mutate, whatever their arguments (no output-file option either).
READ_ONLY = _words(
    "grep egrep fgrep rg ag ack cat ls ll la head tail less more wc pwd echo printf which "
    "type whereis file stat du df jq diff cmp comm cut tr basename dirname realpath "
    "readlink printenv id whoami uname true false test [ sleep cd pushd popd ps pgrep top "
    "nproc free uptime alias help man column fold nl rev od hexdump strings md5sum sha1sum "
    "sha256sum shasum cksum wait exit return export unset set shopt ulimit umask"
)
READ_ONLY_GIT = _words(
    "status log show diff blame grep ls-files ls-tree ls-remote rev-parse rev-list "
    "describe shortlog cat-file merge-base for-each-ref show-ref whatchanged range-diff "
    "count-objects check-ignore name-rev version help"
)
OPERATORS = frozenset(">|;&\n$`(<\\")  # any of these sends a command to the full reader


def read_only(command: str) -> bool:
    """True when `command` is certainly read-only without parsing it."""
    if not OPERATORS.isdisjoint(command):
        return False
    parts = command.split(None, 2)
    if not parts:
        return True
    if parts[0] in READ_ONLY:
        return True
    git_read = parts[0] == "git" and len(parts) > 1 and parts[1] in READ_ONLY_GIT
    return git_read and "--output" not in command
