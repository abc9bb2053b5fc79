"""What every family's JSON state shares: bounded reading of the text, `StateError`, the field and seat
readers, the one-deck card collector and the `options` object. Every problem with a state is a `StateError`
whose message is one line naming it (the CLI prints it and exits 2)."""
import json
import re

import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card, mask_cards


class StateError(ValueError):
    """A JSON state that is malformed or impossible; the message names the problem in one line."""


# Bounds on what a state's text may be, so that no input makes the reader hang, recurse or overflow: a real
# state is a few kilobytes, nested five deep (state, table, builds, a build, its groups), its integers small.
MAX_STATE_BYTES = 1 << 20
MAX_DEPTH = 16
MAX_DIGITS = 18             # every integer of a state fits an int64 (and a JSON number that long is no state's)
MAX_MATCH_ROUNDS = 120     # N7 matches: 120 rounds keep a match's turns (uint16) and totals (int16) in range
SCORE_LIMIT = 32_767      # a state's match totals and tabbe points at most this far from 0: the results' int16 columns
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


def field(d, key, kind, where="state"):
    """d[key], checked to be of `kind` (int, list, dict); StateError naming it otherwise."""
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


def read_deal(d, fmt):
    """The state's `deal`, 1..the format's deals."""
    deal = field(d, "deal", int)
    if not 1 <= deal <= fmt.deals:
        raise StateError(f"deal must be 1..{fmt.deals}, not {deal}")
    return deal


def seat_lists(d, key, seats):
    """The state's `key` (hands, piles): one list per seat."""
    lists = field(d, key, list)
    if len(lists) != seats:
        raise StateError(f"{key} must hold {seats} lists (one per seat), not {len(lists)}")
    return lists


def seat(value, seats, what, allow_none=False):
    """A seat 0..seats-1 (or -1 for null where `allow_none`); StateError naming `what` otherwise."""
    if value is None and allow_none:
        return -1
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seats:
        raise StateError(f"{what} must be a seat 0..{seats - 1}{' or null' if allow_none else ''}, "
                         f"not {brief(value)}")
    return value


def check_leader(fmt, leader):
    """Check a game's first seat: seat 0 in 1v1 (K14), any seat where a series chooses it (P10)."""
    seat(int(leader) if isinstance(leader, np.integer) else leader, fmt.seats, "leader")
    if leader and not fmt.series:
        raise StateError(f"seat 0 leads every {fmt.name} game (K14); leader {leader} needs a format with series")


class Cards:
    """Collects every card of a one-deck state once, naming where a duplicate or unknown card sits."""

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


# The options a JSON state carries (ENGINE.md "JSON state format"): every option of the format's family
# except Kasino's `match_rounds`, which is the state's own `rounds` field.
NOT_IN_STATE = ("match_rounds",)


def state_options(fmt):
    """The option names a JSON state of `fmt` carries, sorted."""
    return sorted(n for n in fmt.options if n not in NOT_IN_STATE)


def options_json(fmt):
    """The `options` object of a JSON state: every option the state carries, with its value in `fmt`."""
    kinds = fmt.options
    return {n: (bool if kinds[n][0] is bool else int)(getattr(fmt, n)) for n in state_options(fmt)}


def option_changes(d, fmt):
    """The state's `options` (optional; absent: the format's own; a partial object changes only the options
    it names) as the changes to the format's own: a value equal to the format's is left out (so a state
    written by `to_json` reads back whatever its format); the others are checked by the caller's
    `formats.with_options`."""
    options = d.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise StateError("options must be an object of rule options (e.g. {\"follow_ups\": false})")
    kinds = fmt.options
    changes = {}
    for name, value in options.items():
        if name not in kinds or name in NOT_IN_STATE:
            hint = " (Kasino's match length is the state's `rounds`)" if name in NOT_IN_STATE and name in kinds else ""
            raise StateError(f"unknown rule option {name!r} for {fmt.name}{hint} "
                             f"(options: {', '.join(state_options(fmt))})")
        if kinds[name][0] is bool and not isinstance(value, bool):
            raise StateError(f"option {name} must be true or false, not {brief(value)}")
        if kinds[name][0] is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise StateError(f"option {name} must be an integer, not {brief(value)}")
        if value != getattr(fmt, name):
            changes[name] = value
    return changes
