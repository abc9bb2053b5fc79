"""What the seat to move sees and the reasons shared by every family, for `why_illegal` (the package's
__init__): the seat's view (`_View`, `Build`, `rank`, the rule options and values), the reasons any family may
give (a decision pending, a named card the move cannot use, a pile, what the entry asks for), the reasons
Khasino and Cassino share (P1/C6, what the table can make), the groups and their sums, and the fallback.

Made from what the seat to move sees alone (docs/rules/project.md, "What bots see"): see the package's
docstring."""
from collections import Counter
from dataclasses import dataclass, field

from ...formats import get_format, with_options
from ..notation import facts

RANK_VALUES = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(r): r for r in range(2, 11)}}
MAX_SPLIT = 10          # named cards at most tried as a partition into groups (3^n subsets)


# --------------------------------------------------------------------------------------------- the seat's view
def _a(n):
    """A number with its article: "a 7", "an 8", "an 11"."""
    return f"an {n}" if str(n).startswith("8") or n in (11, 18) else f"a {n}"


def rank(card):
    """The rank of a card name: `10D` -> `10`."""
    return card[:-1]


@dataclass
class Build:
    """A build as the seat sees it: value, owner and groups (card names)."""
    value: int
    owner: int
    groups: list

    @property
    def cards(self):
        return [c for g in self.groups for c in g]


@dataclass
class _View:
    """What the seat to move sees, read from the state, with the rule options in force."""
    fmt: object
    family: str
    seat: int
    hand: list
    loose: list
    builds: dict
    deal: int
    moves: list
    tops: dict = field(default_factory=dict)        # seat -> exposed top card (Khasino's face-up piles, K8)
    piles: dict = field(default_factory=dict)       # opponent seat -> its pile, read only for cards a legal
                                                    # move uses (those are named in the move's own text)
    partner: int = None                             # the teammate (4p teams)
    partner_promises: tuple = ()                    # the teammate's open promises (P13), public
    used: set = field(default_factory=set)          # every card some legal move uses besides its played card

    @classmethod
    def of(cls, state, moves):
        fmt = get_format(state["format"])
        try:
            fmt = with_options(fmt, state.get("options") or {})
        except (ValueError, TypeError):
            pass
        p = state["to_move"]
        builds = {b["value"]: Build(b["value"], b["owner"], [list(g) for g in b["groups"]])
                  for b in state["table"]["builds"]}
        view = cls(fmt, fmt.family, p, list(state["hands"][p]), list(state["table"]["loose"]), builds,
                   state.get("deal", 1), list(moves))
        if fmt.family == "khasino":
            view.tops = {s: pile[-1] for s, pile in enumerate(state["piles"]) if pile}
            view.piles = {s: list(pile) for s, pile in enumerate(state["piles"]) if pile and view.opponent(s)}
        if fmt.teams:
            team = next((t for t in fmt.teams if p in t), ())
            mates = [s for s in team if s != p]
            view.partner = mates[0] if len(mates) == 1 else None
        promises = state.get("promises") or []
        if view.partner is not None and view.partner < len(promises):
            view.partner_promises = tuple(promises[view.partner])
        for m in moves:
            if m.card is not None:
                view.used.update(facts(m)[3])
        return view

    # ------------------------------------------------------------------------------------------ rule options
    @property
    def partner_rules(self):
        """K15's partner loads, rebuilds and Stay are in force."""
        return self.family == "khasino" and bool(self.fmt.teams) and self.fmt.partner_rules

    def opponent(self, s):
        return s != self.seat and (not self.fmt.teams or self.fmt.team_of(s) != self.fmt.team_of(self.seat))

    def usable_tops(self):
        """The exposed pile cards the seat may use: its opponents' tops in Khasino with opponent_piles (K8)."""
        if self.family != "khasino" or not self.fmt.opponent_piles:
            return {}
        return {s: c for s, c in self.tops.items() if self.opponent(s)}

    # --------------------------------------------------------------------------------------------- values
    def values(self, card):
        """The values `card` counts played from the hand: Khasino its rank (A 1); Cassino its number, none for
        a face card without face_values (P16), an ace also 14 under ace_14 (P17); Kasino A 14, J Q K 11-13."""
        r = RANK_VALUES[rank(card)]
        if self.family == "kasino":
            return {14 if r == 1 else r}
        if self.family == "cassino":
            if r > 10 and not self.fmt.face_values:
                return set()
            return {1, 14} if r == 1 and self.fmt.ace_14 else {r}
        return {r}

    def value(self, card):
        """The card's value played from the hand (its smallest, an ace 1 in Cassino); None for a face card
        without a number (P16)."""
        vs = self.values(card)
        return min(vs) if vs else None

    def table_value(self, card):
        """What a table card counts in a sum: its rank (A 1; Kasino J Q K 11-13); None for a Cassino face card
        without face_values (P16)."""
        r = RANK_VALUES[rank(card)]
        if self.family == "cassino" and r > 10 and not self.fmt.face_values:
            return None
        return r

    def keeps(self, card, v):
        """After playing `card` the seat still holds a card of value v."""
        rest = list(self.hand)
        rest.remove(card)
        return any(v in self.values(c) for c in rest)

    def owned(self, seat=None):
        s = self.seat if seat is None else seat
        return [b for b in self.builds.values() if b.owner == s]

    def card_moves(self, card):
        return [m for m in self.moves if m.card == card]

    @property
    def rules(self):
        return RULES[self.family]


RULES = {   # the rule that says what each kind of move is, per family
    "khasino": {"one": "K3", "capture": "K4", "build": "K5", "load": "K6", "change": "K7",
                "trail": "K11", "commit": "P1", "max": "K2"},
    "cassino": {"one": "C3", "capture": "C3", "build": "C4", "load": "C5", "change": "C5",
                "trail": "C6", "commit": "C6", "max": "P17"},
    "kasino": {"one": "N2", "capture": "N2", "build": "N2", "load": "N2", "change": "N2",
               "trail": "N2", "commit": "N2", "max": "N2"},
}


# ------------------------------------------------------------------------- the reasons shared by all families
def _shape_reason(view, entry):
    """What the entry asks for is impossible whatever the cards: a build in Kasino (N2), a build value out of
    range (K2, P17), a build to capture that is not on the table or not of the card's value (K4, C3), a face
    card built without face_values (P16)."""
    if view.family == "kasino":
        if entry.kind == "build" or entry.target is not None:
            return "Kasino has no builds: a card captures or, with no match, crawls (N2)"
        return None
    vs = view.values(entry.card)
    if entry.kind == "build":
        if not vs:
            return f"{entry.card} has no number: a face card is never built (C1, P16)"
        top = view.fmt.max_build_value
        if entry.value > top:
            return f"a build is at most {top}{' here' if view.family == 'cassino' else ''} ({view.rules['max']})"
        if entry.value < 1:
            return f"a build's value is at least 1 ({view.rules['max']})"
        if min(vs) > entry.value:
            return f"{entry.card} is {_a(min(vs))}: it cannot make a build of {entry.value} ({view.rules['build']})"
    t = entry.target
    if t is not None:
        if t not in view.builds:
            return f"there is no build of {t} on the table"
        if t not in vs:
            shown = _a(min(vs)) if vs else "a face card, with no number (P16)"
            return f"the build of {t} is taken only by a card of value {t}, and {entry.card} is {shown} " \
                   f"({view.rules['capture']})"
    return None


def _decision_pending(view):
    """4p: a decision is asked before any card is played (P11 lead, P15 Stay)."""
    kinds = {m.kind for m in view.moves}
    if "lead" in kinds:
        return "team AB first chooses who leads: type lead 0 or lead 1 (P11)"
    return "first answer your partner's capture of a build: type stay or decline (P15)"


def _named_reason(view, entry):
    """A named card the move cannot use: the played card again, another hand card, a build's card, a pile the
    seat may not use, or a card not on the table (one answer for every card not to be seen)."""
    loose = Counter(view.loose)
    tops = Counter(view.usable_tops().values())
    rules = view.rules
    for c, n in Counter(entry.cards).items():
        if n <= loose[c] + tops[c] or c in view.used:
            continue
        if c == entry.card and (n == 1 or view.hand.count(c) < 2):
            return f"{c} is the card you play: name only the other cards the move uses"
        if c in view.hand:
            return f"{c} is in your hand: a move plays one card from your hand and uses table cards ({rules['one']})"
        build = next((b for b in view.builds.values() if c in b.cards), None)
        if build is not None:
            return _build_card(view, entry, c, build)
        pile = _pile_reason(view, c)
        if pile:
            return pile
        if loose[c]:
            return f"only {loose[c]} {c} {'is' if loose[c] == 1 else 'are'} on the table, not {n}"
        where = "on the table nor an opponent's exposed pile card" if view.usable_tops() else "on the table"
        return f"{c} is not {where}"
    return None


def _build_card(view, entry, c, build):
    """A named card that lies in a build: a build is taken whole (K4, C3) and is not taken apart."""
    w = build.value
    if entry.kind == "capture" or entry.kind is None:
        return (f"{c} is part of build {w}, which is taken whole, only by a card of value {w} (write x b{w}) "
                f"({view.rules['capture']})")
    return f"{c} is already in build {w}: name only the cards your move adds ({view.rules['load']})"


def _pile_reason(view, c):
    """A named card that is a pile top the seat sees but may not use (K8)."""
    if view.family != "khasino":
        return None
    for s, top in view.tops.items():
        if top != c:
            continue
        if s == view.seat:
            return f"{c} is on your own pile, which you may never use (K8)"
        if not view.opponent(s):
            return f"{c} is on your teammate's pile: you may not use your teammate's pile (K8)"
        if not view.fmt.opponent_piles:
            return f"{c} is on an opponent's pile: opponents' pile cards are not used in this game " \
                   f"(K8, option opponent_piles)"
    return None


def _kind_of(view, entry):
    """What the entry asks for: trail, capture, build, or None (a card alone, or a card with cards named)."""
    if entry.kind:
        return entry.kind
    if entry.target is not None:
        return "capture"
    return None


# ---------------------------------------------------------------------- the reasons Khasino and Cassino share
def _commit_clause(view, card):
    """P1 (Cassino: C6): the last card of the value of a build the seat owns only captures that build."""
    for b in view.owned():
        if b.value in view.values(card) and not view.keeps(card, b.value):
            also = " or raise it" if view.family == "cassino" else ""
            return (f"{card} is your last {b.value} and you own build {b.value}: it may only capture that "
                    f"build{also} ({view.rules['commit']})")
    return None


def _commit_blocks(view, entry, target=None):
    """The P1 clause (Cassino: C6) when it forbids this entry: the card is the last of the value of a build the
    seat owns, and the entry is not a capture of that build (`target`)."""
    for b in view.owned():
        if b.value in view.values(entry.card) and not view.keeps(entry.card, b.value) and target != b.value:
            return _commit_clause(view, entry.card)
    return None


def _can_take(view, v):
    """Some loose card (with exposed pile cards) or a build makes a unit of v (K4)."""
    if v in view.builds:
        return True
    pool = [(c, view.table_value(c), "loose") for c in view.loose]
    pool += [(c, view.table_value(c), s) for s, c in view.usable_tops().items()]
    return _subset_sum(pool, v, need_loose=True)


def _new_build_plausible(view, card, V, named):
    """A new build of V with `card` and the named cards (or some loose cards) could be made, keep aside."""
    if not view.loose:
        return False
    if named:
        return _partition(view, [card], named, V, "build") is not None
    return _group_possible(view, card, V, need_loose=True)


def _group_possible(view, card, V, need_loose):
    """`card` with loose (and usable pile) cards makes a group of V; alone when its value is V, then (for a new
    build) with another group of V from the table."""
    v = view.value(card)
    pool = [(c, view.table_value(c), "loose") for c in view.loose]
    pool += [(c, view.table_value(c), s) for s, c in view.usable_tops().items()]
    if v == V:
        return not need_loose or _subset_sum(pool, V, need_loose=True)
    return _subset_sum(pool, V - v, need_loose=need_loose)


def _no_group(view, card, V):
    """No loose cards (with exposed pile cards) make a group of V with `card`, or, when it is a V itself,
    another group of V beside it (K5, C4)."""
    if _group_possible(view, card, V, need_loose=True):
        return None
    rule = view.rules["build"]
    if view.value(card) == V:
        return f"no loose cards make a second group of {V} beside {card} ({rule})"
    return f"no loose cards make {V} with {card} ({rule})"


def _no_move(view, card, trail_clause):
    """A card with no legal move at all: it may not trail, and it has nothing else to do."""
    if trail_clause:
        return f"{card} has no legal move now: it may not trail, as {trail_clause}, and it can neither capture " \
               f"nor build"
    return None


# --------------------------------------------------------------------------------------- groups and their sums
def _items(view, cards):
    """Named cards as (name, table value, source): "loose", "hand" (the played card) or a pile's seat (an
    exposed top, or a card under it that a legal move uses, K8)."""
    loose = Counter(view.loose)
    tops = {c: s for s, c in view.usable_tops().items()}
    tops.update({c: s for s, pile in view.piles.items() for c in pile if c in view.used and c not in tops})
    out = []
    for c in cards:
        if loose[c]:
            loose[c] -= 1
            out.append((c, view.table_value(c), "loose"))
        else:
            out.append((c, view.table_value(c), tops.get(c, f"pile {c}")))
    return out


def _partition(view, played, named, V, kind, rank_of=None, follow=(), follow_any_source=False):
    """A partition of the played card (in a group of the main action) and the named cards into groups: main
    groups of value V (at most one card of each pile, K8; Kasino: a card of rank `rank_of` alone, or a set
    summing to V), and follow-up groups of loose cards summing to a value in `follow` (K9); the groups, or
    None. Too many cards to try: an empty partition (nothing is claimed)."""
    items = [(c, view.value(c), "hand") for c in played] + _items(view, named)
    if len(items) > MAX_SPLIT or any(x[1] is None for x in items):
        return [] if len(items) > MAX_SPLIT else None
    hand = [i for i, x in enumerate(items) if x[2] == "hand"]

    def main(group):
        vals = [items[i][1] for i in group]
        srcs = [items[i][2] for i in group if items[i][2] not in ("loose", "hand")]
        if kind == "kasino":
            return (len(group) == 1 and rank(items[group[0]][0]) == rank_of) or sum(vals) == V
        return sum(vals) == V and len(srcs) == len(set(srcs))

    def extra(group):
        if any(i in hand for i in group):
            return False
        if not follow_any_source and any(items[i][2] != "loose" for i in group):
            return False
        return sum(items[i][1] for i in group) in follow

    return _split(len(items), lambda g: main(g) or (bool(follow) and extra(g)))


def _split(n, ok):
    """A partition of range(n) into groups each `ok` (a tuple of indices), or None."""
    memo = {}

    def go(mask):
        if not mask:
            return []
        if mask in memo:
            return memo[mask]
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        found = None
        while True:
            g = sub | low
            group = tuple(i for i in range(n) if g >> i & 1)
            if ok(group):
                tail = go(mask ^ g)
                if tail is not None:
                    found = [group] + tail
                    break
            if sub == 0:
                break
            sub = (sub - 1) & rest
        memo[mask] = found
        return found

    return go((1 << n) - 1)


def _split_reason(view, played, named, V, kind, exclude=None):
    """Why the played card and the named cards do not make the groups of value V a capture (played empty),
    build or load needs: sums, pile cards in one group (K8), follow-ups (K9, P5); None if they do."""
    rule = view.rules["capture" if kind == "capture" else kind]
    own = {b.value for b in view.owned()} - {exclude, V if kind != "capture" else None}
    follow = own if view.family == "khasino" and view.fmt.follow_ups else ()
    if _partition(view, played, named, V, kind, follow=follow) is not None:
        return None
    if view.family == "khasino":
        if not view.fmt.follow_ups and _partition(view, played, named, V, kind, follow=own) is not None:
            return (f"there are no follow-ups in this game: no group may go to build "
                    f"{'/'.join(map(str, sorted(own)))} in the same turn (K9; option follow_ups)")
        if follow and _partition(view, played, named, V, kind, follow=own, follow_any_source=True) is not None:
            return "follow-up groups are made of loose cards only (K9, P5)"
    cards = list(played) + list(named)
    if kind == "capture":
        cards = [c for c in named if view.table_value(c) != V]
    total = sum(view.table_value(c) if c not in played else view.value(c) for c in cards)
    shown = "+".join(cards)
    if not cards:
        return None
    if len(cards) == 1:
        return f"{shown} is {_a(total)}, not {_a(V)} ({rule})"
    if total % V == 0 or total > 2 * V:
        return f"{shown} does not split into groups of {V} ({rule})"
    return f"{shown} sums to {total}, not {V} ({rule})"


def _subset_sum(pool, target, need_loose=False):
    """Some set of (name, value, source) cards sums to `target` (at most one card of each pile), holding a
    loose card when `need_loose`; target 0 is the empty set (when no loose card is needed)."""
    if target == 0:
        return not need_loose
    pool = [x for x in pool if x[1] is not None and x[1] <= target]

    def go(i, left, loose, piles):
        if left == 0:
            return loose or not need_loose
        if i == len(pool) or left < 0:
            return False
        c, v, src = pool[i]
        if v <= left and (src == "loose" or src not in piles):
            if go(i + 1, left - v, loose or src == "loose", piles | ({src} if src != "loose" else set())):
                return True
        return go(i + 1, left, loose, piles)

    return go(0, target, False, frozenset())


def _capture_groups(view, named, values):
    """The named cards split into capture groups of one of `values` (K9 follow-ups to own builds allowed): a
    card entry with cards and no kind then reads as a capture."""
    follow = {b.value for b in view.owned()} if view.family == "khasino" and view.fmt.follow_ups else ()
    return any(_partition(view, [], named, v, "capture", follow=follow) not in (None, []) for v in values)


# ------------------------------------------------------------------------------------------------- fallback
def _entry_words(entry):
    """What the entry asked for, in words: "as a capture taking 4C+5H"."""
    if entry.kind == "trail":
        return "as a trail"
    if entry.kind == "capture":
        parts = ([f"build {entry.target}"] if entry.target else []) + (["+".join(entry.cards)] if entry.cards else [])
        return "as a capture" + (" taking " + " and ".join(parts) if parts else "")
    if entry.kind == "build":
        return f"as a build of {entry.value}" + (f" with {'+'.join(entry.cards)}" if entry.cards else "")
    return f"with {'+'.join(entry.cards)}" if entry.cards else ""


def _move_words(move):
    """A legal move in a few words: "capture 9D", "build 9", "load build 9", "trail"."""
    card, kind, value, others, target = facts(move)
    if move.kind == "trail":
        return "crawl" if move.captured is not None else "trail"
    if move.kind == "capture":
        parts = ([f"build {target}"] if target else []) + (["+".join(others)] if others else [])
        return "capture " + " and ".join(parts) if parts else "capture"
    if move.kind == "load":
        return f"load build {value}"
    if move.kind == "change":
        return f"change a build to {value}"
    return f"build {value}"


def _fallback(entry, moves, shown=5):
    """No specific reason found: what the card can do instead (its legal moves, shortened)."""
    card = entry.card
    mine = [m for m in moves if m.card == card]
    if not mine:
        playable = sorted({m.card for m in moves if m.card is not None})
        if not playable:
            return f"{card} has no legal move now"
        more = ", …" if len(playable) > 10 else ""
        return f"{card} has no legal move now; the cards you can play: {', '.join(playable[:10])}{more}"
    words = []
    for m in mine:
        w = _move_words(m)
        if w not in words:
            words.append(w)
    more = ", …" if len(words) > shown else ""
    how = _entry_words(entry)
    return f"no legal move plays {card}{' ' + how if how else ''}; {card} can: {', '.join(words[:shown])}{more}"
