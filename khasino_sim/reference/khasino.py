"""The Khasino reference engine: formats ``khasino`` and ``durban`` (1v1), ``khasino-3p``, ``khasino-3p-stock``
(three players) and ``khasino-4p`` (two teams of two), all on the 40-card deck.

This is the slow, readable oracle the compiled core is tested against.  It is written from the Khasino rules
page (``docs/rules/khasino.md``, rules K1..K16), the project's rules (``docs/rules/project.md``, P1..P15 and
its exact conventions, three players, four players) and ``docs/ENGINE.md`` (state, hash, randomness, bots)
only.  Standard library only; what every family shares (cards, masks, randomness, hash terms, the lazy
moves, the bots' draw and play loop) is in ``common``.

Internal representation (JSON only at the API boundary):

* a card is its index ``4 * (rank - 1) + suit`` (S=0, H=1, D=2, C=3); its Khasino value is its rank (A=1);
* a card set (hand, loose cards, one group) is an int bit mask;
* builds: ``{value: (owner, (group_mask, ...))}`` with groups oldest first; the order of the cards inside a
  group is a function of its set (K10: higher rank underneath, equal ranks S, H, D, C), so a mask is enough;
* piles: tuples of card indices, bottom to top (last = exposed card);
* seats 0..n-1, one hand and one pile each; the format's ``order`` is the turn order (K14: 1v1 turns
  alternate; K16/P8: A=0 -> C=2 -> B=1 -> A; K15/P11: A=0 -> C=2 -> B=1 -> D=3 -> A);
* 4p only (K15, P11-P15): ``teams`` ((0, 1), (2, 3)); per seat a set of open promises (P13); the set of values
  of the builds that are promised (P13; kept beside ``builds`` so the 1v1/3p code is untouched); a pending
  decision that is not a card play: ``("lead",)`` (P11) or ``("stay", M, V, card, groups, followups)`` (P15);
* every state carries its resolved rule options (``opts``, a tuple in ``OPTIONS`` order; docs/BALANCE.md "The
  variants"): the rules read ``st.rules``, the format's FORMATS flags with the options applied.  JSON:
  ``options`` (optional on input, always written right after ``format``); not part of H nor of move keys.
"""
from __future__ import annotations

from functools import lru_cache

from .common import (TEN_DIAMONDS, TWO_SPADES, LazyMove, Position, SplitMix64, Z, bits, capture_order, card_name,
                     card_points, choose, disjoint_collections, fmix, k10_order, mask_hash, mask_of, parse_card,
                     play_out, popcount, seat_bots, shuffled_deck, sweep_order)

__all__ = [
    "FORMATS", "SplitMix64", "fmix", "RefMove", "initial_state", "state_hash", "legal_moves", "advance",
    "score", "winner", "series_leader", "next_seat", "choose", "play_game", "fallback_move", "card_name",
    "parse_card", "team_of", "partner_of", "DecisionOption", "STAY_KEY", "DECLINE_KEY", "LEAD_KEYS",
    "OPTIONS", "default_options", "read_options",
]

# ---------------------------------------------------------------------------------------------------------
# Formats (RULES.md "Format flags").  Kept here on purpose: the reference imports nothing from the project.
# ---------------------------------------------------------------------------------------------------------
_KHASINO_RULES = {
    "deck": 40,                    # K1: A-10 in four suits
    "trail_same_value": True,      # K11: no trail of a value present loose or as a build
    "max_builds": None,            # K5: unlimited
    "change": "two_card_alone",    # K7: opponent's simple 2-card build, played card alone
    "followups": True,             # K9, P5
    "pile_cards": True,            # K8: every opponent's pile (never the mover's own)
}
_ONE_V_ONE = {
    "seats": 2,
    "order": (0, 1),               # K14: turns alternate
    "loose_start": 0,              # K1: no table cards at the start of a 1v1 game
    "hand": 10,                    # K14: 10 each, then the other 20 as 10 each
    "deals": 2,
    "refill": None,
    "any_leader": False,           # K14: seat 0 leads both deals (seats rotate between games, not here)
    "scoring": "K13",
    "k16_fields": False,           # JSON: no promises/decision in 1v1 (output unchanged)
    "teams": None,                 # no partners
}
_THREE_PLAYERS = {
    "seats": 3,
    "order": (0, 2, 1),            # K16, P8: A -> C -> B -> A, seat s then (s + 2) % 3
    "loose_start": 1,              # K16: d[0] is the one loose card
    "deals": 1,                    # K16: one deal; refills are not deals
    "any_leader": True,            # P8, P10: a match starts with its leader
    "scoring": "K16",              # P9: 7 card points, tie-breaks most cards, most spades, 10D
    "k16_fields": True,            # ENGINE.md "Three players": promises and decision in the JSON state
    "no_trail_owning_deal1": False,  # K11's first-deal ban while owning a build is 1v1 only (RULES.md)
    "teams": None,                 # K16: no teammates
}
_FOUR_PLAYERS = {
    "seats": 4,
    "order": (0, 2, 1, 3),         # K15, P11: A -> C -> B -> D -> A, seat s then [2, 3, 1, 0][s]
    "loose_start": 0,              # K1: no table cards at the start of a 4p game
    "hand": 10,                    # K15, P11: 10 each, one deal (d[0..9] seat 0, ... d[30..39] seat 3)
    "deals": 1,
    "refill": None,
    "any_leader": False,           # P11: the game starts with team AB's lead decision (leader argument 0 only)
    "scoring": "K13",              # K13 on the teams' pooled piles (K15)
    "k16_fields": True,            # promises and decision in the JSON state (ENGINE.md "Four players")
    "no_trail_owning_deal1": False,  # K11's first-deal ban is 1v1 only (RULES.md "Teams")
    "teams": ((0, 1), (2, 3)),     # K15, P11: A+B (team 0) v C+D (team 1)
}
FORMATS = {
    "khasino": dict(_KHASINO_RULES, **_ONE_V_ONE, no_trail_owning_deal1=True),  # K11 1v1 first-deal ban
    "durban": dict(
        _ONE_V_ONE,
        deck=40,
        trail_same_value=False,        # K11: Drift always allowed (P1 aside)
        no_trail_owning_deal1=False,
        max_builds=1,                  # K5, P6
        change="simple_plus",          # K7: opponent's simple build, played card + optional loose/pile cards
        followups=False,               # K9: not durban
        pile_cards=True,               # K8
    ),
    # K16: 13 each + 1 loose card, no stock
    "khasino-3p": dict(_KHASINO_RULES, **_THREE_PLAYERS, hand=13, refill=None),
    # K16: 3 each + 1 loose card, 30 in stock; the player who acted refills to 3 while stock remains
    "khasino-3p-stock": dict(_KHASINO_RULES, **_THREE_PLAYERS, hand=3, refill=3),
    # K15: 2 v 2, 10 each, one deal, team AB chooses its leader; teammate loads, promises, rebuild, Stay
    "khasino-4p": dict(_KHASINO_RULES, **_FOUR_PLAYERS),
}
TEAMS_4P = [[0, 1], [2, 3]]        # ENGINE.md "Four players": the JSON ``teams``


def team_of(fmt: str, seat: int) -> int:
    """The team of a seat (K15: 0 = AB, 1 = CD).  Formats without teams: every seat is its own team."""
    teams = FORMATS[fmt]["teams"]
    if teams is None:
        return seat
    return next(i for i, t in enumerate(teams) if seat in t)


def partner_of(fmt: str, seat: int):
    """The seat's teammate (K15), or None in a format without teams."""
    teams = FORMATS[fmt]["teams"]
    if teams is None:
        return None
    (t,) = [t for t in teams if seat in t]
    return t[1] if t[0] == seat else t[0]


# ---------------------------------------------------------------------------------------------------------
# Rule options (docs/BALANCE.md "The variants"; RULES.md "Format flags").  Each format's default is its
# FORMATS flags (its rules); the JSON ``options`` object names them; they are not part of H nor of keys.
# ---------------------------------------------------------------------------------------------------------
OPTIONS = (                        # written in this (alphabetical) order, right after "format"
    "change_mode",                 # K7: 0 two-card simple build, played card alone; 1 any simple build + extras
    "follow_ups",                  # K9, P5
    "last_capturer_takes_table",   # K12 (true in every format; false: what is left stays, scores for no one)
    "max_builds_owned",            # K5, P6: builds one player may own at once; 0 = unlimited
    "next_deal_leader",            # K14: deal 2's leader: 0 seat 0, 1 seat 1, 2 deal 1's last capturer
    "no_trail_own_build_first_deal",  # K11 (1v1 first-deal ban while owning a build)
    "opponent_piles",              # K8
    "trail_restricted",            # K11: no trail of a value already loose or built
)
_BOOL_OPTIONS = frozenset(("follow_ups", "last_capturer_takes_table", "no_trail_own_build_first_deal",
                           "opponent_piles", "trail_restricted"))
_INT_OPTIONS = {"change_mode": (0, 1), "max_builds_owned": (0, None), "next_deal_leader": (0, 2)}


def default_options(fmt: str) -> dict:
    """The format's options (its rules, FORMATS flags), as the JSON ``options`` object."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    return {
        "change_mode": 0 if F["change"] == "two_card_alone" else 1,
        "follow_ups": F["followups"],
        "last_capturer_takes_table": True,
        "max_builds_owned": 0 if F["max_builds"] is None else F["max_builds"],
        "next_deal_leader": 0,
        "no_trail_own_build_first_deal": F["no_trail_owning_deal1"],
        "opponent_piles": F["pile_cards"],
        "trail_restricted": F["trail_same_value"],
    }


def read_options(fmt: str, raw=None) -> tuple:
    """The resolved options (a tuple in ``OPTIONS`` order) of a JSON ``options`` object: absent (None) -> the
    format's defaults; a partial object changes only the options it names; an unknown name, or a value of the
    wrong type (bools must be true/false, ints ints, never bools) or out of range, is a ValueError naming it."""
    opts = default_options(fmt)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ValueError("options: must be an object")
    for k, v in raw.items():
        if k not in opts:
            raise ValueError(f"options: unknown option {k!r}")
        if k in _BOOL_OPTIONS:
            if not isinstance(v, bool):
                raise ValueError(f"options: {k} must be true or false, not {v!r}")
        else:
            lo, hi = _INT_OPTIONS[k]
            if not isinstance(v, int) or isinstance(v, bool) or v < lo or (hi is not None and v > hi):
                rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
                raise ValueError(f"options: {k} must be an integer {rng}, not {v!r}")
        opts[k] = v
    return tuple(opts[k] for k in OPTIONS)


@lru_cache(maxsize=None)
def _rules(fmt: str, opts: tuple) -> dict:
    """The format's flags with the options applied (read-only by convention).  ``max_builds`` None =
    unlimited; ``change`` "two_card_alone" (K7 khasino) or "simple_plus" (K7 durban); ``sweep_table`` K12;
    ``next_deal_leader`` K14."""
    o = dict(zip(OPTIONS, opts))
    return dict(
        FORMATS[fmt],
        trail_same_value=o["trail_restricted"],
        no_trail_owning_deal1=o["no_trail_own_build_first_deal"],
        max_builds=o["max_builds_owned"] or None,
        change="two_card_alone" if o["change_mode"] == 0 else "simple_plus",
        followups=o["follow_ups"],
        pile_cards=o["opponent_piles"],
        sweep_table=o["last_capturer_takes_table"],
        next_deal_leader=o["next_deal_leader"],
    )

# ---------------------------------------------------------------------------------------------------------
# Card values (cards, masks and K13 card points: ``common``)
# ---------------------------------------------------------------------------------------------------------
def value(i: int) -> int:
    """Khasino value of a card: its rank, A = 1 (K1)."""
    return (i >> 2) + 1


def mask_sum(m: int) -> int:
    return sum(value(c) for c in bits(m))


class _State(Position):
    """Internal position.  Immutable by convention: moves build new objects (``replace``: a changed copy)."""

    __slots__ = ("fmt", "deal", "to_move", "hands", "loose", "builds", "piles", "stock", "last_capturer", "over",
                 "promises", "promised", "decision", "opts")

    def __init__(self, fmt, deal, to_move, hands, loose, builds, piles, stock, last_capturer, over,
                 promises=None, promised=frozenset(), decision=None, *, opts):
        self.fmt = fmt
        self.opts = opts                    # resolved rule options, a tuple in OPTIONS order (not in H)
        self.deal = deal
        self.to_move = to_move
        self.hands = hands                  # tuple of masks, one per seat
        self.loose = loose                  # mask
        self.builds = builds                # {value: (owner, tuple of group masks oldest first)}
        self.piles = piles                  # tuple of tuples, bottom to top
        self.stock = stock                  # tuple of cards in dealing (3p-stock: refill) order
        self.last_capturer = last_capturer  # seat or None
        self.over = over
        # 4p (P13): open promises per seat (frozensets of values); values of the promised builds; the
        # pending decision (P11 lead, P15 stay) or None.  Empty / None in the other formats.
        self.promises = promises if promises is not None else tuple(frozenset() for _ in hands)
        self.promised = promised
        self.decision = decision

    @property
    def rules(self) -> dict:
        """The format's flags with this state's options applied."""
        return _rules(self.fmt, self.opts)


# ---------------------------------------------------------------------------------------------------------
# JSON <-> internal
# ---------------------------------------------------------------------------------------------------------
def _check_k16_fields(d: dict, F: dict) -> None:
    """ENGINE.md "Three players": ``promises`` (one list per seat) and ``decision`` are optional on input.  3p
    has no partners (K15's rebuild needs one) and no decisions besides card plays, so the lists must be empty
    and the decision null; anything else is rejected rather than silently dropped."""
    if not F["k16_fields"] or F["teams"] is not None:
        return      # 4p reads both (``_read_4p``)
    promises = d.get("promises")
    if promises is not None and (len(promises) != F["seats"] or any(promises)):
        raise ValueError("promises: one empty list per seat in a 3p format")
    if d.get("decision") is not None:
        raise ValueError("decision: must be null in a 3p format")


def _from_json(d: dict) -> _State:
    """Internal position of a JSON state (ENGINE.md "JSON state format")."""
    fmt = d["format"]
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    if len(d["hands"]) != F["seats"] or len(d["piles"]) != F["seats"]:
        raise ValueError(f"{fmt}: one hand and one pile for each of {F['seats']} seats")
    _check_k16_fields(d, F)
    opts = read_options(fmt, d.get("options"))
    hands = tuple(mask_of(parse_card(c) for c in h) for h in d["hands"])
    table = d.get("table", {})
    loose = mask_of(parse_card(c) for c in table.get("loose", []))
    builds = {}
    for b in table.get("builds", []):
        v = int(b["value"])
        if v in builds:
            raise ValueError(f"two builds of value {v}")
        gs = tuple(mask_of(parse_card(c) for c in g) for g in b["groups"])
        builds[v] = (int(b["owner"]), gs)
    piles = tuple(tuple(parse_card(c) for c in p) for p in d["piles"])
    stock = tuple(parse_card(c) for c in d.get("stock", []))
    lc = d.get("last_capturer")
    tm = d.get("to_move")
    over = bool(d.get("over", False)) or tm is None
    st = _State(fmt, int(d.get("deal", 1)), tm, hands, loose, builds, piles, stock,
                None if lc is None else int(lc), over, opts=opts)
    if F["teams"] is not None:
        st = _read_4p(d, st)
    return st


def _read_4p(d: dict, st: _State) -> _State:
    """ENGINE.md "Four players": ``teams`` (optional; if present exactly [[0, 1], [2, 3]]), ``promises`` (four
    lists of open promises, P13; optional), each build's ``promised`` (optional, default false) and
    ``decision`` (null, the lead decision of P11 or a Stay decision of P15, checked against the position)."""
    fmt, F = st.fmt, FORMATS[st.fmt]
    teams = d.get("teams")
    if teams is not None and [list(t) for t in teams] != TEAMS_4P:
        raise ValueError(f"teams: must be {TEAMS_4P} in {fmt} (K15, P11)")
    every = [c for h in st.hands for c in bits(h)] + bits(st.loose) + [c for p in st.piles for c in p]
    every += [c for _o, gs in st.builds.values() for m in gs for c in bits(m)] + list(st.stock)
    if sorted(every) != list(range(F["deck"])):
        raise ValueError(f"{fmt}: every card of the deck exactly once")
    if st.stock or st.deal != 1:
        raise ValueError(f"{fmt}: one deal, no stock (P11)")
    for v, (o, _gs) in st.builds.items():
        if o not in range(F["seats"]):
            raise ValueError(f"build {v}: owner {o!r} is not a seat")
    raw = d.get("promises")
    if raw is None:
        raw = [[] for _ in range(F["seats"])]
    if len(raw) != F["seats"] or any(not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 10
                                     for p in raw for v in p):
        raise ValueError("promises: one list of build values (1-10) per seat (P13)")
    promises = tuple(frozenset(p) for p in raw)
    promised = frozenset(int(b["value"]) for b in d.get("table", {}).get("builds", []) if b.get("promised", False))
    st = st.replace(promises=promises, promised=promised)
    dec = d.get("decision")
    if dec is None:
        return st
    kind = dec.get("kind")
    if kind == "lead":
        # P11: the state right after the deal, seat 0 answering for team AB; nothing played yet
        if list(dec.get("team", ())) != [0, 1]:
            raise ValueError("decision: the lead decision is team AB's, team [0, 1] (P11)")
        if (st.to_move != 0 or any(popcount(h) != F["hand"] for h in st.hands) or st.loose or st.builds
                or any(st.piles) or st.last_capturer is not None):
            raise ValueError("decision: a lead decision is the dealt position, seat 0 to answer (P11)")
        return st.replace(decision=("lead",))
    if kind != "stay":
        raise ValueError(f"decision: unknown kind {kind!r}")
    return st.replace(decision=_read_stay(dec, st))


def _read_stay(dec: dict, st: _State) -> tuple:
    """P15 Stay decision: seat M chose MOVE, a capture of the build of value V, and ``to_move`` is M's partner,
    who holds a V card.  MOVE must be a legal move of M in the position (the state's position is the one
    before MOVE); the order of its groups does not matter on input."""
    M, V, mv = int(dec["seat"]), int(dec["value"]), dec["move"]
    if M not in range(FORMATS[st.fmt]["seats"]) or st.to_move != partner_of(st.fmt, M):
        raise ValueError("decision: a Stay is answered by the partner of the seat that captured (P15)")
    c = parse_card(mv["card"])
    if mv.get("kind", "capture") != "capture" or int(mv.get("build", V)) != V or value(c) != V:
        raise ValueError("decision: MOVE must be a capture, by a card of value V, of the build of value V (P15)")
    if not any(value(x) == V for x in bits(st.hands[st.to_move])):
        raise ValueError(f"decision: the partner holds no card of value {V} (P15)")
    groups = tuple(sorted((mask_of(parse_card(x) for x in g) for g in mv.get("groups", [])), reverse=True))
    fups = tuple(sorted(((int(f["build"]), mask_of(parse_card(x) for x in f["group"]))
                         for f in mv.get("followups", [])), key=lambda t: (t[0], -t[1])))
    want = ("stay", M, V, c, groups, fups)
    if not any(m._stay == want for m in _generate(st.replace(to_move=M, decision=None))):
        raise ValueError("decision: MOVE is not a legal capture of the build by that seat")
    return want


def _decision_json(dec):
    """ENGINE.md "Four players": ``decision`` as written (MOVE's groups and follow-ups in canonical order)."""
    if dec is None:
        return None
    if dec[0] == "lead":
        return {"kind": "lead", "team": [0, 1]}
    _k, M, V, c, groups, fups = dec
    return {"kind": "stay", "seat": M, "value": V, "move": {
        "card": card_name(c), "kind": "capture", "build": V,
        "groups": [[card_name(x) for x in k10_order(g)] for g in groups],
        "followups": [{"build": W, "group": [card_name(x) for x in k10_order(S)]} for W, S in fups],
    }}


def _to_json(st: _State) -> dict:
    """JSON state (ENGINE.md).  1v1 output is exactly as before; 3p adds ``promises`` (always empty, no
    partners) and ``decision`` (always null) after ``last_capturer``; 4p writes ``teams``, the open
    ``promises``, the ``decision`` and each build's ``promised`` flag (ENGINE.md "Four players")."""
    four = FORMATS[st.fmt]["teams"] is not None
    d = {
        "format": st.fmt,
        "options": dict(zip(OPTIONS, st.opts)),
        "deal": st.deal,
        "to_move": st.to_move,
        # hands are sets: written in card-index order
        "hands": [[card_name(c) for c in bits(h)] for h in st.hands],
        "table": {
            "loose": [card_name(c) for c in bits(st.loose)],
            "builds": [
                dict({"value": v, "owner": st.builds[v][0],
                      "groups": [[card_name(c) for c in k10_order(m)] for m in st.builds[v][1]]},
                     **({"promised": v in st.promised} if four else {}))
                for v in sorted(st.builds)
            ],
        },
        "piles": [[card_name(c) for c in p] for p in st.piles],
        "stock": [card_name(c) for c in st.stock],
        "last_capturer": st.last_capturer,
    }
    if four:
        d["teams"] = [list(t) for t in TEAMS_4P]
        d["promises"] = [sorted(p) for p in st.promises]
        d["decision"] = _decision_json(st.decision)
    elif FORMATS[st.fmt]["k16_fields"]:
        d["promises"] = [[] for _ in st.hands]
        d["decision"] = None
    d["over"] = bool(st.over)
    return d


# ---------------------------------------------------------------------------------------------------------
# Deal (K14, K16; ENGINE.md deal stream)
# ---------------------------------------------------------------------------------------------------------
def _check_leader(F: dict, leader: int) -> None:
    """The leader must be a seat; 1v1 is always led by seat 0 (K14: seat 0 leads both deals; seats rotate
    between games in the simulator, never in the rules).  In 3p any seat may lead (P8, P10).  In 4p the game
    starts with team AB's lead decision (P11), which ``leader=0`` stands for; no other value is accepted."""
    if leader not in range(F["seats"]):
        raise ValueError(f"leader {leader!r} is not a seat")
    if leader != 0 and F["teams"] is not None:
        raise ValueError("4p: the game starts with team AB's lead decision (P11): leader 0 only")
    if leader != 0 and not F["any_leader"]:
        raise ValueError("1v1: seat 0 leads both deals (K14)")


def _initial(fmt: str, game_seed: int, leader: int = 0, options=None) -> _State:
    """The dealt position.  From the deck order d: the first ``loose_start`` cards are loose (none in 1v1,
    K1; d[0] in 3p, K16), then ``hand`` cards per seat in seat order (1v1: d[0..9], d[10..19], K14; 3p:
    d[1..13], d[14..26], d[27..39]; 3p-stock: d[1..3], d[4..6], d[7..9]), the rest is the stock in dealing
    (3p-stock: refill) order.  ``leader`` moves first (K14: seat 0 in 1v1; P8/P10 in 3p).  4p (P11): d[0..9]
    seat 0, d[10..19] seat 1, d[20..29] seat 2, d[30..39] seat 3, then the lead decision, seat 0 answering
    for team AB."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    F = FORMATS[fmt]
    opts = read_options(fmt, options)
    _check_leader(F, leader)
    deck = shuffled_deck(F["deck"], game_seed)    # ENGINE.md "Randomness": the deal stream
    k, seats, start = F["hand"], F["seats"], F["loose_start"]
    loose = mask_of(deck[:start])
    hands = tuple(mask_of(deck[start + s * k:start + (s + 1) * k]) for s in range(seats))
    stock = tuple(deck[start + seats * k:])
    st = _State(fmt, 1, leader, hands, loose, {}, tuple(() for _ in range(seats)), stock, None, False,
                opts=opts)
    if F["teams"] is not None:
        st = st.replace(decision=("lead",))     # P11: team AB picks its leader after seeing its hands
    return st


def initial_state(fmt: str, game_seed: int, leader: int = 0, options=None) -> dict:
    """JSON of the dealt position of ``game_seed``, ``leader`` to move (1v1: seat 0 only, K14); ``options`` a
    (partial) options object, absent = the format's defaults (``read_options``)."""
    return _to_json(_initial(fmt, game_seed, leader, options))


def state_hash(state: dict) -> int:
    """Position hash H (ENGINE.md "Position hash and move keys")."""
    return mask_hash(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Successor: refill, turn passing, next deal, K12 sweep (ENGINE.md "successor", "Three players")
# ---------------------------------------------------------------------------------------------------------
def next_seat(fmt: str, seat: int) -> int:
    """The seat that plays after ``seat``: 1v1 turns alternate (K14); 3p A -> C -> B -> A, i.e. seat s is
    followed by (s + 2) % 3 (K16, P8); 4p A -> C -> B -> D -> A, seat s followed by [2, 3, 1, 0][s] (K15,
    P11)."""
    order = FORMATS[fmt]["order"]
    return order[(order.index(seat) + 1) % len(order)]


def _refill(F: dict, hands: tuple, stock: tuple, mover) -> tuple[tuple, tuple]:
    """K16 (``khasino-3p-stock``): after his turn the player who acted, and only he, draws from the front of
    the stock until he holds ``refill`` cards or the stock is empty.  Other formats: unchanged (1v1 deals
    are K14's, made when both hands are empty)."""
    if F["refill"] is None or mover is None:
        return hands, stock
    n = max(0, F["refill"] - popcount(hands[mover]))
    drawn = mask_of(stock[:n])
    hands = tuple((h | drawn) if s == mover else h for s, h in enumerate(hands))
    return hands, stock[n:]


def _next_deal(after: _State) -> _State:
    """K14 / RULES.md "Deal": stock[0..9] to seat 0, stock[10..19] to seat 1; table untouched.  The leader of
    the new deal (option ``next_deal_leader``, K14): 0 seat 0 (the ruling: seat 0 leads both deals), 1 seat 1,
    2 the first deal's last capturer (seat 0 if nobody captured in it).  Only two-deal formats get here."""
    F = after.rules
    k, seats, stock = F["hand"], F["seats"], after.stock
    hands = tuple(mask_of(stock[s * k:(s + 1) * k]) for s in range(seats))
    mode = F["next_deal_leader"]
    if mode == 0:
        leader = 0
    elif mode == 1:
        leader = 1
    else:
        leader = after.last_capturer if after.last_capturer is not None else 0
    return _State(after.fmt, after.deal + 1, leader, hands, after.loose, after.builds, after.piles,
                  stock[seats * k:], after.last_capturer, False, opts=after.opts)


def _end_sweep(after: _State, hands: tuple, stock: tuple) -> _State:
    """K12 end sweep (RULES.md "End sweep"): builds by ascending value (groups oldest first, each group K10),
    then the loose cards as one group (K10), on top of the last capturer's pile.  P2: nobody captured in
    the whole match -> the player who played the last card, i.e. the mover of this last move (in 1v1 always
    seat 1: seat 0 leads both deals and both seats play all their cards).

    Option ``last_capturer_takes_table`` false (K12 variant): nobody takes the table; its loose cards and
    builds (owners and, in 4p, promised flags as they were) stay in the final state and score for no one;
    ``last_capturer`` stays as it is (null if nobody captured, when every pile is empty anyway)."""
    if not after.rules["sweep_table"]:
        return _State(after.fmt, after.deal, None, hands, after.loose, after.builds, after.piles, stock,
                      after.last_capturer, True, after.promises, after.promised, opts=after.opts)
    swept = sweep_order(after.builds, after.loose)
    lc, piles = after.last_capturer, after.piles
    receiver = lc
    if receiver is None:  # P2 (a finished state has no mover: the last seat in turn order, 1v1 seat 1)
        receiver = after.to_move if after.to_move is not None else FORMATS[after.fmt]["order"][-1]
    if swept:
        piles = tuple((p + tuple(swept)) if s == receiver else p for s, p in enumerate(piles))
        # Reading: under P2 the receiver is recorded as last capturer, so that the final state keeps the
        # ENGINE.md invariant "last_capturer is null exactly when every pile is empty".
        lc = receiver
    # P13: the K12 sweep opens no promise (the open promises are kept as they are; with every hand empty
    # they are empty anyway: a seat's open promise V means he still holds a V card).
    return _State(after.fmt, after.deal, None, hands, 0, {}, piles, stock, lc, True, after.promises,
                  opts=after.opts)


def _advance(after: _State) -> _State:
    """Successor of the position right after a move (``after.to_move`` is still the mover): the mover's K16
    refill (3p-stock); then, while any hand holds cards, the turn passes to the next seat in turn order
    (K14 alternate; K16/P8 A -> C -> B; K15/P11 A -> C -> B -> D); all hands empty with stock left: the next
    1v1 deal (K14); all hands empty and no stock: the K12 sweep, ``to_move`` null, ``over`` true."""
    F = FORMATS[after.fmt]
    hands, stock = _refill(F, after.hands, after.stock, after.to_move)
    if any(hands):
        return _State(after.fmt, after.deal, next_seat(after.fmt, after.to_move), hands, after.loose,
                      after.builds, after.piles, stock, after.last_capturer, False, after.promises,
                      after.promised, opts=after.opts)
    if stock:
        return _next_deal(after)
    return _end_sweep(after, hands, stock)


def advance(after: dict) -> dict:
    """JSON successor of a position right after a move (``to_move`` = the seat that just moved).  A 4p decision
    state is not such a position (its successors are its options' ``result``): ValueError."""
    st = _from_json(after)
    if st.decision is not None:
        raise ValueError("advance: a pending decision is answered by choosing one of its options")
    return _to_json(_advance(st))


# ---------------------------------------------------------------------------------------------------------
# Moves
# ---------------------------------------------------------------------------------------------------------
KINDS = ("capture", "build", "load", "change", "trail")


def _features(after: _State, before: _State, mover: int) -> tuple:
    """Greedy features (ENGINE.md "Bots"): the cards the move puts on the mover's pile (played card included):
    their K13 card points, number and spades; and card points left on the table (loose + builds, follow-ups
    included)."""
    new_pile = after.piles[mover][len(before.piles[mover]):]
    tp = sum(card_points(c) for c in bits(after.loose))
    for _o, gs in after.builds.values():
        for m in gs:
            tp += sum(card_points(c) for c in bits(m))
    return (sum(card_points(c) for c in new_pile), len(new_pile), sum(1 for c in new_pile if (c & 3) == 0), tp)


class _Lazy(LazyMove):
    """``after`` and ``result`` as JSON, computed on first use (``common.LazyMove``), by this family's JSON
    writer and successor."""

    __slots__ = ()
    _json_of = staticmethod(_to_json)
    _successor = staticmethod(_advance)


class RefMove(_Lazy):
    """One distinct legal move (P7).  ``after`` is the position right after the move (to_move still the
    mover), ``result`` the successor (``advance(after)``); both JSON, computed lazily.

    4p (P15): a capture of a build of value V whose mover's partner holds a V card carries ``_stay`` (the
    decision tuple); its ``result`` is then the Stay decision state (the position before the move, the
    partner to answer), while ``after`` and ``key`` are those of the capture as played."""

    __slots__ = ("card", "kind", "key", "points", "cards", "spades", "table_points", "_stay", "_before")

    def __init__(self, card: int, kind: str, key: int, after: _State, before: _State, mover: int, stay=None):
        self.card = card_name(card)
        self.kind = kind
        self.key = key
        self._after = after
        self._after_json = None
        self._result_json = None
        self._result = None
        self._stay = stay
        self._before = before if stay is not None else None
        self.points, self.cards, self.spades, self.table_points = _features(after, before, mover)

    @property
    def stay_offered(self) -> bool:
        """Whether the partner is asked Stay or decline before this capture takes effect (P15)."""
        return self._stay is not None

    def _result_state(self) -> _State:
        if self._result is None and self._stay is not None:
            # P15 / ENGINE.md: the position before the move, the partner to answer the Stay decision
            self._result = self._before.replace(to_move=partner_of(self._before.fmt, self._stay[1]),
                                                decision=self._stay)
        return super()._result_state()

    def __repr__(self):
        return f"RefMove({self.card} {self.kind} key={self.key:#018x})"


class DecisionOption(_Lazy):
    """One option of a decision that is not a card play (4p: P11 lead, P15 stay/decline).  Same reading
    interface as ``RefMove``: ``key`` (the fixed option key of ENGINE.md "Decisions that are not card plays"),
    ``kind`` ("lead", "stay", "decline"), ``seat`` (lead: the chosen leader; stay/decline: the capturing
    seat M), ``card`` (None), greedy features, ``after``
    (stay/decline: the position right after the move as played; lead: = result) and ``result``."""

    __slots__ = ("card", "kind", "key", "seat", "points", "cards", "spades", "table_points")

    def __init__(self, kind: str, key: int, after: _State, result=None, features=(0, 0, 0, 0), seat=None):
        self.card = None
        self.kind = kind
        self.key = key
        self.seat = seat
        self.points, self.cards, self.spades, self.table_points = features
        self._after = after
        self._result = result
        self._after_json = None
        self._result_json = None

    def __repr__(self):
        return f"DecisionOption({self.kind} seat={self.seat} key={self.key:#018x})"


# ---------------------------------------------------------------------------------------------------------
# 4p: promises (P13), Stay (P15), decisions (P11, P15)
# ---------------------------------------------------------------------------------------------------------
def _promises_after(st: _State, mover: int, played_value: int, new_builds: dict, made=None, taken=None):
    """Open promises and promised builds after a move by ``mover`` (P13); (st.promises, st.promised) unchanged
    in formats without teams.  ``made``: the value of the build this move created (K5, or a P14 rebuild) or
    changed to (K7): it is promised.  ``taken``: (V, owner) of the build this move captured.

    * a promised build captured by a seat of the other team opens V for its owner; by the owner or his
      teammate, nothing (P13);
    * the mover's played card of value v closes his open promise v and ends the promise on his own build of
      value v (a load of it with a v card, or a capture that leaves it), except the build this move makes;
    * a build that leaves the table (captured; changed, which opens nothing) takes its flag with it."""
    if FORMATS[st.fmt]["teams"] is None:
        return st.promises, st.promised
    promises = [set(p) for p in st.promises]
    promised = {v for v in st.promised if v in new_builds}
    if taken is not None:
        v, owner = taken
        if v in st.promised and team_of(st.fmt, owner) != team_of(st.fmt, mover):
            promises[owner].add(v)
            promised.discard(v)
    promises[mover].discard(played_value)
    if played_value != made and played_value in new_builds and new_builds[played_value][0] == mover:
        promised.discard(played_value)
    if made is not None:
        promised.add(made)
    return tuple(frozenset(p) for p in promises), frozenset(promised)


def _capture_or_stay(before: _State, dec: tuple, stay: bool) -> _State:
    """Position right after a Stay decision's MOVE (``before`` = the position before it, ``to_move`` M).

    Decline: the capture as played: the build's groups (oldest first), the other groups (canonical order)
    and the played card go onto M's pile (K10), M is the last capturer; a promised build of the other team
    opens its owner's promise (P13).
    Stay (P15): the same cards leave the table and the opponents' piles, but the move is a load: the build
    stays, its new groups (the move's other groups and the played card as a group of its own, sorted together
    in the canonical order: larger card mask first) appended after its existing ones; it passes to M's
    partner, not promised unless it was already his (his promise then stands, P13, P15); nothing goes to M's
    pile and ``last_capturer`` is unchanged.
    Either way the K9 follow-up groups go to M's other builds as chosen, and the played card ends M's own
    promise of V (P13)."""
    _k, M, V, c, groups, fups = dec
    fmt = before.fmt
    hands = tuple((h & ~(1 << c)) if s == M else h for s, h in enumerate(before.hands))
    used = 0
    for g in groups:
        used |= g
    piles = list(before.piles)
    for q in range(len(piles)):
        if team_of(fmt, q) == team_of(fmt, M):
            continue                       # K8: only opponents' piles
        k = sum(1 for x in piles[q] if used >> x & 1)
        if k:
            assert all(used >> x & 1 for x in piles[q][len(piles[q]) - k:]), "K8: top cards only"
            piles[q] = piles[q][:len(piles[q]) - k]
    loose = before.loose & ~used
    builds = dict(before.builds)
    owner, gs = builds[V]
    lc = before.last_capturer
    if stay:
        builds[V] = (partner_of(fmt, M), gs + tuple(sorted(groups + (1 << c,), reverse=True)))
        taken = None                       # P15: a build kept by a Stay opens no promise
    else:
        del builds[V]
        piles[M] = piles[M] + tuple(capture_order(gs, groups, c))   # K10
        lc = M
        taken = (V, owner)
    by_build: dict[int, list[int]] = {}
    for W, S in fups:
        by_build.setdefault(W, []).append(S)
        loose &= ~S
    for W, ms in by_build.items():
        o, wgs = builds[W]
        builds[W] = (o, wgs + tuple(sorted(ms, reverse=True)))
    promises, promised = _promises_after(before, M, V, builds, taken=taken)
    if stay and owner != partner_of(fmt, M):
        promised = promised - {V}          # P13: a build its owner came to own by a Stay is not promised
    return _State(fmt, before.deal, M, hands, loose, builds, tuple(piles), before.stock, lc, False,
                  promises, promised, opts=before.opts)


LEAD_KEYS = {s: Z(7, 0, s, 0) for s in (0, 1)}   # ENGINE.md: lead seat s -> Z(7, 0, s, 0)
DECLINE_KEY = Z(7, 1, 0, 0)
STAY_KEY = Z(7, 1, 1, 0)


def _decision_options(st: _State) -> list:
    """Options of a pending decision (ENGINE.md "Four players", "Decisions that are not card plays").

    Lead (P11): seat 0 answers for team AB; ``result`` is the same state with the chosen seat (0 or 1) to
    move.  The options have no features (the greedy bot draws as random).
    Stay (P15): ``decline`` (the capture, with the capture's features) and ``stay`` (the load: nothing goes
    to a pile, so greedy always declines); their results pass the turn on from the capturing seat."""
    dec = st.decision
    if dec[0] == "lead":
        out = []
        for s in (0, 1):
            res = st.replace(to_move=s, decision=None)
            out.append(DecisionOption("lead", LEAD_KEYS[s], res, res, seat=s))
        return out
    M = dec[1]
    before = st.replace(to_move=M, decision=None)
    out = []
    for kind, key, stay in (("stay", STAY_KEY, True), ("decline", DECLINE_KEY, False)):
        after = _capture_or_stay(before, dec, stay)
        out.append(DecisionOption(kind, key, after, features=_features(after, before, M), seat=M))
    return out


def _subsets_by_sum(cards: list[int], maxsum: int = 10) -> dict[int, list[int]]:
    """All subsets (masks) of ``cards`` whose value sum is <= maxsum, by sum.  sub[0] == [0]."""
    acc = [(0, 0)]
    for c in cards:
        v = value(c)
        acc += [(m | (1 << c), s + v) for (m, s) in acc if s + v <= maxsum]
    out: dict[int, list[int]] = {s: [] for s in range(maxsum + 1)}
    for m, s in acc:
        out[s].append(m)
    for s in out:
        out[s].sort()
    return out


def _loose_collections(V, avail, sub):
    """All collections (lists) of disjoint non-empty loose-only groups of sum V within ``avail``,
    each returned with the loose mask left over.  The empty collection is included."""
    return disjoint_collections([S for S in sub.get(V, ()) if S], avail)


class _Collections:
    """Collections of disjoint groups of sum V made of loose cards (within ``avail``) and opponent pile cards.

    K8 with any number of opponents: from EACH opponent pile (``tops[j]``, exposed card first) a move uses
    its top k_j cards in order (k_j >= 0), each card of one pile in a different group (two covered cards
    never complete one group); cards of two different piles may share a group; the mover's own pile is never
    in ``tops``.  A group may be pile cards alone (P4): whether the move as a whole is grounded (K4, K5) is
    the caller's check.  With ``seed`` (the played card's value, for a build or load) the played card's
    group is part of each collection: ``groups[0]``, given without the played card (empty when seed == V).

    ``out`` lists (groups, loose_left, ks): groups are card masks, ks the cards used from each pile.  Each
    collection is made once: pile cards are placed pile by pile, top down, each into an earlier group
    holding no card of its pile or into a new group; then the groups short of V are completed with loose
    cards; then any loose-only groups are added.  Groups in the making are (mask, sum, piles bit mask)."""

    def __init__(self, V: int, avail: int, tops: list, sub: dict, seed=None):
        self.V, self.avail, self.tops, self.sub = V, avail, tops, sub
        self.n_loose = popcount(avail)
        self.caps = []   # a used pile card is worth at most V: the usable prefix of each pile
        for top in tops:
            k = 0
            while k < len(top) and value(top[k]) <= V:
                k += 1
            self.caps.append(k)
        self.fits_memo = {}
        self.out = []
        start = [(0, seed, 0)] if seed is not None else []
        if any(self.caps):
            self.place(0, 0, start, ())
        else:
            self.finish(start, (0,) * len(tops))

    def place(self, j, d, groups, ks) -> None:
        """Pile j at depth d: stop here (k_j = d), or put its card d into a group holding no card of pile j."""
        if j == len(self.tops):
            self.finish(groups, ks)
            return
        if self.hopeless(groups, j, d):
            return
        self.place(j + 1, 0, groups, ks + (d,))
        if d >= self.caps[j]:
            return
        c = self.tops[j][d]
        v = value(c)
        for i in range(len(groups) + 1):
            if i == len(groups):
                ng = groups + [(1 << c, v, 1 << j)]
            else:
                gm, gs, gp = groups[i]
                if gp >> j & 1 or gs + v > self.V:
                    continue
                ng = groups[:i] + [(gm | 1 << c, gs + v, gp | 1 << j)] + groups[i + 1:]
            self.place(j, d + 1, ng, ks)

    def future(self, i, j, d):
        """The cards of pile i that may still be used while pile j is at depth d (piles before j are done)."""
        return self.tops[i][d:self.caps[i]] if i == j else self.tops[i][:self.caps[i]]

    def hopeless(self, groups, j, d) -> bool:
        """Prune (cuts no move).  Every group still short of V at the end needs its own loose cards.  A short
        group that can take a card of one more pile only is completed by pile cards alone only with a card
        of that pile worth exactly its shortfall, distinct for distinct groups; one that can take no more
        pile cards needs its loose cards now."""
        V = self.V
        short = [(gs, gp) for _gm, gs, gp in groups if gs < V]
        if not short:
            return False
        closed, single, several = [], {}, 0
        for gs, gp in short:
            sources = [i for i in range(j, len(self.tops)) if not gp >> i & 1 and self.future(i, j, d)]
            if not sources:
                closed.append(V - gs)
            elif len(sources) == 1:
                single[sources[0], V - gs] = single.get((sources[0], V - gs), 0) + 1
            else:
                several += 1
        completable = several + sum(min(n, sum(1 for c in self.future(i, j, d) if value(c) == need))
                                    for (i, need), n in single.items())
        return len(short) - completable > self.n_loose or not self.fits(tuple(sorted(closed)))

    def fits(self, needs: tuple) -> bool:
        """Whether disjoint loose cards of ``avail`` can make up each of the shortfalls ``needs`` (memoised)."""
        if needs not in self.fits_memo:
            def rec(i, av):
                return i == len(needs) or any((S & av) == S and rec(i + 1, av & ~S)
                                              for S in self.sub.get(needs[i], ()))
            ok = len(needs) <= self.n_loose and rec(0, self.avail)
            self.fits_memo[needs] = ok
        return self.fits_memo[needs]

    def finish(self, groups, ks) -> None:
        """Complete every group short of V with disjoint loose cards, then add loose-only groups."""
        V, sub = self.V, self.sub

        def fill(i, av, masks):
            if i == len(groups):
                self.out.extend((masks + extra, left, ks) for extra, left in _loose_collections(V, av, sub))
                return
            gm, gs, _gp = groups[i]
            if gs == V:
                fill(i + 1, av, masks + [gm])
                return
            for S in sub.get(V - gs, ()):
                if (S & av) == S:
                    fill(i + 1, av & ~S, masks + [gm | S])

        fill(0, self.avail, [])


def _collections(V: int, avail: int, tops: list, sub: dict, seed=None) -> list:
    """(groups, loose_left, ks) for every collection of groups of sum V (see ``_Collections``)."""
    return _Collections(V, avail, tops, sub, seed).out


class _Gen:
    """Move generation for one position (K3-K11; 4p K15, P11-P15).  ``card`` emits every move of one hand
    card; ``moves`` keeps one move per resulting position (P7: equal keys are equal moves)."""

    def __init__(self, st: _State):
        self.st = st
        self.F = st.rules                   # the format's flags with the state's options applied
        self.p = st.to_move
        self.loose = st.loose
        self.builds = st.builds
        self.sub = _subsets_by_sum(bits(st.loose))
        # K8: the piles of every opponent, never the mover's own nor (4p, K15) his teammate's; tops[j][0] is
        # the exposed card of seat opps[j]'s pile.
        self.opps = [q for q in range(self.F["seats"]) if self.is_opp(q)] if self.F["pile_cards"] else []
        self.tops = [tuple(reversed(st.piles[q])) for q in self.opps]
        self.no_piles = (0,) * len(self.opps)
        self.owned = {v for v, (o, _gs) in st.builds.items() if o == self.p}
        self.h_before = mask_hash(st)
        self.moves: dict[int, RefMove] = {}
        # 4p (K15): the teammate; his open promises (P13), which the mover may rebuild for him (P14)
        self.partner = partner_of(st.fmt, self.p)
        self.rebuildable = st.promises[self.partner] if self.partner is not None else frozenset()

    def is_opp(self, seat) -> bool:
        """A seat of the other team (K15); without teams every other seat."""
        return team_of(self.st.fmt, seat) != team_of(self.st.fmt, self.p)

    def may_own_another(self, seat) -> bool:
        """K5/P6 generalised (option ``max_builds_owned`` N; None = unlimited): a seat owning N builds may not
        come to own another (create one, or change an opponent's build; a rebuild P14 or a Stay P15 counts
        for the partner who would own it); loads never change an owner and stay allowed.  Durban: N = 1."""
        N = self.F["max_builds"]
        return N is None or sum(1 for o, _gs in self.builds.values() if o == seat) < N

    # ----------------------------------------------------------------------------- making positions
    def make(self, c, new_loose, new_builds, ks, captured=None, made=None, taken=None) -> _State:
        """Position right after playing c: ``ks`` cards taken from the top of each opponent pile (K8);
        ``captured`` (capture only) goes on the mover's pile, who becomes the last capturer.  4p: the
        promises after the move (P13; ``made`` the value of a build created or changed, ``taken`` (V, owner)
        of a captured build)."""
        p, st = self.p, self.st
        hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
        piles = list(st.piles)
        for q, k in zip(self.opps, ks):
            if k:
                piles[q] = piles[q][:len(piles[q]) - k]
        lc = st.last_capturer
        if captured is not None:
            piles[p] = piles[p] + tuple(captured)
            lc = p
        promises, promised = _promises_after(st, p, value(c), new_builds, made, taken)
        return _State(st.fmt, st.deal, p, hands, new_loose, new_builds, tuple(piles), st.stock, lc, False,
                      promises, promised, opts=st.opts)

    def emit(self, c, kind, after, stay=None) -> None:
        """Record a move; its key is H(after) ^ H(before) (ENGINE.md); one move per key (P7).  ``stay``: the
        P15 decision the move raises (a capture of a build whose value the partner holds)."""
        key = mask_hash(after) ^ self.h_before
        if key not in self.moves:
            self.moves[key] = RefMove(c, kind, key, after, self.st, self.p, stay)

    def followup_sets(self, new_loose, base_builds) -> list:
        """K9/P5 (khasino family only): every collection of disjoint loose-only groups, each added to a build
        the mover owns after the main action, of that build's value; with the loose cards left."""
        owned_after = sorted(v for v, (o, _g) in base_builds.items() if o == self.p)
        if not (self.F["followups"] and owned_after and new_loose):
            return [([], new_loose)]
        cands = [(S, W) for W in owned_after for S in self.sub.get(W, ()) if S]
        return disjoint_collections(cands, new_loose, key=lambda t: t[0])

    def with_followups(self, c, kind, new_loose, base_builds, new_groups, ks, captured=None, made=None,
                       taken=None, stay_groups=None) -> None:
        """Emit the main action and each of its follow-up variants.  ``new_groups``: {value: [masks]} the main
        action adds to builds; a build's new groups of one move are appended sorted together, larger mask
        first (RULES.md "Build groups").  ``stay_groups`` (4p, P15): the capture's other groups when the
        partner is to be asked Stay; each variant then carries its decision tuple (ENGINE.md MOVE:
        groups in canonical order, follow-ups by build value, then canonical order)."""
        for extra, left in self.followup_sets(new_loose, base_builds):
            stay = None
            if stay_groups is not None:
                fups = tuple(sorted(((W, S) for S, W in extra), key=lambda t: (t[0], -t[1])))
                stay = ("stay", self.p, value(c), c, tuple(sorted(stay_groups, reverse=True)), fups)
            add = {W: list(ms) for W, ms in new_groups.items()}
            for S, W in extra:
                add.setdefault(W, []).append(S)
            nb = dict(base_builds)
            for W, ms in add.items():
                o, gs = nb[W]
                nb[W] = (o, gs + tuple(sorted(ms, reverse=True)))
            self.emit(c, kind, self.make(c, left, nb, ks, captured, made, taken), stay)

    # ----------------------------------------------------------------------------- the five kinds
    def captures(self, c, last_committed) -> None:
        """K4: the played card takes a build of its value (whole) and/or groups of its value from loose and
        exposed pile cards (K8), at least one table unit (table-grounded); pile order K10.  P1: the last
        committed card only in a capture that takes its build.  4p (P15): a capture that takes the build of value
        V while the mover's partner holds a V card is played only after the partner's Stay decision."""
        pv = value(c)
        # P15: the partner holds a card of the build's value (the offer is made whoever owns the build)
        stay_offer = self.partner is not None and any(value(x) == pv for x in bits(self.st.hands[self.partner]))
        if stay_offer and pv in self.builds and self.builds[pv][0] != self.partner:
            # K5/P6 generalised: a Stay would give the partner one more build; not offered past the limit
            stay_offer = self.may_own_another(self.partner)
        for take_b in ([False, True] if pv in self.builds else [False]):
            if last_committed and not take_b:
                continue
            taken = (pv, self.builds[pv][0]) if take_b else None
            for groups, left, ks in _collections(pv, self.loose, self.tops, self.sub):
                if not take_b and not any(g & self.loose for g in groups):
                    continue  # non-empty and K4 table-grounded: never pile cards alone
                nb = dict(self.builds)
                build_groups = nb.pop(pv)[1] if take_b else ()
                captured = capture_order(build_groups, groups, c)   # K10 pile order
                self.with_followups(c, "capture", left, nb, {}, ks, captured, taken=taken,
                                    stay_groups=groups if take_b and stay_offer else None)

    def new_builds(self, c, rest_vals) -> None:
        """K5: a new build of value V (no build of V yet, K2) holding a V card after the play: the played card's
        group (alone when its value is V) plus other groups; at least one loose card, pile cards never
        alone (K8, P4).  P6: a durban player owning a build makes no other (option ``max_builds_owned`` N:
        a player owning N builds makes no other).
        4p, P14 rebuild: while V is among the partner's open promises (P13) and no build of V is on the table,
        the same K5 build may be made owned by the partner, without the mover holding a V card; it is a
        different move from the mover's own build of V (the owner differs).  K9: the follow-ups go only to
        the mover's own builds, never to the rebuilt one (``followup_sets`` reads the owner)."""
        mine = self.may_own_another(self.p)            # P6 generalised (max_builds_owned)
        theirs = self.partner is not None and self.may_own_another(self.partner)
        if not (mine or theirs):
            return
        for V in range(value(c), 11):
            if V in self.builds:
                continue
            owners = [self.p] if V in rest_vals and mine else []
            if V in self.rebuildable and theirs:
                owners.append(self.partner)            # P14
            if not owners:
                continue
            for groups, left, ks in _collections(V, self.loose, self.tops, self.sub, seed=value(c)):
                if not any(g & self.loose for g in groups):
                    continue
                for owner in owners:
                    nb = dict(self.builds)
                    nb[V] = (owner, ())
                    self.with_followups(c, "build", left, nb, {V: [groups[0] | 1 << c] + groups[1:]}, ks,
                                        made=V)

    def loads(self, c, rest_vals) -> None:
        """K6: complete groups of V (the played card in one) added to any build of V, the mover still holding a
        V card; the owner does not change; grounded by the build (P4).  4p, P12: a teammate's build may be
        loaded without holding V (the mover's own builds still bind him, P1: see ``card``)."""
        for V in sorted(self.builds):
            if V < value(c):
                continue
            if V not in rest_vals and self.builds[V][0] != self.partner:
                continue
            for groups, left, ks in _collections(V, self.loose, self.tops, self.sub, seed=value(c)):
                new = [groups[0] | 1 << c] + groups[1:]
                self.with_followups(c, "load", left, dict(self.builds), {V: new}, ks)

    def changes(self, c, rest_vals) -> None:
        """K7: raise an opponent's simple build to a new value <= 10 that no build has, the mover holding a card
        of it; it stays simple and passes to the mover.  P6 (generalised, option ``max_builds_owned`` N): a
        mover owning N builds may not change (it would give him one more).  Option ``change_mode``: 0 (khasino)
        a two-card build, the played card alone; 1 (durban) any simple build, the played card plus optional
        loose cards and exposed opponent pile cards (one group: at most the exposed card of each pile, K8)."""
        if not self.may_own_another(self.p):
            return
        for V in sorted(self.builds):
            o, gs = self.builds[V]
            if not self.is_opp(o) or len(gs) != 1:
                continue  # opponent's simple build only (K7; 4p: never the mover's or his teammate's, K15)
            if self.F["change"] == "two_card_alone":
                if popcount(gs[0]) == 2:  # khasino: two-card build, played card alone
                    self.change_to(c, V, gs[0] | 1 << c, 0, self.no_piles, rest_vals)
            else:  # durban: optional extra cards
                for T, tv, ks in self.exposed_choices(10 - V - value(c)):
                    for extra in range(10 - V - value(c) - tv + 1):
                        for S in self.sub.get(extra, ()):
                            self.change_to(c, V, gs[0] | 1 << c | S | T, S, ks, rest_vals)

    def exposed_choices(self, room) -> list:
        """A change has one group, so it uses at most the exposed card of each opponent pile (K8): every such
        choice with sum <= room, as (mask, sum, ks)."""
        out = [(0, 0, self.no_piles)]
        for j, top in enumerate(self.tops):
            if top:
                c, v = top[0], value(top[0])
                out += [(m | 1 << c, s + v, ks[:j] + (1,) + ks[j + 1:]) for m, s, ks in out if s + v <= room]
        return out

    def change_to(self, c, V, group, used_loose, ks, rest_vals) -> None:
        """The change of build V into a simple build made of ``group`` (old group + added cards), if legal; with
        its K9 follow-ups where the options have them (``with_followups`` emits the change alone otherwise)."""
        nv = mask_sum(group)
        if nv > 10 or nv in self.builds or nv not in rest_vals:
            return
        nb = dict(self.builds)
        del nb[V]
        nb[nv] = (self.p, (group,))
        self.with_followups(c, "change", self.loose & ~used_loose, nb, {}, ks, made=nv)

    def trail(self, c) -> None:
        """K11: the card becomes loose.  khasino family: not when a loose card or build of its value is on the
        table (option ``trail_restricted``); 1v1 khasino only: not in the first deal while owning a build
        (option ``no_trail_own_build_first_deal``; in the one-deal 3p/4p formats the whole game is deal 1)."""
        pv = value(c)
        if self.F["trail_same_value"] and (any(value(x) == pv for x in bits(self.loose)) or pv in self.builds):
            return
        if self.F["no_trail_owning_deal1"] and self.st.deal == 1 and self.owned:
            return
        self.emit(c, "trail", self.make(c, self.loose | 1 << c, dict(self.builds), self.no_piles))

    def card(self, c) -> None:
        """Every move playing hand card c."""
        rest_vals = {value(x) for x in bits(self.st.hands[self.p] & ~(1 << c))}
        # P1: owning a build of W, the last W card may only be played in a capture that takes that build.
        last_committed = value(c) in self.owned and value(c) not in rest_vals
        self.captures(c, last_committed)
        if last_committed:
            return
        self.new_builds(c, rest_vals)
        self.loads(c, rest_vals)
        self.changes(c, rest_vals)
        self.trail(c)


def _generate(st: _State) -> list[RefMove]:
    """Distinct legal moves of the seat to move (P7)."""
    g = _Gen(st)
    for c in bits(st.hands[st.to_move]):
        g.card(c)
    return list(g.moves.values())


def _legal(st: _State) -> list:
    if st.over or st.to_move is None:
        return []
    if st.decision is not None:
        return _decision_options(st)        # 4p: P11 lead, P15 stay/decline
    return _generate(st)


def legal_moves(state: dict) -> list:
    """Distinct legal moves of the seat to play, each playing one card (K3; P7: distinct by key), in no particular
    order.  Empty when the game is over or (never in reachable play) when the seat to move has no legal move: see
    ``fallback_move``.  For a 4p decision state, its options (``DecisionOption``: lead seat 0 / 1, or stay /
    decline)."""
    return _legal(_from_json(state))


def _fallback(st: _State) -> RefMove:
    """K11 / ENGINE.md: no legal move at all -> trail the first hand card in card-index order."""
    p = st.to_move
    c = bits(st.hands[p])[0]
    hands = tuple((h & ~(1 << c)) if s == p else h for s, h in enumerate(st.hands))
    promises, promised = _promises_after(st, p, value(c), st.builds)
    after = _State(st.fmt, st.deal, p, hands, st.loose | (1 << c), dict(st.builds), st.piles, st.stock,
                   st.last_capturer, False, promises, promised, opts=st.opts)
    return RefMove(c, "trail", mask_hash(after) ^ mask_hash(st), after, st, p)


def fallback_move(state: dict) -> RefMove:
    return _fallback(_from_json(state))


# ---------------------------------------------------------------------------------------------------------
# Scoring (K13 1v1; K16/P9 3p; K13 by team in 4p, K15) and the series leader (K16/P10)
# ---------------------------------------------------------------------------------------------------------
def _award_majority(out: list, field: str, pts: int) -> None:
    """K13: ``pts`` to the seat with most ``field``; split 1-1 on a (1v1) tie."""
    best = max(s[field] for s in out)
    leaders = [s for s in out if s[field] == best]
    for s in out:
        if s[field] != best:
            s["most_" + field] = 0
        elif len(leaders) == 1:
            s["most_" + field] = pts
        else:
            s["most_" + field] = pts // 2


def _score_piles(piles, fmt: str = "khasino") -> list[dict]:
    """Per-seat score of the piles.  K13 (1v1): most cards 2, most spades 2, aces 1 each, 2S 1, 10D 2 (11).
    K16/P9 (3p): only the card points (7); most cards / most spades score nothing (0 here) and only break
    ties (``winner``).  4p (K13, K15): see ``_score_teams``."""
    out = []
    for pile in piles:
        out.append({
            "cards": len(pile),
            "spades": sum(1 for c in pile if (c & 3) == 0),
            "aces": sum(1 for c in pile if (c >> 2) == 0),       # 1 point each
            "two_spades": 1 if TWO_SPADES in pile else 0,         # points
            "ten_diamonds": 2 if TEN_DIAMONDS in pile else 0,     # points
        })
    if FORMATS[fmt]["teams"] is not None:
        return _score_teams(out, FORMATS[fmt]["teams"])
    if FORMATS[fmt]["scoring"] == "K16":
        for s in out:
            s["most_cards"] = s["most_spades"] = 0               # P9: tie-breakers only
    else:
        _award_majority(out, "cards", 2)
        _award_majority(out, "spades", 2)
    for s in out:
        s["total"] = s["aces"] + s["two_spades"] + s["ten_diamonds"] + s["most_cards"] + s["most_spades"]
    return out


def _score_teams(out: list, teams) -> list[dict]:
    """4p (K13 on pooled piles, K15): teammates' piles count together.  Each seat's dict keeps its own pile's
    ``cards``, ``spades``, ``aces``, ``two_spades``, ``ten_diamonds`` and adds ``team`` (0 = AB, 1 = CD), the
    team's pooled ``team_cards``, ``team_spades``, ``team_aces``, ``team_two_spades``, ``team_ten_diamonds``,
    and the team's ``most_cards``, ``most_spades`` (2 each, split 1-1 on a tie) and ``total`` (the team's K13
    score, the same for both teammates; the two teams' totals make 11)."""
    fields = ("cards", "spades", "aces", "two_spades", "ten_diamonds")
    pooled = [{f: sum(out[s][f] for s in t) for f in fields} for t in teams]
    _award_majority(pooled, "cards", 2)
    _award_majority(pooled, "spades", 2)
    for ti, t in enumerate(teams):
        p = pooled[ti]
        p["total"] = p["aces"] + p["two_spades"] + p["ten_diamonds"] + p["most_cards"] + p["most_spades"]
        for s in t:
            out[s]["team"] = ti
            for f in fields:
                out[s]["team_" + f] = p[f]
            for f in ("most_cards", "most_spades", "total"):
                out[s][f] = p[f]
    return out


def score(state: dict) -> list[dict]:
    """Per-seat score dicts of a (final) state; ``total`` is the game score (K13: 11 points; P9: 7; 4p: the
    seat's team's score, K15)."""
    st = _from_json(state)
    return _score_piles(st.piles, st.fmt)


def winner(fmt: str, scores: list[dict]) -> int:
    """The winning seat.  K13 (1v1): the higher total (11 points: never a tie).  K16/P9 (3p): most points,
    then most cards, then most spades, then the holder of 10D.  4p (K13, K15): the winning TEAM (0 = AB,
    1 = CD), the higher team total (11 points: never a tie).  A tie that survives (impossible for the scores
    of a finished game under K12; possible with option ``last_capturer_takes_table`` false, where
    ``play_game`` reports no winner) raises ValueError."""
    teams = FORMATS[fmt]["teams"]
    if teams is not None:
        totals = [scores[t[0]]["total"] for t in teams]
        if totals[0] == totals[1]:
            raise ValueError(f"no winner: teams tied on {totals[0]}")
        return totals.index(max(totals))
    if FORMATS[fmt]["scoring"] == "K16":
        keys = [(s["total"], s["cards"], s["spades"], s["ten_diamonds"]) for s in scores]
    else:
        keys = [(s["total"],) for s in scores]
    best = max(keys)
    if keys.count(best) > 1:
        raise ValueError(f"no winner: tied on {best}")
    return keys.index(best)


def series_leader(fmt: str, scores: list[dict], prev_winner: int | None = None) -> int:
    """K16/P10: the seat that leads the next match of a 3p series: the fewest points (``total``; cards and
    spades do not break this tie); among tied seats the seat after the previous winner in turn order (P8),
    which leaves the winner playing last, if it is tied, else the lowest-numbered tied seat.
    ``prev_winner`` defaults to ``winner(fmt, scores)``.  1v1 has no such rule (K14: seats rotate between
    games in the simulator), nor has 4p (K15: one game, team AB leads, the simulator swaps the teams), so
    other formats raise ValueError."""
    if not FORMATS[fmt]["any_leader"]:
        raise ValueError(f"{fmt}: no series leader rule (K14: seat 0 leads)")
    if prev_winner is None:
        prev_winner = winner(fmt, scores)
    low = min(s["total"] for s in scores)
    tied = [seat for seat, s in enumerate(scores) if s["total"] == low]
    after_winner = next_seat(fmt, prev_winner)
    return after_winner if after_winner in tied else min(tied)


# ---------------------------------------------------------------------------------------------------------
# Bots (ENGINE.md "Bots"; ``choose``, the draw and the play loop are ``common``'s)
# ---------------------------------------------------------------------------------------------------------
def play_game(fmt: str, game_seed: int, bots=None, leader: int = 0, options=None) -> dict:
    """Play one game with the built-in bots (``bots[s]`` plays seat s; default all "random"), ``leader``
    moving first (1v1: seat 0 only, K14; 3p: any seat, P8/P10; 4p: 0 only, the game starting with the lead
    decision, P11).  Every bot decision draws exactly one ``next()`` of the bot stream (4p: the lead
    decision by seat 0's bot, each card play, each Stay decision by the partner's bot, in the order they
    arise); a seat without a legal move (never in reachable play) trails its first card without a draw
    (K11).  Returns the keys of the decisions in play order (4p: the lead option, each card play's key, each
    followed by the Stay option chosen when one was offered), per-seat scores, the final state, the
    ``no_move`` count and the winner (the winning seat; 4p the winning team).  ``options``: a (partial)
    options object (``read_options``; absent = the format's rules).  With ``last_capturer_takes_table``
    false the points left on the table score for no one, so a game can tie: ``winner`` is then None."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    bots = seat_bots(fmt, FORMATS[fmt]["seats"], bots)
    st = _initial(fmt, game_seed, leader, options)
    # one draw of the bot stream per bot decision; the K11 fallback asks no bot and draws nothing
    st, keys, no_move = play_out(st, game_seed, bots, _legal, _fallback, choose)
    scores = _score_piles(st.piles, fmt)
    try:
        win = winner(fmt, scores)
    except ValueError:
        if st.rules["sweep_table"]:
            raise                   # K13/P9: a game whose table is swept never ties
        win = None                  # K12 variant: the cards left on the table score for no one
    return {"keys": keys, "scores": scores, "final": _to_json(st), "no_move": no_move, "winner": win}
