"""Two projects and a shared memory on one machine: what the server tests serve and attack."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memhub.runtime.memory.records import Triggers

from tests.runtime.server import kit

# Words only the other project's records hold: none may reach a client of "app".
OTHER_NAME = "zebra-other"
OTHER_WORD = "zanzibar"


@dataclass
class World:
    app: Path  # the served project's checkout
    app_id: str
    other: Path
    other_id: str
    revisions: dict[str, str]  # record id -> revision as seeded

    @property
    def other_ids(self) -> tuple[str, ...]:
        return ("r-b-fact", "r-b-lesson")

    def secrets(self) -> tuple[str, ...]:
        """Every string that would show the other project leaked."""
        return (self.other_id, OTHER_NAME, OTHER_WORD, str(self.other), *self.other_ids)


def make_world(tmp_path: Path) -> World:
    app = kit.repo(tmp_path / "app")
    other = kit.repo(tmp_path / OTHER_NAME)
    app_id = kit.connect(app, "app")
    other_id = kit.connect(other, OTHER_NAME)
    push = Triggers(commands=("git push",), paths=("migrations/*.sql",))
    revisions = {
        "r-a-fact": kit.seed(
            "r-a-fact",
            "Deploys are blue-green",
            "We deploy with blue-green switching behind the load balancer.",
            project=app_id,
            tags=("ops",),
        ),
        "r-a-lesson": kit.seed(
            "r-a-lesson",
            "Run the migration check before pushing",
            "Run `make migrate-check` before git push: a broken migration blocks deploys.",
            project=app_id,
            kind="lesson",
            triggers=push,
        ),
        "r-a-proposed": kit.seed(
            "r-a-proposed",
            "Force-push is fine",
            "An agent thought force pushing is fine before deploys.",
            project=app_id,
            kind="lesson",
            triggers=push,
            status="proposed",
        ),
        "r-shared-pref": kit.seed(
            "r-shared-pref",
            "Format Python with ruff",
            "Every Python project is formatted with ruff format.",
            project=None,
            kind="preference",
        ),
        "r-b-fact": kit.seed(
            "r-b-fact",
            f"{OTHER_WORD} deploys",
            f"The {OTHER_WORD} deploy of {OTHER_NAME} uses blue-green too.",
            project=other_id,
        ),
        "r-b-lesson": kit.seed(
            "r-b-lesson",
            f"{OTHER_WORD} push rule",
            f"Before git push in {OTHER_NAME}, ping {OTHER_WORD}.",
            project=other_id,
            kind="lesson",
            triggers=push,
        ),
    }
    return World(app, app_id, other, other_id, revisions)
