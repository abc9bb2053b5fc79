"""The one-deck JSON state Khasino and Cassino share (hands, table with builds, piles, stock): `OneDeckCodec`,
whose subclasses (codec/khasino.py, codec/cassino.py) add a family's own fields and rules by its hooks."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, mask_cards
from .common import Cards, StateError, field, k10_order, names, options_json, read_deal, seat, seat_lists


class OneDeckCodec:
    """Reads and writes a one-deck state; a family's subclass overrides the hooks (below `parse`)."""

    def to_json(self, st, fmt, decision=None):
        """The JSON state of a kernel state vector; `decision` is the pending decision's JSON (4p), or None."""
        return _to_json(st, fmt, self, decision)

    def parse(self, d, fmt):
        """Validate a JSON state (a dict, its format and options read) and return (state vector, decision):
        the decision is None, or the JSON object of a pending decision (4p: its structure checked; a Stay's
        move is checked against the legal moves by the engine)."""
        return _parse(d, fmt, self)

    def head_json(self, st, fmt):
        """The family's fields between `options` and `deal`."""
        return {}

    def tail_json(self, st, fmt, decision):
        """The family's fields between `teams` and `over`."""
        return {}

    def round_fields(self, d, fmt, st):
        """Read the family's fields before the cards."""

    def check_build(self, fmt, v, where):
        """Refuse a build value the family's cards cannot reach."""

    def check_group(self, fmt, cards, where, i):
        """Refuse a build group of cards the family does not sum."""

    def holds_value(self, fmt, c, v):
        """Card c is a card of value v in the hand: its rank (A 1), an ace also 14 under ace_14 (P17)."""
        rank = (c >> 2) + 1
        return rank == v or (v == 14 and rank == 1 and fmt.ace_14)

    def pending(self, d, fmt, st, hand_masks):
        """Read `teams`, `promises` and `decision`; the pending decision or None."""
        raise NotImplementedError

    def hand_sizes(self, fmt, sizes, p, dealer, deal):
        """Refuse hand sizes that do not fit seat p to move, as the family's leaders make them."""
        raise NotImplementedError


def canonical_groups(cards, v):
    """P27: the groups a multiple build of value v holding the card set `cards` (a mask) is written with: the
    first group holds the highest card (card-index order) and is, of the groups of value v holding it whose
    removal leaves cards that still split into groups of v, the one of highest mask; then the same for the
    cards left. A card's number is its rank (A 1 .. K 13): a build's cards are summable (P16, P17)."""
    def subsets(m, need):
        """The sets of cards of m summing to `need`, in descending mask order (each card from the highest:
        taken before left out)."""
        if need == 0:
            yield 0
            return
        while m:
            h = m.bit_length() - 1
            m &= ~(1 << h)
            r = (h >> 2) + 1
            if r <= need:
                for s in subsets(m, need - r):
                    yield s | (1 << h)

    def split(m):
        if m == 0:
            return []
        h = m.bit_length() - 1
        for s in subsets(m & ~(1 << h), v - ((h >> 2) + 1)):
            rest = split(m & ~(1 << h) & ~s)
            if rest is not None:
                return [s | (1 << h)] + rest
        return None

    groups = split(cards)
    if groups is None:
        raise StateError(f"the cards of the build of {v} do not split into groups of {v}")
    return groups


def _to_json(st, fmt, family, decision=None):
    seats = fmt.seats
    teams = bool(fmt.teams)
    builds = []
    for v in range(1, fmt.max_build_value + 1):
        o = int(st[L.S_BOWNER + v])
        if o >= 0:
            masks = [int(st[L.S_BGROUPS + v * L.MAX_GROUPS + i]) for i in range(int(st[L.S_BNG + v]))]
            if fmt.card_sets and len(masks) > 1:        # P27: a multiple build is its cards, grouped canonically
                masks = canonical_groups(sum(masks), v)
            groups = [names(k10_order(m)) for m in masks]
            builds.append({"value": v, "owner": o, "groups": groups,
                           **({"promised": bool(st[L.S_PROMISED] >> v & 1)} if teams and fmt.partner_rules else {})})
    to_move = int(st[L.S_TO_MOVE])
    last = int(st[L.S_LAST_CAP])
    return {
        "format": fmt.name,
        "options": options_json(fmt),
        **family.head_json(st, fmt),
        "deal": int(st[L.S_DEAL]),
        "to_move": None if to_move < 0 else to_move,
        "hands": [names(mask_cards(int(st[L.S_HANDS + 2 * s]))) for s in range(seats)],
        "table": {"loose": names(mask_cards(int(st[L.S_LOOSE]))), "builds": builds},
        "piles": [names(int(c) for c in st[L.S_PILE + s * L.MAX_PILE: L.S_PILE + s * L.MAX_PILE + st[L.S_PLEN + s]])
                  for s in range(seats)],
        "stock": names(int(c) for c in st[L.S_STOCK + st[L.S_STOCK_POS]: L.S_STOCK + st[L.S_STOCK_LEN]]),
        "last_capturer": None if last < 0 else last,
        **({"teams": [list(t) for t in fmt.teams]} if teams else {}),
        **family.tail_json(st, fmt, decision),
        "over": bool(st[L.S_OVER]),
    }


def _parse(d, fmt, family):
    seats = fmt.seats
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    st[L.S_BOWNER: L.S_BOWNER + L.MAX_VALUE + 1] = -1
    st[L.S_DEALER] = seats - 1
    st[L.S_ROUND] = 1
    cards = Cards(fmt.deck)
    family.round_fields(d, fmt, st)

    deal = read_deal(d, fmt)
    hands = seat_lists(d, "hands", seats)
    hand_masks = []
    for s, h in enumerate(hands):
        m = 0
        for c in cards.take(h, f"hand {s}"):
            m |= 1 << c
        hand_masks.append(m)
        st[L.S_HANDS + 2 * s] = m
    table = field(d, "table", dict)
    loose = 0
    for c in cards.take(field(table, "loose", list, "table"), "table.loose"):
        loose |= 1 << c
    st[L.S_LOOSE] = loose
    builds = field(table, "builds", list, "table")
    owned = [0] * seats
    owned_values = [[] for _ in range(seats)]
    for b in builds:
        if not isinstance(b, dict):
            raise StateError("each build must be an object with value, owner and groups")
        v = field(b, "value", int, "build")
        where = f"build {v}"
        if not 1 <= v <= fmt.max_build_value:
            raise StateError(f"build value {v} is outside 1..{fmt.max_build_value}")
        family.check_build(fmt, v, where)
        if st[L.S_BOWNER + v] >= 0:
            raise StateError(f"two builds of value {v} (K2: builds never share a value)")
        owner = seat(field(b, "owner", int, where), seats, f"owner of {where}")
        groups = field(b, "groups", list, where)
        if not groups:
            raise StateError(f"{where} has no groups")
        if len(groups) > L.MAX_GROUPS:
            raise StateError(f"{where} has {len(groups)} groups, more than {L.MAX_GROUPS}")
        for i, g in enumerate(groups):
            gc = cards.take(g, f"{where} group {i}")
            family.check_group(fmt, gc, where, i)
            if sum((c >> 2) + 1 for c in gc) != v:
                raise StateError(f"{where} group {i} ({' '.join(g)}) does not sum to {v}")
            st[L.S_BGROUPS + v * L.MAX_GROUPS + i] = sum(1 << c for c in gc)
        st[L.S_BOWNER + v] = owner
        st[L.S_BNG + v] = len(groups)
        promised = b.get("promised", False)
        if not isinstance(promised, bool):
            raise StateError(f"{where}: promised must be true or false")
        if promised and not (fmt.teams and fmt.partner_rules):
            raise StateError(f"{where}: {fmt.name} has no promised builds (P13 is khasino-4p's)")
        st[L.S_PROMISED] |= int(promised) << v
        owned[owner] += 1
        if not any(family.holds_value(fmt, c, v) for c in mask_cards(hand_masks[owner])):
            raise StateError(f"seat {owner} owns build {v} but holds no card of value {v} (P1)")
        owned_values[owner].append(v)
    for s in range(seats):
        if {1, 14} <= set(owned_values[s]) and bin(hand_masks[s] & 0xF).count("1") < 2:
            raise StateError(f"seat {s} owns the builds of 1 and 14 but holds fewer than two aces (P1: a "
                             f"different card for each build)")
        if fmt.max_builds_owned and owned[s] > fmt.max_builds_owned:
            raise StateError(f"seat {s} owns {owned[s]} builds; {fmt.name} allows {fmt.max_builds_owned} (K5)")
    piles = seat_lists(d, "piles", seats)
    for s, pile in enumerate(piles):
        pc = cards.take(pile, f"pile {s}")
        st[L.S_PLEN + s] = len(pc)
        st[L.S_PILE + s * L.MAX_PILE: L.S_PILE + s * L.MAX_PILE + len(pc)] = pc
    stock = cards.take(field(d, "stock", list), "stock")
    st[L.S_STOCK: L.S_STOCK + len(stock)] = stock
    st[L.S_STOCK_LEN] = len(stock)
    missing = cards.missing()
    if missing:
        shown = " ".join(card_name(c) for c in missing[:8]) + (" …" if len(missing) > 8 else "")
        raise StateError(f"{len(missing)} card(s) of the deck are nowhere in the state: {shown}")

    per_deal = fmt.hand * seats
    if fmt.refill:
        if len(stock) > fmt.deck - fmt.table_init - per_deal:
            raise StateError(f"{fmt.name} has at most {fmt.deck - fmt.table_init - per_deal} cards in the "
                             f"stock, not {len(stock)}")
    elif len(stock) != per_deal * (fmt.deals - deal):
        raise StateError(f"deal {deal} leaves {per_deal * (fmt.deals - deal)} cards in the stock, "
                         f"not {len(stock)}")
    decision = family.pending(d, fmt, st, hand_masks)
    over = bool(d.get("over", False))
    to_move = d.get("to_move", "absent")
    if to_move == "absent":
        raise StateError("state has no 'to_move'")
    sizes = [bin(m).count("1") for m in hand_masks]
    if to_move is None:
        if any(sizes) or loose or builds:
            raise StateError("to_move is null (game over) but cards are still in play")
        over = True
        st[L.S_TO_MOVE] = -1
    else:
        p = seat(to_move, seats, "to_move")
        if over:
            raise StateError("over is true but a seat is to move")
        mover = p
        if decision is not None and decision["kind"] == "stay":
            mover = seat(decision.get("seat"), seats, "decision.seat")
            if fmt.teams and p != int(fmt.rules_array()[L.R_PARTNER + mover]):
                raise StateError(f"a Stay decision for seat {mover}'s move is answered by its partner, "
                                 f"not seat {p} (P15)")
        check_hand_sizes(fmt, family, sizes, mover, len(stock), int(st[L.S_DEALER]), deal)
        if decision is not None and decision["kind"] == "lead" and (p != 0 or any(s != fmt.hand for s in sizes)
                                                                    or loose or builds):
            raise StateError("a lead decision is made right after the deal, by seat 0 (P11)")
        st[L.S_TO_MOVE] = p
    st[L.S_OVER] = over
    st[L.S_DEAL] = deal
    last = seat(d.get("last_capturer"), seats, "last_capturer", allow_none=True)
    any_pile = any(st[L.S_PLEN + s] for s in range(seats))
    if last < 0 and any_pile:
        raise StateError("last_capturer is null but a pile holds cards (only captures make piles)")
    st[L.S_LAST_CAP] = last
    played = fmt.deck - len(stock) - sum(sizes) - fmt.table_init
    st[L.S_TURN] = played
    # the seat before the mover in turn order played last (P2); at the end, the one before the leader
    mover = mover if st[L.S_TO_MOVE] >= 0 else fmt.next_seat(int(st[L.S_DEALER]))
    st[L.S_LAST_MOVER] = next(s for s in range(seats) if fmt.next_seat(s) == mover)
    return st, decision


def check_hand_sizes(fmt, family, sizes, p, stock_left, dealer=None, deal=1):
    """Hand sizes reachable with seat p to move: never an empty hand; with a refilling stock (K16), every hand
    holds the refill size while stock remains; otherwise as the family's leaders make them."""
    h = sizes[p]
    if h == 0:
        raise StateError(f"seat {p} is to move with an empty hand")
    if fmt.refill and stock_left:
        if any(n != fmt.refill for n in sizes):
            raise StateError(f"hand sizes {sizes}: while stock remains every hand holds {fmt.refill} "
                             f"(the player who acts refills, K16)")
        return
    family.hand_sizes(fmt, sizes, p, dealer, deal)
