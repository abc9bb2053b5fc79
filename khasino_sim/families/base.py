"""The `Family` record and the registry of families: `register_family`, `family_of`, and the formats
registered under each family (khasino_sim/formats.py registers every format through `register_format`)."""
import re
from dataclasses import dataclass
from typing import Callable

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _nothing(*args):
    return {}


@dataclass(frozen=True)
class Family:
    """One family of games (docs/rules/): its rule options and their checks, its JSON codec, and the hooks and
    fields by which the engine, datasets, tournaments and studies treat its formats."""
    name: str
    rules: str                      # its rules pages (docs/rules/) and rule letters
    kernel_code: int                # layout FAMILY_*: whose move rules the kernels apply (R_FAMILY)
    options: dict                   # the rule options (`--set NAME=VALUE`): name -> (type, meaning)
    int_ranges: dict                # its integer options: name -> (lo, hi, what the values mean)
    codec: object                   # its JSON state codec: parse(d, fmt) -> (st, decision), to_json(st, fmt, decision)
    total_points: Callable          # fmt -> the points of one game (round), sweeps left out
    categories: Callable            # fmt -> points by category {name: (seats column, points per unit)}
    describe_view: Callable         # (view, move, kind) -> a user bot's scored move and what its seat saw
    reference_round: Callable       # (format name, seed, bots): one game (round) of the pure-Python reference
    # engine hooks (khasino_sim/engine.py)
    new_game: Callable              # (fmt, seed, deck, leader, round, scores, rounds) -> the first JSON state
    lister: Callable                # () -> the compiled listing entry point
    seat_scores: Callable           # (st, fmt) -> per-seat scores of a state's piles
    winner: Callable                # (st, fmt) -> the winning seat (team), -1 on a tie
    play_games: Callable            # (fmt, seeds, bot ids, check, series) -> statistics rows
    play_round: Callable            # (args, fmt, rounds) -> turns: one dealt round in the core
    play_match: Callable            # (fmt, seed, bot ids, rounds, check, seat_stats) -> the match's results
    iter_moves: Callable = None     # (fmt, st, records, move_class) -> moves; None: the one-deck listing
    scratch: Callable = None        # (st, rules, ws) -> scratch high water; None: the one-deck subset table
    decide: Callable = None         # (code, st, rules, p, ws, stream): a bot's move into WS_BEST; None: one-deck
    derive: Callable = _nothing     # fmt -> {field: value} its options imply (P17: the highest build value)
    unsummed: Callable = lambda fmt: 0      # fmt -> the card mask of cards with no number (R_UNSUMMED, P16)
    check_option: Callable = _nothing       # (fmt, name, value) -> further field changes; ValueError if refused
    misere: bool = False            # the lowest total wins; signed totals with tabbe columns (N4, N7)
    compiled_apart: bool = False    # its moves and games are compiled apart (kernels/kasino_*; GPU unit)
    raise_words: bool = False       # moves described in its words: add, raise (C3-C5)
    position_hash: bool = True      # its positions have the hash H (docs/ENGINE.md)

    @property
    def formats(self):
        """The names of the formats registered under this family, in registration order."""
        return tuple(_BY_FAMILY.get(self.name, ()))

    def option_changes(self, fmt, settings):
        """The field changes of rule options `settings` (names -> values or their text) applied to `fmt`.

        ValueError names an unknown option or a bad value."""
        changes = {}
        allowed = self.options
        for name, raw in settings.items():
            if name not in allowed:
                raise ValueError(f"unknown rule option {name!r} for {fmt.name} (options: {', '.join(allowed)})")
            kind, _ = allowed[name]
            text = str(raw).strip().lower()
            if kind is bool:
                if isinstance(raw, bool):
                    value = raw
                elif text in _TRUE or text in _FALSE:
                    value = text in _TRUE
                else:
                    raise ValueError(f"option {name} takes true or false, not {raw!r}")
            else:
                if isinstance(raw, bool) or not (isinstance(raw, int) or re.fullmatch(r"[+-]?\d+", text)):
                    shown = repr(raw) if len(repr(raw)) <= 40 else repr(raw)[:37] + "..."
                    raise ValueError(f"option {name} takes an integer, not {shown}")
                lo, hi, meaning = self.int_ranges[name]
                digits = text.lstrip("+-").lstrip("0")      # a number of any length, never converted whole
                value = int(text) if len(digits) <= 18 else None
                if value is None or not lo <= value <= hi:
                    shown = text if len(text) <= 24 else text[:21] + "..."
                    raise ValueError(f"option {name} must be in {lo}..{hi} ({meaning}), not {shown}")
            changes[name] = value
            changes.update(self.check_option(fmt, name, value))
        return changes


FAMILIES = {}
_BY_FAMILY = {}


def register_family(family):
    """Add a family record to the registry (by its name)."""
    FAMILIES[family.name] = family
    return family


def family_of(fmt_or_name):
    """The family record of a format (anything with a `family` name) or of a family name; ValueError naming
    the known families otherwise."""
    name = fmt_or_name if isinstance(fmt_or_name, str) else getattr(fmt_or_name, "family", fmt_or_name)
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown family {name!r} (known: {', '.join(sorted(FAMILIES))})") from None


def register_format(fmt):
    """Record a format under its family (ValueError for an unknown family)."""
    family = family_of(fmt)
    names = _BY_FAMILY.setdefault(family.name, [])
    if fmt.name not in names:
        names.append(fmt.name)
    return family
