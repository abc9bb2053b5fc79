"""Khasino's reasons (K4-K11, K15, P1-P14) for `why_illegal`: a trail, capture or build entry (a load, a
change or a new build), or a card with no move."""
from .common import (_can_take, _capture_groups, _commit_blocks, _commit_clause, _group_possible, _kind_of,
                     _new_build_plausible, _no_group, _no_move, _split_reason, _subset_sum)


# ------------------------------------------------------------------------------------------------ Khasino
def _khasino(view, entry):
    """Khasino (K4-K11, K15, P1-P14): the reason for a trail, capture or build entry, or a card with no move."""
    kind = _kind_of(view, entry)
    if kind == "trail":
        why = _k_trail(view, entry.card)
        return f"{entry.card} may not trail: {why}" if why else None
    if kind == "capture":
        return _k_capture(view, entry)
    if kind == "build":
        return _k_build(view, entry)
    if not view.card_moves(entry.card):
        return _no_move(view, entry.card, _k_trail(view, entry.card))
    if entry.cards and _capture_groups(view, entry.cards, view.values(entry.card)):
        return _k_capture(view, entry)
    return None


def _k_trail(view, card):
    """Why `card` may not trail (K11, P1), as a clause; None if nothing forbids it."""
    v = view.value(card)
    if view.fmt.trail_restricted:
        if any(view.table_value(c) == v for c in view.loose):
            return f"a loose {v} is on the table (K11)"
        if v in view.builds:
            return f"a build of {v} is on the table (K11)"
    own = view.owned()
    if view.fmt.no_trail_own_build_first_deal and view.deal == 1 and own:
        return f"you own build {own[0].value}, and in the first deal a build owner may not trail (K11)"
    return _commit_clause(view, card)


def _k_capture(view, entry):
    """K4: named cards that make no groups of the card's value, pile cards alone, nothing to take; P1."""
    card, v = entry.card, view.value(entry.card)
    t = entry.target
    if entry.cards:
        if t is None and not any(c in view.loose for c in entry.cards):
            return "a capture must take a loose card or a build, not pile cards alone (K4)"
        why = _split_reason(view, [], entry.cards, v, "capture", exclude=t)
        if why:
            return why
    why = _commit_blocks(view, entry, t)
    if why:
        return why
    if not any(m.kind == "capture" for m in view.card_moves(card)) and not _can_take(view, v):
        return (f"{card} has nothing to capture: no loose {v}, no build of {v} and no loose cards summing to "
                f"{v} (K4)")
    return None


def _k_build(view, entry):
    """A build entry: a load when its value is built (K6), else a change (K7) or a new build (K5)."""
    card, V, v = entry.card, entry.value, view.value(entry.card)
    if V in view.builds:
        return _k_load(view, entry, view.builds[V])
    why = _commit_blocks(view, entry)
    if why:
        return why
    changes = _change_candidates(view, v, V, entry.cards)
    if changes and not _new_build_plausible(view, card, V, entry.cards):
        return _k_change(view, entry, changes[0])
    return _k_new(view, entry)


def _k_load(view, entry, build):
    """K6: the value kept (a teammate's build excepted, P12), the groups of the value; P1."""
    card, V = entry.card, entry.value
    teammate = view.partner_rules and build.owner == view.partner
    if build.owner == view.seat and not view.keeps(card, V):
        return (f"{card} is your last {V}: you may not drop it onto your build {V}, only capture the build "
                f"with it (K6, P1)")
    why = _commit_blocks(view, entry)
    if why:
        return why
    if not teammate and not view.keeps(card, V):
        tail = "; only a teammate's build may be loaded without one, P12" if view.partner_rules else ""
        return f"{card} cannot load build {V}: you would hold no {V} after the play (K6{tail})"
    if entry.cards:
        return _split_reason(view, [card], entry.cards, V, "load", exclude=V)
    if not _group_possible(view, card, V, need_loose=False):
        return f"nothing on the table makes {V} with {card} to load build {V} (K6)"
    return None


def _change_candidates(view, v, V, named):
    """The builds a change to V by a card of value v could mean (K7: change_mode 0, the played card alone;
    1, with extra loose and pile cards)."""
    extra = sum(view.table_value(c) or 0 for c in named)
    out = []
    for b in view.builds.values():
        if view.fmt.change_mode == 0 and not named and b.value + v == V:
            out.append(b)
        elif view.fmt.change_mode == 1 and b.value + v + extra <= V and b.value + v <= V:
            out.append(b)
    return sorted(out, key=lambda b: (b.owner == view.seat or not view.opponent(b.owner), len(b.groups) > 1))


def _k_change(view, entry, build):
    """K7: an opponent's simple build (khasino: two cards, the played card alone), the limit (P6), the new value
    kept."""
    card, V = entry.card, entry.value
    if build.owner == view.seat:
        return "you may not change your own build (K7)"
    if not view.opponent(build.owner):
        return "you may not change your teammate's build: only an opponent's (K7)"
    if len(build.groups) > 1:
        return "a compound build cannot be changed (K7)"
    if view.fmt.change_mode == 0:
        if len(build.cards) != 2:
            return (f"build {build.value} is not a two-card build: only a two-card simple build can be changed "
                    f"in this game (K7; option change_mode)")
        if entry.cards:
            return "a change uses the played card alone in this game (K7; option change_mode)"
    limit = view.fmt.max_builds_owned
    if limit and len(view.owned()) >= limit:
        return _limit_text(view, limit, "change a build to yours")
    if not view.keeps(card, V):
        return f"{card} cannot change build {build.value} to {V}: you would hold no {V} after the play (K7)"
    if view.fmt.change_mode == 1:
        return _change_extras(view, entry, build)
    return None


def _change_extras(view, entry, build):
    """Durban (change_mode 1): the extra loose and pile cards make the new value, one card of each pile."""
    V, v = entry.value, view.value(entry.card)
    need = V - build.value - v
    got = sum(view.table_value(c) for c in entry.cards)
    if entry.cards and got != need:
        return (f"build {build.value} + {entry.card} + {'+'.join(entry.cards)} makes "
                f"{build.value + v + got}, not {V} (K7)")
    if not entry.cards and need > 0 and not _subset_sum(
            [(c, view.table_value(c), "loose") for c in view.loose] +
            [(c, view.table_value(c), s) for s, c in view.usable_tops().items()], need):
        return f"nothing on the table adds the {need} that build {build.value} + {entry.card} needs to make {V} (K7)"
    return None


def _limit_text(view, limit, what):
    own = ", ".join(f"build {b.value}" for b in view.owned())
    if limit == 1:
        return f"you may own only one build at a time, and you own {own}: you may not {what} (K5, P6)"
    return f"you already own {limit} builds ({own}), the most allowed here: you may not {what} (K5, P6)"


def _k_new(view, entry):
    """K5: the value kept (or a rebuild, P14), the limit of builds owned (P6), a loose card, the groups."""
    card, V = entry.card, entry.value
    rebuild = view.partner_rules and V in view.partner_promises
    if not view.keeps(card, V) and not rebuild:
        tail = f"; a rebuild for your partner needs his open promise of {V}, P14" if view.partner_rules else ""
        return f"{card} cannot build {V}: you would hold no {V} after the play (K5{tail})"
    limit = view.fmt.max_builds_owned
    owner = view.partner if rebuild and not view.keeps(card, V) else view.seat
    if limit and len(view.owned(owner)) >= limit:
        if owner != view.seat:
            return f"your partner already owns {limit} build(s), the most allowed: no rebuild for him (K5, P6, P14)"
        return _limit_text(view, limit, "make another")
    if not view.loose:
        return "a new build needs a loose card from the table, and there is none (K5)"
    if entry.cards:
        if not any(c in view.loose for c in entry.cards):
            return "a new build needs a loose card: exposed pile cards may only join one (K5)"
        return _split_reason(view, [card], entry.cards, V, "build")
    return _no_group(view, card, V)
