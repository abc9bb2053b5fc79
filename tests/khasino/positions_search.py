"""Building valid positions that stress the core's per-position scratch, and a seeded search for the worst.

The core prepares, for each position, a table of every subset of the "items" (loose cards and the reachable
top cards of each opponent pile, K8) with sum <= 10 and at most one card of each pile (a group holds at most
one card of a pile). Its size is what `engine.scratch_high_water(state)["subsets"]` reports. This module
builds valid JSON states (docs/ENGINE.md) aimed at making that table, and the usable pile depth, as large as
possible:

- `loose` cards: many low cards loose. In `khasino` a card reaches the table loose only by a trail, and K11
  forbids a trail while a loose card of the same value lies there (and every other move only takes loose cards
  away), so in reachable play the loose cards have distinct values: at most one card of each value
  (`realistic=True`). The JSON validator does not know this and accepts any loose set: those are the
  "validator-accepted" extremes. In `durban` a trail is always allowed (K11): if both players only ever trail,
  every card but the last one in hand ends up loose, so there every loose set is reachable.
- `pile`: low and same-valued cards stacked on top of the opponent's pile (the mover's own pile is never usable).

`subset_bound` is an independent count of that table with no pile-depth pruning (every card of the opponent's
pile counts as reachable): the engine may prune the depth, never exceed it.
"""
import json
import random

from khasino_sim.kernels.core.bits import card_name
from khasino_sim.state_json import StateError, from_json

DECK_SIZE = 40
CARDS = [card_name(c) for c in range(DECK_SIZE)]          # card-index order (docs/RULES.md "Cards")
INDEX = {name: i for i, name in enumerate(CARDS)}
FORMATS = ("khasino", "durban")
MAX_SUM = 10                                              # highest build value of a 40-card format


def value(card):
    """Khasino value of a card name (A = 1 ... 10)."""
    return (INDEX[card] >> 2) + 1


def cards_of(values):
    """Every card whose value is in `values`, in card-index order: cards_of([1, 2]) = the aces and the 2s."""
    return [c for c in CARDS if value(c) in set(values)]


def make_state(fmt, deal, to_move, hands, loose, piles, builds=(), stock=None, last_capturer="auto"):
    """A JSON state from named cards. Cards not named go to the stock (deal 1, in card-index order; there
    must be exactly 20 of them), and in deal 2 every card must be named. Piles are bottom to top."""
    named = [c for h in hands for c in h] + list(loose) + [c for p in piles for c in p] + \
        [c for b in builds for g in b[2] for c in g]
    if stock is None:
        stock = [c for c in CARDS if c not in set(named)]
    if last_capturer == "auto":
        last_capturer = (1 - to_move) if any(piles) else None
    return {
        "format": fmt, "deal": deal, "to_move": to_move,
        "hands": [sorted(h, key=INDEX.get) for h in hands],
        "table": {"loose": sorted(loose, key=INDEX.get),
                  "builds": [{"value": v, "owner": o, "groups": [list(g) for g in gs]}
                             for v, o, gs in sorted(builds)]},
        "piles": [list(p) for p in piles],
        "stock": list(stock),
        "last_capturer": last_capturer,
    }


def is_valid(state):
    try:
        from_json(state)
    except StateError:
        return False
    return True


def khasino_realistic(state):
    """The K11 constraint on loose cards in reachable `khasino` play: no two loose cards of one value."""
    vals = [value(c) for c in state["table"]["loose"]]
    return len(vals) == len(set(vals))


def subset_bound(state, max_sum=MAX_SUM):
    """Subsets (the empty one included) of loose cards plus the whole pile of each opponent of the mover,
    at most one card per pile, with sum <= max_sum: an upper bound of the core's subset table."""
    dp = [0] * (max_sum + 1)
    dp[0] = 1
    for c in state["table"]["loose"]:
        v = value(c)
        for s in range(max_sum, v - 1, -1):
            dp[s] += dp[s - v]
    p = state["to_move"]
    for s, pile in enumerate(state["piles"]):
        if s == p or not pile:
            continue
        # one card of this pile or none: new[s] = dp[s] + sum over pile cards x of dp[s - value(x)]
        new = list(dp)
        for c in pile:
            v = value(c)
            for t in range(v, max_sum + 1):
                new[t] += dp[t - v]
        dp = new
    return sum(dp)


# ---------------------------------------------------------------------------------------------------------
# Hand-made extremes
# ---------------------------------------------------------------------------------------------------------
def hand_made():
    """(name, state) pairs of hand-made extremes for both formats; each is a valid state."""
    out = []
    low_first = sorted(CARDS, key=lambda c: (value(c), INDEX[c]))
    for fmt in FORMATS:
        # (a) validator-accepted: everything loose but the mover's last card (deal 2, seat 1 holds one 10).
        # In durban this is reachable: both players trail every card (K11 allows it).
        out.append((f"{fmt}: 39 loose, seat 1 holds 10C", make_state(
            fmt, 2, 1, [[], ["10C"]], [c for c in CARDS if c != "10C"], [[], []])))
        # ... and with the mover holding a low card (its value is no longer loose)
        out.append((f"{fmt}: 39 loose, seat 1 holds AS", make_state(
            fmt, 2, 1, [[], ["AS"]], [c for c in CARDS if c != "AS"], [[], []])))
        # deal 2, seat 0 to move, one card each
        out.append((f"{fmt}: 38 loose, hands 10S / 10H", make_state(
            fmt, 2, 0, [["10S"], ["10H"]], [c for c in CARDS if c not in ("10S", "10H")], [[], []])))
        # deal 1: 20 cards in the stock (the highest), 19 loose, one in hand
        stock = [c for c in low_first[::-1][:20]]
        rest = [c for c in CARDS if c not in stock]
        hand = rest[-1]
        out.append((f"{fmt}: deal 1, 19 lowest loose, highest 20 in stock", make_state(
            fmt, 1, 1, [[], [hand]], [c for c in rest if c != hand], [[], []], stock=stock)))
        # all aces, 2s, 3s, 4s loose (16 cards, sum 40), the rest in hands and piles
        low = cards_of([1, 2, 3, 4])
        others = [c for c in CARDS if c not in low]
        out.append((f"{fmt}: all A-4 loose (16), 2 cards in hand", make_state(
            fmt, 2, 0, [[others[-1]], [others[-2]]], low, [others[:10], others[10:-2]])))
        # (b) pile depth: all A-3 on top of the opponent's pile (aces on top), few loose cards, the mover
        # holding one card of each value 6-10 (so captures and builds of every high value can use the pile)
        pile_top = sorted(cards_of([1, 2, 3]), key=lambda c: (-value(c), INDEX[c]))
        hands = [["6S", "7S", "8S", "9S", "10S"], ["6H", "7H", "8H", "9H", "10H"]]
        others = [c for c in CARDS if c not in pile_top and c not in hands[0] + hands[1]]
        for nloose in (0, 1, 4, 8):
            loose = others[:nloose]
            out.append((f"{fmt}: A-3 on top of the opponent pile, {nloose} loose", make_state(
                fmt, 2, 0, hands, loose, [others[nloose:], pile_top])))
        # the same with 2 cards per value loose and the other 2 of each on the opponent's pile
        loose = [c for c in cards_of(range(1, 6)) if INDEX[c] & 3 < 2]
        pile = sorted([c for c in cards_of(range(1, 6)) if INDEX[c] & 3 >= 2], key=lambda c: -value(c))
        others = [c for c in CARDS if c not in loose and c not in pile]
        out.append((f"{fmt}: A-5 half loose, half on the opponent pile", make_state(
            fmt, 2, 1, [others[:3], others[3:7]], loose, [pile, others[7:]])))
    # (c) khasino, reachable: one loose card of each value (trails only, K11) and every other card on the
    # opponent's pile, the lowest and same-valued on top
    spades = [c for c in CARDS if INDEX[c] & 3 == 0]                  # AS 2S ... 10S
    for p, hands in ((1, [[], ["10H"]]), (0, [["6H", "7H", "8H", "9H", "10H"], ["6D", "7D", "8D", "9D", "10D"]])):
        q = 1 - p
        pile = sorted([c for c in CARDS if c not in spades and c not in hands[0] + hands[1]],
                      key=lambda c: (-value(c), INDEX[c]))
        piles = [[], []]
        piles[q] = pile
        out.append((f"khasino realistic: AS-10S loose, the rest on the opponent pile, hand {len(hands[p])}",
                    make_state("khasino", 2, p, hands, spades, piles)))
    # durban, with one build each (the durban maximum) taken from high cards
    loose = [c for c in CARDS if value(c) <= 7]
    out.append(("durban: A-7 loose, one build each", make_state(
        "durban", 2, 0, [["10S", "9S"], ["10H", "9H"]], loose, [[], ["8S", "8H", "8D", "8C"]],
        builds=[(10, 0, [["10D"], ["10C"]]), (9, 1, [["9D"], ["9C"]])], last_capturer=1)))
    # khasino, the mover owning many builds: follow-up candidates for each (K9)
    loose = cards_of([1, 2, 3])
    out.append(("khasino: A-3 loose, mover owns builds 7-10", make_state(
        "khasino", 2, 0, [["7S", "8S", "9S", "10S"], ["7H", "8H", "9H", "10H"]], loose,
        [[], cards_of([4, 5, 6])],
        builds=[(7, 0, [["7D"], ["7C"]]), (8, 0, [["8D"], ["8C"]]), (9, 0, [["9D"], ["9C"]]),
                (10, 0, [["10D"], ["10C"]])])))
    for name, st in out:
        from_json(st)           # raise StateError at once if a hand-made state is invalid
    return out


# ---------------------------------------------------------------------------------------------------------
# Random positions and a hill-climb
# ---------------------------------------------------------------------------------------------------------
STYLES = ("loose", "pile", "mixed", "realistic")


def random_position(rng, fmt, style):
    """A random valid state of `fmt` biased towards many loose low cards ("loose"), a deep opponent pile of
    low same-valued cards ("pile"), both ("mixed"), or (khasino) loose cards of distinct values, the other low
    cards on the opponent's pile ("realistic")."""
    while True:
        deal = rng.choice((1, 2))
        p = rng.choice((0, 1))
        h = min(10, 1 + int(rng.expovariate(0.4)))            # mover's hand size, small ones favoured
        sizes = [h, h] if p == 0 else [h - 1, h]
        noise = rng.choice((0.5, 2.0, 5.0, 20.0))
        order = sorted(CARDS, key=lambda c: value(c) + noise * rng.random())   # low cards first
        # hands and stock from the high end
        high = order[::-1]
        stock = high[:20] if deal == 1 else []
        rest = high[len(stock):]
        hands = [rest[:sizes[0]], rest[sizes[0]:sizes[0] + sizes[1]]]
        pool = rest[sizes[0] + sizes[1]:][::-1]                # low cards first
        q = 1 - p
        if style == "loose":
            nloose = len(pool) - rng.randrange(0, 4)
        elif style == "pile":
            nloose = rng.randrange(0, 5)
        else:
            nloose = rng.randrange(0, len(pool) + 1)
        if style == "realistic" or (fmt == "khasino" and style == "mixed" and rng.random() < 0.5):
            loose, seen = [], set()
            for c in pool:
                if value(c) not in seen and len(loose) < nloose:
                    loose.append(c)
                    seen.add(value(c))
        else:
            loose = pool[:nloose]
        rem = [c for c in pool if c not in loose]
        # opponent's pile: the low remaining cards on top, grouped by value (same values together)
        depth = len(rem) if style != "loose" else rng.randrange(0, len(rem) + 1)
        top = sorted(rem[:depth], key=lambda c: (value(c), rng.random()))
        under = rem[depth:]
        split = rng.randrange(0, len(under) + 1)
        piles = [None, None]
        piles[q] = under[:split] + top[::-1]                   # bottom ... top = lowest
        piles[p] = under[split:]
        lc = rng.choice((0, 1)) if any(piles) else None
        st = make_state(fmt, deal, p, hands, loose, piles, stock=stock, last_capturer=lc)
        if is_valid(st):
            return st


def mutate(rng, state, realistic=False):
    """A random valid neighbour of `state` (no builds are touched), or None."""
    st = json.loads(json.dumps(state))
    p = st["to_move"]
    q = 1 - p
    places = [("hands", 0), ("hands", 1), ("loose", None), ("piles", 0), ("piles", 1), ("stock", None)]

    def seq(place):
        kind, i = place
        if kind == "hands":
            return st["hands"][i]
        if kind == "loose":
            return st["table"]["loose"]
        if kind == "piles":
            return st["piles"][i]
        return st["stock"]

    op = rng.randrange(4)
    if op == 0:      # swap two cards between places (sizes kept)
        a, b = rng.sample(places, 2)
        sa, sb = seq(a), seq(b)
        if not sa or not sb:
            return None
        i, j = rng.randrange(len(sa)), rng.randrange(len(sb))
        sa[i], sb[j] = sb[j], sa[i]
    elif op == 1:    # move a card between the loose cards and a pile (top or anywhere)
        pile = st["piles"][rng.choice((p, q))]
        loose = st["table"]["loose"]
        if rng.random() < 0.5 and loose:
            c = loose.pop(rng.randrange(len(loose)))
            pile.insert(rng.choice((len(pile), rng.randrange(len(pile) + 1))), c)
        elif pile:
            loose.append(pile.pop(rng.choice((len(pile) - 1, rng.randrange(len(pile))))))
        else:
            return None
    elif op == 2:    # bring a card of the opponent's pile to its top
        pile = st["piles"][q]
        if len(pile) < 2:
            return None
        pile.append(pile.pop(rng.randrange(len(pile) - 1)))
    else:            # move a card between the two piles
        a, b = st["piles"][p], st["piles"][q]
        if rng.random() < 0.5:
            a, b = b, a
        if not a:
            return None
        b.insert(rng.randrange(len(b) + 1), a.pop(rng.randrange(len(a))))
    st["table"]["loose"].sort(key=INDEX.get)
    for h in st["hands"]:
        h.sort(key=INDEX.get)
    if st["last_capturer"] is None and any(st["piles"]):
        st["last_capturer"] = q
    if not any(st["piles"]):
        st["last_capturer"] = None
    if realistic and not khasino_realistic(st):
        return None
    return st if is_valid(st) else None


def search(fmt, score, seed=0, candidates=200, climbs=4, steps=60, on_state=None, styles=None):
    """Seeded random search then hill-climb maximising score(state) (any comparable value). Returns the best
    states found, per style: {style: (score, state)}. `on_state(state, value)` sees every state scored.
    `styles`: the starting styles to use (default: all that fit the format)."""
    rng = random.Random(f"{fmt}/{seed}")
    best = {}

    def scored(st):
        v = score(st)
        if on_state is not None:
            on_state(st, v)
        return v

    if styles is None:
        styles = STYLES if fmt == "khasino" else STYLES[:3]
    for style in styles:
        pop = []
        for _ in range(candidates // len(styles)):
            st = random_position(rng, fmt, style)
            pop.append((scored(st), st))
        pop.sort(key=lambda t: t[0], reverse=True)
        realistic = style == "realistic"
        top = pop[:climbs]
        for v, st in top:
            for _ in range(steps):
                nb = mutate(rng, st, realistic=realistic)
                if nb is None:
                    continue
                nv = scored(nb)
                if nv >= v:
                    v, st = nv, nb
            pop.append((v, st))
        pop.sort(key=lambda t: t[0], reverse=True)
        best[style] = pop[0]
    return best
