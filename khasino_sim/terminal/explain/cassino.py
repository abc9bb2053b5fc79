"""Cassino's reasons (C1-C6, P16-P19) for `why_illegal`: a trail, capture or build entry (an add, a raise
or a new build), a face card without a number, or a card with no move."""
from .common import (_can_take, _capture_groups, _commit_blocks, _group_possible, _kind_of, _new_build_plausible,
                     _no_group, _no_move, _split_reason, rank)


# ------------------------------------------------------------------------------------------------- Cassino
def _cassino(view, entry):
    """Cassino (C1-C6, P16-P19): the reason for a trail, capture or build entry, or a card with no move."""
    card = entry.card
    kind = _kind_of(view, entry)
    face = not view.values(card)
    if kind == "trail":
        why = _c_trail(view, card)
        return f"{card} may not trail: {why}" if why else None
    if face and (kind == "capture" or entry.cards):
        return _c_face_capture(view, entry)
    if kind == "capture":
        return _c_capture(view, entry)
    if kind == "build":
        return _c_build(view, entry)
    if not view.card_moves(card):
        return _no_move(view, card, _c_trail(view, card))
    if entry.cards and _capture_groups(view, entry.cards, view.values(card)):
        return _c_capture(view, entry)
    return None


def _c_trail(view, card):
    """C6: no trail while owning a build."""
    own = view.owned()
    if own:
        return f"you own build {own[0].value}, and a build owner may not trail (C6)"
    return None


def _faces_named(view, named):
    bad = [c for c in named if view.table_value(c) is None]
    if bad:
        return f"{bad[0]} has no number and is never summed (C1, P16)"
    return None


def _c_face_capture(view, entry):
    """P16: a face card without face_values takes exactly one loose card of its rank."""
    card = entry.card
    if entry.target is not None or len(entry.cards) > 1 or \
            any(rank(c) != rank(card) for c in entry.cards):
        return f"{card} has no number: it takes exactly one loose {rank(card)} and nothing else (C1, P16)"
    if not any(rank(c) == rank(card) for c in view.loose):
        return f"{card} has nothing to capture: there is no loose {rank(card)} (C1, P16)"
    return _commit_blocks(view, entry)


def _c_capture(view, entry):
    """C3: groups of the card's value (an ace 1 or 14 under ace_14), no face card summed (P16); C6."""
    card, t = entry.card, entry.target
    vs = view.values(card)
    why = _faces_named(view, entry.cards)
    if why:
        return why
    if entry.cards:
        whys = [_split_reason(view, [], entry.cards, v, "capture", exclude=t) for v in sorted(vs)]
        if all(whys):
            return whys[0]
    why = _commit_blocks(view, entry, t)
    if why:
        return why
    if not any(m.kind == "capture" for m in view.card_moves(card)) and not any(_can_take(view, v) for v in vs):
        v = min(vs)
        return f"{card} has nothing to capture: no loose {v}, no build of {v} and no loose cards summing to {v} (C3)"
    return None


def _c_build(view, entry):
    """A build entry: an add when its value is built (C5, P18), a raise (C5, P19) or a new build (C4); C6."""
    card, V = entry.card, entry.value
    v = view.value(card)
    why = _faces_named(view, entry.cards)
    if why:
        return why
    raises = [b for b in view.builds.values() if b.value + v == V and not entry.cards]
    if V not in view.builds:
        why = _commit_blocks(view, entry)
        raising_own = any(b.owner == view.seat and b.value in view.values(card) for b in raises)
        if why and not raising_own:
            return why
    if V in view.builds:
        return _c_add(view, entry)
    if raises and not _new_build_plausible(view, card, V, entry.cards):
        return _c_raise(view, entry, raises[0])
    if not view.keeps(card, V):
        return f"{card} cannot build {V}: you would hold no {V} after the play (C4)"
    if not view.loose:
        return "a build needs a table card, and there is none on the table (C4)"
    if entry.cards:
        return _split_reason(view, [card], entry.cards, V, "build")
    return _no_group(view, card, V)


def _c_add(view, entry):
    """C5, P18: the value kept, the groups of the value; C6."""
    card, V = entry.card, entry.value
    why = _commit_blocks(view, entry)
    if why:
        return why
    if not view.keeps(card, V):
        return f"{card} cannot add to build {V}: you would hold no {V} after the play (C5, P18)"
    if entry.cards:
        return _split_reason(view, [card], entry.cards, V, "load", exclude=V)
    if not _group_possible(view, card, V, need_loose=False):
        return f"nothing on the table makes {V} with {card} to add to build {V} (C5)"
    return None


def _c_raise(view, entry, build):
    """C5, P19: a single build only, the new value kept."""
    card, V = entry.card, entry.value
    if len(build.groups) > 1:
        return f"build {build.value} is a multiple build, which cannot be raised (C5)"
    if not view.keeps(card, V):
        return f"{card} cannot raise build {build.value} to {V}: you would hold no {V} after the play (C5, P19)"
    return None
