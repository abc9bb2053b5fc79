"""Kasino's reasons (N2, N3) for `why_illegal`: the compulsory tabbe first, then a crawl with a match,
named cards that are no matches, a card with nothing to take."""
from .common import _partition, rank


# -------------------------------------------------------------------------------------------------- Kasino
def _kasino(view, entry):
    """Kasino (N2, N3): the compulsory tabbe first, then a crawl with a match, named cards that are no matches,
    a card with nothing to take."""
    card = entry.card
    tabbe = _tabbe_forced(view)
    if tabbe:
        return _tabbe_text(view, card, tabbe)
    hv = view.value(card)
    takes = [m for m in view.card_moves(card) if m.kind == "capture"]
    if entry.kind == "trail":
        if takes:
            return (f"{card} may not crawl: it can take {' '.join(takes[0].captured)}, and a card with a match "
                    f"must capture (N2)")
        return None
    if entry.cards:
        if _partition(view, [], entry.cards, hv, "kasino", rank_of=rank(card)) is None:
            return (f"{'+'.join(entry.cards)} is not a set of matches for {card}, which takes cards of its rank "
                    f"and sets summing to {hv}{_ace_note(card)} (N2)")
        return None
    if not takes:
        return (f"{card} has no match: no {rank(card)} and no cards summing to {hv}{_ace_note(card)} on the table,"
                f" so it crawls (N2)")
    return None


def _ace_note(card):
    return " (an ace from the hand counts 14)" if rank(card) == "A" else ""


def _tabbe_forced(view):
    """N3: with compulsory_tabbe, when a hand card can clear the table every legal move clears it: the
    clearing cards, else None."""
    if not view.fmt.compulsory_tabbe or not view.loose:
        return None
    table = sorted(view.loose)
    clear = [m for m in view.moves if m.kind == "capture" and sorted(m.captured or ()) == table]
    if clear and len(clear) == len(view.moves):
        return sorted({m.card for m in clear})
    return None


def _tabbe_text(view, card, clearing):
    if card in clearing:
        return f"{card} can clear the table, so it must take every card on it (a tabbe is compulsory, N3)"
    return (f"{', '.join(clearing)} can clear the table, and a card that can must be played to clear it: "
            f"{card} may not be played now (N3)")
