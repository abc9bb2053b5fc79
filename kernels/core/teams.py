"""Seats and teams from the ruleset (R_TEAM): whether a seat counts its team's totals, and a team's total of a
statistics field."""
from numba import njit

from .layout import G_SEAT0, R_SEATS, R_TEAM, SEAT_FIELDS


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def team_total(rules, out, s, f):
    """The sum of per-seat field f over seat s's team (K15: teammates pool their piles; alone, s's own)."""
    t = 0
    for u in range(rules[R_SEATS]):
        if rules[R_TEAM + u] == rules[R_TEAM + s]:
            t += out[G_SEAT0 + u * SEAT_FIELDS + f]
    return t


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def first_of_team(rules, s):
    """True for the lowest-numbered seat of its team (each team counted once)."""
    for u in range(s):
        if rules[R_TEAM + u] == rules[R_TEAM + s]:
            return False
    return True
