"""The observation tensor of a seat (docs/AGENTS.md, "Observations"): what the seat may see and no more, built
from its view (khasino_sim/terminal/seat_view.py, the bots' rule), one float32 layout for every format. Seats
are relative: 0 is the observer, 1 the next seat to play after him in seat order, and so on."""
import numpy as np

from khasino_sim.kernels.core.bits import parse_card

from ..terminal.seat_view import seat_view
from .actions import LEN_SCALE, MAX_VALUE, N_ACTIONS

MAX_SEATS = 6
SECTIONS = [            # (name, size): the layout, in order
    ("hand", 52),                       # copies of each card in the seat's hand (0..2)
    ("loose", 52),                      # copies of each card loose on the table
    ("in_build", 52),                   # the value of the build holding the card, / MAX_VALUE (0: none)
    ("build", MAX_VALUE * 5),           # per value 1..16: present, mine, a partner's, an opponent's, promised
    ("pile_top", MAX_SEATS * 52),       # each relative seat's exposed pile card (Khasino family)
    ("hand_size", MAX_SEATS),           # cards in hand / 13
    ("pile_size", MAX_SEATS),           # cards in pile / 104
    ("score", MAX_SEATS),               # match totals before this round / 50 (Cassino, Kasino)
    ("tabbe", MAX_SEATS),               # Kasino tabbe so far (plus + minus) / 50
    ("last_capturer", MAX_SEATS + 1),   # one-hot relative seat, or none (the last slot)
    ("stock", 1),                       # stock size / 104
    ("deal", 1),                        # deal number / 12
    ("played", 52),                     # copies of each card seen played so far this round (public history)
    ("stay_offer", 52 + MAX_VALUE),     # the capture the seat is asked to Stay on (P15): its card, the build value
    ("prefix", N_ACTIONS),              # which tokens the move being entered holds so far (actions.py)
    ("prefix_len", 1),                  # how many tokens / LEN_SCALE
]
OFFSETS = {}
_at = 0
for _name, _size in SECTIONS:
    OFFSETS[_name] = (_at, _at + _size)
    _at += _size
OBS_SIZE = _at


def observe(state, seat, played=(), prefix=()):
    """The seat's observation (float32, OBS_SIZE) of the JSON `state`; `played`: the cards played so far this
    round (public), `prefix`: the tokens of the move being entered."""
    v = seat_view(state, seat, "practice")
    n = len(v["seats"])
    rel = [(s - seat) % n for s in range(n)]
    obs = np.zeros(OBS_SIZE, dtype=np.float32)

    def put(name, i, x):
        obs[OFFSETS[name][0] + i] += x
    for c in v["hand"]:
        put("hand", parse_card(c), 1)
    for c in v["loose"]:
        put("loose", parse_card(c), 1)
    teams = v.get("teams") or []
    mine = next((t for t in teams if seat in t), [seat])
    for b in v["builds"]:
        val = b["value"]
        for g in b["groups"]:
            for c in g:
                obs[OFFSETS["in_build"][0] + parse_card(c)] = val / MAX_VALUE
        base = (val - 1) * 5
        put("build", base, 1)
        owner = b["owner"]
        put("build", base + (1 if owner == seat else 2 if owner in mine else 3), 1)
        put("build", base + 4, 1 if b["promised"] else 0)
    for o in v["seats"]:
        r = rel[o["seat"]]
        if o["pile_top"]:
            put("pile_top", r * 52 + parse_card(o["pile_top"]), 1)
        put("hand_size", r, o["hand_size"] / 13)
        put("pile_size", r, (o["pile_size"] or 0) / 104)
    for s, x in enumerate(v.get("scores") or []):
        put("score", rel[s], x / 50)
    for s, (p, m) in enumerate(v.get("tabbe") or []):
        put("tabbe", rel[s], (p + m) / 50)
    last = v["last_capturer"]
    put("last_capturer", MAX_SEATS if last is None else rel[last], 1)
    put("stock", 0, v["stock_size"] / 104)
    put("deal", 0, (v["deal"] or 0) / 12)
    for c in played:
        put("played", parse_card(c), 1)
    d = v.get("decision") or {}
    if d.get("kind") == "stay":             # seat_view shows it to the partner asked alone
        put("stay_offer", parse_card(d["move"]["card"]), 1)
        put("stay_offer", 52 + d["value"] - 1, 1)
    for t in set(prefix):
        put("prefix", t, 1)
    put("prefix_len", 0, len(prefix) / LEN_SCALE)
    return obs
