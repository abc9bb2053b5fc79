"""The test suite's one helpers module (tests/README.md): building positions by hand, cards and states, the
core-against-reference walks and whole games of every family, batches of compiled games, the hidden-card
permutation, and the conformance suite's sample sizes and regeneration commands.

Everything here dispatches on the registered format's record (`khasino_sim.formats.FORMATS`: its family, seats,
teams, series, matches), never on format names, so a format registered in an existing family is covered by the
conformance suite (tests/conformance) with no test edit."""
import collections
import json
import random

from khasino_sim.kernels.core.bits import card_name
from khasino_sim.formats import get_format

# ---- the commands that regenerate the fixtures (named in the failure messages) ----------------------------------
PERFT_COMMAND = "python scripts/make_perft_fixtures.py"
GOLDEN_COMMAND = "python scripts/make_golden.py"

# ---- the conformance suite's sample of every format (tests/README.md counts them) -------------------------------
# positions: distinct successors compared with the reference (tests/conformance/test_differential.py);
# whole: whole games per bot pairing compared with the reference (Cassino and Kasino: whole rounds, and `matches`
# whole matches); games: compiled games (Cassino and Kasino: matches) per pairing whose invariants are checked
# (tests/conformance/test_invariants.py); hidden: games whose positions the hidden-card permutation visits.
# A format not named in SAMPLE_OF gets its family's row.
SAMPLE = {
    "khasino": {"positions": 1_000, "whole": 12, "matches": 0, "games": 1_000, "hidden": 25},
    "cassino": {"positions": 1_000, "whole": 8, "matches": 2, "games": 1_000, "hidden": 12},
    "kasino": {"positions": 1_000, "whole": 3, "matches": 1, "games": 1_000, "hidden": 4},
}
SAMPLE_OF = {       # the 1v1 Khasino formats kept the larger samples they had before the suite was merged
    "khasino": {"positions": 2_600, "whole": 60, "games": 10_000},
    "durban": {"positions": 2_600, "whole": 60, "games": 10_000},
}


def sample(fmt, what):
    """The conformance suite's sample size `what` for format `fmt` (SAMPLE)."""
    return SAMPLE_OF.get(fmt, {}).get(what, SAMPLE[get_format(fmt).family][what])


# ---- bot pairings by the number of seats: everyone random, everyone greedy, greedy against random ----------------
PAIRINGS = {2: [("random", "random"), ("greedy", "greedy"), ("greedy", "random")],
            3: [("random",) * 3, ("greedy",) * 3, ("greedy", "random", "random")],
            4: [("random",) * 4, ("greedy",) * 4, ("greedy", "random", "greedy", "random")],
            5: [("random",) * 5, ("greedy",) * 5, ("greedy", "random") * 2 + ("greedy",)],
            6: [("random",) * 6, ("greedy",) * 6, ("greedy", "random") * 3]}


def pairings(fmt):
    return PAIRINGS[get_format(fmt).seats]


def pairing_id(bots):
    return ",".join(bots)


# ---- cards and states -------------------------------------------------------------------------------------------
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"
ALL40 = [card_name(i) for i in range(40)]       # card-index order (RULES.md "Cards"): AS AH AD AC 2S ...
ALL52 = [card_name(i) for i in range(52)]


def canon(state):
    """A state (or any JSON value) as one canonical string, for comparing states."""
    return json.dumps(state, sort_keys=True)


dumps = canon


def by_index(cards):
    """Cards sorted in card-index order (A..K, suits S H D C)."""
    return sorted(cards, key=ALL52.index)


def all_cards(state):
    """Every card a JSON state holds: hands, loose cards, builds, piles, stock and Kasino's set-aside cards."""
    cards = [c for h in state["hands"] for c in h] + list(state["table"]["loose"]) + list(state["stock"])
    cards += [c for b in state["table"]["builds"] for g in b["groups"] for c in g]
    cards += [c for p in state["piles"] for c in p]
    cards += list(state.get("set_aside") or [])
    return cards


def full_deck(fmt):
    """The format's deck as a multiset (Kasino: two copies of each of the 52 cards)."""
    f = get_format(fmt)
    copies = f.deck // 52 if f.deck > 52 else 1
    return collections.Counter({card_name(c): copies for c in range(min(f.deck, 52))})


def assert_every_card_accounted_for(state):
    got = collections.Counter(all_cards(state))
    want = full_deck(state["format"])
    assert got == want, (f"cards lost {sorted((want - got).elements())}, duplicated "
                         f"{sorted((got - want).elements())} in {canon(state)}")


def moves_of(state, card=None, kind=None, engine=None):
    """The legal moves of `state` (the Khasino reference's unless `engine` is given), optionally only those
    playing `card` and of `kind`."""
    if engine is None:
        from khasino_sim import reference as engine
    return [m for m in engine.legal_moves(state)
            if (card is None or m.card == card) and (kind is None or m.kind == kind)]


def splitmix(state):
    """docs/ENGINE.md "Randomness", written out again here: the outputs of a splitmix64 stream of `state`."""
    m64 = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & m64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m64
        yield z ^ (z >> 31)


def deck_order(seed, n=40):
    """docs/ENGINE.md "Randomness": the deck of `n` cards dealt from `seed` (Fisher-Yates from the end on the
    deal stream), top first."""
    rng = splitmix(seed)
    deck = list(range(n))
    for i in range(n - 1, 0, -1):
        j = next(rng) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [card_name(c) for c in deck]


def position(fmt="khasino", hands=((), ()), loose=(), builds=(), piles=((), ()), to_move=0, deal=2,
             last_capturer="auto"):
    """A valid Khasino JSON state with exactly these hands, loose cards, builds and pile tops.

    builds: (value, owner, [[cards], ...]) tuples. Cards not named go to the stock (deal 1 needs 20 there),
    then under the named piles (seat 0's pile first, bottom of the pile, so they are never exposed unless a
    move digs through every named pile card). last_capturer "auto": the opponent of the mover when any pile
    holds cards, else null.
    """
    f = get_format(fmt)
    named = [c for h in hands for c in h] + list(loose) + [c for b in builds for g in b[2] for c in g] + \
            [c for p in piles for c in p]
    assert len(named) == len(set(named)), f"a card is named twice: {named}"
    rest = [card_name(c) for c in range(f.deck) if card_name(c) not in named]
    stock_size = f.hand * f.seats * (f.deals - deal)
    stock, rest = rest[:stock_size], rest[stock_size:]
    piles = [list(p) for p in piles]
    if rest:
        piles[to_move] = rest + piles[to_move]
    if last_capturer == "auto":
        last_capturer = (1 - to_move) if any(piles) else None
    return {
        "format": fmt, "deal": deal, "to_move": to_move,
        "hands": [list(h) for h in hands],
        "table": {"loose": list(loose),
                  "builds": [{"value": v, "owner": o, "groups": [list(g) for g in gs]} for v, o, gs in builds]},
        "piles": piles, "stock": stock, "last_capturer": last_capturer,
    }


# ---- the reference engine of each family, and its deals -------------------------------------------------------
def reference_of(fmt):
    """The pure-Python reference module of the format's family (khasino_sim.reference, reference_cassino,
    reference_kasino)."""
    family = get_format(fmt).family
    if family == "cassino":
        from khasino_sim import reference_cassino as ref
    elif family == "kasino":
        from khasino_sim import reference_kasino as ref
    else:
        from khasino_sim import reference as ref
    return ref


def deal_args(fmt, g):
    """The deal arguments of the g-th game of a walk: formats of matches play rounds 1, 2, 3, ... (so every seat
    deals) with match totals carried (partners holding their team's); formats with series rotate the leader."""
    f = get_format(fmt)
    if f.matches:
        scores = [g % 7 * (s + 1) for s in range(f.seats)]
        if f.teams:
            scores = [scores[f.team_of(s)] for s in range(f.seats)]
        return {"round": 1 + g % f.seats, "scores": scores}
    return {"leader": g % f.seats if f.series else 0}


def first_positions(fmt, seed, options=None, **args):
    """The position a game (round) of `fmt` starts from, from the reference and from the core, checked equal."""
    from khasino_sim import engine
    state = reference_of(fmt).initial_state(fmt, seed, options=options, **args)
    mine = engine.new_game(fmt, seed, options=options, **args)
    assert canon(state) == canon(mine), f"{fmt} seed {seed} {args}: the deal differs"
    return state


def walk(fmt, positions, first_seed, options=None):
    """Random walks through reference games of `fmt` (with rule `options`) from seeds first_seed,
    first_seed + 1, ... (deal_args: rounds or leaders rotating; 4p Khasino from the lead decision, its Stay
    decisions included), comparing every position's distinct successor states and keys with the core's; returns
    the number of positions compared."""
    ref = reference_of(fmt)
    done = g = 0
    while done < positions:
        state = first_positions(fmt, first_seed + g, options, **deal_args(fmt, g))
        if options:
            assert all(state["options"][k] == v for k, v in options.items() if not isinstance(v, str)), \
                "the options are not in the state"
        done += compare_successors(ref, state, random.Random(g), positions - done)
        g += 1
    return done


def compare_successors(ref, state, rng, budget):
    """From `state`, compare each position's distinct successor states and keys, the reference module `ref`'s
    against the core's (`engine.legal_moves`), stepping to a successor drawn by `rng`, until the game is over or
    `budget` positions are compared; returns how many were. Every position walked holds every card of the deck
    once (Kasino: twice) and has a legal move."""
    from khasino_sim import engine
    done = 0
    while not state["over"] and done < budget:
        assert_every_card_accounted_for(state)
        want = {m.key: canon(m.result) for m in ref.legal_moves(state)}
        got = {m.key: canon(m.result) for m in engine.legal_moves(state)}
        assert want, f"a position without a legal move: {canon(state)}"
        assert got == want, f"successors differ in {canon(state)}"
        done += 1
        state = json.loads(rng.choice(list(want.values())))
    if state["over"]:
        assert_every_card_accounted_for(state)
    return done


def round_seats(fmt, seed):
    """The deal arguments of whole game `seed` of a pairing: the round (formats of matches) or the leader
    (formats with series) rotating with the seed."""
    f = get_format(fmt)
    if f.matches:
        return {"round": 1 + seed % f.seats}
    return {"leader": seed % f.seats if f.series else 0}


def same_whole_games(fmt, seeds, bots, options=None):
    """Whole games of `fmt` (Cassino and Kasino: whole rounds), core against reference, for every seed: every
    move key, the final state, the scores, the winner; never a position without a legal move."""
    from khasino_sim import engine
    ref = reference_of(fmt)
    f = get_format(fmt)
    for seed in seeds:
        args = round_seats(fmt, seed)
        if f.matches:
            want = ref.play_round(fmt, seed, bots, options=options, **args)
            got = engine.play_round(fmt, seed, bots, options=options, **args)
        else:
            want = ref.play_game(fmt, seed, bots, options=options, **args)
            got = engine.play_game(fmt, seed, bots, options=options, **args)
        where = f"{fmt} seed {seed} {args} {bots}"
        assert got["keys"] == want["keys"], f"{where}: the games diverge"
        assert canon(got["final"]) == canon(want["final"]), f"{where}: the final states differ"
        assert [s["score"] for s in got["seats"]] == [s["total"] for s in want["scores"]], f"{where}: scores"
        assert got["no_move"] == want["no_move"] == 0 and got["bad"] == 0, f"{where}: no move or a card lost"
        if "winner" in want:
            assert got["winner"] == want["winner"], f"{where}: the winners differ"
        assert_every_card_accounted_for(got["final"])


def same_whole_matches(fmt, seeds, bots, options=None):
    """Whole matches (Cassino to 21, C7/P21; Kasino's rounds, N7), core against reference: the same number of
    rounds, each round's scores, the match totals and the winner."""
    from khasino_sim import engine
    ref = reference_of(fmt)
    for seed in seeds:
        want = ref.play_match(fmt, seed, bots, options=options)
        got = engine.play_match(fmt, seed, bots, options=options)
        where = f"{fmt} match {seed} {bots}"
        assert len(got["rounds"]) == len(want["rounds"]), f"{where}: a different number of rounds"
        assert got["totals"] == want["totals"] and got["winner"] == want["winner"], where
        for r, (g, w) in enumerate(zip(got["rounds"], want["rounds"])):
            assert [s["score"] for s in g] == [s["total"] for s in w["scores"]], f"{where} round {r + 1}"


# ---- batches of compiled games --------------------------------------------------------------------------------
def batch_rows(fmt, n, bots=0, options=None, single=False, nrounds=None, seeds=None, series=1, check=True):
    """n compiled games of `fmt` (Cassino and Kasino: whole matches, one statistics row per round) from seeds
    0..n-1 (or `seeds`); returns (format, rows). bots: a bot code for every seat (0 random, 1 greedy), 2 for
    greedy against random alternating seats from game to game, or a tuple of bot names (one per seat)."""
    import numpy as np
    from khasino_sim.formats import with_options
    from khasino_sim.engine import bot_id
    f = with_options(get_format(fmt), options or {})
    seeds = np.arange(n, dtype=np.uint64) if seeds is None else np.asarray(seeds, dtype=np.uint64)
    n = len(seeds)
    if isinstance(bots, (tuple, list)):
        codes = np.array([[bot_id(b) for b in bots]] * n, dtype=np.int64)
    elif bots == 2:     # greedy v random, alternating seats
        codes = (np.arange(f.seats)[None, :] + np.arange(n)[:, None]) % 2
    else:
        codes = np.full((n, f.seats), bots, dtype=np.int64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    if f.family == "kasino":
        from khasino_sim.kernels.kasino.game import play_kasino_matches
        return f, play_kasino_matches(f.rules_array(), seeds, codes, check=check, nrounds=nrounds)
    if f.family == "cassino":
        from khasino_sim.kernels.dispatch import play_matches
        return f, play_matches(f.rules_array(), seeds, codes, check=check, single=single)
    from khasino_sim.kernels.khasino.game import play_batch
    return f, play_batch(f.rules_array(), seeds, codes, check, series=series)


def seat_field(rows, seat, field):
    """Column `field` (layout SEAT_*) of seat `seat` in statistics rows."""
    from khasino_sim.kernels.core import layout as L
    return rows[:, L.G_SEAT0 + seat * L.SEAT_FIELDS + field]


# ---- what bots see (docs/rules/project.md "What bots see") -------------------------------------------------------
def positions(fmt, games, first_seed=500):
    """Every position of `games` random games of `fmt` (round 1, seat 0 leading), walked through the core."""
    from khasino_sim import engine
    for g in range(games):
        state = engine.new_game(fmt, first_seed + g)
        rng = random.Random(g)
        while not state["over"]:
            yield state
            state = rng.choice(engine.legal_moves(state)).result


def permute_hidden(state, rng):
    """The other seats' hands and the stock shuffled together, every size kept."""
    from khasino_sim import engine
    p = state["to_move"]
    others = [q for q in range(len(state["hands"])) if q != p]
    hidden = [c for q in others for c in state["hands"][q]] + state["stock"]
    rng.shuffle(hidden)
    out = dict(state)
    hands = [list(h) for h in state["hands"]]
    at = 0
    for q in others:
        hands[q] = sorted(hidden[at: at + len(state["hands"][q])], key=engine.parse_card)
        at += len(state["hands"][q])
    out["hands"] = hands
    out["stock"] = hidden[at:]
    # P1 bookkeeping: an opponent build owner must still hold its value; callers skip permutations that break it
    return out


def count_blind_choices(fmt, spec, games, seed, every=1):
    """docs/rules/project.md, "What bots see": at every `every`-th position of `games` random games of `fmt`, the
    move of bot `spec` must not change when the hidden cards are permuted (same draw). Returns the positions checked
    (a permutation that breaks P1 or a 4p decision is skipped: not a reachable state)."""
    from khasino_sim import engine
    rng = random.Random(seed)
    checked = 0
    for i, state in enumerate(positions(fmt, games)):
        if i % every:
            continue
        base = engine.bot_move(state, spec, i)
        try:
            move = engine.bot_move(permute_hidden(state, rng), spec, i)
        except engine.StateError:
            continue
        assert (move.card, move.kind, move.key) == (base.card, base.kind, base.key), (fmt, spec, i)
        checked += 1
    return checked
