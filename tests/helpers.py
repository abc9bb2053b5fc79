"""Building test positions by hand: name the cards that matter, the rest is filled in validly."""
import json

from khasino_sim.kernels.bits import card_name
from khasino_sim.formats import get_format


def position(fmt="khasino", hands=((), ()), loose=(), builds=(), piles=((), ()), to_move=0, deal=2,
             last_capturer="auto"):
    """A valid JSON state with exactly these hands, loose cards, builds and pile tops.

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


def dumps(state):
    return json.dumps(state, sort_keys=True)


def compare_walk(ref, fmt, positions, first_seed, **deal):
    """Random walks through reference rounds of a match format (rounds 1, 2, 3, ... so every seat deals; match
    totals carried, partners holding their team's), comparing every position's distinct successors and keys with
    the core's (`engine.legal_moves`); returns the number of positions compared. `ref` is the family's reference
    module; `deal` its extra deal arguments (Cassino's `options`)."""
    import json
    import random
    from khasino_sim import engine
    from khasino_sim.formats import get_format

    def canon(state):
        return json.dumps(state, sort_keys=True)
    done = 0
    g = 0
    f = get_format(fmt)
    while done < positions:
        rnd = 1 + g % f.seats
        scores = [g % 7 * (s + 1) for s in range(f.seats)]
        if f.teams:
            scores = [scores[f.team_of(s)] for s in range(f.seats)]
        state = ref.initial_state(fmt, first_seed + g, round=rnd, scores=scores, **deal)
        mine = engine.new_game(fmt, first_seed + g, round=rnd, scores=scores, **deal)
        assert canon(state) == canon(mine), "the deal differs"
        done += compare_successors(ref, state, random.Random(g), positions - done)
        g += 1
    return done


def compare_successors(ref, state, rng, budget):
    """From `state`, compare each position's distinct successor states and keys, the reference module `ref`'s
    against the core's (`engine.legal_moves`), stepping to a successor drawn by `rng`, until the game is over or
    `budget` positions are compared; returns how many were."""
    import json
    from khasino_sim import engine

    def canon(state):
        return json.dumps(state, sort_keys=True)
    done = 0
    while not state["over"] and done < budget:
        want = {m.key: canon(m.result) for m in ref.legal_moves(state)}
        got = {m.key: canon(m.result) for m in engine.legal_moves(state)}
        assert want, "a position without a legal move"
        assert got == want, f"successors differ in {canon(state)}"
        done += 1
        state = json.loads(rng.choice(list(want.values())))
    return done


def count_blind_choices(fmt, spec, games, seed, every=1):
    """RULINGS.md, "What bots see": at every `every`-th position of `games` random games of `fmt`, the move of
    bot `spec` must not change when the hidden cards are permuted (same draw). Returns the positions checked
    (a permutation that breaks P1 or a 4p decision is skipped: not a reachable state)."""
    import random
    from khasino_sim import engine
    from tests.test_hidden_information import positions, permute_hidden
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
