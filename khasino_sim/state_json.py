"""The JSON state format of docs/ENGINE.md: validation, and conversion to and from the kernels' state vector.

Every problem with a state is a `StateError` whose message is one line naming it (the CLI prints it and
exits 2).
"""
import json
import re

import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card, mask_cards
from .formats import FORMATS, SCORE_LIMIT, get_format


class StateError(ValueError):
    """A JSON state that is malformed or impossible; the message names the problem in one line."""


# Bounds on what a state's text may be, so that no input makes the reader hang, recurse or overflow: a real
# state is a few kilobytes, nested five deep (state, table, builds, a build, its groups), its integers small.
MAX_STATE_BYTES = 1 << 20
MAX_DEPTH = 16
MAX_DIGITS = 18             # every integer of a state fits an int64 (and a JSON number that long is no state's)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def read_text(stream):
    """The text of a state from a binary stream (a file, stdin), at most MAX_STATE_BYTES of UTF-8."""
    data = stream.read(MAX_STATE_BYTES + 1)
    if len(data) > MAX_STATE_BYTES:
        raise StateError(f"larger than {MAX_STATE_BYTES >> 20} MiB; a state is a few kilobytes")
    return decode(data)


def decode(data):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StateError(f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}") from None


def _json_int(text):
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise StateError(f"an integer of {len(text.lstrip('-'))} digits; a state's integers have at most "
                         f"{MAX_DIGITS}")
    return int(text)


def _json_constant(name):
    raise StateError(f"{name} is not a JSON number (a state's numbers are integers)")


def loads(text):
    """JSON text as Python values, refusing what no state can be: over MAX_STATE_BYTES, nested deeper than
    MAX_DEPTH, an integer of more than MAX_DIGITS digits, NaN or Infinity."""
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text))
    if len(text) > MAX_STATE_BYTES:
        raise StateError(f"the state is larger than {MAX_STATE_BYTES >> 20} MiB; a state is a few kilobytes")
    depth = deepest = 0
    for ch in _STRING.sub('""', text):
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    raise StateError(f"JSON nested more than {MAX_DEPTH} deep; a state is nested 5 deep")
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except json.JSONDecodeError as e:
        raise StateError(f"malformed JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise StateError(f"JSON nested more than {MAX_DEPTH} deep") from None


def bounded(value, lo, hi, what):
    """`value` if it is an integer in lo..hi, else StateError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise StateError(f"{what} must be an integer in {lo}..{hi}, not {brief(value)}")
    return value


def brief(value, width=40):
    """A value from a state as JSON text for a message, cut to `width` characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= width else text[:width - 3] + "..."


def k10_order(mask):
    """Cards of a group bottom to top (K10): higher rank underneath, equal ranks S, H, D, C upwards."""
    cards = mask_cards(mask)
    return sorted(cards, key=lambda c: (-(c >> 2), c & 3))


def names(cards):
    return [card_name(c) for c in cards]


def values(mask):
    """The values whose bits are set in mask, ascending."""
    return [v for v in range(1, L.MAX_VALUE + 1) if mask >> v & 1]


def to_json(st, fmt, decision=None):
    """The JSON state of a kernel state vector; `decision` is the pending decision's JSON (4p), or None."""
    if fmt.family == "kasino":
        from . import kasino_json
        return kasino_json.to_json(st, fmt)
    seats = fmt.seats
    teams = bool(fmt.teams)
    builds = []
    for v in range(1, fmt.max_build_value + 1):
        o = int(st[L.S_BOWNER + v])
        if o >= 0:
            groups = [names(k10_order(int(st[L.S_BGROUPS + v * L.MAX_GROUPS + i])))
                      for i in range(int(st[L.S_BNG + v]))]
            builds.append({"value": v, "owner": o, "groups": groups,
                           **({"promised": bool(st[L.S_PROMISED] >> v & 1)} if teams and fmt.partner_rules else {})})
    to_move = int(st[L.S_TO_MOVE])
    last = int(st[L.S_LAST_CAP])
    cassino = fmt.family == "cassino"
    khasino_teams = teams and not cassino
    return {
        "format": fmt.name,
        "options": options_json(fmt),
        **({"dealer": int(st[L.S_DEALER]), "round": int(st[L.S_ROUND]),
            "scores": [int(st[L.S_SCORES + s]) for s in range(seats)],
            "sweeps": [int(st[L.S_SWEEPS + s]) for s in range(seats)]} if cassino else {}),
        "deal": int(st[L.S_DEAL]),
        "to_move": None if to_move < 0 else to_move,
        "hands": [names(mask_cards(int(st[L.S_HANDS + 2 * s]))) for s in range(seats)],
        "table": {"loose": names(mask_cards(int(st[L.S_LOOSE]))), "builds": builds},
        "piles": [names(int(c) for c in st[L.S_PILE + s * L.MAX_PILE: L.S_PILE + s * L.MAX_PILE + st[L.S_PLEN + s]])
                  for s in range(seats)],
        "stock": names(int(c) for c in st[L.S_STOCK + st[L.S_STOCK_POS]: L.S_STOCK + st[L.S_STOCK_LEN]]),
        "last_capturer": None if last < 0 else last,
        **({"teams": [list(t) for t in fmt.teams]} if teams else {}),
        **({"promises": [values(int(st[L.S_PROMISES + s])) for s in range(seats)], "decision": decision}
           if seats > 2 and not cassino else {}),
        "over": bool(st[L.S_OVER]),
    }


def _field(d, key, kind, where="state"):
    if key not in d:
        raise StateError(f"{where} has no {key!r}")
    value = d[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int) or abs(value) >= 2**63):
        raise StateError(f"{where} field {key!r} must be an integer, not {brief(value)}")
    if kind is list and not isinstance(value, list):
        raise StateError(f"{where} field {key!r} must be a list")
    if kind is dict and not isinstance(value, dict):
        raise StateError(f"{where} field {key!r} must be an object")
    return value


def _seat(value, seats, what, allow_none=False):
    if value is None and allow_none:
        return -1
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise StateError(f"{what} must be a seat 0..{seats - 1}{' or null' if allow_none else ''}, "
                         f"not {brief(value)}")
    return value


class _Cards:
    """Collects every card of a state once, naming where a duplicate or unknown card sits."""

    def __init__(self, deck):
        self.deck = deck
        self.where = {}

    def take(self, items, where):
        if not isinstance(items, list):
            raise StateError(f"{where} must be a list of cards")
        out = []
        for text in items:
            try:
                c = parse_card(text)
            except ValueError:
                raise StateError(f"unknown card {brief(text)} in {where}") from None
            if c >= self.deck:
                raise StateError(f"card {text} in {where} is not in the {self.deck}-card deck")
            if c in self.where:
                raise StateError(f"card {card_name(c)} appears twice: in {self.where[c]} and in {where}")
            self.where[c] = where
            out.append(c)
        return out

    def missing(self):
        return [c for c in range(self.deck) if c not in self.where]


def from_json(d):
    """Validate a JSON state (dict or JSON text) and return (format, state vector). A pending decision
    (4p) is validated by `parse` and left out here."""
    fmt, st, _ = parse(d)
    return fmt, st


def parse(d):
    """Validate a JSON state (dict or JSON text) and return (format, state vector, decision): the decision
    is None, or the JSON object of a pending decision (4p: its structure checked; a Stay's move is checked
    against the legal moves by the engine)."""
    if isinstance(d, (str, bytes, bytearray)):
        d = loads(d)
    if not isinstance(d, dict):
        raise StateError("a state must be a JSON object")
    name = _field(d, "format", str)
    if not isinstance(name, str) or name not in FORMATS:
        raise StateError(f"unknown format {brief(name)} (known: {', '.join(sorted(FORMATS))})")
    fmt = get_format(name)
    fmt = _options(d, fmt)
    if fmt.family == "kasino":
        from . import kasino_json
        return fmt, kasino_json.parse(d, fmt, StateError, _field, _seat), None
    seats = fmt.seats
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    st[L.S_BOWNER: L.S_BOWNER + L.MAX_VALUE + 1] = -1
    st[L.S_DEALER] = seats - 1
    st[L.S_ROUND] = 1
    cards = _Cards(fmt.deck)
    if fmt.family == "cassino":
        _cassino_fields(d, fmt, st)

    deal = _field(d, "deal", int)
    if not 1 <= deal <= fmt.deals:
        raise StateError(f"deal must be 1..{fmt.deals}, not {deal}")
    hands = _field(d, "hands", list)
    if len(hands) != seats:
        raise StateError(f"hands must hold {seats} lists (one per seat), not {len(hands)}")
    hand_masks = []
    for s, h in enumerate(hands):
        m = 0
        for c in cards.take(h, f"hand {s}"):
            m |= 1 << c
        hand_masks.append(m)
        st[L.S_HANDS + 2 * s] = m
    table = _field(d, "table", dict)
    loose = 0
    for c in cards.take(_field(table, "loose", list, "table"), "table.loose"):
        loose |= 1 << c
    st[L.S_LOOSE] = loose
    builds = _field(table, "builds", list, "table")
    owned = [0] * seats
    owned_values = [[] for _ in range(seats)]
    for b in builds:
        if not isinstance(b, dict):
            raise StateError("each build must be an object with value, owner and groups")
        v = _field(b, "value", int, "build")
        where = f"build {v}"
        if not 1 <= v <= fmt.max_build_value:
            raise StateError(f"build value {v} is outside 1..{fmt.max_build_value}")
        if fmt.family == "cassino" and not fmt.face_values and 11 <= v <= 13:
            raise StateError(f"a build of {v} needs face_values: nobody can hold a card of value {v} (P16, P17)")
        if st[L.S_BOWNER + v] >= 0:
            raise StateError(f"two builds of value {v} (K2: builds never share a value)")
        owner = _seat(_field(b, "owner", int, where), seats, f"owner of {where}")
        groups = _field(b, "groups", list, where)
        if not groups:
            raise StateError(f"{where} has no groups")
        if len(groups) > L.MAX_GROUPS:
            raise StateError(f"{where} has {len(groups)} groups, more than {L.MAX_GROUPS}")
        for i, g in enumerate(groups):
            gc = cards.take(g, f"{where} group {i}")
            if fmt.family == "cassino" and not fmt.face_values and any(c >= 40 for c in gc):
                raise StateError(f"{where} group {i} holds a face card, which has no number (P16)")
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
        if not any(_holds_value(fmt, c, v) for c in mask_cards(hand_masks[owner])):
            raise StateError(f"seat {owner} owns build {v} but holds no card of value {v} (P1)")
        owned_values[owner].append(v)
    for s in range(seats):
        if {1, 14} <= set(owned_values[s]) and bin(hand_masks[s] & 0xF).count("1") < 2:
            raise StateError(f"seat {s} owns the builds of 1 and 14 but holds fewer than two aces (P1: a "
                             f"different card for each build)")
        if fmt.max_builds_owned and owned[s] > fmt.max_builds_owned:
            raise StateError(f"seat {s} owns {owned[s]} builds; {fmt.name} allows {fmt.max_builds_owned} (K5)")
    piles = _field(d, "piles", list)
    if len(piles) != seats:
        raise StateError(f"piles must hold {seats} lists (one per seat), not {len(piles)}")
    for s, pile in enumerate(piles):
        pc = cards.take(pile, f"pile {s}")
        st[L.S_PLEN + s] = len(pc)
        st[L.S_PILE + s * L.MAX_PILE: L.S_PILE + s * L.MAX_PILE + len(pc)] = pc
    stock = cards.take(_field(d, "stock", list), "stock")
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
    if fmt.family == "cassino":
        _cassino_team_fields(d, fmt)
        decision = None
    elif fmt.teams:
        decision = _team_fields(d, fmt, st, hand_masks)
    else:
        _no_pending(d, fmt)
        decision = None
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
        p = _seat(to_move, seats, "to_move")
        if over:
            raise StateError("over is true but a seat is to move")
        mover = p
        if decision is not None and decision["kind"] == "stay":
            mover = _seat(decision.get("seat"), seats, "decision.seat")
            if fmt.teams and p != int(fmt.rules_array()[L.R_PARTNER + mover]):
                raise StateError(f"a Stay decision for seat {mover}'s move is answered by its partner, "
                                 f"not seat {p} (P15)")
        _check_hand_sizes(fmt, sizes, mover, len(stock), int(st[L.S_DEALER]), deal)
        if decision is not None and decision["kind"] == "lead" and (p != 0 or any(s != fmt.hand for s in sizes)
                                                                    or loose or builds):
            raise StateError("a lead decision is made right after the deal, by seat 0 (P11)")
        st[L.S_TO_MOVE] = p
    st[L.S_OVER] = over
    st[L.S_DEAL] = deal
    last = _seat(d.get("last_capturer"), seats, "last_capturer", allow_none=True)
    any_pile = any(st[L.S_PLEN + s] for s in range(seats))
    if last < 0 and any_pile:
        raise StateError("last_capturer is null but a pile holds cards (only captures make piles)")
    st[L.S_LAST_CAP] = last
    played = fmt.deck - len(stock) - sum(sizes) - fmt.table_init
    st[L.S_TURN] = played
    # the seat before the mover in turn order played last (P2); at the end, the one before the leader
    mover = mover if st[L.S_TO_MOVE] >= 0 else fmt.next_seat(int(st[L.S_DEALER]))
    st[L.S_LAST_MOVER] = next(s for s in range(seats) if fmt.next_seat(s) == mover)
    return fmt, st, decision


def _holds_value(fmt, c, v):
    """Card c is a card of value v in the hand: its rank (A 1), a face card only with face_values (P16), an ace
    also 14 under ace_14 (P17)."""
    rank = (c >> 2) + 1
    if rank > 10 and fmt.family == "cassino" and not fmt.face_values:
        return False
    return rank == v or (v == 14 and rank == 1 and fmt.ace_14)


def _check_hand_sizes(fmt, sizes, p, stock_left, dealer=None, deal=1):
    """Hand sizes reachable with seat p to move. 1v1: seat 0 leads the first deal (K14) and `next_deal_leader`
    names the second's leader, so the seats from the leader up to the mover have played one card more this
    deal. Series formats (any seat may lead, P10): going round in turn order from the mover, the seats yet to
    play this round hold as many cards as the mover, those that have played one fewer. With a refilling stock
    (K16), every hand holds the refill size while stock remains."""
    h = sizes[p]
    if h == 0:
        raise StateError(f"seat {p} is to move with an empty hand")
    if fmt.refill and stock_left:
        if any(n != fmt.refill for n in sizes):
            raise StateError(f"hand sizes {sizes}: while stock remains every hand holds {fmt.refill} "
                             f"(the player who acts refills, K16)")
        return
    if fmt.family == "cassino":     # P20: the seat after the dealer leads every deal; play goes seat + 1
        lead = fmt.next_seat(dealer)
        done = (p - lead) % fmt.seats
        expect = [h - (1 if (s - lead) % fmt.seats < done else 0) for s in range(fmt.seats)]
        if sizes != expect:
            raise StateError(f"hand sizes {sizes} do not fit seat {p} to move with seat {lead} leading (the "
                             f"seats from the leader to the mover's right hold one card fewer, P20)")
        return
    if not fmt.series and not fmt.teams:
        # K14: seat 0 leads the first deal; the second is led as `next_deal_leader` says (0: seat 0, 1: seat 1,
        # 2: the first deal's last capturer, which a state of the second deal no longer shows: either seat)
        leaders = [0] if deal == 1 or fmt.next_deal_leader == 0 else [1] if fmt.next_deal_leader == 1 else [0, 1]
        fits = [[h - (1 if (s - lead) % fmt.seats < (p - lead) % fmt.seats else 0) for s in range(fmt.seats)]
                for lead in leaders]
        if sizes not in fits:
            who = " or ".join(f"seat {lead}" for lead in leaders)
            raise StateError(f"hand sizes {sizes} do not fit seat {p} to move ({who} leads deal {deal}, K14)")
        return
    order = [p]
    while len(order) < fmt.seats:
        order.append(fmt.next_seat(order[-1]))
    seq = [sizes[s] for s in order]
    k = next((i for i, n in enumerate(seq) if n != h), len(seq))
    if any(n != h - 1 for n in seq[k:]):
        raise StateError(f"hand sizes {sizes} do not fit seat {p} to move: going round from the mover "
                         f"(order {' -> '.join(map(str, order))}) the hands must hold {h} cards, then {h - 1}")
    if fmt.lead_choice and order[k % len(order)] not in (0, 1):
        raise StateError(f"hand sizes {sizes} do not fit seat {p} to move: this round would have been led by "
                         f"seat {order[k % len(order)]}, but team AB (seat 0 or 1) leads (P11)")


def _promise_lists(d, fmt):
    """The state's `promises` (optional: None when absent), checked to be one list per seat."""
    promises = d.get("promises")
    if promises is not None and (not isinstance(promises, list) or len(promises) != fmt.seats or
                                 not all(isinstance(x, list) for x in promises)):
        raise StateError(f"promises must hold {fmt.seats} lists (one per seat)")
    return promises


def _no_pending(d, fmt):
    """`promises` and `decision` (team formats, K15): optional; a format without partners has neither."""
    promises = _promise_lists(d, fmt)
    if promises is not None:
        if any(promises):
            raise StateError(f"{fmt.name} has no partners, so no promises (K15 rebuilds are 4p only)")
    if d.get("decision") is not None:
        raise StateError(f"{fmt.name} has no decisions other than card plays: decision must be null")


def _team_fields(d, fmt, st, hand_masks):
    """4p (K15): `teams` (must be the format's), `promises` (P13 open promises, each held) and `decision`
    (lead or Stay, structure only). Returns the decision object or None."""
    teams = d.get("teams")
    if teams is not None and teams != [list(t) for t in fmt.teams]:
        raise StateError(f"teams must be {[list(t) for t in fmt.teams]} in {fmt.name}, not {brief(teams)}")
    promises = _promise_lists(d, fmt)
    if promises is not None:
        for s, vals in enumerate(promises):
            for v in vals:
                if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= fmt.max_build_value:
                    raise StateError(f"promises of seat {s} must be build values 1..{fmt.max_build_value}, "
                                     f"not {brief(v)}")
                if not hand_masks[s] >> (4 * (v - 1)) & 15:
                    raise StateError(f"seat {s} has an open promise of {v} but holds no card of value {v} "
                                     f"(P13: he keeps the card he promised)")
                st[L.S_PROMISES + s] |= 1 << v
    decision = d.get("decision")
    if decision is None:
        return None
    if not isinstance(decision, dict) or decision.get("kind") not in ("lead", "stay"):
        raise StateError('decision must be null, {"kind": "lead", ...} or {"kind": "stay", ...}')
    if decision["kind"] == "lead":
        if decision.get("team", [0, 1]) != [0, 1]:
            raise StateError("a lead decision is team AB's: its team is [0, 1] (P11)")
        return {"kind": "lead", "team": [0, 1]}
    v = decision.get("value")
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= fmt.max_build_value:
        raise StateError(f"decision.value must be a build value 1..{fmt.max_build_value}")
    if st[L.S_BOWNER + v] < 0:
        raise StateError(f"a Stay decision on build {v}, but no build of value {v} is on the table")
    if not isinstance(decision.get("move"), dict):
        raise StateError("a Stay decision needs the mover's move (decision.move)")
    return decision


# The options a JSON state carries (ENGINE.md "JSON state format"): every option of the format's family
# except Kasino's `match_rounds`, which is the state's own `rounds` field.
_NOT_IN_STATE = ("match_rounds",)


def state_options(fmt):
    """The option names a JSON state of `fmt` carries, sorted."""
    return sorted(n for n in fmt.options if n not in _NOT_IN_STATE)


def options_json(fmt):
    """The `options` object of a JSON state: every option the state carries, with its value in `fmt`."""
    kinds = fmt.options
    return {n: (bool if kinds[n][0] is bool else int)(getattr(fmt, n)) for n in state_options(fmt)}


def _options(d, fmt):
    """The state's `options` (optional; absent: the format's own; a partial object changes only the options
    it names) applied to the format. A value equal to the format's own is accepted as it stands (so a state
    written by `to_json` reads back whatever its format); any other goes through `formats.with_options`."""
    from .formats import with_options
    options = d.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise StateError("options must be an object of rule options (e.g. {\"follow_ups\": false})")
    kinds = fmt.options
    changes = {}
    for name, value in options.items():
        if name not in kinds or name in _NOT_IN_STATE:
            hint = " (Kasino's match length is the state's `rounds`)" if name in _NOT_IN_STATE and name in kinds else ""
            raise StateError(f"unknown rule option {name!r} for {fmt.name}{hint} "
                             f"(options: {', '.join(state_options(fmt))})")
        if kinds[name][0] is bool and not isinstance(value, bool):
            raise StateError(f"option {name} must be true or false, not {brief(value)}")
        if kinds[name][0] is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise StateError(f"option {name} must be an integer, not {brief(value)}")
        if value != getattr(fmt, name):
            changes[name] = value
    try:
        return with_options(fmt, changes)
    except ValueError as e:
        raise StateError(str(e)) from None


def _cassino_fields(d, fmt, st):
    """Cassino (C2, C7): `dealer`, `round`, `scores` (match totals before this round) and `sweeps` (this
    round's), each optional (dealer: the last seat, round 1, zeros)."""
    seats = fmt.seats
    st[L.S_DEALER] = _seat(d.get("dealer", seats - 1), seats, "dealer")
    st[L.S_ROUND] = bounded(d.get("round", 1), 1, SCORE_LIMIT, "round")
    for key, base, top in (("scores", L.S_SCORES, SCORE_LIMIT), ("sweeps", L.S_SWEEPS, fmt.deck)):
        vals = d.get(key, [0] * seats)
        if not isinstance(vals, list) or len(vals) != seats or \
                any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= top for x in vals):
            raise StateError(f"{key} must hold {seats} integers in 0..{top} (one per seat)")
        if key == "sweeps" and any(vals) and not fmt.sweeps:
            raise StateError("sweeps are counted only with the sweeps option (C1)")
        if key == "scores" and fmt.teams and any(vals[s] != vals[t[0]] for t in fmt.teams for s in t):
            raise StateError(f"scores: partners hold their team's total, {[list(t) for t in fmt.teams]} (C8)")
        st[base: base + seats] = vals


def _cassino_team_fields(d, fmt):
    """Cassino: `teams` only in cassino-4p (C8), and no promises or decisions."""
    teams = d.get("teams")
    want = [list(t) for t in fmt.teams] if fmt.teams else None
    if teams is not None and teams != want:
        raise StateError(f"teams must be {want} in {fmt.name}, not {brief(teams)}" if want else
                         f"{fmt.name} has no teams")
    promises = d.get("promises")
    if promises not in (None, [[]] * fmt.seats, []):
        if not isinstance(promises, list) or any(promises):
            raise StateError(f"{fmt.name} has no promises (K15 is Khasino's)")
    if d.get("decision") is not None:
        raise StateError(f"{fmt.name} has no decisions other than card plays: decision must be null")
