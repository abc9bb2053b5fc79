"""`why_illegal` (khasino_sim/terminal/explain.py): the one line `khasino play` prints for an entry no legal
move matches. Scenario tests, one per rule case, each from a position built by hand and checked by the engine
(docs/rules/: K4-K11, K15, C1-C6, N2-N3, P1, P6, P11-P16), then a fuzz over every format: one line, never a
card the seat to move cannot see, and the same line whatever the hidden cards are."""
import random
import re
from collections import Counter

import pytest

from khasino_sim import engine
from khasino_sim.formats import FORMATS, get_format
from khasino_sim.terminal.notation import Entry, matches, parse
from khasino_sim.terminal.explain import why_illegal
from tests.helpers import position

CARD = re.compile(r"(?<![0-9A-Za-z])(10|[A2-9JQK])([SHDC])(?![0-9A-Za-z])")


# ------------------------------------------------------------------------------------------------ helpers
def arrange(fmt, hands, loose=(), builds=(), piles=None, options=None, promises=None, deal=None):
    """A valid state of `fmt` at its last deal (no stock), seat 0 to move: these hands (None: filled with
    the mover's hand size from the cards left), loose cards, builds ((value, owner, groups)) and piles (tops
    last); the cards left go under the mover's pile."""
    f = get_format(fmt)
    base = engine.new_game(fmt, 0, options=options)
    everything = Counter(c for h in base["hands"] for c in h) + Counter(base["table"]["loose"]) + \
        Counter(base["stock"]) + Counter(c for p in base["piles"] for c in p)
    piles = [list(p) for p in (piles or [[] for _ in range(f.seats)])]
    named = Counter(c for h in hands if h for c in h) + Counter(loose) + \
        Counter(c for b in builds for g in b[2] for c in g) + Counter(c for p in piles for c in p)
    rest = list((everything - named).elements())
    assert not named - everything, f"cards not in the deck: {named - everything}"
    size = len(hands[0])
    out_hands = []
    for h in hands:
        if h is None:
            h, rest = rest[:size], rest[size:]
        out_hands.append(list(h))
    piles[0] = rest + piles[0]
    state = dict(base, deal=deal or f.deals, to_move=0, hands=out_hands, stock=[], piles=piles,
                 table={"loose": list(loose),
                        "builds": [{"value": v, "owner": o, "groups": [list(g) for g in gs]} for v, o, gs in builds]},
                 last_capturer=1 if any(piles) else None)
    if "decision" in state:
        state["decision"] = None
    if "promises" in state:
        state["promises"] = promises or [[] for _ in range(f.seats)]
    if "set_aside" in state:
        state["set_aside"] = []
    engine.legal_moves(state)          # StateError on a state that is not valid
    return state


def why(state, text):
    """The line for the typed `text`, which must match no legal move."""
    moves = engine.legal_moves(state)
    entry = parse(text)
    assert matches(entry, moves)[1] == [], f"{text} is legal here"
    line = why_illegal(state, entry, moves)
    assert "\n" not in line and line
    return line


def legal(state, text):
    return matches(parse(text), engine.legal_moves(state))[1] != []


def with_options(state, **opts):
    return dict(state, options=dict(state.get("options") or {}, **opts))


# ------------------------------------------------------------------------------------------ the hand, names
def test_a_card_not_in_the_hand():
    state = position(hands=[["5S", "9C"], ["3H", "4H"]], loose=["2D"])
    assert why(state, "9S") == "9S is not in your hand"
    assert why(state, "9S x 2D") == "9S is not in your hand"


def test_k3_named_card_in_the_hand_and_a_card_not_to_be_seen():
    state = position(hands=[["5S", "9C"], ["3H", "4H"]], loose=["4D"])
    line = why(state, "9C x 5S+4D")
    assert "5S is in your hand" in line and "(K3)" in line
    # 3H is in the other hand: the answer is the one for any card not on the table, and says no more
    assert why(state, "9C x 3H") == "3H is not on the table"


def test_k4_a_build_card_named_is_taken_only_with_its_build():
    state = position(hands=[["9S", "5D"], ["9C", "3H"]], builds=[(9, 1, [["5H", "4C"]])])
    line = why(state, "5D x 5H")
    assert "part of build 9" in line and "x b9" in line and "(K4)" in line


def test_k8_own_pile_never_usable():
    state = position(hands=[["7S", "2D"], ["3H", "4H"]], loose=["7C"], piles=[["7D"], []])
    assert why(state, "7S x 7C+7D") == "7D is on your own pile, which you may never use (K8)"


# --------------------------------------------------------------------------------------------- K11 trails
def test_k11_no_trail_of_a_value_loose_or_built():
    state = position(hands=[["5S", "9C", "3D"], ["3H", "4H", "5C"]], loose=["5H"])
    assert why(state, "5S t") == "5S may not trail: a loose 5 is on the table (K11)"
    assert legal(with_options(state, trail_restricted=False), "5S t")          # the variant: durban's drift
    state = position(hands=[["7S", "9C", "7C"], ["3H", "4H", "5C"]], builds=[(7, 0, [["4D", "3S"]])])
    assert "a build of 7 is on the table (K11)" in why(state, "7S t")


def test_k11_first_deal_no_trail_while_owning_a_build_1v1_only():
    state = position(hands=[["8S", "3H", "9D"], ["2C", "4C", "6C"]], builds=[(8, 0, [["5D", "3D"]])], deal=1)
    line = why(state, "3H t")
    assert "you own build 8" in line and "first deal" in line and "(K11)" in line
    assert legal(with_options(state, no_trail_own_build_first_deal=False), "3H t")
    assert "(K11)" in why(state, "9D")          # a card with no move at all says why it cannot trail


def test_p1_last_card_of_an_owned_build_only_captures_it():
    hands = [["7S", "2C", "9D"], ["3H", "4H", "6C"]]
    build = [(7, 0, [["4D", "3S"]])]
    line = why(position("khasino", hands=hands, loose=["AD"], builds=build), "7S b8 AD")
    assert "your last 7" in line and "(P1)" in line
    line = why(position("durban", hands=hands, loose=["AD"], builds=build), "7S t")    # durban: trails are free
    assert line.startswith("7S may not trail: 7S is your last 7") and "(P1)" in line


# ---------------------------------------------------------------------------------------- K4 captures
def test_k4_a_capture_group_must_sum_to_the_card():
    state = position(hands=[["9S", "2C"], ["3H", "5H"]], loose=["4C", "4H"])
    assert why(state, "9S x 4C+4H") == "4C+4H sums to 8, not 9 (K4)"


def test_k4_pile_cards_alone_are_no_capture():
    state = position(hands=[["7S", "2C"], ["3H", "5H"]], loose=["AD"], piles=[[], ["7D"]])
    assert why(state, "7S x 7D") == "a capture must take a loose card or a build, not pile cards alone (K4)"


def test_k4_a_build_is_taken_only_by_its_value():
    state = position(hands=[["8S", "9C", "2C"], ["9H", "5H", "6H"]], builds=[(9, 1, [["5D", "4C"]])])
    line = why(state, "8S x b9")
    assert "taken only by a card of value 9" in line and "(K4)" in line
    assert why(state, "8S x b7") == "there is no build of 7 on the table"


# ------------------------------------------------------------------------------------ K5-K7 builds
def test_k5_a_builder_keeps_a_card_of_the_value():
    state = position(hands=[["7H", "3C"], ["3H", "5H"]], loose=["2C"])
    assert why(state, "7H b9") == "7H cannot build 9: you would hold no 9 after the play (K5)"


def test_k5_no_loose_cards_make_the_value():
    state = position(hands=[["7H", "9C"], ["3H", "5H"]], loose=["3C"])
    assert why(state, "7H b9") == "no loose cards make 9 with 7H (K5)"
    assert why(state, "7H b9 3C") == "7H+3C sums to 10, not 9 (K5)"


def test_k5_p6_durban_owns_one_build_at_a_time():
    state = position("durban", hands=[["2C", "8D", "6S"], ["3H", "5H", "7H"]], loose=["6H"],
                     builds=[(6, 0, [["4S", "2S"]])])
    line = why(state, "2C b8 6H")
    assert "only one build" in line and "(K5, P6)" in line
    khasino = position("khasino", hands=state["hands"], loose=["6H"], builds=[(6, 0, [["4S", "2S"]])])
    assert legal(khasino, "2C b8 6H")                                   # khasino: builds unlimited
    assert "(K5, P6)" in why(with_options(khasino, max_builds_owned=1), "2C b8 6H")    # the option decides


def test_k6_load_needs_the_value_kept():
    state = position(hands=[["4C", "2D"], ["9H", "5H"]], loose=["5D"], builds=[(9, 1, [["6C", "3S"]])])
    line = why(state, "4C b9 5D")
    assert "cannot load build 9: you would hold no 9 after the play (K6)" in line


def test_k7_no_change_of_your_own_build():
    state = position(hands=[["AS", "9D", "10C"], ["3H", "5H", "7H"]], builds=[(9, 0, [["5D", "4C"]])])
    assert why(state, "AS b10") == "you may not change your own build (K7)"


def test_k7_a_compound_build_cannot_be_changed():
    state = position(hands=[["AS", "6D"], ["5H", "7H"]], builds=[(5, 1, [["5C"], ["3C", "2D"]])])
    assert why(state, "AS b6") == "a compound build cannot be changed (K7)"


def test_k7_khasino_changes_two_card_builds_by_the_card_alone_durban_differs():
    hands = [["AS", "10D", "2C"], ["9H", "7H", "5H"]]
    three = [(9, 1, [["4D", "3C", "2D"]])]
    line = why(position("khasino", hands=hands, builds=three), "AS b10")
    assert "two-card" in line and "(K7" in line and "change_mode" in line
    assert legal(position("durban", hands=hands, builds=three), "AS b10")      # durban: any simple build
    two = [(7, 1, [["4D", "3C"]])]
    line = why(position("khasino", hands=hands, loose=["2H"], builds=two), "AS b10 2H")
    assert "(K5)" in line or "(K7" in line
    assert legal(position("durban", hands=hands, loose=["2H"], builds=two), "AS b10 2H")


def test_k9_follow_ups_not_in_durban():
    hands = [["8S", "9C", "2C"], ["3H", "6H", "7H"]]
    table = dict(loose=["8C", "4H", "5D"], builds=[(9, 0, [["6D", "3S"]])])
    assert legal(position("khasino", hands=hands, **table), "8S x 8C 4H+5D")
    line = why(position("durban", hands=hands, **table), "8S x 8C 4H+5D")
    assert "no follow-ups" in line and "(K9" in line


# --------------------------------------------------------------------------------------- K15 four players
def four(hand, partner=("3H", "5H", "9H"), **kw):
    """A khasino-4p state, seat 0 to move, its partner (seat 1) holding `partner`, the opponents seats 2, 3."""
    return arrange("khasino-4p", [hand, list(partner), ["9S", "9C", "10S"], None], **kw)


def test_k8_k15_never_the_teammates_pile():
    state = four(["7S", "2C", "3D"], loose=["7C"], piles=[[], ["7D"], [], []])
    line = why(state, "7S x 7C+7D")
    assert "teammate's pile" in line and "(K8)" in line


def test_k6_p12_only_a_teammates_build_is_loaded_without_its_value():
    hand = ["4C", "2D", "3D"]
    opp = four(hand, loose=["5D"], builds=[(9, 2, [["6C", "3S"]])])
    line = why(opp, "4C b9 5D")
    assert "(K6" in line and "P12" in line
    assert legal(four(hand, loose=["5D"], builds=[(9, 1, [["6C", "3S"]])]), "4C b9 5D")


def test_p14_rebuild_needs_the_partners_open_promise():
    hands = [["4C", "2D", "3D"], ["8H", "9C", "10C"], ["AC", "AH", "AD"], None]
    state = arrange("khasino-4p", hands, loose=["4S"])
    line = why(state, "4C b8 4S")
    assert "(K5" in line and "P14" in line
    promised = arrange("khasino-4p", hands, loose=["4S"], promises=[[], [8], [], []])
    assert legal(promised, "4C b8 4S")          # the partner's open promise of 8: a rebuild for him


def test_k7_k15_no_change_of_a_teammates_build():
    state = four(["AS", "10D", "2C"], builds=[(9, 1, [["5D", "4C"]])])
    line = why(state, "AS b10")
    assert "teammate's build" in line and "(K7)" in line


def test_p11_a_pending_lead_decision():
    state = engine.new_game("khasino-4p", 1)
    card = state["hands"][0][0]
    assert "(P11)" in why(state, card)


def test_p15_a_pending_stay_decision():
    state = four(["9D", "2C", "3D"], partner=("9H", "5H", "4H"), builds=[(9, 2, [["5D", "4C"]])])
    capture = next(m for m in engine.legal_moves(state) if m.card == "9D" and m.kind == "capture")
    asked = capture.result
    assert asked["decision"]["kind"] == "stay" and asked["to_move"] == 1
    assert "(P15)" in why(asked, "5H")


# -------------------------------------------------------------------------------------------------- Cassino
def cassino(hands, **kw):
    return arrange("cassino", [hands, None], **kw)


def test_c6_no_trail_while_owning_a_build():
    state = cassino(["9S", "3C", "JD"], loose=["4H"], builds=[(9, 0, [["5S", "4D"]])])
    line = why(state, "3C t")
    assert "you own build 9" in line and "(C6)" in line


def test_c6_commitment_keeps_the_card_of_an_owned_build():
    state = cassino(["9S", "3C", "JD"], loose=["AH", "7D"], builds=[(9, 0, [["5S", "4D"]])])
    line = why(state, "9S b10 AH")
    assert "your last 9" in line and "(C6)" in line
    line = why(state, "9S b9")                  # nor add it to the build: nothing would take the build then
    assert "your last 9" in line and "(C6)" in line


def test_c1_p16_face_cards_never_built_nor_summed():
    state = cassino(["QH", "5C", "8C"], loose=["3D", "QS", "JD"])
    assert "(C1, P16)" in why(state, "QH b15 3D")
    assert "exactly one loose Q" in why(state, "QH x QS+3D")
    assert "JD has no number" in why(state, "8C b8 JD")
    faces = with_options(state, face_values=True)
    assert legal(faces, "QH x QS")


def test_c5_a_multiple_build_is_never_raised():
    state = arrange("cassino", [["AS", "9C", "3C"], ["8S", "2H", "4H"]], builds=[(8, 1, [["8D"], ["5H", "3H"]])])
    line = why(state, "AS b9")
    assert "multiple build" in line and "(C5)" in line


# --------------------------------------------------------------------------------------------------- Kasino
def kasino(hands, loose, **kw):
    return arrange("kasino-2p", [hands, None], loose=loose, **kw)


def test_n2_kasino_has_no_builds():
    state = kasino(["5H", "9C"], ["4D", "2S"])
    line = why(state, "5H b9 4D")
    assert "no builds" in line and "(N2)" in line


def test_n2_a_card_with_a_match_cannot_crawl():
    state = kasino(["7H", "2C"], ["3S", "4D", "9S"])
    line = why(state, "7H t")
    assert "may not crawl" in line and "3S 4D" in line and "(N2)" in line
    line = why(state, "7H x 9S")
    assert "not a set of matches" in line and "(N2)" in line


def test_n3_compulsory_tabbe_unless_the_option_is_off():
    state = kasino(["7H", "2C", "5D"], ["3S", "4D"])
    line = why(state, "2C t")
    assert "7H can clear the table" in line and "(N3)" in line
    assert legal(with_options(state, compulsory_tabbe=False), "2C t")


# ------------------------------------------------------------------------------------------------ fallback
def test_fallback_lists_what_the_card_can_do():
    state = position(hands=[["9S", "2C"], ["3H", "5H"]], loose=["9D", "4C"])
    moves = engine.legal_moves(state)
    line = why_illegal(state, Entry(card="9S", cards=("4C",)), moves)
    assert line.startswith("no legal move plays 9S with 4C; 9S can:") and "capture 9D" in line


def test_never_raises_on_a_strange_entry():
    state = position(hands=[["9S", "2C"], ["3H", "5H"]], loose=["9D"])
    moves = engine.legal_moves(state)
    for entry in (Entry(card="9S", kind="build", value=None), Entry(card="9S", kind="capture", target=99),
                  Entry(card="KS"), Entry(card="9S", cards=("ZZ",))):
        line = why_illegal(state, entry, moves)
        assert line and "\n" not in line


# --------------------------------------------------------------------------------------------------- fuzz
VALUES = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _value(card):
    return VALUES.get(card[:-1]) or int(card[:-1])


def _positions(fmt, rng, n):
    out = []
    while len(out) < n:
        state = engine.new_game(fmt, rng.randrange(10 ** 6))
        for _ in range(rng.randrange(30)):
            moves = engine.legal_moves(state)
            if state["over"] or not moves:
                break
            state = rng.choice(moves).result
        if not state["over"] and state.get("decision") is None:
            out.append(state)
    return out


def _entries(state, rng, n):
    """Random card entries from the mover's hand and what the table shows, kinds and values at random."""
    p = state["to_move"]
    hand = state["hands"][p]
    table = list(state["table"]["loose"]) + [pile[-1] for pile in state["piles"] if pile]
    table += [c for b in state["table"]["builds"] for g in b["groups"] for c in g]
    for _ in range(n):
        card = rng.choice(hand)
        kind = rng.choice([None, "trail", "capture", "build"])
        cards = () if kind == "trail" else tuple(rng.sample(hand + table, min(len(hand + table), rng.randrange(4))))
        value = max(1, _value(card) + sum(_value(c) for c in cards) + rng.randrange(-3, 3)) if kind == "build" else None
        target = rng.choice([None, _value(card), rng.randrange(1, 11)]) if kind == "capture" else None
        yield Entry(card=card, kind=kind, value=value, cards=cards, target=target)


def _visible(state):
    p = state["to_move"]
    seen = set(state["hands"][p]) | set(state["table"]["loose"]) | set(state.get("set_aside", []))
    seen |= {c for b in state["table"]["builds"] for g in b["groups"] for c in g}
    seen |= {pile[-1] for pile in state["piles"] if pile}
    return seen


def _permuted(state, rng):
    """The other hands and the stock shuffled together (the seat to move cannot tell them apart)."""
    p = state["to_move"]
    others = [q for q in range(len(state["hands"])) if q != p]
    hidden = [c for q in others for c in state["hands"][q]] + list(state["stock"])
    rng.shuffle(hidden)
    hands = [list(h) for h in state["hands"]]
    at = 0
    for q in others:
        hands[q], at = sorted(hidden[at: at + len(hands[q])]), at + len(hands[q])
    return dict(state, hands=hands, stock=hidden[at:])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_fuzz_one_line_and_no_hidden_card(fmt):
    """~20 positions of random play, random entries matching no move: one non-empty line naming no card of
    another hand or the stock that the seat cannot see, and the same line when the hidden cards move."""
    rng = random.Random(fmt)
    for state in _positions(fmt, rng, 20):
        moves = engine.legal_moves(state)
        p = state["to_move"]
        hidden = {c for q, h in enumerate(state["hands"]) if q != p for c in h} | set(state["stock"])
        secret = hidden - _visible(state)
        other = _permuted(state, rng)
        try:
            other_moves = engine.legal_moves(other)
        except engine.StateError:       # P1: a shuffled build owner without his card; another shuffle is not needed
            other = None
        for entry in _entries(state, rng, 12):
            if matches(entry, moves)[1]:
                continue
            line = why_illegal(state, entry, moves)
            assert line and "\n" not in line, (fmt, entry)
            named = {"".join(m) for m in CARD.findall(line)} - set(entry.cards) - {entry.card}
            assert not named & secret, (fmt, entry.text(), line)
            if other is not None:
                assert why_illegal(other, entry, other_moves) == line, (fmt, entry.text())
