"""Khasino's JSON state (K1-K16; 3p and 4p, P8-P15): the one-deck state with, in 3p and 4p, `promises` (P13)
and the pending `decision` (P11 lead, P15 Stay)."""
from khasino_sim.kernels.core import layout as L
from .common import StateError, brief, values
from .single_deck import OneDeckCodec


class KhasinoCodec(OneDeckCodec):
    """Khasino's one-deck state."""

    def tail_json(self, st, fmt, decision):
        seats = fmt.seats
        return {"promises": [values(int(st[L.S_PROMISES + s])) for s in range(seats)],
                "decision": decision} if seats > 2 else {}

    def pending(self, d, fmt, st, hand_masks):
        return pending(d, fmt, st, hand_masks)

    def hand_sizes(self, fmt, sizes, p, dealer, deal):
        hand_sizes(fmt, sizes, p, deal)


def pending(d, fmt, st, hand_masks):
    """Team formats (K15): `teams`, `promises` and `decision`; others have neither promises nor decisions."""
    if fmt.teams:
        return _team_fields(d, fmt, st, hand_masks)
    _no_pending(d, fmt)
    return None


def hand_sizes(fmt, sizes, p, deal):
    """1v1: seat 0 leads the first deal (K14) and `next_deal_leader` names the second's leader, so the seats
    from the leader up to the mover have played one card more this deal. Series formats (any seat may lead,
    P10): going round in turn order from the mover, the seats yet to play this round hold as many cards as the
    mover, those that have played one fewer."""
    h = sizes[p]
    if not fmt.series and not fmt.teams:
        # K14: seat 0 leads the first deal; the second is led as `next_deal_leader` says (0: seat 0, 1: seat 1,
        # 2: the first deal's last capturer, which a state of the second deal no longer shows: either seat)
        leaders = [0] if deal == 1 or fmt.next_deal_leader == 0 else [1] if fmt.next_deal_leader == 1 else [0, 1]
        fits = [[h - (1 if (s - lead) % fmt.seats < (p - lead) % fmt.seats else 0) for s in range(fmt.seats)]
                for lead in leaders]
        if sizes not in fits:
            who = " or ".join(f"seat {lead}" for lead in leaders)
            raise StateError(f"hand sizes {sizes} do not fit seat {p} to move ({who} leads deal {deal}, K14)")
        return
    order = [p]
    while len(order) < fmt.seats:
        order.append(fmt.next_seat(order[-1]))
    seq = [sizes[s] for s in order]
    k = next((i for i, n in enumerate(seq) if n != h), len(seq))
    if any(n != h - 1 for n in seq[k:]):
        raise StateError(f"hand sizes {sizes} do not fit seat {p} to move: going round from the mover "
                         f"(order {' -> '.join(map(str, order))}) the hands must hold {h} cards, then {h - 1}")
    if fmt.lead_choice and order[k % len(order)] not in (0, 1):
        raise StateError(f"hand sizes {sizes} do not fit seat {p} to move: this round would have been led by "
                         f"seat {order[k % len(order)]}, but team AB (seat 0 or 1) leads (P11)")


def _promise_lists(d, fmt):
    """The state's `promises` (optional: None when absent), checked to be one list per seat."""
    promises = d.get("promises")
    if promises is not None and (not isinstance(promises, list) or len(promises) != fmt.seats or
                                 not all(isinstance(x, list) for x in promises)):
        raise StateError(f"promises must hold {fmt.seats} lists (one per seat)")
    return promises


def _no_pending(d, fmt):
    """`promises` and `decision` (team formats, K15): optional; a format without partners has neither."""
    promises = _promise_lists(d, fmt)
    if promises is not None:
        if any(promises):
            raise StateError(f"{fmt.name} has no partners, so no promises (K15 rebuilds are 4p only)")
    if d.get("decision") is not None:
        raise StateError(f"{fmt.name} has no decisions other than card plays: decision must be null")


def _team_fields(d, fmt, st, hand_masks):
    """4p (K15): `teams` (must be the format's), `promises` (P13 open promises, each held) and `decision`
    (lead or Stay, structure only). Returns the decision object or None."""
    teams = d.get("teams")
    if teams is not None and teams != [list(t) for t in fmt.teams]:
        raise StateError(f"teams must be {[list(t) for t in fmt.teams]} in {fmt.name}, not {brief(teams)}")
    promises = _promise_lists(d, fmt)
    if promises is not None:
        for s, vals in enumerate(promises):
            for v in vals:
                if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= fmt.max_build_value:
                    raise StateError(f"promises of seat {s} must be build values 1..{fmt.max_build_value}, "
                                     f"not {brief(v)}")
                if not hand_masks[s] >> (4 * (v - 1)) & 15:
                    raise StateError(f"seat {s} has an open promise of {v} but holds no card of value {v} "
                                     f"(P13: he keeps the card he promised)")
                st[L.S_PROMISES + s] |= 1 << v
    decision = d.get("decision")
    if decision is None:
        return None
    if not isinstance(decision, dict) or decision.get("kind") not in ("lead", "stay"):
        raise StateError('decision must be null, {"kind": "lead", ...} or {"kind": "stay", ...}')
    if decision["kind"] == "lead":
        if decision.get("team", [0, 1]) != [0, 1]:
            raise StateError("a lead decision is team AB's: its team is [0, 1] (P11)")
        return {"kind": "lead", "team": [0, 1]}
    v = decision.get("value")
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= fmt.max_build_value:
        raise StateError(f"decision.value must be a build value 1..{fmt.max_build_value}")
    if st[L.S_BOWNER + v] < 0:
        raise StateError(f"a Stay decision on build {v}, but no build of value {v} is on the table")
    if not isinstance(decision.get("move"), dict):
        raise StateError("a Stay decision needs the mover's move (decision.move)")
    return decision


CODEC = KhasinoCodec()
parse, to_json = CODEC.parse, CODEC.to_json
