"""Reading and writing a JSON state of any format: the state's `format` names the format, whose family
(khasino_sim/families/) holds the codec that reads the rest."""
from ..families import family_of
from ..formats import FORMATS, get_format, with_options
from .common import StateError, brief, field, loads, option_changes


def to_json(st, fmt, decision=None):
    """The JSON state of a kernel state vector; `decision` is the pending decision's JSON (4p), or None."""
    return family_of(fmt).codec.to_json(st, fmt, decision)


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
    name = field(d, "format", str)
    if not isinstance(name, str) or name not in FORMATS:
        raise StateError(f"unknown format {brief(name)} (known: {', '.join(sorted(FORMATS))})")
    fmt = get_format(name)
    changes = option_changes(d, fmt)
    try:
        fmt = with_options(fmt, changes)
    except ValueError as e:
        raise StateError(str(e)) from None
    st, decision = family_of(fmt).codec.parse(d, fmt)
    return fmt, st, decision
