"""Why a move typed at `khasino play` is not legal: one line for the human at the seat to move, citing the rule
that forbids it (docs/rules/: K1-K16, C1-C8, N1-N7, P1-P27), for the variant being played (the state's rule
options), or, when no rule of those below explains it, what that card can do instead.

The line is shown to the seat to move, so it is made from what that seat sees alone (docs/rules/project.md,
"What bots see"): its own hand, the loose cards, the builds, the exposed pile tops, the options and the public
promises (P13), and its own legal moves. It never reads another hand or the stock, and a card typed that is
not to be seen gets the same answer wherever it lies, so the answer tells nothing about hidden cards.

The package: the entry point and the dispatch to the family here; the seat's view, the reasons every family
shares, the groups and their sums and the fallback in common; each family's reasons in khasino, cassino and
kasino (which import from common only)."""
from .common import _View, _decision_pending, _fallback, _named_reason, _shape_reason
from .cassino import _cassino
from .kasino import _kasino
from .khasino import _khasino


def why_illegal(state, entry, moves):
    """One line saying why the card entry `entry` (for which `notation.matches` found no candidate among
    `moves`, the legal moves of `state`) is not legal, with the rule id in parentheses; a line listing what
    the card can do when no specific reason is found. Never raises."""
    try:
        line = _reason(_View.of(state, moves), entry)
    except Exception:           # a reason must never break the game loop: the fallback still helps
        line = None
    if not line:
        try:
            line = _fallback(entry, moves)
        except Exception:
            line = f"{getattr(entry, 'card', None) or 'that'} has no legal move that way"
    return " ".join(str(line).split())


# ------------------------------------------------------------------------------------------------ the reasons
def _reason(view, entry):
    """The specific reason, or None."""
    if not view.moves:
        return "the game is over: there is no move to make"
    if all(m.card is None for m in view.moves):
        return _decision_pending(view)
    if entry.card is None:
        return None
    if entry.card not in view.hand:
        return f"{entry.card} is not in your hand"
    return _shape_reason(view, entry) or _named_reason(view, entry) or \
        {"khasino": _khasino, "cassino": _cassino, "kasino": _kasino}[view.family](view, entry)
