"""Classic Cassino's JSON state (C1-C8, P16-P21): the one-deck state with the round and match fields
(`dealer`, `round`, `scores`, `sweeps`), face cards that only pair unless face_values (P16), the seat after
the dealer leading every deal (P20), `teams` only in cassino-4p and no promises or decisions."""
from khasino_sim.kernels.core import layout as L
from .common import SCORE_LIMIT, StateError, bounded, brief, seat
from .single_deck import OneDeckCodec


class CassinoCodec(OneDeckCodec):
    """Cassino's one-deck state."""

    def head_json(self, st, fmt):
        seats = fmt.seats
        return {"dealer": int(st[L.S_DEALER]), "round": int(st[L.S_ROUND]),
                "scores": [int(st[L.S_SCORES + s]) for s in range(seats)],
                "sweeps": [int(st[L.S_SWEEPS + s]) for s in range(seats)]}

    def round_fields(self, d, fmt, st):
        round_fields(d, fmt, st)

    def check_build(self, fmt, v, where):
        if not fmt.face_values and 11 <= v <= 13:
            raise StateError(f"a build of {v} needs face_values: nobody can hold a card of value {v} (P16, P17)")

    def check_group(self, fmt, cards, where, i):
        if not fmt.face_values and any(c >= 40 for c in cards):
            raise StateError(f"{where} group {i} holds a face card, which has no number (P16)")

    def holds_value(self, fmt, c, v):
        """A face card is a card of no value without face_values (P16)."""
        if (c >> 2) + 1 > 10 and not fmt.face_values:
            return False
        return super().holds_value(fmt, c, v)

    def pending(self, d, fmt, st, hand_masks):
        no_pending(d, fmt)

    def hand_sizes(self, fmt, sizes, p, dealer, deal):
        hand_sizes(fmt, sizes, p, dealer)


def round_fields(d, fmt, st):
    """Cassino (C2, C7): `dealer`, `round`, `scores` (match totals before this round) and `sweeps` (this
    round's), each optional (dealer: the last seat, round 1, zeros)."""
    seats = fmt.seats
    st[L.S_DEALER] = seat(d.get("dealer", seats - 1), seats, "dealer")
    st[L.S_ROUND] = bounded(d.get("round", 1), 1, SCORE_LIMIT, "round")
    for key, base, top in (("scores", L.S_SCORES, SCORE_LIMIT), ("sweeps", L.S_SWEEPS, fmt.deck)):
        vals = d.get(key, [0] * seats)
        if not isinstance(vals, list) or len(vals) != seats or \
                any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= top for x in vals):
            raise StateError(f"{key} must hold {seats} integers in 0..{top} (one per seat)")
        if key == "sweeps" and any(vals) and not fmt.sweeps:
            raise StateError("sweeps are counted only with the sweeps option (C1)")
        if key == "scores" and fmt.teams and any(vals[s] != vals[t[0]] for t in fmt.teams for s in t):
            raise StateError(f"scores: partners hold their team's total, {[list(t) for t in fmt.teams]} (C8)")
        st[base: base + seats] = vals


def no_pending(d, fmt):
    """Cassino: `teams` only in cassino-4p (C8), and no promises or decisions."""
    teams = d.get("teams")
    want = [list(t) for t in fmt.teams] if fmt.teams else None
    if teams is not None and teams != want:
        raise StateError(f"teams must be {want} in {fmt.name}, not {brief(teams)}" if want else
                         f"{fmt.name} has no teams")
    promises = d.get("promises")
    if promises not in (None, [[]] * fmt.seats, []):
        if not isinstance(promises, list) or any(promises):
            raise StateError(f"{fmt.name} has no promises (K15 is Khasino's)")
    if d.get("decision") is not None:
        raise StateError(f"{fmt.name} has no decisions other than card plays: decision must be null")


def hand_sizes(fmt, sizes, p, dealer):
    """P20: the seat after the dealer leads every deal; play goes seat + 1."""
    h = sizes[p]
    lead = fmt.next_seat(dealer)
    done = (p - lead) % fmt.seats
    expect = [h - (1 if (s - lead) % fmt.seats < done else 0) for s in range(fmt.seats)]
    if sizes != expect:
        raise StateError(f"hand sizes {sizes} do not fit seat {p} to move with seat {lead} leading (the "
                         f"seats from the leader to the mover's right hold one card fewer, P20)")


CODEC = CassinoCodec()
parse, to_json = CODEC.parse, CODEC.to_json
