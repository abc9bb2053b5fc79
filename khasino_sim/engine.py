"""Python API over the compiled core: deal, list legal moves, play games. Validates input; the kernels don't.

Functional in the pgx sense: `new_game` gives a state, `legal_moves` its distinct successors (P7), a move's
`result` is the next state, `is_over`/`scores` read the end.
"""
import threading
from dataclasses import dataclass, field

import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card, mask_cards
from khasino_sim.kernels.khasino.game import play_one_game as _play_game
from khasino_sim.kernels.movegen import list_window, prepare_only
from khasino_sim.kernels.core.workspace import new_workspace
from khasino_sim.kernels.khasino.state import (apply_move, apply_stay, advance, stay_partner, trail_fallback, position_hash)
from khasino_sim.kernels.core.rng import zterm
from .codec.common import StateError, check_leader, k10_order, seat as _seat  # noqa: F401 (re-exported)
from .codec.dispatch import from_json, parse, to_json  # noqa: F401 (re-exported)
from .families import family_of
from .formats import get_format
from .userbots import watching

BOTS = {name: i for i, name in enumerate(L.BOT_NAMES)}

LIST_RECORDS = 2048          # move records per listing window (a listing workspace of 3.3 MB)
KEY_SLOTS = 1 << 22          # slots of count_moves' key table (32 MiB): at most 2**21 keys a pass

_LOCAL = threading.local()


def _workspace(kind="game"):
    """This thread's workspace for the game path ("game"), listing records ("list") or counting ("keys"),
    holding the process's current bot table (bots with parameters)."""
    from khasino_sim.kernels.core.heuristic import install_bot_table, search_iterations
    from khasino_sim.kernels.core.tree import search_words
    ws = getattr(_LOCAL, kind, None)
    if ws is None or (kind == "game" and ws.shape[0] < L.WS_SIZE + (search_words(search_iterations()) if search_iterations() else 0)):
        extra = {"game": 0, "list": LIST_RECORDS, "keys": -(-KEY_SLOTS // L.REC_SIZE)}[kind]
        ws = new_workspace(extra)
        setattr(_LOCAL, kind, ws)
    return install_bot_table(ws)


class EngineError(RuntimeError):
    """The core could not enumerate a position exactly (a scratch bound was exceeded: never expected)."""


@dataclass(frozen=True)
class Move:
    """One distinct legal move: the card played, its kind, a sentence, its key and the successor state. A
    decision that is not a card play (4p: kind `lead`, `stay` or `decline`) has no card; a lead option names
    the `seat` chosen."""
    card: str
    kind: str
    text: str
    key: int
    result: dict
    seat: int = None
    features: tuple = None      # greedy features (points, cards, spades, table_points), docs/ENGINE.md "Bots";
                                # Kasino: (points, tabbe)
    _after: tuple = field(default=None, repr=False, compare=False)     # (format, state vector right after)
    captured: tuple = None      # Kasino: the cards taken (card-index order; a card may appear twice)
    tabbe: int = None           # Kasino: the taker's tabbe plus (0, 5 or 10; N4)

    @property
    def after(self):
        """The position right after the move, before any deal or end-of-game sweep (docs/ENGINE.md: the
        position a move's key describes); None for a decision option."""
        return None if self._after is None else to_json(self._after[1], self._after[0])

    @property
    def points(self):
        return self.features[0]

    @property
    def cards(self):
        return self.features[1]

    @property
    def spades(self):
        return self.features[2]

    @property
    def table_points(self):
        return self.features[3]

    def to_json(self):
        out = {"card": self.card, "kind": self.kind} if self.card is not None else {"kind": self.kind}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.captured is not None:
            out["captured"] = list(self.captured)
            out["tabbe"] = self.tabbe
        return {**out, "text": self.text, "result": self.result}


def bot_id(name):
    """The compiled code of a bot spec (`name` or `name:key=value,...`, khasino_sim/bots.py); KeyError with one
    line for a bad spec."""
    from . import bots
    try:
        return bots.code(name)
    except bots.BotSpecError as e:
        raise KeyError(str(e)) from None


def _format(fmt_name, options=None):
    """The registered format with rule `options` (a dict) applied; StateError on a bad option."""
    from .formats import with_options
    fmt = get_format(fmt_name)
    if options:
        try:
            fmt = with_options(fmt, options)
        except ValueError as e:
            raise StateError(str(e)) from None
    return fmt


def new_game(fmt_name, seed=0, deck=None, leader=0, options=None, round=1, scores=None, rounds=None):
    """The state before the first move: dealt from `seed` (docs/ENGINE.md), or from an explicit deck order
    (a list of cards, top first) so a test can script exact hands; seat `leader` plays first.

    Cassino (P20): the position of round `round` dealt from the round seed `seed`, with the rule `options`
    and the match totals `scores` before it; the seat after the round's dealer leads (`leader` unused).
    Kasino (P22): likewise, with the match length `rounds` (default: the format's); `deck` holds 104 cards."""
    fmt = _format(fmt_name, options)
    return family_of(fmt).new_game(fmt, seed, deck, leader, round, scores, rounds)


def _group_text(mask):
    return "+".join(card_name(c) for c in k10_order(mask))


def _groups(rec):
    """A move record's main-action groups (card masks, canonical order)."""
    return [int(rec[L.M_GROUPS + i]) for i in range(int(rec[L.M_GCOUNT]))]


def _followups(rec):
    """A move record's K9 follow-up groups as (build value, card mask) pairs."""
    return [(int(x) >> L.VALUE_SHIFT, int(x) & L.CARD_BITS)
            for x in rec[L.M_FGROUPS: L.M_FGROUPS + rec[L.M_FCOUNT]]]


def describe(rec, st, p, seats=2, cassino=False):
    """A sentence a player understands for the move record `rec` of seat p in position st (`seats` seats); in
    Cassino's words (add, raise) when `cassino`."""
    c, kind, value, target = (int(rec[f]) for f in (L.M_CARD, L.M_KIND, L.M_VALUE, L.M_TARGET))
    groups = _groups(rec)
    used = int(rec[L.M_USED])
    pile = used & ~int(st[L.S_LOOSE])
    card = card_name(c)

    def whose(o):
        return "your" if o == p else ("the opponent's" if seats == 2 else f"seat {o}'s")
    if kind == L.KIND_CAPTURE:
        units = []
        if target:
            owner = int(st[L.S_BOWNER + target])
            units.append(f"{whose(owner)} build {target}")
        units += [_group_text(g) for g in groups]
        text = f"Play {card} to capture {', '.join(units)}"
    elif kind == L.KIND_TRAIL:
        text = f"Trail {card}"
    elif kind == L.KIND_CHANGE:
        added = groups[0] & ~(1 << c)
        extra = f" with {_group_text(added)}" if added else ""
        verb = "raise it to" if cassino else "change it to build"
        text = f"Play {card}{extra} on {whose(int(st[L.S_BOWNER + target]))} build {target} to {verb} " \
               f"{value}, now yours"
    else:
        gtext = " | ".join(_group_text(g) for g in groups)
        verb = "build" if kind == L.KIND_BUILD else ("add to build" if cassino else "load build")
        simple = " (simple)" if kind == L.KIND_BUILD and len(groups) == 1 else ""
        a = "an" if value in (8, 11) else "a"          # "an 8", "an 11"
        keep = f", keeping {a} {value}" if kind == L.KIND_BUILD else ""
        if kind == L.KIND_LOAD and cassino and int(st[L.S_BOWNER + value]) != p:
            keep = ", now yours"        # C4: the build belongs to whoever last added to it
        if kind == L.KIND_BUILD and int(rec[L.M_OWNER]) != p:       # P14
            verb, keep = "rebuild", f" for your partner, seat {int(rec[L.M_OWNER])}, who promised {a} {value}"
        text = f"Play {card} to {verb} {value}{simple} with {gtext}{keep}"
    for s in range(seats):
        base = L.S_PILE + s * L.MAX_PILE
        from_s = [int(x) for x in st[base: base + st[L.S_PLEN + s]] if pile >> int(x) & 1]
        if from_s and s != p:
            text += f" (using {' '.join(card_name(x) for x in sorted(from_s))} from {whose(s)} pile)"
    follow = _followups(rec)
    if follow:
        text += "; then add " + " and ".join(f"{_group_text(g)} to build {w}" for w, g in follow)
    return text


def _position(state):
    fmt, st = from_json(state)
    return fmt, st, fmt.rules_array()


def _check(ws):
    if ws[L.C_OVERFLOW]:
        raise EngineError("a scratch bound was exceeded (docs/ENGINE.md, Scratch bounds; no reachable position "
                          "exceeds one): please report this position")


def _lister(fmt):
    """The compiled listing entry point of a format's family (Kasino's is compiled apart)."""
    return family_of(fmt).lister()


def _records(st, rules, p, lister=list_window):
    """Every candidate move record of seat p (duplicates by key included), window by window: each window
    is copied out of the workspace, so memory is bounded by the window, not by the position. A window's
    generation stops at the first candidate past it (the kernel sets C_STOP: there are more), so the first
    window costs its own candidates, whatever the position's size, and window k the k * LIST_RECORDS
    candidates before it (generated again, not written)."""
    ws = _workspace("list")
    size = min(LIST_RECORDS, (ws.shape[0] - L.WS_LIST) // L.REC_SIZE)     # no more than the workspace holds
    lo = 0
    while True:
        total = lister(st, rules, p, ws, L.SINK_LIST, lo, lo + size)
        _check(ws)
        more = bool(ws[L.C_STOP])
        count = size if more else min(total, lo + size) - lo
        if count <= 0:
            return
        recs = ws[L.WS_LIST: L.WS_LIST + count * L.REC_SIZE].reshape(count, L.REC_SIZE).copy()
        yield from recs
        if not more:
            return
        lo += size


def decision_key(kind, option):
    """The fixed key of a decision option (docs/ENGINE.md): Z(7, kind, option, 0)."""
    return int(zterm(L.DECISION_TAG, kind, option, 0))


def move_json(rec):
    """The JSON of a capture record as a Stay decision's `move` (docs/ENGINE.md, "Four players")."""
    groups = _groups(rec)
    follow = sorted(_followups(rec), key=lambda wg: (wg[0], -wg[1]))
    return {"card": card_name(int(rec[L.M_CARD])), "kind": "capture", "build": int(rec[L.M_TARGET]),
            "groups": [[card_name(c) for c in k10_order(g)] for g in groups],
            "followups": [{"build": w, "group": [card_name(c) for c in k10_order(g)]} for w, g in follow]}


def _json_move_rec(st, rules, decision):
    """The move record of a Stay decision's `move`: the legal capture of seat `seat` it names; StateError if
    it names none."""
    m = decision["move"]
    mover = int(decision["seat"])
    try:
        card = parse_card(m["card"])
        groups = {sum(1 << parse_card(c) for c in g) for g in m.get("groups", [])}
        follow = {(int(f["build"]), sum(1 << parse_card(c) for c in f["group"])) for f in m.get("followups", [])}
    except (KeyError, TypeError, ValueError, AttributeError):
        raise StateError("decision.move must be {card, kind, build, groups, followups} (docs/ENGINE.md)") from None
    if m.get("kind", "capture") != "capture" or m.get("build") != decision["value"]:
        raise StateError(f"a Stay decision answers a capture of build {decision['value']} (P15)")
    for rec in _records(st, rules, mover):
        if int(rec[L.M_CARD]) != card or int(rec[L.M_KIND]) != L.KIND_CAPTURE or \
                int(rec[L.M_TARGET]) != decision["value"]:
            continue
        if set(_groups(rec)) == groups and set(_followups(rec)) == follow:
            return rec
    raise StateError(f"decision.move is not a legal capture of build {decision['value']} by seat {mover}")


def _decision_moves(fmt, st, rules, decision):
    """The options of a pending decision (4p): lead seat 0 or 1 (P11); decline or stay (P15)."""
    if decision["kind"] == "lead":
        for seat in (0, 1):
            nxt = st.copy()
            nxt[L.S_TO_MOVE] = seat
            yield Move(None, "lead", f"Seat {seat} leads for team AB", decision_key(L.DECIDE_LEAD, seat),
                       to_json(nxt, fmt), seat)
        return
    rec = _json_move_rec(st, rules, decision)
    p = int(decision["seat"])
    q = int(st[L.S_TO_MOVE])
    for option in (0, 1):
        if option:
            text = f"Stay: seat {p}'s {card_name(int(rec[L.M_CARD]))} loads build {decision['value']}, now yours"
        else:
            text = f"Decline: seat {p} captures build {decision['value']}"
        _, nxt = _card_play(st, rules, p, rec, q if option else -1)
        yield Move(None, "stay" if option else "decline", text, decision_key(L.DECIDE_STAY, option),
                   to_json(nxt, fmt))


def _play_card(fmt, st, rules, p, rec):
    """Seat p's card play `rec` as a move's (result, after): where the partner may Stay (4p, P15) he decides
    first, so the result is the position unchanged with his decision pending (and no `after`); otherwise the
    play stands (`_card_play`)."""
    q = int(stay_partner(st, rules, p, rec[L.M_KIND], rec[L.M_TARGET]))
    if q >= 0:
        nxt = st.copy()
        nxt[L.S_TO_MOVE] = q
        return to_json(nxt, fmt, {"kind": "stay", "seat": p, "value": int(rec[L.M_TARGET]),
                                  "move": move_json(rec)}), None
    right_after, nxt = _card_play(st, rules, p, rec)
    return to_json(nxt, fmt), (fmt, right_after)


def _card_play(st, rules, p, rec, stayer=-1):
    """Seat p's card play `rec` in position st, and its partner's answer (4p, P15): with `stayer` a seat, that
    partner Stays (the card loads the build, now the partner's); else the play stands (a Stay declined, or no
    Stay offered). Returns (the position right after the play, the position after the turn: dealt on, or
    over). The kernels' game loop and search make the same sequence on their own copies."""
    nxt = st.copy()
    nxt[L.S_TO_MOVE] = p
    if stayer >= 0:
        apply_stay(nxt, rules, p, rec, 0, stayer)
    else:
        apply_move(nxt, rules, p, rec, 0)
    after = nxt.copy()
    advance(nxt, rules, p)
    return after, nxt


def iter_moves(state):
    """Every distinct legal move (P7) of the seat to move, streamed in generation order; none once the game
    is over. Memory is bounded by one listing window plus the set of keys already given (de-duplication).
    In 4p a pending decision lists its options instead (kinds `lead`, or `decline` and `stay`), and a
    capture that offers the partner a Stay (P15) has that decision state as its result.

    `state` is a JSON state (dict or text); raises StateError on a bad state."""
    fmt, st, decision = parse(state)
    rules = fmt.rules_array()
    if st[L.S_OVER]:
        return
    family = family_of(fmt)
    if family.iter_moves is not None:       # a family listed apart (Kasino)
        p = int(st[L.S_TO_MOVE])
        yield from family.iter_moves(fmt, st, _records(st, rules, p, family.lister()), Move)
        return
    if decision is not None:
        yield from _decision_moves(fmt, st, rules, decision)
        return
    p = int(st[L.S_TO_MOVE])
    seen = set()
    for rec in _records(st, rules, p):
        key = int(np.uint64(rec[L.M_KEY]))
        if key in seen:
            continue
        seen.add(key)
        yield _card_move(fmt, st, rules, p, rec, family)
    if not seen:  # K11 fallback: no legal move at all (never in reachable play)
        nxt = st.copy()
        trail_fallback(nxt, p)
        advance(nxt, rules, p)
        c = int(st[L.S_HANDS + 2 * p] & -st[L.S_HANDS + 2 * p]).bit_length() - 1
        yield Move(card_name(c), "trail", f"Trail {card_name(c)} (no legal move: K11 fallback)", 0,
                   to_json(nxt, fmt))


def _card_move(fmt, st, rules, p, rec, family):
    """The Move of seat p's card play `rec` (a one-deck family's move record)."""
    result, after = _play_card(fmt, st, rules, p, rec)
    features = tuple(int(rec[f]) for f in (L.M_POINTS, L.M_CARDS, L.M_SPADES, L.M_TABLE_POINTS))
    return Move(card_name(int(rec[L.M_CARD])), L.KIND_NAMES[int(rec[L.M_KIND])],
                describe(rec, st, p, fmt.seats, family.raise_words), int(np.uint64(rec[L.M_KEY])), result,
                features=features, _after=after)


def move_of_key(state, key):
    """The legal move of `state` (a JSON state) whose key is `key`, as iter_moves gives it; None where no legal
    move has that key. One generation pass finds it: the SINK_SELECT sink keeps the first candidate with the key,
    comparing keys only (every way of a move is the same move, P7), and that move alone is built. Scanning
    iter_moves instead builds every candidate's result first (about 130 us each) and lists window by window:
    hours for an absent key on a 20-loose-card Durban position, about 40 s in one pass. A pending decision
    (4p) and the K11 fallback (no legal move) come from iter_moves, as they are few."""
    fmt, st, decision = parse(state)
    if st[L.S_OVER]:
        return None
    family = family_of(fmt)
    rules = fmt.rules_array()
    p = int(st[L.S_TO_MOVE])
    ws = _workspace("list")
    ws[L.C_TKEY] = np.array([key], dtype=np.uint64).view(np.int64)[0]
    if decision is not None or _lister(fmt)(st, rules, p, ws, L.SINK_SELECT, 0, 0) == 0:
        return next((m for m in iter_moves(state) if m.key == key), None)
    _check(ws)
    if not ws[L.C_FOUND]:
        return None
    rec = ws[L.WS_BEST: L.WS_BEST + L.REC_SIZE].copy()
    if family.iter_moves is not None:       # a family listed apart (Kasino) builds its moves from records
        return next(iter(family.iter_moves(fmt, st, [rec], Move)))
    return _card_move(fmt, st, rules, p, rec, family)


def legal_moves(state, limit=None):
    """Every distinct legal move (P7) of the seat to move as a list (at most `limit` of them), in
    generation order. [] once the game is over."""
    out = []
    for m in iter_moves(state):
        if limit is not None and len(out) >= limit:
            break
        out.append(m)
    return out


def count_moves(state):
    """The number of distinct legal moves (P7) of the seat to move, without building them, exact, in fixed
    memory (one key table, `KEY_SLOTS`): 0 once the game is over."""
    fmt, st, decision = parse(state)
    rules = fmt.rules_array()
    if st[L.S_OVER]:
        return 0
    if decision is not None:
        return 2
    n = _count_keys(st, rules, int(st[L.S_TO_MOVE]), _lister(fmt), _workspace("keys"))
    return max(1, n)   # with no legal move the K11 fallback is the one move


def _count_keys(st, rules, p, lister, ws, passes=None):
    """The distinct keys of seat p's candidates, class by class: a pass over the moves counts the keys of one
    class (key mod 2**b == r) in the workspace's key table (SINK_KEYS); where the class holds more keys than
    half the table, the kernel halves it as it goes (keeping bit b clear, b + 1) and each half it let go, (r +
    2**i, i + 1), is a class for a later pass. The classes counted partition the 64-bit keys, so the sum is
    exact; memory is the table, whatever the position (docs/ENGINE.md, "Listing"). `passes`: a list to which
    each pass's (r, b, final b, keys) is appended (tests)."""
    if ws.shape[0] - L.WS_LIST < 4:
        raise ValueError("count_moves needs a key table of at least 4 slots")
    todo = [(0, 0)]
    total = 0
    while todo:
        r, b = todo.pop()
        lister(st, rules, p, ws, L.SINK_KEYS, r, b)
        _check(ws)
        final = int(ws[L.C_LIST_HI])
        found = int(ws[L.C_KCOUNT]) + int(ws[L.C_KZERO])
        total += found
        if passes is not None:
            passes.append((r, b, final, found))
        todo += [(r + (1 << i), i + 1) for i in range(b, final)]
    return total


def scratch_high_water(state):
    """How much of the per-position scratch this position needs (docs/ENGINE.md, Scratch bounds): the
    subset table's entries and capacity, the deepest usable opponent pile prefix (and each usable pile's, by
    seat), and the overflow guard."""
    fmt, st, rules = _position(state)
    ws = _workspace("game")
    p = int(st[L.S_TO_MOVE]) if not st[L.S_OVER] else 0
    family = family_of(fmt)
    if family.scratch is not None:      # Kasino: the table's items and their subsets (no piles are usable)
        return family.scratch(st, rules, ws)
    prepare_only(st, rules, p, ws)
    depths = {int(ws[L.C_OPP + j]): bin(int(ws[L.C_PMASK + j])).count("1") for j in range(int(ws[L.C_NOPP]))}
    return {"subsets": int(ws[L.C_NSUB]), "subset_capacity": L.MAX_SUBSETS,
            "pile_depth": max(list(depths.values()) + [0]), "pile_depths": depths,
            "pile_capacity": L.PREFIX_STRIDE - 1, "overflow": bool(ws[L.C_OVERFLOW])}


def bot_move(state, bot, draw_seed):
    """The move `bot` plays in `state`, its one draw taken from a bot stream seeded with `draw_seed`.

    The bot is handed the seat's observation and the candidates only (docs/ENGINE.md, "Bots")."""
    from khasino_sim.kernels.khasino.search import bot_decides as decide, NO_DECISION
    fmt, st, decision = parse(state)
    rules = fmt.rules_array()
    code = bot_id(bot)          # registered first: the workspace is sized for the process's search bots
    ws = _workspace("game")
    p = int(st[L.S_TO_MOVE])
    stream = np.array([draw_seed], dtype=np.uint64)
    family = family_of(fmt)
    if family.decide is not None:       # a family decided apart (Kasino): no pending decisions
        with watching(fmt.family):
            family.decide(code, st, rules, p, ws, stream)
        _check(ws)
        key = int(np.uint64(ws[L.WS_BEST + L.M_KEY]))
        return next(mv for mv in iter_moves(state) if mv.key == key)
    if decision is not None:
        kind = L.DECIDE_LEAD if decision["kind"] == "lead" else L.DECIDE_STAY
        mover = -1
        if kind == L.DECIDE_STAY:       # the mover's capture, where the game loop holds it (WS_BEST)
            rec = _json_move_rec(st, rules, decision)
            ws[L.WS_BEST: L.WS_BEST + L.REC_SIZE] = rec[:L.REC_SIZE]
            mover = int(decision["seat"])
        with watching(fmt.family):
            option = decide(code, st, rules, p, ws, stream, kind, mover)
        _check(ws)
        key = decision_key(kind, int(option))
        return next(mv for mv in iter_moves(state) if mv.key == key)
    with watching(fmt.family):
        n = decide(code, st, rules, p, ws, stream, NO_DECISION, -1)
    _check(ws)
    if n == 0:
        return legal_moves(state)[0]
    key = int(np.uint64(ws[L.WS_BEST + L.M_KEY]))
    return next(mv for mv in iter_moves(state) if mv.key == key)


def position_key(state):
    """H of docs/ENGINE.md for a JSON state (Khasino and Cassino; Kasino's moves have keys but its positions
    no H: StateError)."""
    fmt, st = from_json(state)
    if not family_of(fmt).position_hash:
        raise StateError("Kasino positions have no hash H (docs/ENGINE.md: Kasino move keys)")
    return int(position_hash(st, fmt.rules_array()))


def scores(state):
    """Per-seat K13 scoring of a state's piles (final once the game is over): list of dicts. Kasino (P26): each
    seat's card points, last point, tabbe plus and minus, round score and its pair's."""
    fmt, st = from_json(state)
    return family_of(fmt).seat_scores(st, fmt)


def winner(state):
    """The winner of a finished state: the winning seat (K13, or P9's tie-breaks in 3p), the winning team
    (0 = AB, 1 = CD) in 4p; -1 on a tie."""
    fmt, st = from_json(state)
    return family_of(fmt).winner(st, fmt)


def seat_stats(row, seats):
    """The per-seat blocks of a statistics row as dicts."""
    return [{name: int(row[L.G_SEAT0 + s * L.SEAT_FIELDS + i]) for i, name in enumerate(L.SEAT_FIELD_NAMES)}
            for s in range(seats)]


def play_game(fmt_name, seed, bots=("random", "random"), check=True, leader=0, options=None):
    """Play one whole game in the core, led by seat `leader`, under the rule `options` (a dict; None: the
    format's own). Returns {"keys", "seats", "winner", "turns", "no_move", "final"}."""
    fmt = _format(fmt_name, options)
    check_leader(fmt, leader)
    rules = fmt.rules_array()
    bot_ids = np.array([bot_id(b) for b in bots], dtype=np.int64)
    if len(bot_ids) != fmt.seats:
        raise ValueError(f"{fmt.name} needs {fmt.seats} bots, got {len(bot_ids)}")
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    deck = np.zeros(104, dtype=np.int64)
    stats = np.zeros(L.STATS_SIZE, dtype=np.int64)
    trace = np.zeros(4 * fmt.deck, dtype=np.int64)
    with watching(fmt.family):
        n = _play_game(rules, np.uint64(seed), bot_ids, st, deck, _workspace(), stats, trace, check,
                       np.zeros(1, dtype=np.uint64), leader)
    if stats[L.G_OVERFLOW]:
        raise EngineError(f"game {seed}: a scratch bound was exceeded (never expected; please report it)")
    return {
        "keys": [int(k) for k in trace[:n].view(np.uint64)],
        "seats": seat_stats(stats, fmt.seats),
        "winner": int(stats[L.G_WINNER]),
        "turns": int(stats[L.G_TURNS]),
        "no_move": int(stats[L.G_NO_MOVE]),
        "bad": int(stats[L.G_BAD]),
        "final": to_json(st, fmt),
    }


def play_games(fmt_name, seeds, bots, check=False, series=1):
    """Play many games in one compiled call; `bots` is a (n_games, seats) array of bot names or ids. With
    `series` K > 1 (formats with series, P10) the games are consecutive series of K matches. In Cassino each
    game is a single round: round 1 of the match with that seed (P20, P21).

    `bots` may also be one row (a bot per seat, names or ids), played in every game. Seeds are non-negative
    integers. A bad argument is a ValueError (an unknown bot name a KeyError) with one line, never a Numba
    typing error.

    Returns the raw statistics rows (layout G_*/SEAT_*)."""
    fmt = get_format(fmt_name)
    seeds = np.asarray(seeds)
    if seeds.ndim != 1 or (seeds.size and seeds.dtype.kind not in "iu"):
        raise ValueError(f"seeds must be a one-dimensional array of integers, not shape {seeds.shape} of "
                         f"{seeds.dtype}")
    if seeds.dtype.kind == "i" and seeds.size and seeds.min() < 0:
        raise ValueError("seeds must be non-negative")
    seeds = seeds.astype(np.uint64)
    bots = np.asarray(bots)
    if bots.ndim == 1:
        bots = np.broadcast_to(bots, (len(seeds), len(bots)))
    if bots.ndim != 2 or bots.shape != (len(seeds), fmt.seats):
        raise ValueError(f"{fmt.name}: bots must be {fmt.seats} per game (a row of {fmt.seats}, or an array of "
                         f"shape ({len(seeds)}, {fmt.seats})), not shape {bots.shape}")
    if bots.dtype.kind in "US":
        from .bots import check_playable
        check_playable(sorted({str(b) for b in bots.ravel()}), fmt.family)
        bots = np.vectorize(bot_id, otypes=[np.int64])(bots)
    elif bots.size and bots.dtype.kind not in "iu":
        raise ValueError(f"bots must be names or bot ids, not {bots.dtype}")
    with watching(fmt.family):
        return family_of(fmt).play_games(fmt, seeds, np.ascontiguousarray(bots, dtype=np.int64), check, series)


def _bot_ids(fmt, bots):
    from .bots import check_playable
    check_playable([b for b in bots if isinstance(b, str)], fmt.family)
    ids = np.array([bot_id(b) for b in bots], dtype=np.int64)
    if len(ids) != fmt.seats:
        raise ValueError(f"{fmt.name} needs {fmt.seats} bots, got {len(ids)}")
    _workspace()
    return ids


def play_round(fmt_name, seed, bots, options=None, round=1, scores=None, check=True, rounds=None):
    """Cassino and Kasino: play one round in the core, dealt from the round seed `seed` (P20, P22), with the
    match totals `scores` before it (Kasino: in a match of `rounds` rounds). Returns {"keys", "seats",
    "winner", "turns", "no_move", "bad", "final"}; `winner` is the round's (the highest round score, in Kasino
    the lowest; -1 on a tie)."""
    fmt = _format(fmt_name, options)
    rules = fmt.rules_array()
    prev = np.zeros(L.STATS_SIZE, dtype=np.int64)
    for s, total in enumerate(scores or [0] * fmt.seats):
        prev[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_MATCH_TOTAL] = total
    st = np.zeros(L.STATE_SIZE, dtype=np.int64)
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    trace = np.zeros(4 * fmt.deck, dtype=np.int64)
    args = (rules, np.uint64(seed), round, _bot_ids(fmt, bots), st, np.zeros(104, dtype=np.int64), _workspace(),
            row, prev, check, np.zeros(1, dtype=np.uint64), trace)
    with watching(fmt.family):
        n = family_of(fmt).play_round(args, fmt, rounds)
    if row[L.G_OVERFLOW]:
        raise EngineError(f"round {seed}: a scratch bound was exceeded (never expected; please report it)")
    return {"keys": [int(k) for k in trace[:n].view(np.uint64)], "seats": seat_stats(row, fmt.seats),
            "winner": int(row[L.G_WINNER]), "turns": int(row[L.G_TURNS]), "no_move": int(row[L.G_NO_MOVE]),
            "bad": int(row[L.G_BAD]), "final": to_json(st, fmt)}


def play_match(fmt_name, seed, bots, options=None, check=True, rounds=None):
    """Cassino: play one match to 21 (C7, P21) in the core from the match seed `seed` (round r dealt from
    `round_seed(seed, r)`). Returns {"rounds": per-round seat statistics (match totals after each round in
    `match_total`), "totals", "winner" (the winning seat; the team, 0 = seats 0+2, in cassino-4p)}."""
    fmt = _format(fmt_name, options)
    ids = _bot_ids(fmt, bots)
    with watching(fmt.family):      # Kasino (N7): `rounds` rounds (default the format's), the lowest total wins
        return family_of(fmt).play_match(fmt, seed, ids, rounds, check, seat_stats)


def count_round(state):
    """Cassino (C7, P21): a finished round's state (`over`, its `scores` the match totals before it) counted
    towards the match in the rulebook's order. Returns {"totals": the totals after the whole round (per seat; a
    team's in 4p), "winner": the winning seat (team in 4p) or None while the match goes on}."""
    from khasino_sim.kernels.cassino.game import count_round as _count
    from khasino_sim.kernels.khasino.state import score
    fmt, st = from_json(state)
    if not fmt.match_target:
        raise StateError(f"{fmt.name} plays single games, not matches")
    if not st[L.S_OVER]:
        raise StateError("the round is not over")
    rules = fmt.rules_array()
    row = np.zeros(L.STATS_SIZE, dtype=np.int64)
    score(st, rules, row)
    w = int(_count(st, rules, row))
    return {"totals": [int(row[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_MATCH_TOTAL]) for s in range(fmt.seats)],
            "winner": None if w < 0 else w}
