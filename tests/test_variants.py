"""Rule variants as options (issue 11 item 1): K12 `last_capturer_takes_table`, K14 `next_deal_leader`, N3
`compulsory_tabbe` and N4 `tabbe_value`. Each default is the ruling; each variant is checked on the compiled
core directly (these options are not in the reference engines): the change it makes and nothing else."""
import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.formats import get_format, with_options
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.khasino.game import play_one_game as play_game, cards_accounted
from khasino_sim.kernels.core.workspace import new_workspace
from khasino_sim.kernels.khasino.search import bot_decides as decide, NO_DECISION
from khasino_sim.kernels.core.rng import bot_stream_seed
from khasino_sim.kernels.khasino.state import init_state, apply_move, advance, score
from khasino_sim.kernels.core.deal import shuffle_deck

BOTS = np.array([L.BOT_GREEDY, L.BOT_RANDOM], dtype=np.int64)


def _final(rules, seed):
    """The final state, statistics row and decision keys of one game."""
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    trace = np.zeros(64, dtype=np.int64)
    n = play_game(rules, np.uint64(seed), BOTS, st, np.zeros(104, dtype=np.int64), new_workspace(), row, trace,
                  True, np.zeros(1, dtype=np.uint64), 0)
    return st, row, trace[:n]


def _table_cards(st):
    n = bin(int(st[L.S_LOOSE])).count("1")
    for v in range(1, L.MAX_VALUE + 1):
        if st[L.S_BOWNER + v] >= 0:
            n += sum(bin(int(st[L.S_BGROUPS + v * L.MAX_GROUPS + i])).count("1") for i in range(int(st[L.S_BNG + v])))
    return n


def test_K12_variant_nobody_takes_the_last_cards():
    """`last_capturer_takes_table=false`: the same games to the last card (the sweep is the game's last act),
    then the cards left on the table stay there, scored by no one: every card is still accounted for, and the
    points of a game are 11 less those cards'."""
    base = get_format("khasino")
    variant = with_options(base, {"last_capturer_takes_table": "false"})
    left = 0
    for seed in range(120):
        st0, row0, keys0 = _final(base.rules_array(), seed)
        st1, row1, keys1 = _final(variant.rules_array(), seed)
        assert np.array_equal(keys0, keys1)
        assert row0[L.G_BAD] == row1[L.G_BAD] == 0 and cards_accounted(st1, variant.rules_array())
        score0 = sum(int(row0[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE]) for s in range(2))
        score1 = sum(int(row1[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE]) for s in range(2))
        cards1 = sum(int(row1[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_CARDS]) for s in range(2))
        assert _table_cards(st0) == 0 and score0 == 11
        assert cards1 + _table_cards(st1) == 40 and score1 <= 11
        left += _table_cards(st1) > 0
    assert left > 60          # most games end with cards on the table


def _first_deal_end(rules, seed):
    """Play game `seed` move by move through the compiled pieces, exactly as play_game does (greedy in seat 0,
    random in seat 1); returns the state when the first deal ends (a copy) and the last capturer just before."""
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    shuffle_deck(deck, rules[L.R_DECK], np.uint64(seed), stream)
    init_state(st, rules, deck)
    st[L.S_TO_MOVE] = 0
    stream[0] = bot_stream_seed(np.uint64(seed))
    ws = new_workspace()
    while not st[L.S_OVER]:
        p = int(st[L.S_TO_MOVE])
        deal = int(st[L.S_DEAL])
        decide(BOTS[p], st, rules, np.int64(p), ws, stream, np.int64(NO_DECISION), np.int64(-1))
        apply_move(st, rules, np.int64(p), ws, np.int64(L.WS_BEST))
        last = int(st[L.S_LAST_CAP])
        advance(st, rules, np.int64(p))
        if deal == 1 and st[L.S_DEAL] == 2:
            return st.copy(), last
    raise AssertionError("a game of one deal")


def _deal_leaders(rules, seed):
    """The seat to move at the start of each deal, and the last capturer just before it."""
    st, last = _first_deal_end(rules, seed)
    return [(0, -1), (int(st[L.S_TO_MOVE]), last)]


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_K14_variant_next_deal_leader(fmt):
    """K14: seat 0 leads both deals (0); the variants: the lead passes to seat 1 (1), or the first deal's last
    capturer leads the second (2)."""
    f = get_format(fmt)
    for seed in range(8):
        assert _deal_leaders(f.rules_array(), seed) == [(0, -1), (0, _deal_leaders(f.rules_array(), seed)[1][1])]
        assert [s for s, _ in _deal_leaders(with_options(f, {"next_deal_leader": 1}).rules_array(), seed)] == [0, 1]
        (_, _), (lead, last) = _deal_leaders(with_options(f, {"next_deal_leader": 2}).rules_array(), seed)
        assert lead == (last if last >= 0 else 0)


def _kasino_moves(options):
    """Seat 0's moves in a kasino-2p position: table 5C alone; hand 5D (clears it: a double tabbe) and 9H."""
    f = with_options(get_format("kasino-2p"), options)
    rules = f.rules_array()
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    st[L.S_LAST_CAP] = -1
    st[L.S_LOOSE] = 1 << engine.parse_card("5C")
    st[L.S_HANDS] = (1 << engine.parse_card("5D")) | (1 << engine.parse_card("9H"))
    st[L.S_HANDS + 2] = 1 << engine.parse_card("KS")
    recs = list(engine._records(st, rules, 0, engine._lister(f)))
    return sorted((engine.card_name(int(r[L.M_CARD])), L.KIND_NAMES[int(r[L.M_KIND])], int(r[L.M_TABBE]))
                  for r in recs)


def test_N3_N4_variants_compulsory_tabbe_and_value():
    assert _kasino_moves({}) == [("5D", "capture", 10)]                               # N3, N4: double tabbe
    assert _kasino_moves({"compulsory_tabbe": "false"}) == [("5D", "capture", 10), ("9H", "trail", 0)]
    assert _kasino_moves({"tabbe_value": 3}) == [("5D", "capture", 6)]
    assert _kasino_moves({"compulsory_tabbe": "false", "tabbe_value": 7}) == [("5D", "capture", 14),
                                                                              ("9H", "trail", 0)]


def test_N4_tabbe_value_in_play():
    """Every tabbe scores a multiple of tabbe_value; pluses and minuses cancel."""
    from khasino_sim.kernels.kasino.game import play_kasino_matches
    f = with_options(get_format("kasino-2p"), {"tabbe_value": 3, "compulsory_tabbe": "false"})
    rows = play_kasino_matches(f.rules_array(), np.arange(80, dtype=np.uint64),
                               np.array([[L.BOT_RANDOM, L.BOT_GREEDY]] * 80), check=True, nrounds=1)
    plus = rows[:, [L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_TABBE_PLUS for s in range(2)]]
    minus = rows[:, [L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_TABBE_MINUS for s in range(2)]]
    assert plus.sum() > 0 and (plus % 3 == 0).all() and plus.sum() == -minus.sum()
    assert rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0


@pytest.mark.parametrize("fmt, setting, message", [
    ("khasino", {"next_deal_leader": 3}, "next_deal_leader must be in 0..2"),
    ("kasino-2p", {"tabbe_value": 0}, "tabbe_value must be in 1..50"),
    ("kasino-2p", {"compulsory_tabbe": "sometimes"}, "takes true or false"),
    ("cassino", {"last_capturer_takes_table": "false"}, "unknown rule option"),
])
def test_bad_variant_values(fmt, setting, message):
    with pytest.raises(ValueError, match=message):
        with_options(get_format(fmt), setting)


def test_N1_alt_deal_option_is_the_2p_alt_format():
    """`alt_deal` on kasino-2p plays kasino-2p-alt's games (5 each and 6 to the table); two seats only."""
    from khasino_sim.kernels.kasino.game import play_kasino_matches
    seeds = np.arange(30, dtype=np.uint64)
    bots = np.array([[L.BOT_GREEDY, L.BOT_RANDOM]] * 30)
    a = play_kasino_matches(with_options(get_format("kasino-2p"), {"alt_deal": "true"}).rules_array(), seeds, bots,
                            check=True)
    b = play_kasino_matches(get_format("kasino-2p-alt").rules_array(), seeds, bots, check=True)
    c = play_kasino_matches(get_format("kasino-2p").rules_array(), seeds, bots, check=True)
    assert np.array_equal(a, b) and not np.array_equal(a, c) and a[:, L.G_BAD].sum() == 0
    with pytest.raises(ValueError, match="alt_deal is the 2-player first deal"):
        with_options(get_format("kasino-4p"), {"alt_deal": "true"})


def _provisional(st, fmt):
    """Python's reading of G_AHEAD1: each seat's K13 points if the game ended now (1v1: no teams)."""
    rules = fmt.rules_array()
    piles = [[int(st[L.S_PILE + s * L.MAX_PILE + i]) for i in range(int(st[L.S_PLEN + s]))] for s in range(2)]
    pts = [sum(int(rules[L.R_CARD_POINTS + c]) for c in p) for p in piles]
    spade = [engine.parse_card(f"{r}S") for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")]
    for count, award in ((lambda p: len(p), fmt.most_cards), (lambda p: sum(c in spade for c in p), fmt.most_spades)):
        a, b = count(piles[0]), count(piles[1])
        if a != b:
            pts[0 if a > b else 1] += award
        elif fmt.split_ties:
            pts[0] += award // 2
            pts[1] += award // 2
    return -1 if pts[0] == pts[1] else int(pts[1] > pts[0])


@pytest.mark.parametrize("fmt", ["khasino", "durban"])
def test_after_the_first_deal_statistics(fmt):
    """G_LEADER2 is the second deal's leader and G_AHEAD1 the seat ahead when the first deal ends (the points
    its pile would score then), as a move-by-move walk of the same game reads them."""
    f = get_format(fmt)
    for options in ({}, {"next_deal_leader": 1}):
        g = with_options(f, options)
        rules = g.rules_array()
        for seed in range(6):
            st, _ = _first_deal_end(rules, seed)
            ahead = _provisional(st, g)
            assert score(st, rules, np.zeros(L.STATS_SIZE, dtype=np.int64)) == ahead
            _, row, _ = _final(rules, seed)
            assert (int(row[L.G_LEADER2]), int(row[L.G_AHEAD1])) == (int(st[L.S_TO_MOVE]), ahead)
            assert row[L.G_LEADER2] == (1 if options else 0)
