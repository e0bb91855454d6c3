"""The local web app: play President against the agents in a browser, and replay game records.

    python -m apps.play --web                    # http://127.0.0.1:8000
    python -m apps.play --web --port 8080 --records runs/records --save-dir ~/.president

**Play**: any preset and player count, any mix of the agents (and the shipped checkpoints, for
the rules they were trained for) in the other seats. Your hand is face up; click cards to
select a play (the page offers the legal action they make) or pick a named legal play; plays
that are not legal cannot be sent, and the server refuses them anyway. The page shows the pile,
passes, every seat's title, cards left and score, a revolution, the exchange (you choose the
cards you return), the scores of every deal and the final places; the opponents' moves one at a
time, at the speed you set. Once the game is over, *Rematch* replays the same deal with every
player one seat on.

**Replay**: open a game record (:mod:`president_env.records`) from the list the server was
started with (``--records``: files or folders of ``*.json``) or by upload, and step through it
forward and back with every hand face up, and the top actions and probabilities of a seat whose
record holds them. A saved game is a record too.

Each browser tab plays its own game (its id is kept in the tab's session storage). With
``--save-dir`` every game is saved as its record after every move and loaded again when the
server starts, so a restart loses nothing that was saved.

The HTTP API (JSON; every refusal a 4xx ``{"error": "..."}`` that changes nothing; bodies over
1 MB refused with 413):

===============================  ==============================================================
``GET /api/options``             presets with their player ranges, seat agents, listed records
``POST /api/games``              new game: ``{preset, players, deals, seat, opponents, seed,
                                 rules}``; the game's view, with the agents' first moves
``GET /api/games/{id}``          the game's view
``POST /api/games/{id}/move``    ``{action, ply}``: play legal action ``action`` seen at move
                                 ``ply`` (a stale ``ply`` is a 409: out of turn)
``POST /api/games/{id}/rematch`` the same deal, seats rotated: a new game's view (a 409
                                 while the game is played: it would show its hands)
``GET /api/records[/{name}]``    the listed records; the frames of one
``POST /api/replays``            a record (JSON body): its frames
===============================  ==============================================================

A view holds ``spec`` (the seats; the deal's seed only once the game is over), ``state``
(what you may see: phase, deal, seat to act, revolution, pile with its cards, per seat
title/cards left/place/score/passed/last words, your hand), ``legal`` (your legal actions: id,
name, the cards each plays, and the key that matches a selection of cards), ``exchange``,
``results`` (each finished deal's places and scores), ``final`` (standings and scores once the
game is over) and ``events``: every move since your last one, each with the snapshot after it.

Modules: :mod:`apps.web.session` (one game: the table with your external seat),
:mod:`apps.web.store` (games by id, saved), :mod:`apps.web.replay` (record frames),
:mod:`apps.web.server` (the FastAPI app); the page is ``static/`` (plain HTML, CSS and
JavaScript, no build step, nothing fetched from elsewhere).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from president_env.extras import missing_extra

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The FastAPI app (:func:`apps.web.server.create_app`)."""
    from apps.web.server import create_app as create

    return create(*args, **kwargs)


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    records: Sequence[str | Path] = (),
    save_dir: str | Path | None = None,
) -> None:
    """Run the web app with uvicorn until interrupted."""
    try:
        import uvicorn
    except ImportError:
        raise missing_extra("uvicorn", "web", "apps.web (the browser app)") from None

    app = create_app(save_dir=save_dir, records=records)
    for what, skipped in (("saved game", app.state.store.skipped),
                          ("record", app.state.library.skipped)):
        for line in skipped:
            print(f"skipped {what} {line}")
    print(f"President: http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "create_app", "serve"]
