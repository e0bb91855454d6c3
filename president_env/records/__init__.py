"""Game records: one game of President as a JSON document that replays exactly through the engine.

The format is documented, with an example, in ``docs/records.md``. In short, a record holds the
rules (every option, and the preset name), the engine seed of the game's deals and, when the
first deal was given rather than dealt from the seed, the starting hands; every action in order
with the seat that took it (and, optionally, the policy's top action probabilities); the
players' names; and the result: each deal's places, the final scores and standings.

* :mod:`~president_env.records.format`: the data types (:class:`GameRecord`, :class:`Step`,
  :class:`Player`, :class:`GameResult`), :class:`RecordError` and the JSON writer;
* :mod:`~president_env.records.recorder`: :class:`GameRecorder`, a game as it is played;
* :mod:`~president_env.records.parse`: :func:`load_record`, :func:`record_from_json`,
  :func:`record_from_dict` (every field checked, replayed by default);
* :mod:`~president_env.records.replay`: :func:`replay` (a :class:`ReplayFrame` per step),
  :func:`check`, :func:`start_state`, :func:`finished_record`.

Reading checks the document and, by default, replays it through the engine: a record that does
not replay (wrong rules, an illegal action at step k, a seat acting out of turn, a truncated
file, a different version, a result that the replay does not reach) raises
:class:`RecordError`, a ``ValueError`` whose ``step`` (or ``field``) says where.

Nothing here imports an RL library: only :mod:`president_env.core`.
"""

from president_env.records.format import (
    FORMAT,
    VERSION,
    GameRecord,
    GameResult,
    Player,
    Probs,
    RecordError,
    Step,
    action_names,
    engine_for,
)
from president_env.records.parse import (
    load_record,
    parse_record,
    record_from_dict,
    record_from_json,
)
from president_env.records.recorder import GameRecorder, top_probs
from president_env.records.replay import (
    ReplayFrame,
    check,
    finished_record,
    replay,
    start_state,
)

__all__ = [
    "FORMAT", "VERSION", "GameRecord", "GameRecorder", "GameResult", "Player", "Probs",
    "RecordError", "ReplayFrame", "Step", "action_names", "check", "engine_for",
    "finished_record", "load_record", "parse_record", "record_from_dict", "record_from_json",
    "replay", "start_state", "top_probs",
]
