"""Loading a hub is linear in its size: no garbage-collector passes while it loads.

The superlinear part of validation (20k servers 2.2 s, 40k 6.7 s, 400k not done at 60 s)
was the cycle collector: every generation-2 pass re-scanned all the YAML nodes, positions
and model objects a load keeps alive, so each pass cost more the larger the hub. The load
now pauses the collector; these tests count the passes that run during a load of a hub
with 3,000 servers (bench/gen_hub.py; 466 passes before), and check the collector is back
on after.
bench/bench_validate.py gives the timings.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memhub.hubspec import HubError, load

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import gen_hub


@pytest.fixture(scope="module")
def large_hub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return gen_hub.generate(tmp_path_factory.mktemp("large") / "hub", skills=1, servers=3000)


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collector pass, while the test runs."""
    passes: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield passes
    finally:
        gc.callbacks.remove(record)


def test_no_collector_pass_runs_while_a_large_hub_loads(
    large_hub: Path, collections: list[int]
) -> None:
    assert gc.isenabled()
    collections.clear()
    hub = load(large_hub)
    during = list(collections)
    assert len(hub.mcp_servers) == 3000
    # At most the one young-generation pass that runs as the collector resumes at the end.
    assert len(during) <= 1, f"{len(during)} passes, generations {sorted(set(during))}"
    assert gc.isenabled()


def test_the_collector_is_back_on_after_a_refused_hub(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text("version: [\n", "utf-8")
    with pytest.raises(HubError):
        load(tmp_path)
    assert gc.isenabled()


def test_a_caller_that_paused_the_collector_keeps_it_paused(large_hub: Path) -> None:
    gc.disable()
    try:
        load(large_hub)
        assert not gc.isenabled()
    finally:
        gc.enable()
