"""Every legal submission to the UECda standard server, in plain Python: :func:`legal_plays`.

The independent reference of the server's rules (``tndhms`` 0.29, read from its source into
``docs/experiments/2026-12-04-uecda-server-rules.md`` §2-§7) for differential tests of our
engine. A submission is a :class:`~president_env.uecda.protocol.Play`: the exact cells of the
table the client sends, so the joker's row (which decides locks) and its cell in a run are
part of it.

How the server reads a play (:func:`shape`)
-------------------------------------------
It takes the lowest column holding any cell and, in it, the first row. If the cell to its
right is taken, the play is a **run** of that row: every cell must be in that one unbroken
segment, at least 3 long; its value is its lowest column (the joker counts, also in column 0
below the 3 or column 14 above the 2). Otherwise it is a **set** of that column (a **single**
if one card; a lone joker is the **joker** kind wherever it stands); its suits are the rows
(the joker's too); the joker may stand in row 4 only as the fifth card of a five-card set.

What may follow what (:func:`beats`)
------------------------------------
With ``rev`` = revolution XOR 11-back: on an empty field anything; otherwise the same number of
cards and the same kind (but a lone joker beats any single); sets by a strictly higher column
(rev: lower); singles and runs only from entirely above the field's top card (rev: entirely
below its lowest). On a **locked** field the suits must equal the field's (a lone joker skips
this). On a **lone joker** only the 3 of spades may be played (and only by its holder), lock
or not. ``runs=False`` (``RULE_KAIDAN no``) refuses every run.

After an accepted play (:func:`after_play`)
-------------------------------------------
A play whose suits equal the field's locks the trick (not a lone joker, which unlocks it);
a set of 4 or more or a run of 5 or more toggles the revolution, an 8 in the play (a set of
column 6, or a run spanning it) clears the field, a J toggles 11-back, a 6 reverses the
direction (each switched by :class:`ServerRules`; a lone joker does none of them); the 3 of
spades on a lone joker clears the field.

Not listed by :func:`legal_plays`: a submission of cards not held. (The server accepts one
such table: ``[0][1] = 2`` from the holder of the 3 of spades on a lone joker, since its S3
test reads only the shape; no client has a reason to send it.) The 60 cells where a lone
joker may stand (rows 0-3, columns 0-14) are 60 different tables with the same effect;
``lone_joker="one"`` lists only the kit client's ``[0][0]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from president_env.uecda.protocol import (
    COLUMNS,
    HIGH_COLUMN,
    JOKER_ROW,
    LOW_COLUMN,
    Cell,
    Hand,
    Play,
)

SPADE_THREE: Cell = (0, 1)
EIGHT, JACK, SIX = 6, 9, 4
"""The columns of the 8, the J and the 6."""
ALL_SUITS = 0b11111
"""The suits of a five-card set (rows 0-4)."""
REVOLUTION_SET, REVOLUTION_RUN = 4, 5
"""The smallest set and run that toggle the revolution."""
LONE_JOKER_CELLS = tuple((r, c) for r in range(JOKER_ROW) for c in range(COLUMNS))
Kind = Literal["single", "set", "run", "joker"]


@dataclass(frozen=True)
class ServerRules:
    """The server's rule switches (``tndhms.cfg``) that change what is legal or what a play
    does; the defaults are the contest's."""

    runs: bool = True
    """``RULE_KAIDAN``."""
    lock: bool = True
    """``RULE_SHIBARI``."""
    revolution: bool = True
    """``RULE_KAKUMEI``."""
    eight_cut: bool = True
    """``RULE_8GIRI``."""
    jack_back: bool = False
    """``RULE_11BACK``."""
    six_reverses: bool = False
    """``RULE_6REVERS``."""

    @classmethod
    def from_settings(cls, settings: Mapping[str, str]) -> ServerRules:
        """From a log header (``"RULE_SHIBARI" -> "YES"``); a missing key keeps its default."""
        keys = {"runs": "RULE_KAIDAN", "lock": "RULE_SHIBARI", "revolution": "RULE_KAKUMEI",
                "eight_cut": "RULE_8GIRI", "jack_back": "RULE_11BACK",
                "six_reverses": "RULE_6REVERS"}
        out = {}
        for field, key in keys.items():
            if key in settings:
                value = settings[key].strip().upper()
                if value not in ("YES", "NO"):
                    raise ValueError(f"{key} is {settings[key]!r}, not YES or NO")
                out[field] = value == "YES"
        return cls(**out)


CONTEST_RULES = ServerRules()
"""The contest's rules (the shipped ``tndhms.cfg``)."""


@dataclass(frozen=True)
class Shape:
    """How the server reads a play: its kind, lowest column (the joker's cell counts), number
    of cards and suits (bit r for row r)."""

    kind: Kind
    low: int
    size: int
    suits: int

    def spans(self, column: int) -> bool:
        """Whether the play holds the rank of ``column`` (a joker standing in for it counts)."""
        if self.kind == "run":
            return self.low <= column < self.low + self.size
        return self.low == column


@dataclass(frozen=True)
class Public:
    """What decides which plays are legal: the field (the last accepted play of the trick;
    ``Play()`` when empty) and the lock, revolution and 11-back flags."""

    field: Play = Play()
    locked: bool = False
    revolution: bool = False
    back: bool = False

    @property
    def lone_joker(self) -> bool:
        return not self.field.cards and self.field.joker is not None


def shape(play: Play) -> Shape | None:
    """The server's reading of a non-empty play, or ``None`` if it refuses its form."""
    cells = set(play.cards)
    if play.joker is not None:
        cells.add(play.joker)
    if not cells:
        raise ValueError("a pass has no shape")
    low = min(c for _, c in cells)
    row = min(r for r, c in cells if c == low)
    if low + 1 < COLUMNS and (row, low + 1) in cells:
        length = 0
        while low + length < COLUMNS and (row, low + length) in cells:
            length += 1
        if length <= 2 or length != len(cells):
            return None
        return Shape("run", low, length, 1 << row)
    suits = 0
    for r, c in cells:
        if c != low:
            return None
        suits |= 1 << r
    if suits >= 1 << JOKER_ROW and suits != ALL_SUITS:
        return None
    if len(cells) == 1:
        return Shape("single" if play.cards else "joker", low, 1, suits)
    return Shape("set", low, len(cells), suits)


def beats(new: Shape, old: Shape | None, rev: bool) -> bool:
    """Whether ``new`` may follow ``old`` (``None``: an empty field) by rank and form, with
    ``rev`` = revolution XOR 11-back. Lock and the lone joker are not checked here."""
    if old is None:
        return True
    if new.size != old.size:
        return False
    if new.kind == "joker" and old.kind == "single":
        return True
    if new.kind != old.kind:
        return False
    if new.kind == "set":
        return new.low < old.low if rev else new.low > old.low
    return new.low + old.size - 1 < old.low if rev else new.low >= old.low + old.size


def is_legal(play: Play, hand: Hand, public: Public, rules: ServerRules = CONTEST_RULES) -> bool:
    """Whether the server accepts ``play`` from the holder of ``hand`` (a pass: always)."""
    if play.is_pass:
        return True
    if public.lone_joker:
        return play == Play((SPADE_THREE,)) and SPADE_THREE in hand.cards
    if not hand.holds(play):
        return False
    new = shape(play)
    if new is None or (new.kind == "run" and not rules.runs):
        return False
    old = None if public.field.is_pass else shape(public.field)
    if not beats(new, old, public.revolution != public.back):
        return False
    return not (public.locked and new.kind != "joker" and old is not None
                and new.suits != old.suits)


def legal_plays(hand: Hand, public: Public, rules: ServerRules = CONTEST_RULES,
                lone_joker: Literal["all", "one"] = "all") -> list[Play]:
    """Every submission the server accepts from the holder of ``hand``, the pass first, then
    in table order (:meth:`Play.sort_key`)."""
    if public.lone_joker:
        follow = [Play((SPADE_THREE,))] if SPADE_THREE in hand.cards else []
        return [Play(), *follow]
    size = None if public.field.is_pass else len(public.field)
    plays = [p for p in _candidates(hand, size, rules.runs, lone_joker)
             if is_legal(p, hand, public, rules)]
    return [Play(), *sorted(plays, key=Play.sort_key)]


def after_play(public: Public, play: Play, rules: ServerRules = CONTEST_RULES
               ) -> tuple[Public, bool, bool]:
    """The flags after the server accepts ``play`` (not a pass) on ``public``; whether it clears
    the field (an 8, or the 3 of spades on a lone joker) and whether it reverses the direction.
    The field of the result is ``play`` (the server clears it after the field message)."""
    new = shape(play)
    if new is None:
        raise ValueError(f"{play} is not a play the server accepts")
    if public.lone_joker:
        return replace(public, field=play), True, False
    old = None if public.field.is_pass else shape(public.field)
    locked = public.locked
    if new.kind == "joker":
        locked = False
    elif rules.lock and not locked and old is not None and new.suits == old.suits:
        locked = True
    revolution, back, clears, reverses = public.revolution, public.back, False, False
    if new.kind != "joker":
        if rules.revolution and (new.kind == "set" and new.size >= REVOLUTION_SET
                                 or new.kind == "run" and new.size >= REVOLUTION_RUN):
            revolution = not revolution
        clears = rules.eight_cut and new.spans(EIGHT)
        reverses = rules.six_reverses and new.spans(SIX)
        if rules.jack_back and new.spans(JACK):
            back = not back
    return Public(play, locked, revolution, back), clears, reverses


def _candidates(hand: Hand, size: int | None, runs: bool,
                lone_joker: Literal["all", "one"]) -> list[Play]:
    """The plays of ``hand`` that the server reads as well formed, of ``size`` cards (any size
    when ``None``)."""
    out: list[Play] = []
    if hand.joker and size in (None, 1):
        cells = LONE_JOKER_CELLS if lone_joker == "all" else LONE_JOKER_CELLS[:1]
        out += [Play((), cell) for cell in cells]
    for column in range(LOW_COLUMN, HIGH_COLUMN + 1):
        rows = [r for r in range(JOKER_ROW) if (r, column) in hand.cards]
        for mask in range(1, 1 << len(rows)):
            chosen = tuple((rows[i], column) for i in range(len(rows)) if mask >> i & 1)
            if size in (None, len(chosen)):
                out.append(Play(chosen))
            if not hand.joker or size not in (None, len(chosen) + 1):
                continue
            free = [r for r in range(JOKER_ROW) if (r, column) not in chosen]
            for r in free or [JOKER_ROW]:
                out.append(Play(chosen, (r, column)))
    if runs and size != 1 and size != 2:
        out += _runs(hand, size)
    return out


def _runs(hand: Hand, size: int | None) -> list[Play]:
    out: list[Play] = []
    for row in range(JOKER_ROW):
        for low in range(COLUMNS):
            for length in range(3, COLUMNS - low + 1):
                cells = [(row, c) for c in range(low, low + length)]
                missing = [cell for cell in cells if cell not in hand.cards]
                if len(missing) > 1 or missing and not hand.joker:
                    break
                if size not in (None, length):
                    continue
                if missing:
                    out.append(Play(tuple(c for c in cells if c != missing[0]), missing[0]))
                    continue
                out.append(Play(tuple(cells)))
                if hand.joker:
                    out += [Play(tuple(c for c in cells if c != j), j) for j in cells]
    return out
