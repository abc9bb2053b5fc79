"""The batched agent environment of the one-deck families (Khasino's and Cassino's formats; docs/AGENTS.md,
"The batched environment"): N games stepped together by one token each, the masks, observations and rewards
written to numpy arrays, no Python per game per step.

A move is entered as the token sequence of khasino_sim/agents/actions.py (each legal move's least sequence,
P7). A game's mask at prefix P is one streamed generation of its position's moves: the core's move generation
with the user-bot sink (kernels/core/sink.py, SINK_USER) hands each candidate's record to `env_offer`, a C
function reached through the pointer a user bot's score function is called by, so the core's move rules are
run unchanged and hold no list. `env_offer` computes the record's sequence in place (`record_tokens`, for the
records of the card P[0] only) and keeps, in a table of move keys, whether some way of the move extends P (with
the least next token among those ways) and whether some way is less than P: a token is allowed exactly when
the least sequence of some move extends P with it. The table has a fixed size; where a position's keys would
fill more than half of it the generation is repeated over slices of the key space (docs/ENGINE.md, "Scratch
bounds"), so no position has a move cap. Seats played by a core bot move inside the step (`decide`, as the game
loop plays them), so a step returns at an agent's turn only.

Per game the host keeps: the state vector, the words `W_*` (the phase: a card move, the P11 lead, or a P15
Stay; the prefix length; the mover whose capture waits on a Stay; whether the prefix names a whole move), the
prefix, the cards played so far (public history), the bot stream, the pending capture and the record a whole
prefix names (played on END)."""
import numpy as np
from numba import carray, cfunc, literally, njit, types
from numba.extending import overload

from .core.bits import lowbit_index, popcount
from .core.deal import shuffle_deck
from .core.layout import (
    CARD_BITS, C_FOUND, C_HW, C_OVERFLOW, C_TKEY, DECIDE_LEAD, DECIDE_STAY, FAMILY_CASSINO, FAMILY_KASINO,
    FAMILY_KHASINO,
    G_AHEAD1, G_DEALER, G_LAST_CAP, G_LEADER, G_LEADER2, G_MATCH, G_MATCH_WINNER, G_ROUND, G_SEAT0, G_SEED,
    G_TURNS, G_WINNER, KIND_BUILD, KIND_CAPTURE, KIND_LOAD, KIND_TRAIL, MAX_GROUPS, MAX_MOVE_GROUPS, MAX_PILE,
    MAX_VALUE, M_CARD, M_FCOUNT, M_FGROUPS, M_GCOUNT, M_GROUPS, M_KEY, M_KIND, M_OWNER, M_PILE_USED, M_TABBE,
    M_TAKEN_HI, M_TAKEN_LO, M_TARGET, M_VALUE, REC_SIZE, R_DECK, R_FAMILY, R_LEAD_CHOICE, R_MATCH_ROUNDS, R_SEATS,
    R_TEAM, R_TEAMS, SEAT_BUILDS,
    SEAT_BUILDS_CAPTURED, SEAT_CAPTURES, SEAT_CHANGES, SEAT_FIELDS, SEAT_FOLLOWUPS, SEAT_LOADS,
    SEAT_MATCH_TOTAL, SEAT_PILE_TAKEN, SEAT_SCORE, SEAT_STAYS, SEAT_STAY_OFFERS, SEAT_TABBES, SEAT_TEAM_SCORE,
    SEAT_TRAILS, SINK_SELECT,
    SINK_USER, S_BGROUPS, S_BNG, S_BOWNER, S_DEAL, S_DEALER, S_HANDS, S_LAST_CAP, S_LOOSE, S_OVER, S_PILE,
    S_LOOSE_HI, S_PLEN, S_PROMISED, S_ROUND, S_ROUNDS, S_SCORES, S_STOCK_LEN, S_STOCK_POS, S_TABBE, S_TO_MOVE,
    VALUE_SHIFT, WS_BEST, WS_OBS, WS_SIZE,
)
from .cassino.game import count_round, start_round
from .core.rng import bot_stream_seed, round_seed
from .core.specialise import JIT_OPTIONS, literal_value
from .khasino.search import NO_DECISION, decide
from .khasino.state import advance, apply_move, apply_stay, init_state, score, stay_partner
from .kasino.game import kasino_list_window, match_winner as kasino_match_winner
from .kasino.search import decide_kasino
from .kasino.state import advance_kasino, apply_kasino, init_round, score_kasino
from .movegen import list_moves
from .core.tokens import (  # the action space's tokens (docs/AGENTS.md)
    BUILD, CAPTURE, CHANGE, DECLINE, END, FOLLOW, GROUP_END, LEAD_0, LEAD_1, LOAD, MAX_SEQ, N_ACTIONS, REBUILD,
    STAY, TAKE_BUILD, TOK_VALUES, TRAIL,
)

# ---- phases of a game, and its words (the `gw` rows) --------------------------------------------------------
PH_MOVE, PH_LEAD, PH_STAY = 0, 1, 2
W_PHASE = 0         # PH_*
W_PLEN = 1          # tokens in the prefix
W_MOVER = 2         # PH_STAY: the seat whose capture waits on the Stay
W_END_OK = 3        # 1 when the prefix is a whole move's but for END (its record in the game's `endrec` row)
W_ERROR = 4         # 1: no legal move (the K11 fallback, never in reachable play) or a scratch overflow
W_EPISODE = 5       # the episode's global index (its game seed's)
W_SEED = 6          # the episode's seed (bits of the unsigned value): a match's, whose rounds are dealt from it
W_IDLE = 7          # 1: the slot holds no episode (its index reached the limit); steps pass it by
GW_SIZE = 8

# ---- what an episode is (Cassino; a Khasino-family episode is always one game) ---------------------------
EP_GAME = 0         # one game, or one Cassino round, dealt from the episode's seed as engine.new_game deals it
EP_MATCH = 1        # a Cassino match to its target (C7, P21), its rounds dealt from round seeds as simulate's
EP_SINGLE = 2       # a match of one round (simulate --rounds 1)

_KIND_COUNTER = np.array([SEAT_CAPTURES, SEAT_BUILDS, SEAT_LOADS, SEAT_CHANGES, SEAT_TRAILS], dtype=np.int64)

# ---- observation layout (khasino_sim/agents/observation.py, SECTIONS; checked equal by the tests) -----------
OBS_SEATS = 6
O_HAND = 0
O_LOOSE = O_HAND + 52
O_IN_BUILD = O_LOOSE + 52
O_BUILD = O_IN_BUILD + 52
O_PILE_TOP = O_BUILD + TOK_VALUES * 5
O_HAND_SIZE = O_PILE_TOP + OBS_SEATS * 52
O_PILE_SIZE = O_HAND_SIZE + OBS_SEATS
O_SCORE = O_PILE_SIZE + OBS_SEATS
O_TABBE = O_SCORE + OBS_SEATS
O_LAST_CAP = O_TABBE + OBS_SEATS
O_STOCK = O_LAST_CAP + OBS_SEATS + 1
O_DEAL = O_STOCK + 1
O_PLAYED = O_DEAL + 1
O_STAY_OFFER = O_PLAYED + 52
O_PREFIX = O_STAY_OFFER + 52 + TOK_VALUES
O_PREFIX_LEN = O_PREFIX + N_ACTIONS
OBS_SIZE = O_PREFIX_LEN + 1
LEN_SCALE = 128.0

@njit(cache=True, nogil=True, _nrt=False, inline="always")
def group_less(a, b):
    """Whether group a's tokens (its cards ascending, then GROUP_END) come before group b's: the lowest card
    in one group only decides (the other group has a higher card or its GROUP_END there)."""
    d = a ^ b
    return (a & d & -d) != 0


@njit(cache=True, nogil=True, _nrt=False)
def sort_groups(gs, n):
    """Insertion sort of the packed words gs[0:n] by (build value, group order): a move holds at most 53."""
    for i in range(1, n):
        x = gs[i]
        j = i - 1
        while j >= 0:
            y = gs[j]
            if (y >> VALUE_SHIFT) > (x >> VALUE_SHIFT) or (
                    (y >> VALUE_SHIFT) == (x >> VALUE_SHIFT) and group_less(x & CARD_BITS, y & CARD_BITS)):
                gs[j + 1] = y
                j -= 1
            else:
                break
        gs[j + 1] = x


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def put_group(out, n, g):
    m = g
    while m:
        b = m & -m
        m ^= b
        out[n] = lowbit_index(b)
        n += 1
    out[n] = GROUP_END
    return n + 1


@njit(cache=True, nogil=True, _nrt=False)
def record_tokens(rec, at, mover, out, gs, kasino):
    """The token sequence of the move record rec[at:at+REC_SIZE] of seat `mover` into out; returns its length
    (actions.record_sequence, compiled: the card, the kind, the captured build, the groups in group order, the
    K9 follow-ups by build value, END; a Kasino capture (`kasino`): the card, CAPTURE, the cards taken
    ascending, GROUP_END, END, as actions.move_sequence enters it)."""
    out[0] = rec[at + M_CARD]
    kind = rec[at + M_KIND]
    value = rec[at + M_VALUE]
    if kasino and kind == KIND_CAPTURE:     # N2: the card, then the captured multiset ascending (a card twice)
        out[1] = CAPTURE
        n = 2
        lo = rec[at + M_TAKEN_LO]
        hi = rec[at + M_TAKEN_HI]
        while lo:
            b = lo & -lo
            lo ^= b
            out[n] = lowbit_index(b)
            n += 1
            if hi & b:
                out[n] = out[n - 1]
                n += 1
        out[n] = GROUP_END
        out[n + 1] = END
        return n + 2
    if kind == KIND_TRAIL:
        out[1] = TRAIL
        out[2] = END
        return 3
    n = 2
    if kind == KIND_CAPTURE:
        out[1] = CAPTURE
        t = rec[at + M_TARGET]
        if t > 0:
            out[2] = TAKE_BUILD + t - 1
            n = 3
    elif kind == KIND_BUILD:
        out[1] = (REBUILD if rec[at + M_OWNER] != mover else BUILD) + value - 1
    elif kind == KIND_LOAD:
        out[1] = LOAD + value - 1
    else:
        out[1] = CHANGE + value - 1
    ng = rec[at + M_GCOUNT]
    for i in range(ng):
        gs[i] = rec[at + M_GROUPS + i]
    sort_groups(gs, ng)
    for i in range(ng):
        n = put_group(out, n, gs[i])
    nf = rec[at + M_FCOUNT]
    for i in range(nf):
        gs[i] = rec[at + M_FGROUPS + i]
    sort_groups(gs, nf)
    for i in range(nf):
        out[n] = FOLLOW + (gs[i] >> VALUE_SHIFT) - 1
        n = put_group(out, n + 1, gs[i] & CARD_BITS)
    out[n] = END
    return n + 1



# ---- the environment's area of its listing workspace, from WS_SIZE (`area_size` words) ------------------------
A_SIZE = 0          # at WS_OBS: words from WS_OBS to the workspace's end (env_offer's reach from its view pointer)
A_K = 1             # prefix length
A_MOVER = 2         # the seat entering the move
A_STAMP = 3         # the table's stamp: a slot is in use when its stamp is the pass's (no clearing between passes)
A_SLICES = 4        # the key space's slices in this pass (a power of two), and the slice listed
A_PART = 5
A_NUSED = 6         # keys in the table
A_FULL = 7          # 1: the slice held more keys than half the table (the pass is repeated in twice the slices)
A_TROWS = 8         # table slots (a power of two)
A_END = 9           # 1: a record whose sequence is the prefix and END was met (at A_ENDREC)
A_CACHING = 10      # k == 0: 1 while every move's least sequence is kept (at A_STORE), 0 once they do not fit
A_STORE_TOP = 11    # words of A_STORE in use
A_STORE_CAP = 12    # its size (the game caches' size)
A_KASINO = 13       # 1: the records are Kasino's (their captured multiset in M_TAKEN_LO/HI)
A_PREFIX = 16
A_CARDS = A_PREFIX + MAX_SEQ    # k == 0: the cards with a move
A_SEQ = A_CARDS + 52
A_GS = A_SEQ + MAX_SEQ
A_ENDREC = A_GS + 2 * MAX_MOVE_GROUPS
A_USED = A_ENDREC + REC_SIZE    # the slots in use, then the table (4 words a slot), then the store
T_KEY, T_STAMP, T_NEXT, T_FLAGS = 0, 1, 2, 3
F_EQ, F_LESS = 1, 2             # a way extends the prefix; a way is less than it


def area_size(trows, cache_words):
    """Words of the environment's area for a table of `trows` slots and a move cache of `cache_words`
    (docs/ENGINE.md, "Scratch bounds")."""
    return A_USED + trows // 2 + 4 * trows + cache_words


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def claim_slot(area, base, at, key, stamp):
    """Take the empty slot at area[at:] for `key`; False where the table holds half its slots already."""
    nused = area[base + A_NUSED]
    if nused >= area[base + A_TROWS] // 2:
        return False
    area[at + T_STAMP] = stamp
    area[at + T_KEY] = key
    area[base + A_USED + nused] = at
    area[base + A_NUSED] = nused + 1
    return True


@njit(cache=True, nogil=True, _nrt=False)
def cache_record(area, base, rec):
    """k == 0: keep the record's sequence where it is the least of its key's so far (appended to the store,
    the key's slot pointing at it); caching stops when the keys fill half the table or the store is full."""
    seq = area[base + A_SEQ: base + A_SEQ + MAX_SEQ]
    n = record_tokens(rec, 0, area[base + A_MOVER], seq, area[base + A_GS: base + A_GS + 2 * MAX_MOVE_GROUPS],
                      area[base + A_KASINO])
    key = rec[M_KEY]
    trows = area[base + A_TROWS]
    tab = base + A_USED + trows // 2
    stamp = area[base + A_STAMP]
    at = tab + 4 * slot_of(area, tab, trows, key, stamp)
    if area[at + T_STAMP] == stamp:         # a way of a move met before: keep the lesser sequence
        old = area[at + T_NEXT]
        m = area[old + 1]
        less = False
        for i in range(min(n, m)):
            if seq[i] != area[old + 2 + i]:
                less = seq[i] < area[old + 2 + i]
                break
        if not less:
            return
    elif not claim_slot(area, base, at, key, stamp):
        area[base + A_CACHING] = 0
        return
    top = area[base + A_STORE_TOP]
    if top + 2 + n > area[base + A_STORE_CAP]:
        area[base + A_CACHING] = 0
        return
    store = tab + 4 * trows + top
    area[store] = key
    area[store + 1] = n
    for i in range(n):
        area[store + 2 + i] = seq[i]
    area[at + T_NEXT] = store
    area[base + A_STORE_TOP] = top + 2 + n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def slot_of(area, tab, trows, key, stamp):
    """The slot of `key` in the table at area[tab:] (linear probing from its high bits), or the empty slot it
    would take."""
    i = np.int64((np.uint64(key) >> np.uint64(32)) & np.uint64(trows - 1))
    while area[tab + 4 * i + T_STAMP] == stamp and area[tab + 4 * i + T_KEY] != key:
        i = (i + 1) & (trows - 1)
    return i


@njit(cache=True, nogil=True, _nrt=False)
def offer_record(area, base, rec):
    """Fold one candidate move record into the mask pass whose fields are at area[base:]."""
    k = area[base + A_K]
    c = rec[M_CARD]
    if k == 0:      # every way of a move plays its card (the hand after it differs otherwise, P7)
        area[base + A_CARDS + c] = 1
        if area[base + A_CACHING]:
            cache_record(area, base, rec)
        return
    if area[base + A_FULL] or c != area[base + A_PREFIX]:
        return
    key = rec[M_KEY]
    slices = area[base + A_SLICES]
    if slices > 1 and (key & (slices - 1)) != area[base + A_PART]:
        return
    seq = area[base + A_SEQ: base + A_SEQ + MAX_SEQ]
    n = record_tokens(rec, 0, area[base + A_MOVER], seq, area[base + A_GS: base + A_GS + 2 * MAX_MOVE_GROUPS],
                      area[base + A_KASINO])
    cmp = 0
    for i in range(k):
        if seq[i] != area[base + A_PREFIX + i]:     # a shorter sequence ends in END, which no prefix holds
            cmp = -1 if seq[i] < area[base + A_PREFIX + i] else 1
            break
    if cmp > 0:
        return
    trows = area[base + A_TROWS]
    tab = base + A_USED + trows // 2
    stamp = area[base + A_STAMP]
    at = tab + 4 * slot_of(area, tab, trows, key, stamp)
    if area[at + T_STAMP] != stamp:
        if not claim_slot(area, base, at, key, stamp):
            area[base + A_FULL] = 1
            return
        area[at + T_NEXT] = N_ACTIONS
        area[at + T_FLAGS] = 0
    if cmp < 0:
        area[at + T_FLAGS] |= F_LESS
        return
    area[at + T_FLAGS] |= F_EQ
    nxt = seq[k]
    if nxt < area[at + T_NEXT]:
        area[at + T_NEXT] = nxt
    if nxt == END and n == k + 1:
        for j in range(REC_SIZE):
            area[base + A_ENDREC + j] = rec[j]
        area[base + A_END] = 1


@cfunc(types.int64(types.CPointer(types.int64), types.CPointer(types.int64)), cache=True)
def env_offer(view_ptr, move_ptr):
    """The user-bot sink's score function during a mask pass: view_ptr is &ws[WS_OBS], move_ptr the candidate's
    record; the environment's area lies WS_SIZE - WS_OBS words past the view."""
    size = carray(view_ptr, (1,))[0]
    offer_record(carray(view_ptr, (size,)), WS_SIZE - WS_OBS, carray(move_ptr, (REC_SIZE,)))
    return 0


def env_list(family, st, rules, p, ws, mode):
    """Generate seat p's moves into the sink `mode` (SINK_USER: the mask pass; SINK_SELECT: the record of the
    key at ws[C_TKEY]) by the family's move rules: Kasino's (compiled apart) or the one-deck core's. Compiled
    per family (`family` a literal, the overload below)."""


@overload(env_list, prefer_literal=True, jit_options=JIT_OPTIONS)
def _env_list(family, st, rules, p, ws, mode):
    value = literal_value(family)
    if value is None:
        return lambda family, st, rules, p, ws, mode: literally(family)
    if value == FAMILY_KASINO:
        return lambda family, st, rules, p, ws, mode: kasino_list_window(st, rules, p, ws, mode, 0, 0)
    return lambda family, st, rules, p, ws, mode: list_moves(family, st, rules, p, ws, mode, 0, 0)


@njit(cache=True, nogil=True, _nrt=False)
def move_mask(family, st, rules, p, ws, address, prefix, k, mask, endrec, cache):
    """The mask of the tokens that extend prefix[0:k] towards a legal move of seat p, from one streamed
    generation of the position's moves (more where its keys fill the table: the key space in slices); where
    the prefix is a whole move's but for END, its record is copied to endrec. Returns (allowed tokens, 1 if
    endrec was set); allowed -1 on a scratch overflow (ws[C_OVERFLOW]). `address`: env_offer's.

    The game's `cache`: at k == 0 every move's least sequence, where they fit ([0]: the number of moves, or
    -1; then per move its key, its length, its tokens); the masks of the move's later tokens are then read
    from it, and END finds the record by its key (`select_record`)."""
    if k > 0 and cache[0] >= 0:
        return cached_mask(cache, prefix, k, mask)
    a = WS_SIZE
    ws[WS_OBS + A_SIZE] = ws.shape[0] - WS_OBS
    ws[a + A_K] = k
    ws[a + A_MOVER] = p
    for i in range(k):
        ws[a + A_PREFIX + i] = prefix[i]
    for c in range(52):
        ws[a + A_CARDS + c] = 0
    for t in range(N_ACTIONS):
        mask[t] = 0
    allowed = 0
    end_ok = 0
    slices = 1
    part = 0
    while part < slices:
        ws[a + A_STAMP] += 1
        ws[a + A_SLICES] = slices
        ws[a + A_PART] = part
        ws[a + A_NUSED] = 0
        ws[a + A_FULL] = 0
        ws[a + A_END] = 0
        ws[a + A_CACHING] = 1 if k == 0 and cache.shape[0] > 1 else 0
        ws[a + A_STORE_TOP] = 0
        ws[C_HW] = address
        ws[a + A_KASINO] = 1 if family == FAMILY_KASINO else 0
        env_list(family, st, rules, p, ws, SINK_USER)
        if ws[C_OVERFLOW]:
            return -1, 0
        if k == 0:
            for c in range(52):
                if ws[a + A_CARDS + c]:
                    mask[c] = 1
                    allowed += 1
            cache[0] = -1
            if ws[a + A_CACHING] and ws[a + A_STORE_TOP] + 1 <= cache.shape[0]:
                at = 1
                for j in range(ws[a + A_NUSED]):
                    src = WS_OBS + ws[WS_OBS + ws[a + A_USED + j] + T_NEXT]
                    for i in range(ws[src + 1] + 2):
                        cache[at + i] = ws[src + i]
                    at += ws[src + 1] + 2
                cache[0] = ws[a + A_NUSED]
            return allowed, 0
        if ws[a + A_FULL]:      # more keys than half the table: the key space in twice as many slices
            slices *= 2
            part = 0
            allowed = 0
            end_ok = 0
            for t in range(N_ACTIONS):
                mask[t] = 0
            continue
        end_key = ws[a + A_ENDREC + M_KEY]
        for j in range(ws[a + A_NUSED]):
            at = WS_OBS + ws[a + A_USED + j]       # env_offer's slot addresses count from WS_OBS
            if ws[at + T_FLAGS] == F_EQ:
                t = ws[at + T_NEXT]
                if mask[t] == 0:
                    mask[t] = 1
                    allowed += 1
                if t == END and ws[a + A_END] and ws[at + T_KEY] == end_key:
                    end_ok = 1
                    for i in range(REC_SIZE):
                        endrec[i] = ws[a + A_ENDREC + i]
        part += 1
    return allowed, end_ok


@njit(cache=True, nogil=True, _nrt=False)
def cached_mask(cache, prefix, k, mask):
    """move_mask from the game's cache of least sequences; returns (allowed tokens, 0): END's record is found
    when played (`select_record`)."""
    for t in range(N_ACTIONS):
        mask[t] = 0
    allowed = 0
    at = 1
    for _ in range(cache[0]):
        n = cache[at + 1]
        same = n > k
        for i in range(k):
            if not same:
                break
            same = cache[at + 2 + i] == prefix[i]
        if same:
            t = cache[at + 2 + k]
            if mask[t] == 0:
                mask[t] = 1
                allowed += 1
        at += n + 2
    return allowed, 0


@njit(cache=True, nogil=True, _nrt=False)
def select_record(family, st, rules, p, ws, cache, prefix, k, endrec):
    """The record of the cached move whose sequence is prefix[0:k] then END, by one generation that keeps the
    first record with its key (SINK_SELECT; any way of a move makes the same position, P7). Returns 1, or 0 if
    none (never: the mask allowed END)."""
    at = 1
    for _ in range(cache[0]):
        n = cache[at + 1]
        if n == k + 1:
            same = True
            for i in range(k):
                if cache[at + 2 + i] != prefix[i]:
                    same = False
                    break
            if same:
                ws[C_TKEY] = cache[at]
                env_list(family, st, rules, p, ws, SINK_SELECT)
                if ws[C_FOUND] == 0:
                    return 0
                for j in range(REC_SIZE):
                    endrec[j] = ws[WS_BEST + j]
                return 1
        at += n + 2
    return 0


@njit(cache=True, nogil=True, _nrt=False)
def write_observation(st, rules, seat, phase, pend, played, prefix, k, obs):
    """The seat's observation (observation.py's layout) of st: what it may see and no more (docs/rules/
    project.md, "What bots see"); `pend` is the capture a Stay decision is asked on (phase PH_STAY)."""
    for i in range(OBS_SIZE):
        obs[i] = 0.0
    n = rules[R_SEATS]
    kasino = rules[R_FAMILY] == FAMILY_KASINO
    hand = st[S_HANDS + 2 * seat]
    hand_hi = st[S_HANDS + 2 * seat + 1] if kasino else 0      # Kasino's double deck: the cards held twice
    loose = st[S_LOOSE]
    loose_hi = st[S_LOOSE_HI] if kasino else 0
    for c in range(52):
        obs[O_HAND + c] = ((hand >> c) & 1) + ((hand_hi >> c) & 1)
        obs[O_LOOSE + c] = ((loose >> c) & 1) + ((loose_hi >> c) & 1)
        obs[O_PLAYED + c] = played[c]
    for v in range(1, MAX_VALUE + 1):
        if kasino:          # no builds (N2)
            break
        owner = st[S_BOWNER + v]
        if owner < 0:
            continue
        for i in range(st[S_BNG + v]):
            m = st[S_BGROUPS + v * MAX_GROUPS + i]
            while m:
                b = m & -m
                m ^= b
                obs[O_IN_BUILD + lowbit_index(b)] = v / TOK_VALUES
        base = O_BUILD + (v - 1) * 5
        obs[base] = 1.0
        if owner == seat:
            obs[base + 1] = 1.0
        elif rules[R_TEAM + owner] == rules[R_TEAM + seat]:     # K15, C8: each seat its own team without
            obs[base + 2] = 1.0
        else:
            obs[base + 3] = 1.0
        if (st[S_PROMISED] >> v) & 1:
            obs[base + 4] = 1.0
    face_up = rules[R_FAMILY] == FAMILY_KHASINO
    for s in range(n):
        r = (s - seat + n) % n
        plen = st[S_PLEN + s]
        if face_up and plen > 0:
            obs[O_PILE_TOP + r * 52 + st[S_PILE + s * MAX_PILE + plen - 1]] = 1.0
        held = popcount(st[S_HANDS + 2 * s]) + (popcount(st[S_HANDS + 2 * s + 1]) if kasino else 0)
        obs[O_HAND_SIZE + r] = held / 13
        obs[O_PILE_SIZE + r] = plen / 104
        if rules[R_FAMILY] != FAMILY_KHASINO:
            obs[O_SCORE + r] = st[S_SCORES + s] / 50
        if kasino:
            obs[O_TABBE + r] = (st[S_TABBE + 2 * s] + st[S_TABBE + 2 * s + 1]) / 50
    last = st[S_LAST_CAP]
    obs[O_LAST_CAP + (OBS_SEATS if last < 0 else (last - seat + n) % n)] = 1.0
    obs[O_STOCK] = (st[S_STOCK_LEN] - st[S_STOCK_POS]) / 104
    obs[O_DEAL] = st[S_DEAL] / 12
    if phase == PH_STAY:
        obs[O_STAY_OFFER + pend[M_CARD]] = 1.0
        obs[O_STAY_OFFER + 52 + pend[M_TARGET] - 1] = 1.0
    for i in range(k):
        obs[O_PREFIX + prefix[i]] = 1.0
    obs[O_PREFIX_LEN] = k / LEN_SCALE


@njit(cache=True, nogil=True, _nrt=False)
def deal_round(rules, seed, rnd, st, deck, stream, row):
    """Cassino: round `rnd` dealt from the seed `seed` (P20), its statistics row begun as the game loop
    begins a round's (cassino/game.py, play_dealt_round)."""
    start_row(row, seed, start_round(rules, seed, rnd, st, deck, stream), st[S_DEALER], rnd, stream)


@njit(cache=True, nogil=True, _nrt=False)
def start_row(row, seed, leader, dealer, rnd, stream):
    """A statistics row begun (its seed, leader, dealer and round, a Khasino game's 0 and 0; the rest zero) and
    its bot stream seeded, as the game loops begin them."""
    for i in range(row.shape[0]):
        row[i] = 0
    row[G_SEED] = np.int64(seed)
    row[G_LEADER] = leader
    row[G_DEALER] = dealer
    row[G_ROUND] = rnd
    stream[0] = bot_stream_seed(seed)


@njit(cache=True, nogil=True, _nrt=False)
def deal_kasino_round(rules, seed, rnd, nrounds, st, deck, stream, row):
    """Kasino: round `rnd` of a match of `nrounds` dealt from the seed `seed` (P22), its statistics row begun as
    the game loop begins a round's (kasino/game.py, play_kasino_round). Match totals are the caller's."""
    shuffle_deck(deck, rules[R_DECK], seed, stream)
    leader = init_round(st, rules, deck, rnd)
    st[S_ROUNDS] = nrounds
    start_row(row, seed, leader, st[S_DEALER], rnd, stream)


@njit(cache=True, nogil=True, _nrt=False)
def play_kasino(st, rules, p, rec, played, row):
    """Seat p's Kasino play `rec` (N2-N5): counted as the game loop counts it (kasino/game.py, run_round),
    played, and the turn passed on."""
    played[rec[M_CARD]] += 1
    o = G_SEAT0 + p * SEAT_FIELDS
    if rec[M_KIND] == KIND_CAPTURE:
        row[o + SEAT_CAPTURES] += 1
        if rec[M_TABBE]:
            row[o + SEAT_TABBES] += 1
    else:
        row[o + SEAT_TRAILS] += 1
    apply_kasino(st, p, rec, 0)
    advance_kasino(st, rules, p)
    row[G_TURNS] += 1


@njit(cache=True, nogil=True, _nrt=False)
def kasino_bots_play(rules, bots, st, gw, pend, played, wsg, stream, row):
    """bots_play for Kasino (no pending decisions): the core bots' plays until an agent's turn or the end."""
    while st[S_OVER] == 0:
        p = st[S_TO_MOVE]
        bot = bots[p]
        if bot < 0:
            return
        n = decide_kasino(bot, st, rules, p, wsg, stream)
        if n == 0 or wsg[C_OVERFLOW]:
            gw[W_ERROR] = 1
            return
        for j in range(REC_SIZE):
            pend[j] = wsg[WS_BEST + j]
        play_kasino(st, rules, p, pend, played, row)


def env_bots_play(family, searching, rules, bots, st, gw, pend, played, wsg, stream, row):
    """The core bots' turns until an agent's or the end, by the family's game loop: Kasino's (compiled apart)
    or the one-deck core's (`bots_play`). Compiled per family (the overload below)."""


@overload(env_bots_play, prefer_literal=True, jit_options=JIT_OPTIONS)
def _env_bots_play(family, searching, rules, bots, st, gw, pend, played, wsg, stream, row):
    value = literal_value(family)
    if value is None:
        return lambda family, searching, rules, bots, st, gw, pend, played, wsg, stream, row: literally(family)
    if value == FAMILY_KASINO:
        return lambda family, searching, rules, bots, st, gw, pend, played, wsg, stream, row: kasino_bots_play(
            rules, bots, st, gw, pend, played, wsg, stream, row)
    return lambda family, searching, rules, bots, st, gw, pend, played, wsg, stream, row: bots_play(
        family, searching, rules, bots, st, gw, pend, played, wsg, stream, row)


@njit(cache=True, nogil=True, _nrt=False)
def start_game(family, mode, rules, seed, leader, st, deck, stream, gw, row):
    """The dealt position of the episode of `seed` (EP_GAME: as engine.new_game deals it; EP_MATCH and
    EP_SINGLE: round 1 of the match as `simulate` deals it), its statistics row begun and the bot stream
    seeded as the game loop does; a Khasino-family game led by `leader` (P10: a series' later matches; a P11
    lead choice overrides it), a round by the seat after its dealer."""
    for i in range(GW_SIZE):
        gw[i] = 0
    gw[W_SEED] = np.int64(seed)
    if family == FAMILY_CASSINO:
        deal_round(rules, seed if mode == EP_GAME else round_seed(seed, 1), 1, st, deck, stream, row)
    elif family == FAMILY_KASINO:
        deal_kasino_round(rules, seed if mode == EP_GAME else round_seed(seed, 1), 1,
                          1 if mode == EP_SINGLE else rules[R_MATCH_ROUNDS], st, deck, stream, row)
    else:
        shuffle_deck(deck, rules[R_DECK], np.uint64(seed), stream)
        init_state(st, rules, deck)
        st[S_TO_MOVE] = leader
        start_row(row, np.uint64(seed), leader, 0, 0, stream)
        row[G_LEADER2] = -1
        row[G_AHEAD1] = -1
    gw[W_PHASE] = PH_LEAD if rules[R_LEAD_CHOICE] else PH_MOVE


@njit(cache=True, nogil=True, _nrt=False)
def end_turn(st, rules, p, row):
    """Seat p's turn is over: the turn passes on (advance), counted in the statistics row as the game loop
    counts it (who leads the second deal, who is ahead when the first ends)."""
    deal = st[S_DEAL]
    advance(st, rules, p)
    if deal == 1 and st[S_DEAL] == 2:
        row[G_LEADER2] = st[S_TO_MOVE]
        row[G_AHEAD1] = score(st, rules, row)
    row[G_TURNS] += 1


@njit(cache=True, nogil=True, _nrt=False)
def play_record(st, rules, p, rec, gw, played, row):
    """Seat p's card play `rec` (record at rec[0:]): where the partner may Stay (P15) the game waits on his
    decision (the card counts as played: its play is public), else the play stands and the turn passes."""
    played[rec[M_CARD]] += 1
    o = G_SEAT0 + p * SEAT_FIELDS
    row[o + SEAT_PILE_TAKEN] += rec[M_PILE_USED]
    row[o + SEAT_FOLLOWUPS] += rec[M_FCOUNT]
    q = stay_partner(st, rules, p, rec[M_KIND], rec[M_TARGET]) if rules[R_TEAMS] else -1
    if q >= 0:
        row[G_SEAT0 + q * SEAT_FIELDS + SEAT_STAY_OFFERS] += 1
        gw[W_PHASE] = PH_STAY
        gw[W_MOVER] = p
        st[S_TO_MOVE] = q
        return
    count_play(rules, p, rec, row)
    apply_move(st, rules, p, rec, 0)
    end_turn(st, rules, p, row)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def count_play(rules, p, rec, row):
    o = G_SEAT0 + p * SEAT_FIELDS
    row[o + _KIND_COUNTER[rec[M_KIND]]] += 1
    if rec[M_KIND] == KIND_CAPTURE and rec[M_TARGET] > 0:
        row[o + SEAT_BUILDS_CAPTURED] += 1


@njit(cache=True, nogil=True, _nrt=False)
def answer_stay(st, rules, gw, pend, stay, row):
    """The partner's answer to the pending capture `pend` (P15): Stay (the card loads the build, now his) or
    decline (the capture stands); then the turn passes on from the mover."""
    p = gw[W_MOVER]
    q = st[S_TO_MOVE]
    st[S_TO_MOVE] = p
    if stay:
        row[G_SEAT0 + q * SEAT_FIELDS + SEAT_STAYS] += 1
        row[G_SEAT0 + p * SEAT_FIELDS + SEAT_LOADS] += 1
        apply_stay(st, rules, p, pend, 0, q)
    else:
        count_play(rules, p, pend, row)
        apply_move(st, rules, p, pend, 0)
    end_turn(st, rules, p, row)
    gw[W_PHASE] = PH_MOVE


@njit(cache=True, nogil=True, _nrt=False)
def bots_play(family, searching, rules, bots, st, gw, pend, played, wsg, stream, row):
    """The core bots' turns until an agent's (bots[seat] < 0) or the end; as the game loop plays them."""
    while st[S_OVER] == 0:
        p = st[S_TO_MOVE]
        bot = bots[p]
        if bot < 0:
            return
        phase = gw[W_PHASE]
        if phase == PH_LEAD:
            st[S_TO_MOVE] = decide(family, searching, bot, st, rules, p, wsg, stream, np.int64(DECIDE_LEAD),
                                   np.int64(-1))
            row[G_LEADER] = st[S_TO_MOVE]
            gw[W_PHASE] = PH_MOVE
        elif phase == PH_STAY:
            for j in range(REC_SIZE):
                wsg[WS_BEST + j] = pend[j]
            stay = decide(family, searching, bot, st, rules, p, wsg, stream, np.int64(DECIDE_STAY),
                          gw[W_MOVER])
            answer_stay(st, rules, gw, pend, stay, row)
        else:
            n = decide(family, searching, bot, st, rules, p, wsg, stream, np.int64(NO_DECISION), np.int64(-1))
            if n == 0 or wsg[C_OVERFLOW]:
                gw[W_ERROR] = 1
                return
            for j in range(REC_SIZE):
                pend[j] = wsg[WS_BEST + j]
            play_record(st, rules, p, pend, gw, played, row)

@njit(cache=True, nogil=True, _nrt=False)
def prepare_turn(family, rules, st, gw, pend, played, prefix, mask, endrec, obs, ws, address, cache, full):
    """The agent to move: its mask, and its observation at the prefix held (with `full` 0, only the prefix's
    words: the position and seat are those of the last observation)."""
    p = st[S_TO_MOVE]
    k = gw[W_PLEN]
    phase = gw[W_PHASE]
    gw[W_END_OK] = 0
    if phase == PH_MOVE:
        allowed, end_ok = move_mask(family, st, rules, p, ws, address, prefix, k, mask, endrec, cache)
        gw[W_END_OK] = end_ok
        if allowed <= 0:
            gw[W_ERROR] = 1
    else:
        for t in range(N_ACTIONS):
            mask[t] = 0
        if k == 0:
            mask[LEAD_0 if phase == PH_LEAD else STAY] = 1
            mask[LEAD_1 if phase == PH_LEAD else DECLINE] = 1
        else:
            mask[END] = 1
    if full:
        write_observation(st, rules, p, phase, pend, played, prefix, k, obs)
    else:
        obs[O_PREFIX + prefix[k - 1]] = 1.0
        obs[O_PREFIX_LEN] = k / LEN_SCALE


@njit(cache=True, nogil=True, _nrt=False)
def close_round(family, mode, win, rules, st, gw, row, out, rewards, deck, stream, played):
    """The game (Cassino: the round) in `st` is over: its statistics row scored as the game loop scores it
    (cassino/game.py, play_round: counted towards the match) and copied to `out` (G_MATCH: the episode). Where
    the episode ends, each seat's return (steps.returns: its side's points, the match total in a match, or +1/
    0/-1 for its side's win, tie or loss) in `rewards`, and 1 is returned; where a match goes on its next
    round is dealt (the match totals carried) and 0 is returned. `gw[W_MOVER]` then holds the winner (the seat,
    or the team in a team format; -1 a tie)."""
    row[G_LAST_CAP] = st[S_LAST_CAP]
    if family == FAMILY_KASINO:
        return close_kasino_round(mode, win, rules, st, gw, row, out, rewards, deck, stream, played)
    w = score(st, rules, row)
    row[G_WINNER] = w
    field = SEAT_SCORE
    if family == FAMILY_CASSINO and mode != EP_GAME:
        row[G_SEED] = gw[W_SEED]
        field = SEAT_MATCH_TOTAL
        if mode == EP_SINGLE:
            for s in range(rules[R_SEATS]):
                row[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL] = row[G_SEAT0 + s * SEAT_FIELDS + SEAT_SCORE]
            row[G_MATCH_WINNER] = w
        else:
            w = count_round(st, rules, row)
    for i in range(row.shape[0]):
        out[i] = row[i]
    out[G_MATCH] = gw[W_EPISODE]
    if family == FAMILY_CASSINO and mode == EP_MATCH and w < 0:
        rnd = st[S_ROUND] + 1
        deal_round(rules, round_seed(np.uint64(gw[W_SEED]), rnd), rnd, st, deck, stream, row)
        for s in range(rules[R_SEATS]):
            st[S_SCORES + s] = out[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL]
        for c in range(52):
            played[c] = 0
        gw[W_PHASE] = PH_MOVE
        return 0
    end_episode(win, 1.0, rules, out, field, w, rewards, gw)
    return 1


@njit(cache=True, nogil=True, _nrt=False)
def end_episode(win, sign, rules, out, field, w, rewards, gw):
    """Each seat's return from the last row `out` (its field `field` times `sign`, or the winner w's +1/0/-1),
    the winner kept in gw[W_MOVER]."""
    for s in range(rules[R_SEATS]):
        if win:
            rewards[s] = 0.0 if w < 0 else (1.0 if rules[R_TEAM + s] == w else -1.0)
        else:
            rewards[s] = sign * out[G_SEAT0 + s * SEAT_FIELDS + field]
    gw[W_MOVER] = w


@njit(cache=True, nogil=True, _nrt=False)
def close_kasino_round(mode, win, rules, st, gw, row, out, rewards, deck, stream, played):
    """close_round for Kasino (kasino/game.py, play_kasino_round and play_kasino_match): the round scored
    (misère: the returns are minus the points), the match totals, a match's next round dealt until its last
    (N7: a fixed number of rounds, the lowest total winning)."""
    w = score_kasino(st, rules, row)
    row[G_WINNER] = w
    for s in range(rules[R_SEATS]):         # N7: pairs' totals combined (each seat holds its pair's)
        o = G_SEAT0 + s * SEAT_FIELDS
        row[o + SEAT_MATCH_TOTAL] = st[S_SCORES + s] + row[o + SEAT_TEAM_SCORE]
    field = SEAT_SCORE
    rnd = st[S_ROUND]
    if mode != EP_GAME:
        field = SEAT_MATCH_TOTAL
        row[G_SEED] = gw[W_SEED]
        row[G_MATCH_WINNER] = kasino_match_winner(rules, row) if rnd == st[S_ROUNDS] else -1
        w = row[G_MATCH_WINNER]
    for i in range(row.shape[0]):
        out[i] = row[i]
    out[G_MATCH] = gw[W_EPISODE]
    if mode == EP_MATCH and rnd < st[S_ROUNDS]:
        nrounds = st[S_ROUNDS]
        deal_kasino_round(rules, round_seed(np.uint64(gw[W_SEED]), rnd + 1), rnd + 1, nrounds, st, deck, stream,
                          row)
        for s in range(rules[R_SEATS]):
            st[S_SCORES + s] = out[G_SEAT0 + s * SEAT_FIELDS + SEAT_MATCH_TOTAL]
        for c in range(52):
            played[c] = 0
        return 0
    end_episode(win, -1.0, rules, out, field, w, rewards, gw)
    return 1


@njit(cache=True, nogil=True, _nrt=False)
def begin_episode(family, searching, mode, rules, bots, ebots, seed, leader, episode, limit, st, deck, stream, gw,
                  pend, played, prefix, mask, endrec, obs, ws, wsg, address, cache, row):
    """Deal the episode of `seed` into one slot (its seats' bots `ebots`, copied to the slot's `bots`), let
    the core bots play to the first agent's turn, and write its mask and observation; from the episode
    `limit` on the slot stays idle."""
    for t in range(N_ACTIONS):
        mask[t] = 0
    if episode >= limit:
        for i in range(GW_SIZE):
            gw[i] = 0
        gw[W_IDLE] = 1
        gw[W_EPISODE] = episode
        return
    agents = 0
    for s in range(bots.shape[0]):
        bots[s] = ebots[s]
        if bots[s] < 0:
            agents += 1
    start_game(family, mode, rules, seed, leader, st, deck, stream, gw, row)
    gw[W_EPISODE] = episode
    if agents == 0:         # the host gives every episode an agent's seat
        gw[W_ERROR] = 1
        return
    for c in range(52):
        played[c] = 0
    env_bots_play(family, searching, rules, bots, st, gw, pend, played, wsg, stream, row)
    if st[S_OVER] == 0 and gw[W_ERROR] == 0:
        prepare_turn(family, rules, st, gw, pend, played, prefix, mask, endrec, obs, ws, address, cache, 1)


@njit(cache=True, nogil=True, _nrt=False)
def reset_batch(family, searching, mode, rules, bots, ebots, seeds, leaders, first, limit, states, deck, streams,
                gws, pends, playeds, prefixes, masks, endrecs, obs, ws, wsg, address, caches, rows):
    """Every slot g begins the episode first+g dealt from seeds[g] with the bots ebots[g] (led by leaders[g])."""
    for g in range(states.shape[0]):
        begin_episode(family, searching, mode, rules, bots[g], ebots[g], seeds[g], leaders[g], first + g, limit,
                      states[g], deck, streams[g:g + 1], gws[g], pends[g], playeds[g], prefixes[g], masks[g],
                      endrecs[g], obs[g], ws, wsg, address, caches[g], rows[g])


@njit(cache=True, nogil=True, _nrt=False)
def step_batch(family, searching, mode, rules, bots, ebots, win, tokens, seeds, leaders, first, limit, states,
               deck, streams, gws, pends, playeds, prefixes, masks, endrecs, obs, rewards, done, winners, finished,
               ws, wsg, rows, out, ready, address, caches):
    """One token for every game not idle: tokens[g] must be allowed by masks[g] (else nothing changes and
    -1-g is returned). A game (a Cassino round) that ends writes its statistics row to out[g] and ready[g] = 1
    (at most one per step: every round asks the agent for a card); an episode that ends writes its rewards,
    its winner, its episode (finished[g]) and done[g] = 1, and its slot begins the next episode (the i-th
    ending this step takes seeds[i], ebots[i] and leaders[i], episode first+i). Returns the number of episodes
    begun."""
    for g in range(states.shape[0]):
        t = tokens[g]
        if gws[g, W_IDLE] == 0 and (t < 0 or t >= N_ACTIONS or masks[g, t] == 0 or gws[g, W_ERROR]):
            return -1 - g
    begun = 0
    for g in range(states.shape[0]):
        st = states[g]
        gw = gws[g]
        t = tokens[g]
        done[g] = 0
        ready[g] = 0
        for s in range(rewards.shape[1]):
            rewards[g, s] = 0.0
        if gw[W_IDLE]:
            continue
        if t != END:
            gw[W_PLEN] += 1
            prefixes[g, gw[W_PLEN] - 1] = t
            prepare_turn(family, rules, st, gw, pends[g], playeds[g], prefixes[g], masks[g], endrecs[g], obs[g],
                         ws, address, caches[g], 0)
            continue
        phase = gw[W_PHASE]
        if phase == PH_LEAD:
            st[S_TO_MOVE] = 0 if prefixes[g, 0] == LEAD_0 else 1
            rows[g, G_LEADER] = st[S_TO_MOVE]
            gw[W_PHASE] = PH_MOVE
        elif phase == PH_STAY:
            answer_stay(st, rules, gw, pends[g], prefixes[g, 0] == STAY, rows[g])
        else:           # the move's record: selected from the cache by key, or kept by the last streamed pass
            if caches[g, 0] >= 0:
                found = select_record(family, st, rules, st[S_TO_MOVE], ws, caches[g], prefixes[g], gw[W_PLEN],
                                      endrecs[g])
            else:
                found = gw[W_END_OK]
            if found == 0:
                gw[W_ERROR] = 1
                continue
            for j in range(REC_SIZE):
                pends[g, j] = endrecs[g, j]
            if family == FAMILY_KASINO:
                play_kasino(st, rules, st[S_TO_MOVE], pends[g], playeds[g], rows[g])
            else:
                play_record(st, rules, st[S_TO_MOVE], pends[g], gw, playeds[g], rows[g])
        gw[W_PLEN] = 0
        while True:
            env_bots_play(family, searching, rules, bots[g], st, gw, pends[g], playeds[g], wsg, streams[g:g + 1],
                      rows[g])
            if gw[W_ERROR]:
                break
            if st[S_OVER] == 0:
                prepare_turn(family, rules, st, gw, pends[g], playeds[g], prefixes[g], masks[g], endrecs[g],
                             obs[g], ws, address, caches[g], 1)
                break
            if ready[g]:        # a second round over in one step: no agent played in it (never)
                gw[W_ERROR] = 1
                break
            ready[g] = 1
            if close_round(family, mode, win, rules, st, gw, rows[g], out[g], rewards[g], deck,
                           streams[g:g + 1], playeds[g]):
                winners[g] = gw[W_MOVER]
                finished[g] = gw[W_EPISODE]
                done[g] = 1
                begin_episode(family, searching, mode, rules, bots[g], ebots[begun], seeds[begun], leaders[begun],
                              first + begun, limit, st, deck, streams[g:g + 1], gw, pends[g], playeds[g],
                              prefixes[g], masks[g], endrecs[g], obs[g], ws, wsg, address, caches[g], rows[g])
                begun += 1
                break
    return begun
