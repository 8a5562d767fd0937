"""What gh and the GitHub API print, in the exact shapes of gh's source (cli/cli,
pkg/cmd/pr/...): `pr create` writes only the URL to stdout; warnings, push progress and errors
go to stderr; a non-terminal `pr view` prints raw `field:\\tvalue` lines."""

from __future__ import annotations

URL = "https://github.com/acme/widgets/pull/42"
CREATE_STDOUT = URL + "\n"
# stderr and stdout together (Codex's combined output; `2>&1`): push progress and the
# uncommitted-change warning come first, the URL last
CREATE_COMBINED = (
    "Warning: 2 uncommitted changes\n"
    "remote: \n"
    "remote: Create a pull request for 'feat/x' on GitHub by visiting:        \n"
    "remote:      https://github.com/acme/widgets/pull/new/feat/x        \n"
    "remote: \n"
    "To github.com:acme/widgets.git\n"
    " * [new branch]      HEAD -> feat/x\n"
    "branch 'feat/x' set up to track 'origin/feat/x'.\n" + URL + "\n"
)
# the create failed: the error (stderr) names the PR that already exists
ALREADY_EXISTS = (
    'a pull request for branch "feat/x" into branch "main" already exists:\n'
    "https://github.com/acme/widgets/pull/17\n"
)
CREATE_FAILED = (
    "pull request create failed: GraphQL: No commits between main and feat/x (createPullRequest)\n"
)
DRY_RUN = (
    "Would have created a Pull Request with:\n"
    "title:\tFix the thing\n"
    "draft:\tfalse\n"
    "base:\tmain\n"
    "head:\tfeat/x\n"
    "maintainerCanModify:\ttrue\n"
    "body:\n"
    "Follow-up to https://github.com/acme/widgets/pull/40\n"
)
VIEW_RAW = (
    "title:\tFix the thing\n"
    "state:\tOPEN\n"
    "author:\toctocat\n"
    "labels:\t\n"
    "assignees:\t\n"
    "reviewers:\t\n"
    "projects:\t\n"
    "milestone:\t\n"
    "number:\t42\n"
    "url:\thttps://github.com/acme/widgets/pull/42\n"
    "additions:\t10\n"
    "deletions:\t2\n"
    "auto-merge:\tdisabled\n"
    "--\n"
    "Supersedes https://github.com/acme/widgets/pull/40 and https://github.com/acme/widgets/pull/41\n"
)
VIEW_JSON = '{"number":42,"url":"https://github.com/acme/widgets/pull/42"}\n'
COMMENT = "https://github.com/acme/widgets/pull/42#issuecomment-1234567890\n"
LIST_RAW = "42\tFix the thing\tfeat/x\tOPEN\t2024-10-20T10:00:00Z\n41\tOther\tfeat/y\tOPEN\t2024-10-19T10:00:00Z\n"
API_PULL = (
    '{"url":"https://api.github.com/repos/acme/widgets/pulls/42","id":1,'
    '"html_url":"https://github.com/acme/widgets/pull/42",'
    '"diff_url":"https://github.com/acme/widgets/pull/42.diff",'
    '"patch_url":"https://github.com/acme/widgets/pull/42.patch",'
    '"issue_url":"https://api.github.com/repos/acme/widgets/issues/42","number":42,'
    '"state":"open","title":"Fix the thing","user":{"login":"octocat",'
    '"html_url":"https://github.com/octocat"},"body":"Follow-up to #40",'
    '"commits_url":"https://api.github.com/repos/acme/widgets/pulls/42/commits",'
    '"review_comments_url":"https://api.github.com/repos/acme/widgets/pulls/42/comments",'
    '"head":{"repo":{"pulls_url":"https://api.github.com/repos/acme/widgets/pulls{/number}"}}}'
)
API_LIST = "[" + API_PULL + "," + API_PULL.replace("42", "43") + "]"
MCP_CREATE = '{"id":"2398475","url":"https://github.com/acme/widgets/pull/42"}'
MCP_ENVELOPE = (
    '{"content":[{"type":"text","text":'
    + '"{\\"html_url\\":\\"https://github.com/acme/widgets/pull/42\\",\\"body\\":\\"see https://github.com/acme/widgets/pull/9\\"}"'
    + "}]}"
)
