"""A fixed action space that reaches every legal move and no illegal one (docs/AGENTS.md): a move is entered
as a short sequence of tokens from one alphabet of N_ACTIONS, each step masked to the prefixes of the legal
moves' sequences, however many moves the position has.

A move's sequence: its card, what it does (TRAIL, CAPTURE, BUILD V, REBUILD V, LOAD V, CHANGE V), the builds it
captures (TAKE_BUILD v), its groups (each group's cards in ascending card index, then GROUP_END; groups in
ascending order of their tokens), its K9 follow-ups (FOLLOW V, cards, GROUP_END), then END. A Kasino capture
has one group: the cards taken (a doubled card twice). A four-player decision is one token (LEAD_0, LEAD_1,
STAY, DECLINE) then END.

The engine lists a move once per distinct position right after it (P7), but may reach that position by
several group structures (a build made with two groups at once, or made and followed up): a move's sequence is
the least (lexicographically) of the sequences of the ways it can be made, so each legal move has exactly one
sequence and each allowed sequence is exactly one legal move (tests/test_agents.py checks the
bijection on random positions of every format)."""
import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.bits import card_name, parse_card
from khasino_sim.kernels.core.tokens import (  # one table with the batched environment's kernel
    BUILD, CAPTURE, CHANGE, DECLINE, END, FOLLOW, GROUP_END, LEAD_0, LEAD_1, LOAD, N_ACTIONS, REBUILD, STAY,
    TAKE_BUILD, TRAIL, TOK_VALUES as MAX_VALUE,
)

LEN_SCALE = 128             # prefix lengths are divided by it in observations (a scale: sequences have no cap)


def token_name(t):
    """A token as text (docs/AGENTS.md): `9S`, `|`, `take 9`, `trail`, `build 9`, ..., `end`."""
    if t < 52:
        return card_name(t)
    for base, word in ((FOLLOW, "follow"), (CHANGE, "change"), (LOAD, "load"), (REBUILD, "rebuild"),
                       (BUILD, "build"), (TAKE_BUILD, "take")):
        if base <= t < base + MAX_VALUE and t != TRAIL and t != CAPTURE:
            return f"{word} {t - base + 1}"
    return {GROUP_END: "|", TRAIL: "trail", CAPTURE: "capture", LEAD_0: "lead 0", LEAD_1: "lead 1",
            STAY: "stay", DECLINE: "decline", END: "end"}[t]


def _cards(mask):
    return [c for c in range(52) if mask >> c & 1]


def _groups_tokens(masks):
    return [t for g in sorted(_cards(m) + [GROUP_END] for m in masks) for t in g]


def record_sequence(rec, mover):
    """The token sequence of a Khasino or Cassino move record (engine._records)."""
    kind, value, target = int(rec[L.M_KIND]), int(rec[L.M_VALUE]), int(rec[L.M_TARGET])
    seq = [int(rec[L.M_CARD])]
    groups = [int(rec[L.M_GROUPS + i]) for i in range(int(rec[L.M_GCOUNT]))]
    if kind == L.KIND_TRAIL:
        return seq + [TRAIL, END]
    if kind == L.KIND_CAPTURE:
        seq += [CAPTURE] + ([TAKE_BUILD + target - 1] if target else [])
    elif kind == L.KIND_BUILD:
        seq.append((REBUILD if int(rec[L.M_OWNER]) != mover else BUILD) + value - 1)
    elif kind == L.KIND_LOAD:
        seq.append(LOAD + value - 1)
    else:
        seq.append(CHANGE + value - 1)
    seq += _groups_tokens(groups)
    follow = {}
    for x in rec[L.M_FGROUPS: L.M_FGROUPS + int(rec[L.M_FCOUNT])]:
        follow.setdefault(int(x) >> L.VALUE_SHIFT, []).append(int(x) & L.CARD_BITS)
    for w in sorted(follow):
        for g in sorted(_cards(m) + [GROUP_END] for m in follow[w]):
            seq += [FOLLOW + w - 1] + g
    return seq + [END]


def move_sequence(move):
    """The sequence of a Move the engine lists apart from records: a decision, a Kasino move, the K11
    fallback trail."""
    if move.kind in ("lead", "stay", "decline"):
        t = {"stay": STAY, "decline": DECLINE}.get(move.kind) or (LEAD_0 if move.seat == 0 else LEAD_1)
        return [t, END]
    card = parse_card(move.card)
    if move.kind == "trail":
        return [card, TRAIL, END]
    taken = sorted(parse_card(c) for c in move.captured)
    return [card, CAPTURE] + taken + [GROUP_END, END]


def legal_sequences(state):
    """{sequence (tuple): move key} of every legal move of the seat to move (one sequence per move, the least
    of its ways), streaming the engine's move records."""
    return legal_table(state)[0]


def legal_table(state):
    """(legal_sequences(state), {move key: the move record that makes it, or None where the engine lists the
    move apart: a decision, Kasino, the K11 fallback}): the records let a move be played without listing the
    position's moves again (apply)."""
    from .. import engine
    from ..families import family_of
    fmt, st, decision = engine.parse(state)
    out = {}
    if st[L.S_OVER]:
        return out, {}
    family = family_of(fmt)
    if decision is not None or family.iter_moves is not None:
        for m in engine.iter_moves(state):
            out[tuple(move_sequence(m))] = m.key
        return out, {}
    rules = fmt.rules_array()
    p = int(st[L.S_TO_MOVE])
    best, recs = {}, {}
    for rec in engine._records(st, rules, p):
        key = int(np.uint64(rec[L.M_KEY]))
        seq = tuple(record_sequence(rec, p))
        if key not in best or seq < best[key]:
            best[key] = seq
            recs[key] = rec
    if not best:                    # K11 fallback (never in reachable play): the engine's one trail
        m = next(engine.iter_moves(state))
        return {tuple(move_sequence(m)): m.key}, {}
    return {seq: key for key, seq in best.items()}, recs


def mask(sequences, prefix):
    """The int8 mask of the tokens that extend `prefix` towards a legal move."""
    out = np.zeros(N_ACTIONS, dtype=np.int8)
    k = len(prefix)
    prefix = tuple(prefix)
    for seq in sequences:
        if seq[:k] == prefix:
            out[seq[k]] = 1
    return out


def apply(state, key, rec=None):
    """(the state after the legal move with `key`, the card it plays or None): from its record when given
    (legal_table), else found among the position's moves."""
    from .. import engine
    if rec is not None:
        fmt, st, _ = engine.parse(state)
        result, _ = engine._play_card(fmt, st, fmt.rules_array(), int(st[L.S_TO_MOVE]), rec)
        return result, card_name(int(rec[L.M_CARD]))
    move = next(m for m in engine.iter_moves(state) if m.key == key)
    return move.result, move.card
