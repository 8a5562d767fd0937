"""The vocabulary of `shellmutate`: which tools, subcommands and options change durable state.

Data only, read by `shellmutate` on its slow path; each table line is parsed when first read,
so that importing the hook's hot path costs nothing. Imports nothing.
"""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """The set of whitespace-separated words in `text`."""
    return frozenset(text.split())


# The slow path's tables, read on first use (the fast path never needs them). One line each:
# `tool: subcommands that change state`, `tool sub: second words that change state`,
# `options tool: options that take a value before the subcommand`.
TABLE_TEXT = """
files: rm rmdir unlink mv cp mkdir touch chmod chown chgrp ln truncate dd shred rsync patch
  install mkfifo mknod scp split csplit zip gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd 7z
  ansible-playbook rustfmt mktemp
build: make gmake cmake ninja gradle gradlew mvn bazel ant meson scons
build dry: -n --dry-run --just-print --recon -q --question help --help -h --version -v
  -version --list -l
interpreters: python python2 python3 pypy pypy3 node deno ruby perl php
sql: psql mysql sqlite3 mariadb duckdb clickhouse-client
script runners: npm pnpm yarn bun
git: add am apply checkout switch restore cherry-pick clean clone commit fetch init merge mv
  pull push rebase reset revert rm gc prune update-ref update-index filter-branch filter-repo
  bisect format-patch sparse-checkout lfs replace
git stash: push save pop apply drop clear create store branch
git worktree: add remove prune move lock unlock repair
git submodule: add update init deinit sync set-branch set-url absorbgitdirs
git remote: add remove rm rename set-url set-head set-branches prune update
git notes: add append copy edit merge remove prune
docker: build commit cp create kill load login logout pull push rm rmi run start stop restart
  tag import save pause unpause rename update
docker compose: up down build pull push rm run start stop restart create kill cp
docker buildx: build bake create rm prune
docker image: build rm prune pull push tag load import
docker container: create run start stop kill rm prune cp commit rename update
docker volume: create rm prune
docker network: create rm prune connect disconnect
docker system: prune
docker builder: prune build
podman: build commit cp create kill load pull push rm rmi run start stop restart tag
kubectl: apply create delete edit patch replace scale annotate label expose run cordon
  uncordon drain taint autoscale cp
kubectl rollout: restart undo pause resume
kubectl config: set set-context set-cluster set-credentials use-context use delete-context
  delete-cluster delete-user rename-context unset
kubectl set: image env resources selector serviceaccount subject
terraform: apply destroy import init taint untaint refresh force-unlock get fmt
terraform state: mv rm push replace-provider
terraform workspace: new delete select
tofu: apply destroy import init taint untaint refresh force-unlock get fmt
helm: install upgrade uninstall delete rollback push package create
helm repo: add remove rm update
helm dependency: update build
helm plugin: install uninstall update
alembic: upgrade downgrade revision stamp merge edit init
gh pr: create new merge close reopen edit comment review ready checkout co lock
gh issue: create new close reopen edit comment delete transfer pin unpin lock develop
gh release: create delete upload edit
gh repo: create new delete fork clone edit rename archive unarchive sync
gh gist: create new edit delete clone
gh label: create edit delete clone
gh secret: set delete remove
gh variable: set delete
gh workflow: run enable disable
gh run: rerun cancel delete
gh extension: install remove upgrade
gh auth: login logout refresh setup-git
pip: install uninstall download wheel
pip cache: purge remove
npm: install i ci add uninstall remove rm un r update up upgrade link ln unlink publish
  unpublish dedupe prune version init pack deprecate
npm audit: fix
npm cache: clean add
pnpm: install i add remove rm uninstall un update up upgrade link unlink publish import
  dedupe prune init
yarn: install add remove upgrade up link unlink publish import dedupe init
bun: install i add remove rm update upgrade link unlink publish init create
uv: add remove sync lock venv init build publish
uv pip: install uninstall sync compile
uv tool: install uninstall upgrade
uv python: install uninstall pin
poetry: add remove install update lock build publish init new
pipenv: install uninstall update lock sync clean
pipx: install uninstall upgrade upgrade-all reinstall inject
conda: install create remove uninstall update upgrade
conda env: create remove update
mamba: install create remove uninstall update upgrade
gem: install uninstall update
bundle: install update add remove
cargo: add remove rm install uninstall update build fmt fix publish new init
  generate-lockfile vendor
go: get install build generate
go mod: tidy download vendor init edit
go work: init use sync edit
apt: install remove purge upgrade full-upgrade dist-upgrade autoremove update
apt-get: install remove purge upgrade dist-upgrade autoremove update
dnf: install remove erase upgrade update
yum: install remove erase upgrade update
apk: add del upgrade update
brew: install uninstall remove rm upgrade update reinstall tap untap link unlink cleanup
snap: install remove refresh
composer: install require remove update
dotnet: add remove restore build publish new
rustup: install update default uninstall
mix: deps.get deps.update deps.compile deps.clean compile format ecto.migrate ecto.rollback
  ecto.create ecto.drop ecto.reset ecto.setup ecto.gen.migration ash.codegen ash.migrate
  ash.setup ash.reset assets.build assets.deploy igniter.install archive.install
rake: db:migrate db:rollback db:seed db:reset db:setup db:drop db:create
rails: db:migrate db:rollback db:seed db:reset db:setup db:drop db:create generate g new
prisma: generate
prisma migrate: dev deploy reset resolve
prisma db: push seed execute
flask db: upgrade downgrade migrate init stamp
knex: migrate:latest migrate:rollback migrate:up migrate:down seed:run
sequelize: db:migrate db:migrate:undo db:seed:all
hatch: build publish
bd: create new update close reopen delete sync init comment label edit
bd dep: add remove rm
check modes: --check --check-formatted -check --dry-run --diff --check-only
twine: upload
options git: -C -c --git-dir --work-tree --namespace --exec-path
options docker: -H --host --context -c --config -l --log-level
options compose: -f --file -p --project-name --profile --env-file
options kubectl: -n --namespace --context --kubeconfig -s --server --cluster --user
options helm: -n --namespace --kube-context --kubeconfig
options gh: -R --repo --hostname
options npm: --prefix -C -w --workspace
options pnpm: -C --dir --filter -F
options yarn: --cwd
options uv: --directory --project -p --python
options cargo: --manifest-path -Z --config
options flask: -A --app
"""
_TABLES: dict[str, frozenset[str]] = {}  # the lines read so far


def table(key: str) -> frozenset[str]:
    """One line of `TABLE_TEXT` as a set ('git', 'git stash', 'options git' ...).

    Each line is found and split when first asked for: a command reads a handful of the
    hundred lines, and splitting them all cost each slow-path call ~0.2 ms."""
    found = _TABLES.get(key)
    if found is None:
        found = _TABLES[key] = _line(key)
    return found


def _line(key: str) -> frozenset[str]:
    start = TABLE_TEXT.find(f"\n{key}: ")
    if start < 0:
        return frozenset()
    start += len(key) + 3
    end = TABLE_TEXT.find("\n", start)
    while end >= 0 and TABLE_TEXT.startswith("  ", end + 1):  # a continuation line
        end = TABLE_TEXT.find("\n", end + 1)
    return words(TABLE_TEXT[start : end if end >= 0 else len(TABLE_TEXT)])


# runners whose operand is the command that really runs: tool -> words to skip first
RUNNERS = {"npx": (), "bunx": (), "pnpx": (), "uvx": (), "pipx": ("run",), "uv": ("run",),
            "poetry": ("run",), "pipenv": ("run",), "bundle": ("exec",), "pnpm": ("exec",),
            "yarn": ("exec", "dlx"), "pdm": ("run",), "hatch": ("run",), "rye": ("run",),
            "conda": ("run",), "mise": ("exec", "x"), "direnv": ("exec",)}  # fmt: skip
BUILD_SCRIPTS = ("build", "migrate", "deploy", "release", "publish", "format", "fmt", "fix",
                  "install", "generate", "codegen", "seed", "clean")  # fmt: skip
SQL_WRITES = ("insert ", "update ", "delete ", "create ", "drop ", "alter ", "truncate ",
               "grant ", "revoke ", "replace ", "vacuum", "copy ", ".import")  # fmt: skip
CODE_WRITES = (".write_text(", ".write_bytes(", ".unlink(", ".rmdir(", ".mkdir(", ".touch(",
                ".rename(", ".replace(", "os.remove(", "os.unlink(", "os.makedirs(",
                "os.mkdir(", "os.rename(", "os.replace(", "os.rmdir(", "shutil.", "writeFile",
                "appendFile", "fs.write", "fs.rm", "fs.unlink", "fs.mkdir", "File.write",
                "FileUtils.", "unlink(", "file_put_contents", ".to_csv(", ".to_parquet(",
                ".to_json(", ".savefig(", ".save(", "sqlite3.connect(")  # fmt: skip
LINTERS_FIX = ("eslint", "stylelint", "biome", "rubocop", "standard")
FORMATTERS = {  # tool -> options that make it only check; None: rewrites only with -w/-i/--write
    "black": ("--check", "--diff"),
    "isort": ("--check", "--check-only", "-c", "--diff"),
    "autopep8": None,
    "gofmt": None,
    "clang-format": None,
    "prettier": None,
}
MANAGE_WRITES = words(
    "migrate makemigrations flush loaddata createsuperuser collectstatic squashmigrations "
    "startapp createcachetable"
)


MIGRATORS = {"diesel": ("migration", "run"), "sqlx": ("migrate", "run"), "goose": ("up", ""),
              "migrate": ("up", ""), "dbmate": ("up", ""), "flyway": ("migrate", "")}  # fmt: skip

# option sets of git branch/tag/config, curl and ssh
GIT_DRY_N = frozenset(("git clean", "git push", "git add", "git rm", "git mv", "git prune"))
BRANCH_CHANGE = words("-d -D -m -M -c -C --delete --move --copy -u --set-upstream-to -f --force")
BRANCH_LIST = words("-l --list -a -r --all --remotes --contains --merged --no-merged -v -vv")
TAG_CHANGE = words("-d --delete -a -s -f -m")
TAG_LIST = words("-l --list -n --contains --points-at --merged -v --verify")
CONFIG_CHANGE = words("--unset --unset-all --add --replace-all --remove-section -e --edit")
CONFIG_READ = words("--get --get-all --get-regexp -l --list --show-origin get list")
CURL_BODY = ("-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-F", "--form",
              "-T", "--upload-file", "--json")  # fmt: skip
CURL_OUT = words("-o -O --output --remote-name --remote-name-all --output-dir")
SSH_OPTIONS = words("-p -i -l -o -F -J -L -R -D -E -b -c -e -m -O -Q -S -W -w -B -I")
