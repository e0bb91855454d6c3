"""A bounded load test of the web app on 127.0.0.1: games played to the end at once by an HTTP
client against a real uvicorn server. Every game finishes, none is lost (each is saved and reads
back as a finished record); the median and 99th-percentile response times are printed.

``make test`` plays 12 games at once (every opponent kind, every seat, interleaved requests);
the 50-game load run is marked ``long`` (``make test-long``)."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from apps.web.server import background_server, create_app
from president_env.records import load_record

pytestmark = pytest.mark.slow



async def play_one(client: httpx.AsyncClient, seed: int, times: list[float]) -> dict[str, Any]:
    async def call(method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        t = time.perf_counter()
        r = await client.request(method, url, json=body)
        times.append(time.perf_counter() - t)
        assert r.status_code == 200, r.text[:300]
        return r.json()  # type: ignore[no-any-return]

    opponents = ["random", "easy", "normal", "hard"][seed % 4]
    view = await call("POST", "/api/games", {"preset": "standard", "players": 4, "seat": seed % 4,
                                             "opponents": opponents, "seed": seed})
    while "final" not in view:
        legal = view["legal"]
        a = legal[(seed + view["ply"]) % len(legal)]["id"]
        view = await call("POST", f"/api/games/{view['id']}/move",
                          {"action": a, "ply": view["ply"]})
    return view


async def play_all(url: str, times: list[float], games: int) -> list[dict[str, Any]]:
    limits = httpx.Limits(max_connections=games)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        return await asyncio.gather(*(play_one(client, s, times) for s in range(games)))


@pytest.mark.parametrize("games", [12, pytest.param(50, marks=pytest.mark.long)])
def test_concurrent_games(tmp_path: Path, games: int) -> None:
    app = create_app(save_dir=tmp_path)
    times: list[float] = []
    with background_server(app) as url:
        t0 = time.perf_counter()
        views = asyncio.run(play_all(url, times, games))
        wall = time.perf_counter() - t0
    assert len({v["id"] for v in views}) == games
    assert all(v["state"]["phase"] == "over" for v in views)
    for v in views:  # none lost: every game saved, finished, with the result the client saw
        record = load_record(tmp_path / f"{v['id']}.json")
        assert record.result is not None
        assert list(record.result.standings) == v["final"]["standings"]
    ms = sorted(t * 1000 for t in times)
    p50, p99 = statistics.median(ms), ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    print(f"\n{games} concurrent games, {len(ms)} requests in {wall:.1f} s: median "
          f"{p50:.1f} ms, 99th percentile {p99:.1f} ms, max {ms[-1]:.1f} ms")
    assert p99 < 5000
