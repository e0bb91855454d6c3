"""The reader of the UECda standard server's game logs (:mod:`president_env.uecda.log`).

Ten real matches of 1,000 games (``tests/data/uecda/README.md``): the reader must give deals of
the 53 cards, exchanges of cards the givers held, moves of cards the movers held (but for the
submissions the server rejected, listed beside each log), results that the hands emptied in,
and points that rise by place; hand-built logs check the errors."""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from president_env.core.cards import parse_hand
from president_env.core.constants import JOKER, NUM_CARDS
from president_env.uecda import UecdaLogError, format_move, parse_log, parse_move, read_log
from president_env.uecda.log import (
    ABOVE_TWO,
    BELOW_THREE,
    NO_SUIT,
    PLACE_POINTS,
    UecdaGame,
    UecdaLog,
)

DATA = Path(__file__).parent / "data" / "uecda"
RULES_DEFAULT = {
    "RULE_KAKUMEI": "YES", "RULE_SHIBARI": "YES", "RULE_KINSOKU": "NO", "RULE_KAIDAN": "YES",
    "RULE_CHANGE": "YES", "RULE_5TOBI": "NO", "RULE_6REVERS": "NO", "RULE_8GIRI": "YES",
    "RULE_11BACK": "NO", "RULE_SEKIGAE": "YES", "RULE_SEKIGAE_NUM": "3", "GAME_NUMBER": "1000",
    "FLASH_MIBUN_NUMBER": "100",
}
CONFIGS = {
    # config: (the line that differs from the default, submissions, rejected, 20-pass games)
    "default": ({}, 78952, 24, 0),
    "11back": ({"RULE_11BACK": "YES"}, 83765, 5137, 0),
    "no_shibari": ({"RULE_SHIBARI": "NO"}, 75361, 12, 0),
    "6revers": ({"RULE_6REVERS": "YES"}, 78730, 17, 0),
    "no_kakumei": ({"RULE_KAKUMEI": "NO"}, 78948, 18, 0),
    "no_8giri": ({"RULE_8GIRI": "NO"}, 84435, 31, 0),
    "no_kaidan": ({"RULE_KAIDAN": "NO"}, 77534, 5778, 179),
    "no_change": ({"RULE_CHANGE": "NO"}, 80759, 10, 0),
    "no_sekigae": ({"RULE_SEKIGAE": "NO"}, 78946, 22, 0),
    "flash10": ({"FLASH_MIBUN_NUMBER": "10"}, 79173, 17, 0),
}
STALEMATE = 20
"""Consecutive passes or rejections after which the server ranks the players left at random."""


@cache
def match(config: str) -> UecdaLog:
    return read_log(DATA / f"{config}.log.gz")


@cache
def rejected(config: str) -> dict[tuple[int, int], str]:
    """(game, token index from 0 in its ``play`` line) -> token, for each rejected one."""
    out = {}
    for line in (DATA / f"{config}.rejected.txt").read_text().splitlines():
        game, index, token, err = line.split()
        assert index.startswith("#") and err == "err=1"
        out[int(game), int(index[1:])] = token
    return out


def _strongest(hand: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` strongest cards of a hand: the joker, then the highest ids (2s first, spades
    first within a rank), as the server takes them."""
    out = np.zeros(NUM_CARDS, dtype=np.int8)
    for card in [c for c in range(NUM_CARDS - 1, -1, -1) for _ in range(int(hand[c]))][:n]:
        out[card] += 1
    return out


@pytest.mark.parametrize("config", CONFIGS)
def test_match_is_whole_and_its_settings_match_its_config(config: str) -> None:
    log = match(config)
    assert [g.number for g in log.games] == list(range(1000))
    assert log.players == tuple(f"sample{p}" for p in range(5))
    assert log.settings["RANDOM_SEED"] == str(log.seed)
    assert {k: log.settings[k] for k in RULES_DEFAULT} == RULES_DEFAULT | CONFIGS[config][0]
    assert log.total_points == log.games[-1].points


@pytest.mark.parametrize("config", CONFIGS)
def test_deals_classes_and_points(config: str) -> None:
    log = match(config)
    flash = int(log.settings["FLASH_MIBUN_NUMBER"])
    before: tuple[int, ...] = (0,) * 5
    last_result: tuple[int, ...] = ()
    for g in log.games:
        assert np.array_equal(np.sum(g.hands, axis=0), np.ones(NUM_CARDS)), g.number
        sizes = [int(g.hands[p].sum()) for p in g.seats]
        dealt_first = [s for s in range(5) if sizes[s:] + sizes[:s] == [11, 11, 11, 10, 10]]
        assert len(dealt_first) == 1, (g.number, sizes)
        assert g.reset == (g.number % flash == 0)
        if not g.reset:
            assert g.classes is not None
            assert g.seats[dealt_first[0]] == g.classes.index(0)  # the daifugo is dealt first
            assert tuple(g.classes.index(c) for c in range(5)) == last_result
        assert sorted(g.result) == list(range(5))
        gained = [after - b for after, b in zip(g.points, before)]
        assert [gained[p] for p in g.result] == list(PLACE_POINTS), g.number
        before, last_result = g.points, g.result


@pytest.mark.parametrize("config", CONFIGS)
def test_exchange_moves_cards_the_givers_held(config: str) -> None:
    log = match(config)
    changes = log.settings["RULE_CHANGE"] == "YES"
    for g in log.games:
        if g.classes is None or not changes:
            assert g.exchange == (), g.number
            continue
        by_class = [g.classes.index(c) for c in range(5)]
        pairs = [(by_class[4], by_class[0]), (by_class[3], by_class[1]),
                 (by_class[0], by_class[4]), (by_class[1], by_class[3])]
        assert [(giver, receiver) for giver, receiver, _ in g.exchange] == pairs, g.number
        hands = [h.astype(np.int64) for h in g.hands]
        for step, (giver, receiver, cards) in enumerate(g.exchange):
            assert int(cards.sum()) == (2, 1, 2, 1)[step], g.number
            assert (cards <= hands[giver]).all(), g.number
            if step < 2:  # the server takes the strongest cards
                assert np.array_equal(cards, _strongest(hands[giver], 2 - step)), g.number
            hands[giver] -= cards
            hands[receiver] += cards


def _after_exchange(g: UecdaGame) -> list[np.ndarray]:
    hands = [h.astype(np.int64) for h in g.hands]
    for giver, receiver, cards in g.exchange:
        hands[giver] -= cards
        hands[receiver] += cards
    return hands


@pytest.mark.parametrize("config", CONFIGS)
def test_moves_play_cards_the_movers_held(config: str) -> None:
    log, refused = match(config), rejected(config)
    _, submissions, n_rejected, n_stalemates = CONFIGS[config]
    counted = {"moves": 0, "rejected": 0, "stalemates": 0}
    for g in log.games:
        hands = _after_exchange(g)
        finished: list[int] = []
        since_play = 0
        for k, move in enumerate(g.moves):
            counted["moves"] += 1
            assert move.player not in finished, (g.number, k)
            if (g.number, k) in refused:
                assert move.cards is not None and format_move(move) == refused[g.number, k]
                counted["rejected"] += 1
                since_play += 1
                continue
            if move.cards is None:
                since_play += 1
                continue
            assert int(move.cards[JOKER]) == len(move.joker_as), (g.number, k)
            assert (move.cards <= hands[move.player]).all(), (g.number, k)
            hands[move.player] -= move.cards
            since_play = 0
            if not hands[move.player].any():
                finished.append(move.player)
        assert g.result[:len(finished)] == tuple(finished), g.number
        if len(finished) < 4:  # ended by the 20-pass rule: the rest ranked at random
            assert since_play >= STALEMATE, g.number
            counted["stalemates"] += 1
    assert counted == {"moves": submissions, "rejected": n_rejected, "stalemates": n_stalemates}


def test_every_play_token_reads_back_as_written() -> None:
    tokens = set()
    for config in CONFIGS:
        for line in gzip.decompress((DATA / f"{config}.log.gz").read_bytes()).decode().split("\n"):
            parts = line.split("%", 3)
            if len(parts) == 4 and parts[2] == "play":
                tokens.update(parts[3].split())
    assert len(tokens) > 3000
    cells = {t[i:i + 2] for t in tokens for i in range(1, len(t) - 2, 2)}
    assert {cell[0] for cell in cells} == set("SHDCKLMNJ")  # the joker in every row
    assert {cell for cell in cells if cell[1] == "x"} == {"Kx", "Lx", "Mx", "Nx"}
    assert [t for t in tokens if format_move(parse_move(t)) != t] == []


def _move(player: int, cards: str, joker_as: tuple = ()) -> tuple:
    counts = parse_hand(cards)
    return player, counts.tolist(), joker_as


@pytest.mark.parametrize(
    "token, expected",
    [
        ("3EE", (3, None, ())),
        ("3D3C3EE", _move(3, "3d 3c")),
        ("0KKCKEE", _move(0, "Kc JK", ((10, 3),))),  # the joker as the king of spades
        ("4N3C4C5EE", _move(4, "4c 5c JK", ((0, 0),))),  # the joker as the 3 of clubs
        ("2SQHQMQEE", _move(2, "Qs Qh JK", ((9, 1),))),
        ("2S5H5D5C5J5EE", _move(2, "5s 5h 5d 5c JK", ((2, NO_SUIT),))),  # five 5s
        ("3KxS3S4EE", _move(3, "3s 4s JK", ((BELOW_THREE, 3),))),  # joker-3-4
        ("1SKSAS2KxEE", _move(1, "Ks As 2s JK", ((ABOVE_TWO, 3),))),  # K-A-2-joker
        ("0KxEE", _move(0, "JK", ((None, 3),))),  # the lone joker: the log hides its column
    ],
)
def test_joker_and_run_notation(token: str, expected: tuple) -> None:
    move = parse_move(token)
    cards = None if move.cards is None else move.cards.tolist()
    assert (move.player, cards, move.joker_as) == expected
    assert format_move(move) == token


GAME_0 = [
    "%00000%mibun% 22222",
    "%00000%seat% 43021",
    "%00000%palyer_cards% S4H6H7HQHAD7D8D2C6C9CT S8STSQH4HKDTDJDQC8CK S6SJSKH8HTH2C3C7CJCA "
    "S3S7S2H3H9HJD4D5D9DKDA S5S9SAH5D3D6C4C5CQC2J3 ",
    "%00000%change_cards% NULL",
    "%00000%play%  4N3C4C5EE 3EE 0EE 2EE 1DTDJDQEE",
    "%00000%result% 14032",
    "%00000%points% 3 5 1 2 4",
]
HEADER = ["%-----%hostname% vm", "%-----%palyer_name% a b c d e", "%-----%RULE_SHIBARI% YES",
          "%-----%RANDOM_SEED% 7"]
FOOTER = ["%-----%TIME_END% 2026/12/04 19:51:24", "%-----%TOTAL_POINT% 3 5 1 2 4"]


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_a_small_log_reads() -> None:
    log = parse_log(_text(HEADER + GAME_0 + FOOTER))
    assert log.players == ("a", "b", "c", "d", "e") and log.seed == 7
    g = log.games[0]
    assert g.reset and g.classes is None and g.seats == (4, 3, 0, 2, 1)
    assert [int(h.sum()) for h in g.hands] == [11, 10, 10, 11, 11] and g.hands[4][JOKER] == 1
    assert [m.player for m in g.moves] == [4, 3, 0, 2, 1] and g.moves[1].is_pass
    assert not g.hands[0].flags.writeable


def _game_1() -> list[str]:
    return [line.replace("%00000%", "%00001%") for line in GAME_0]


@pytest.mark.parametrize(
    "lines, line, words",
    [
        (HEADER + GAME_0[:2] + [GAME_0[2][:60]] + GAME_0[3:] + FOOTER, 7, "2 hands, not 5"),
        (HEADER + GAME_0[:4] + ["%00000%play%  4N3C4C5EE 3EE 0E"] + GAME_0[5:] + FOOTER, 9,
         "play token #2"),
        (HEADER + GAME_0[:5] + ["%00000%result% 1403"] + GAME_0[6:] + FOOTER, 10, "result"),
        (HEADER + GAME_0 + FOOTER[:1], 12, "TOTAL_POINT"),
        (HEADER + GAME_0[:4], 8, "ends inside game 00000"),
        (HEADER + GAME_0[:3] + FOOTER, 8, "cut short"),
        (HEADER + [GAME_0[0][:10]] + GAME_0[1:] + FOOTER, 5, "not a log line"),
        (HEADER + [GAME_0[0], GAME_0[2]] + GAME_0[1:] + FOOTER, 6, "'seat' line"),
        (HEADER + [GAME_0[0].replace("22222", "22223")] + GAME_0[1:] + FOOTER, 5, "mibun"),
        (HEADER + GAME_0[:2] + [GAME_0[2].replace("S4H6", "X4H6")] + GAME_0[3:] + FOOTER, 7,
         "unknown card 'X4'"),
        (HEADER + GAME_0[:4] + ["%00000%play%  4SxEE"] + GAME_0[5:] + FOOTER, 9, "no card"),
        (HEADER + GAME_0[:4] + ["%00000%play%  7EE"] + GAME_0[5:] + FOOTER, 9, "player '7'"),
        (HEADER + GAME_0[:2] + [GAME_0[2].replace("J3", "K3")] + GAME_0[3:] + FOOTER, 7,
         "not J3"),
        (HEADER + GAME_0 + [line.replace("%00001%", "%00002%") for line in _game_1()] + FOOTER,
         12, "game 00002 out of order: expected game 00001"),
        (HEADER + GAME_0 + FOOTER + _game_1(), 14, "after the footer"),
        (HEADER[:1] + HEADER[2:] + GAME_0 + FOOTER, 3, "0 players"),
        (HEADER[:3] + ["%-----%RANDOM_SEED% seven"] + GAME_0 + FOOTER, 4, "RANDOM_SEED"),
        (HEADER + HEADER[2:3] + GAME_0 + FOOTER, 5, "RULE_SHIBARI twice"),
    ],
    ids=["truncated-hands", "truncated-play", "truncated-result", "no-total", "ends-in-game",
         "footer-in-game", "not-a-line", "tag-order", "mibun", "unknown-card", "natural-x",
         "player", "hand-joker", "game-order", "after-footer", "no-names", "seed", "twice"],
)
def test_bad_logs_name_the_line(lines: list[str], line: int, words: str) -> None:
    with pytest.raises(ValueError, match=f"line {line}: .*{words}") as info:
        parse_log(_text(lines))
    assert isinstance(info.value, UecdaLogError) and info.value.line == line


def test_read_log_takes_plain_and_gzipped_files(tmp_path: Path) -> None:
    text = _text(HEADER + GAME_0 + FOOTER)
    (tmp_path / "a.log").write_text(text)
    (tmp_path / "a.log.gz").write_bytes(gzip.compress(text.encode()))
    plain, packed = read_log(tmp_path / "a.log"), read_log(str(tmp_path / "a.log.gz"))
    assert plain.games[0].result == packed.games[0].result == (1, 4, 0, 3, 2)
    cut = gzip.compress(text.encode())[:-12]
    (tmp_path / "cut.log.gz").write_bytes(cut)
    with pytest.raises(UecdaLogError, match="not a whole gzip file"):
        read_log(tmp_path / "cut.log.gz")
    with pytest.raises(UecdaLogError, match="empty"):
        parse_log("")


def test_the_data_folder_holds_exactly_these_logs() -> None:
    """The other UECda tests take their configs from the folder: it must hold these ten."""
    assert sorted(p.name.removesuffix(".log.gz") for p in DATA.glob("*.log.gz")) == sorted(CONFIGS)
