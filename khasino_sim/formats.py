"""Formats as data: a ruleset record of flags and tables per named format, and the registry by name.

A `Format` is what the kernels read (`rules_array`); adding a format is adding a record here, not code in the
move generator (python-chess's variant registry is the model). Each format registers under its family
(khasino_sim/families/), whose record holds the rule options, their checks, the codec and the engine hooks; a
format of an unknown family is refused when it is made.
"""
from dataclasses import dataclass, field, fields, replace
import hashlib
import json

import numpy as np

from khasino_sim.kernels.core import layout as L
from .codec.common import MAX_MATCH_ROUNDS, SCORE_LIMIT  # noqa: F401 (re-exported)
from .families import FAMILIES, family_of, register_format
from .families.cassino import OPTIONS as CASSINO_OPTIONS  # noqa: F401 (re-exported)
from .families.kasino import OPTIONS as KASINO_OPTIONS  # noqa: F401 (re-exported)
from .families.khasino import OPTIONS  # noqa: F401 (re-exported)

KHASINO_POINTS = {"AS": 1, "AH": 1, "AD": 1, "AC": 1, "2S": 1, "10D": 2}   # K13


@dataclass(frozen=True)
class Format:
    """One playable format: deck, deal schedule, scoring table and the rule options that differ (docs/rules/)."""
    name: str
    seed: str                       # the source rulebook it follows, numbered as docs/rules/README.md "Sources"
    description: str
    seats: int = 2
    deck: int = 40
    deals: int = 2
    hand: int = 10
    table_init: int = 0
    trail_restricted: bool = True           # K11
    no_trail_own_build_first_deal: bool = True   # K11, 1v1
    max_builds_owned: int = 0               # K5/P6, 0 = unlimited
    change_mode: int = 0                    # K7: 0 two-card, played card alone; 1 any simple, extra cards;
                                            # 2 C5 raise (Cassino: any single build, any owner, played card alone)
    follow_ups: bool = True                 # K9
    opponent_piles: bool = True             # K8
    max_build_value: int = 10
    most_cards: int = 2                     # K13
    most_spades: int = 2
    split_ties: bool = True
    card_points: dict = field(default_factory=lambda: dict(KHASINO_POINTS))
    turn_order: tuple = ()                  # P8: seats in playing order from seat 0; () = 0, 1, 2, ...
    refill: int = 0                         # K16 stock: the acting player draws back to this many cards
    tiebreak: bool = False                  # P9: winner by points, then cards, spades, the 10D holder
    series: bool = False                    # P10: matches can be played in series (the loser leads next)
    teams: tuple = ()                       # K15: the teams, seats of each; () = every seat its own team
    lead_choice: bool = False               # P11: after the deal seat 0 chooses its team's leader (0 or 1)
    family: str = "khasino"                 # its family (khasino_sim/families/): khasino, cassino or kasino
    partner_rules: bool = True              # K15: partner loads, rebuilds and Stay (teams only pool scores if off)
    face_values: bool = False               # C1/P16: J 11, Q 12, K 13 as numbers (else face cards only pair)
    ace_14: bool = False                    # C1/P17: an ace played from the hand may capture as 14
    sweeps: bool = False                    # C1: 1 point per capture that clears the table
    load_owns: bool = False                 # C4: an add (load) makes the adder the owner
    card_sets: bool = False                 # P27: face-down piles and unchangeable multiple builds are card sets
    no_trail_own_build: bool = False        # C6: no trail while owning a build, in any deal
    match_target: int = 0                   # C7/P21: matches are played to this many points (0: single games)
    later_hand: int = 4                     # N1 (Kasino): cards each at every deal after the first
    match_rounds: int = 0                   # N7 (Kasino): rounds per match, a multiple of the seats (0: none)
    last_capturer_takes_table: bool = True  # K12 (variant: False, nobody takes the last cards)
    next_deal_leader: int = 0               # K14/P20 (variants: 1 the lead passes on each deal, 2 last capturer)
    compulsory_tabbe: bool = True           # N3 (Kasino; variant: False, clearing is one capture among others)
    tabbe_value: int = 5                    # N4 (Kasino): a tabbe's points; a double tabbe scores twice them
    alt_deal: bool = False                  # N1 (Kasino 2p): the alternative first deal, 5 each and 6 to the table

    def __post_init__(self):
        # ValueError for an unknown family; the fields its options imply (Cassino, P17: the highest build value)
        for name, value in family_of(self.family).derive(self).items():
            object.__setattr__(self, name, value)

    @property
    def total_points(self):
        """Points of one game (round), sweeps left out (Kasino: the double deck's card points and the last
        capturer's point, N6)."""
        return family_of(self).total_points(self)

    @property
    def options(self):
        """The rule options of this format's family (`--set NAME=VALUE`): name -> (type, meaning)."""
        return family_of(self).options

    @property
    def matches(self):
        """Whether games of this format are matches of rounds (Cassino to 21, C7; Kasino's fixed rounds, N7)."""
        return bool(self.match_target or self.match_rounds)

    def rules_array(self):
        """The int64 ruleset record the kernels read (layout R_*)."""
        from khasino_sim.kernels.core.bits import parse_card
        r = np.zeros(L.RULES_SIZE, dtype=np.int64)
        r[L.R_SEATS] = self.seats
        r[L.R_DECK] = self.deck
        r[L.R_DEALS] = self.deals
        r[L.R_HAND] = self.hand
        r[L.R_TABLE_INIT] = self.table_init
        r[L.R_TRAIL_SAME] = self.trail_restricted
        r[L.R_TRAIL_OWN_FIRST] = self.no_trail_own_build_first_deal
        r[L.R_MAX_BUILDS] = self.max_builds_owned
        r[L.R_CHANGE] = self.change_mode
        r[L.R_FOLLOW] = self.follow_ups
        r[L.R_PILES] = self.opponent_piles
        r[L.R_MAX_BUILD_VALUE] = self.max_build_value
        r[L.R_MOST_CARDS] = self.most_cards
        r[L.R_MOST_SPADES] = self.most_spades
        r[L.R_SPLIT_TIES] = self.split_ties
        for card, pts in self.card_points.items():
            r[L.R_CARD_POINTS + parse_card(card)] = pts
            r[L.R_POINT_MASK] |= (1 << parse_card(card)) if pts else 0
        order = self.turn_order or tuple(range(self.seats))
        for i, s in enumerate(order):
            r[L.R_NEXT + s] = order[(i + 1) % self.seats]
        r[L.R_REFILL] = self.refill
        r[L.R_TIEBREAK] = self.tiebreak
        r[L.R_TEAMS] = bool(self.teams) and self.partner_rules
        for s in range(L.MAX_SEATS):
            r[L.R_TEAM + s] = self.team_of(s) if s < self.seats else s
            r[L.R_PARTNER + s] = -1
        for team in self.teams if self.partner_rules else ():
            for s in team:
                others = [t for t in team if t != s]
                r[L.R_PARTNER + s] = others[0] if len(others) == 1 else -1
        r[L.R_LEAD_CHOICE] = self.lead_choice
        family = family_of(self)
        r[L.R_FAMILY] = family.kernel_code
        r[L.R_UNSUMMED] = family.unsummed(self)
        r[L.R_ACE_14] = self.ace_14
        r[L.R_LOAD_OWNS] = self.load_owns
        r[L.R_TRAIL_OWN_ANY] = self.no_trail_own_build
        r[L.R_SWEEPS] = self.sweeps
        r[L.R_MATCH_TARGET] = self.match_target
        r[L.R_LATER_HAND] = self.later_hand
        r[L.R_MATCH_ROUNDS] = self.match_rounds
        r[L.R_TABLE_TO_LAST] = self.last_capturer_takes_table
        r[L.R_DEAL_LEADER] = self.next_deal_leader
        r[L.R_TABBE] = self.tabbe_value
        r[L.R_TABBE_FORCED] = self.compulsory_tabbe
        r[L.R_CARD_SETS] = self.card_sets
        return r

    def team_of(self, s):
        """The team of seat s (K15): its index in `teams`, or s itself where every seat plays alone."""
        for i, team in enumerate(self.teams):
            if s in team:
                return i
        return s

    @property
    def n_teams(self):
        return len(self.teams) if self.teams else self.seats

    def next_seat(self, s):
        """The seat after seat s in turn order (P8)."""
        order = self.turn_order or tuple(range(self.seats))
        return order[(order.index(s) + 1) % self.seats]

    def rules_hash(self):
        """Short stable hash of everything the kernels read, for stamping results. Fields added after the
        first formats are left out while they hold their defaults, so the 1v1 hashes stay what they were."""
        rec = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "description" and not (f.name in _LATER_FIELDS and getattr(self, f.name) == f.default)}
        return hashlib.sha256(json.dumps(rec, sort_keys=True).encode()).hexdigest()[:16]


_LATER_FIELDS = ("turn_order", "refill", "tiebreak", "series", "teams", "lead_choice", "family", "partner_rules",
                 "face_values", "ace_14", "sweeps", "load_owns", "no_trail_own_build", "match_target",
                 "later_hand", "match_rounds", "card_sets")


# The integer options' ranges and what their values mean, of every family (each family's record holds its own).
INT_RANGES = {}
INT_MEANING = {}
for _family in FAMILIES.values():
    for _name, (_lo, _hi, _meaning) in _family.int_ranges.items():
        INT_RANGES[_name], INT_MEANING[_name] = (_lo, _hi), _meaning


def with_options(fmt, settings):
    """`fmt` with rule options changed; settings maps option names to values or their text (the checks are
    its family's, khasino_sim/families/).

    ValueError names an unknown option or a bad value."""
    return replace(fmt, **family_of(fmt).option_changes(fmt, settings))


def options_of(fmt):
    """The current value of every user-settable option of a format."""
    return {name: getattr(fmt, name) for name in fmt.options}


FORMATS = {}


def register(fmt):
    """Add a format to the registry, under its family."""
    register_format(fmt)
    FORMATS[fmt.name] = fmt
    return fmt


register(Format(
    name="khasino", seed="000 South African Khasino, house rules",
    description="1v1, 40 cards, two deals of 10; restricted trails, follow-ups, two-card changes",
))
register(Format(
    name="durban", seed="001 Durban League Khasino",
    description="1v1, 40 cards, two deals of 10; free trails, one build each, changes with extra cards",
    trail_restricted=False, no_trail_own_build_first_deal=False, max_builds_owned=1, change_mode=1,
    follow_ups=False,
))


_THREE = dict(seed="000 South African Khasino, house rules", seats=3, deals=1, table_init=1,
              no_trail_own_build_first_deal=False, turn_order=(0, 2, 1), most_cards=0, most_spades=0,
              tiebreak=True, series=True)
register(Format(
    name="khasino-3p", hand=13,
    description="3 players, 40 cards: 13 each and 1 loose card; order A, C, B; 7 points with tie-breaks",
    **_THREE,
))
register(Format(
    name="khasino-3p-stock", hand=3, refill=3,
    description="3 players, 40 cards: 3 each, 1 loose card, 30 in stock; the player who acted refills to 3",
    **_THREE,
))


register(Format(
    name="khasino-4p", seed="000 South African Khasino, house rules", seats=4, deals=1,
    description="4 players in teams AB v CD, 40 cards: 10 each; order A, C, B, D; team AB picks its leader; "
                "partner loads, rebuilds and Stay; 11 points by team",
    no_trail_own_build_first_deal=False, turn_order=(0, 2, 1, 3), teams=((0, 1), (2, 3)), lead_choice=True,
))


_CASSINO = dict(seed="002 Classic Cassino, 52 cards", family="cassino", deck=52, hand=4, table_init=4,
                trail_restricted=False, no_trail_own_build_first_deal=False, no_trail_own_build=True,
                change_mode=2, follow_ups=False, opponent_piles=False, most_cards=3, most_spades=1,
                split_ties=False, load_owns=True, match_target=21, card_sets=True)
register(Format(
    name="cassino", deals=6, description="2 players, 52 cards: 4 each and 4 to the table, then 4 each; "
    "builds, adds and raises; 3/1/1/2/1 scoring; matches to 21", **_CASSINO,
))
register(Format(
    name="cassino-3p", seats=3, deals=4, description="3 players, 52 cards: 4 each and 4 to the table, then 4 "
    "each; matches to 21", **_CASSINO,
))
register(Format(
    name="cassino-4p", seats=4, deals=3, teams=((0, 2), (1, 3)), partner_rules=False,
    description="4 players, partners 0+2 v 1+3, 52 cards: 4 each and 4 to the table, then 4 each; "
    "partners pool their cards; matches to 21", **_CASSINO,
))


# N6: 10D 3, 2S 2, AS 2, the other aces 1, the other spades 1 (42 in the double deck)
KASINO_POINTS = {"10D": 3, "2S": 2, "AS": 2, "AH": 1, "AD": 1, "AC": 1,
                 **{f"{r}S": 1 for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")}}
_KASINO = dict(seed="003 Norwegian misère Kasino (omvendt kasino), double deck", family="kasino", deck=104,
               trail_restricted=False, no_trail_own_build_first_deal=False, change_mode=0, follow_ups=False,
               opponent_piles=False, max_build_value=14, most_cards=0, most_spades=0, split_ties=False,
               partner_rules=False)
for _name, _seats, _hand, _table, _deals, _teams, _text in (
        ("kasino-2p", 2, 6, 4, 12, (), "2 players: 6 each and 4 to the table, then 4 each"),
        ("kasino-2p-alt", 2, 5, 6, 12, (), "2 players: 5 each and 6 to the table, then 4 each"),
        ("kasino-3p", 3, 5, 5, 8, (), "3 players: 5 each and 5 to the table, then 4 each"),
        ("kasino-4p", 4, 5, 4, 6, ((0, 2), (1, 3)), "4 players in pairs 0+2 v 1+3: 5 each and 4 to the table"),
        ("kasino-5p", 5, 4, 4, 5, (), "5 players: 4 each and 4 to the table, then 4 each"),
        ("kasino-6p", 6, 5, 2, 4, ((0, 3), (1, 4), (2, 5)), "6 players in three pairs 0+3, 1+4, 2+5: 5 each "
                                                            "and 2 to the table")):
    register(Format(name=_name, seats=_seats, hand=_hand, table_init=_table, deals=_deals, teams=_teams,
                    match_rounds=_seats, card_points=dict(KASINO_POINTS), alt_deal=_name == "kasino-2p-alt",
                    description=f"misère, 104 cards, {_text}; compulsory maximal capture and tabbe; "
                                f"lowest total wins", **_KASINO))


def get_format(name):
    """The registered format `name`; KeyError with the known names otherwise."""
    try:
        return FORMATS[name]
    except KeyError:
        raise KeyError(f"unknown format {name!r} (known: {', '.join(sorted(FORMATS))})") from None
