"""The HTTP side of the web app: a FastAPI app over a :class:`~apps.web.store.GameStore`.

Every answer of ``/api`` is JSON; every refusal is a 4xx ``{"error": "<what and why>"}`` that
changes nothing (the page shows the message). Request bodies over ``max_body`` bytes (1 MB by
default) are refused with 413 before they reach a route. Game work runs in worker threads
(one lock per game), so games of different tabs advance side by side.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from apps.web.replay import ReplayLibrary
from apps.web.session import HUMAN, GameSpec, WebError
from apps.web.store import GameStore, agent_choices
from president_env.core.rules import PRESET_PLAYERS, PRESETS, Rules
from president_env.extras import missing_extra

try:
    from fastapi import FastAPI, Request
    from fastapi.responses import FileResponse, JSONResponse
    from fastapi.staticfiles import StaticFiles
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.types import ASGIApp, Message, Receive, Scope, Send
except ImportError:
    raise missing_extra("fastapi", "web", "apps.web (the browser app)") from None

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 1_000_000
"""Largest request body accepted, in bytes."""


class _TooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: a 413 JSON error for a body over ``limit`` bytes (by Content-Length,
    or counted as it arrives when there is none)."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await self._refuse(send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        await JSONResponse(
            {"error": f"request body too large: at most {self.limit} bytes"}, status_code=413
        )({"type": "http"}, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object, or a 400 that says what is wrong with it."""
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise WebError(400, f"the body is not valid JSON: {e}") from None
    except RecursionError:
        raise WebError(400, "the body is JSON nested too deeply to read") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise WebError(400, "the body holds an integer of thousands of digits") from None
    if not isinstance(data, dict):
        raise WebError(400, f"the body must be a JSON object, got {type(data).__name__}")
    return data


def spec_from_request(data: dict[str, Any]) -> GameSpec:
    """A :class:`GameSpec` from the new-game form: ``preset``, ``players``, ``deals``,
    ``seat``, ``opponents`` (one name, or one per other seat in seat order), ``seed``
    (absent: random), ``rules`` (more options)."""
    import secrets

    known = {"preset", "players", "deals", "seat", "opponents", "seed", "rules"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise WebError(400, f"unknown field(s) {unknown}; a new game takes {sorted(known)}")
    preset = data.get("preset", "standard")
    players, deals, seat = data.get("players", 4), data.get("deals", 1), data.get("seat", 0)
    seed = data.get("seed")
    if seed is None:
        seed = secrets.randbelow(2**31)
    for name, v in (("players", players), ("deals", deals), ("seat", seat), ("seed", seed)):
        if type(v) is not int:
            raise WebError(400, f"{name} must be an integer, got {v!r}")
    extra = data.get("rules") or {}
    if not isinstance(preset, str) or not isinstance(extra, dict):
        raise WebError(400, "preset is a name and rules a JSON object of rule options")
    try:
        rules = Rules.preset(preset, num_players=players, deals=deals, **extra)
    except (ValueError, TypeError) as e:
        raise WebError(400, str(e)) from None
    opponents = data.get("opponents", "hard")
    names = [opponents] if isinstance(opponents, str) else opponents
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise WebError(400, f"opponents is an agent name or a list of names, got {opponents!r}")
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise WebError(400, f"opponents needs one name or {players - 1}, got {len(names)}")
    if not 0 <= seat < players:
        raise WebError(400, f"seat must be 0..{players - 1}, got {seat}")
    seats = [*names[:seat], HUMAN, *names[seat:]]
    return GameSpec(rules, seed, seat, tuple(seats))


def create_app(
    save_dir: str | Path | None = None,
    records: Sequence[str | Path] = (),
    max_body: int = MAX_BODY,
    store: GameStore | None = None,
) -> FastAPI:
    """The web app: games saved under ``save_dir`` (None: kept in memory only), the game
    records in ``records`` (files or folders of ``*.json``) listed for replay."""
    app = FastAPI(title="President", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store if store is not None else GameStore(save_dir)
    app.state.library = ReplayLibrary(records)
    app.add_middleware(BodyLimit, limit=max_body)
    _errors(app)
    _routes(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _errors(app: FastAPI) -> None:
    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:  # a defect: still JSON
        return JSONResponse({"error": f"internal error ({type(exc).__name__}): {exc}"},
                            status_code=500)


def _routes(app: FastAPI) -> None:
    store: GameStore = app.state.store
    library: ReplayLibrary = app.state.library

    def work(fn: Callable[..., Any], *args: Any) -> Any:
        return run_in_threadpool(fn, *args)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        presets = [{"name": n, "players": list(PRESET_PLAYERS[n])} for n in PRESETS]
        return {"presets": presets, "agents": list(agent_choices()), "records": library.names()}

    @app.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        spec = spec_from_request(await _body(request))
        return await work(_create, store, spec)  # type: ignore[no-any-return]

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> dict[str, Any]:
        return await work(_view, store, game_id)  # type: ignore[no-any-return]

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        data = await _body(request)
        if set(data) - {"action", "ply"} or "action" not in data or "ply" not in data:
            raise WebError(400, f"a move is {{'action': id, 'ply': moves seen}}, got {data!r}")
        return await work(_move, store, game_id, data["action"], data["ply"])  # type: ignore[no-any-return]

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str) -> dict[str, Any]:
        return await work(_rematch, store, game_id)  # type: ignore[no-any-return]

    @app.get("/api/records")
    async def records() -> dict[str, Any]:
        return {"records": library.names()}

    @app.get("/api/records/{name:path}")
    async def open_record(name: str) -> dict[str, Any]:
        return await work(library.open, name)  # type: ignore[no-any-return]

    @app.post("/api/replays")
    async def upload(request: Request) -> dict[str, Any]:
        return await work(library.replay, await _body(request), "uploaded record")  # type: ignore[no-any-return]


def _create(store: GameStore, spec: GameSpec) -> dict[str, Any]:
    game, events = store.create(spec)
    return game.view(events)


def _view(store: GameStore, game_id: str) -> dict[str, Any]:
    with store.open(game_id) as game:
        return game.view()


def _move(store: GameStore, game_id: str, action: Any, ply: Any) -> dict[str, Any]:
    with store.open(game_id) as game:
        events = game.play(action, ply)
        return game.view(events)


def _rematch(store: GameStore, game_id: str) -> dict[str, Any]:
    with store.open(game_id) as game:
        if not game.over:  # the same deal from another seat would show this game's hands
            raise WebError(409, "a rematch deals this game's cards again: finish the game first")
        spec = game.spec.rotated()
    return _create(store, spec)


@contextmanager
def background_server(app: ASGIApp, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free port of ``host``; yields the base URL
    (``http://127.0.0.1:PORT``) once it accepts connections, stops it on exit. For tests."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=30))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
