"""The table codec of protocol 20070 (:mod:`president_env.uecda.protocol`), built from the rule
text (``docs/experiments/2026-12-04-uecda-server-rules.md`` §0, §11): 480 bytes, row-major,
big-endian; plays and hands read back from tables exactly, and every malformed table refused
with the cell at fault."""

from __future__ import annotations

import struct

import pytest

from president_env.uecda.protocol import (
    PROTOCOL_VERSION,
    TABLE_BYTES,
    Hand,
    Play,
    ProtocolError,
    TableState,
    decode_int,
    decode_table,
    empty_table,
    encode_int,
    encode_table,
    hello_table,
    read_hello,
)


def test_a_table_is_480_big_endian_bytes_row_by_row() -> None:
    t = empty_table()
    t[0][0], t[1][14], t[7][14] = 1, 0x01020304, 2 ** 32 - 1
    data = encode_table(t)
    assert len(data) == TABLE_BYTES == 480
    assert data[:4] == b"\x00\x00\x00\x01"
    assert data[(15 + 14) * 4:(15 + 15) * 4] == b"\x01\x02\x03\x04"  # [1][14]
    assert data[-4:] == b"\xff\xff\xff\xff"
    assert decode_table(data) == tuple(tuple(row) for row in t)
    assert encode_int(9) == b"\x00\x00\x00\x09" and decode_int(b"\x00\x00\x00\x02") == 2


@pytest.mark.parametrize("bad, message", [
    ([[0] * 15] * 7, "8 rows of 15"),
    ([[0] * 15] * 7 + [[0] * 14], "8 rows of 15"),
    ([[0] * 15] * 7 + [[0] * 14 + [-1]], r"\[7\]\[14\] = -1"),
    ([[0] * 15] * 7 + [[0] * 14 + [2 ** 32]], "unsigned 32-bit"),
    ([[0] * 15] * 7 + [[0] * 14 + [1.0]], "unsigned 32-bit"),
])
def test_encode_refuses_what_is_not_a_table(bad: list[list[int]], message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        encode_table(bad)


def test_decode_refuses_a_short_or_long_message() -> None:
    with pytest.raises(ProtocolError, match="480 bytes; got 479"):
        decode_table(b"\x00" * 479)
    with pytest.raises(ProtocolError, match="4 bytes; got 5"):
        decode_int(b"\x00" * 5)
    with pytest.raises(ProtocolError, match="unsigned"):
        encode_int(-1)


def test_hello_carries_the_version_and_the_name_one_character_a_cell() -> None:
    t = hello_table("greedy")
    assert t[0][0] == PROTOCOL_VERSION == 20070
    assert t[1][:7] == (ord("g"), ord("r"), ord("e"), ord("e"), ord("d"), ord("y"), 0)
    assert read_hello(t) == (20070, "greedy")
    assert read_hello(hello_table("abcdefghijkl"))[1] == "abcdefghi"  # the server keeps 9
    for bad in ("", "two words", "x" * 16, "naïve"):
        with pytest.raises(ProtocolError, match="printable ASCII"):
            hello_table(bad)


def test_a_play_round_trips_its_exact_cells() -> None:
    # 7-8-9 of spades with the joker as the 8: row 0, columns 5, 6, 7.
    run = Play(((0, 5), (0, 7)), (0, 6))
    t = run.to_table()
    assert t[0][5:8] == (1, 2, 1) and sum(map(sum, t)) == 4
    assert Play.from_table(t) == run
    assert str(run) == "S7 K8 S9"
    five = Play(((0, 3), (1, 3), (2, 3), (3, 3)), (4, 3))  # four 5s and the joker in row 4
    assert Play.from_table(five.to_table()) == five and str(five) == "S5 H5 D5 C5 J5"
    assert Play.from_table(empty_table()).is_pass and str(Play()) == "pass"
    assert str(Play((), (0, 14))) == "Kx"


@pytest.mark.parametrize("cells, message", [
    ({(4, 3): 1}, r"card \(1\) in \[4\]\[3\]"),
    ({(0, 0): 1}, r"card \(1\) in \[0\]\[0\]"),
    ({(2, 14): 1}, r"card \(1\) in \[2\]\[14\]"),
    ({(1, 5): 3}, r"\[1\]\[5\] = 3"),
    ({(0, 5): 2, (1, 5): 2}, "2 jokers"),
])
def test_a_malformed_play_table_is_refused_with_its_cell(cells: dict[tuple[int, int], int],
                                                         message: str) -> None:
    t = empty_table()
    for (r, c), v in cells.items():
        t[r][c] = v
    with pytest.raises(ProtocolError, match=message):
        Play.from_table(t)


def test_play_refuses_impossible_cells() -> None:
    with pytest.raises(ProtocolError, match="no card cell"):
        Play(((0, 0),))
    with pytest.raises(ProtocolError, match="names a card twice"):
        Play(((0, 3), (0, 3)))
    with pytest.raises(ProtocolError, match="cannot stand"):
        Play(((0, 3),), (0, 3))
    with pytest.raises(ProtocolError, match="cannot stand"):
        Play((), (5, 0))


def test_a_hand_holds_the_joker_only_at_its_home_cell() -> None:
    t = empty_table()
    t[0][1] = t[3][13] = 1
    t[4][1] = 2
    t[5][3] = 4  # rows 5-7 are not cards
    hand = Hand.from_table(t)
    assert hand == Hand(frozenset({(0, 1), (3, 13)}), True) and len(hand) == 3
    assert hand.holds(Play(((0, 1),), (2, 9))) and not hand.holds(Play(((1, 1),)))
    assert hand.without(Play(((0, 1),), (0, 0))) == Hand(frozenset({(3, 13)}), False)
    t[4][1], t[0][0] = 0, 2
    with pytest.raises(ProtocolError, match=r"\[0\]\[0\] = 2"):
        Hand.from_table(t)


def _state_table(**cells: int) -> list[list[int]]:
    t = empty_table()
    t[6][10:15] = [3, 1, 4, 0, 2]
    for name, v in cells.items():
        r, c = int(name[1]), int(name[2:])
        t[r][c] = v
    return t


def test_rows_5_and_6_read_as_the_state() -> None:
    t = _state_table(c50=1, c51=2, c53=6, c60=11, c61=11, c62=11, c63=10, c64=10,
                     c65=4, c66=3, c67=2, c68=1, c69=0)
    s = TableState.from_table(encode_decode(t))
    assert s.deal and s.give == 2 and s.mover == 6 and not s.my_turn
    assert s.counts == (11, 11, 11, 10, 10) and s.classes == (4, 3, 2, 1, 0)
    assert s.seats == (3, 1, 4, 0, 2)
    play = TableState.from_table(as_tuple(_state_table(c52=1, c53=4, c54=1, c55=1, c56=1, c57=1)))
    assert (play.my_turn, play.mover, play.field_empty, play.back, play.revolution,
            play.locked, play.classes) == (True, 4, True, True, True, True, None)
    written = empty_table()
    s.write(written)
    assert TableState.from_table(as_tuple(written)) == s


def encode_decode(t: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return decode_table(encode_table(t))


def as_tuple(t: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(row) for row in t)


@pytest.mark.parametrize("cells, message", [
    (dict(c54=2), r"field_empty flag \[5\]\[4\] is 2"),
    (dict(c57=7), r"lock flag \[5\]\[7\] is 7"),
    (dict(c51=3), r"give back \[5\]\[1\] = 3"),
    (dict(c53=6), r"player to move \[5\]\[3\] = 6"),
    (dict(c53=5, c50=1), r"\[5\]\[3\] = 5, not 0-4 \(or 6 in a deal\)"),
    (dict(c60=54), "more than 53"),
    (dict(c50=1, c65=5), r"classes \[6\]\[5..9\]"),
    (dict(c50=1, c65=1, c66=1), r"classes \[6\]\[5..9\]"),
    (dict(c610=4), r"seats \[6\]\[10..14\]"),
])
def test_a_bad_state_row_is_refused_with_its_cell(cells: dict[str, int], message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        TableState.from_table(as_tuple(_state_table(**cells)))


def test_mid_game_classes_need_not_be_a_permutation() -> None:
    # During a game the server fills [6][5..9] from a half-updated finishing order.
    s = TableState.from_table(as_tuple(_state_table(c65=1, c66=0, c67=4, c68=3, c69=0)))
    assert s.classes == (1, 0, 4, 3, 0)
    # A cell it leaves keeps what the last submission held there: garbage reads as no classes.
    s = TableState.from_table(as_tuple(_state_table(c65=1, c66=0, c67=4, c68=3, c69=2 ** 31)))
    assert s.classes is None


def test_struct_layout_matches_network_order() -> None:
    flat = list(range(120))
    t = [flat[r * 15:(r + 1) * 15] for r in range(8)]
    assert encode_table(t) == struct.pack("!120I", *flat)
