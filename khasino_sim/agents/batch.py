"""The batched environment (docs/AGENTS.md, "The batched environment"): N games of any format stepped together
in one compiled call (kernels/batch_env.py), observations, masks and rewards as numpy
arrays. The same tokens, masks, observations and returns as the PettingZoo environment (checked token for
token, tests/test_agents_batch.py); seats may be played by the core's bots inside the step, so a step returns
at the agents' turns only.

Episodes are numbered from 0 in the order they begin; episode i is dealt from the game seed of global index i
under the root seed (numpy SeedSequence spawn keys, as `simulate` seeds its games), so a run is a function of
its seed and the tokens chosen."""
import numpy as np

from khasino_sim.kernels import batch_env as K
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.seeding import seeds_for
from khasino_sim.kernels.core.specialise import entry
from khasino_sim.kernels.core.workspace import new_workspace

from . import actions
from .observation import OBS_SIZE

TABLE_ROWS = 1 << 16        # key-table slots (a pass holds at most half as many keys; more: slices)
CACHE_WORDS = 2048          # a game's cache of its position's least sequences (where they fit)
EPISODES = ("game", "match", "single")      # kernels/batch_env.py EP_GAME, EP_MATCH, EP_SINGLE


class BatchEnv:
    """`n` games of `format` (a format's name with rule `options`, or a Format) stepped together.

    `bots`: per seat None (an agent) or a bot spec the core plays (`random`, `greedy`, `heuristic`, search
    bots...); at least one seat is an agent. `reward`: "points" (the seat's side's points) or "win" (+1, 0,
    -1). After `reset()` and each `step(tokens)`: `obs` (n, OBS_SIZE) float32 of the seat to move, `mask` (n,
    N_ACTIONS) int8, `to_move` (n,) the seat each game waits on; `step` also gives `rewards` (n, seats) float32
    (non-zero where a game ended this step) and `done` (n,) bool; where done, `winners` holds the game's winner
    (the seat, or the team in a team format; -1 a tie) and `finished` its episode. A game that ends begins the
    next episode in its slot at once (its first observation is returned).

    `deals`: game seeds for episodes 0, 1, ... (later episodes, and all without it, are dealt from the game
    seed of their index under `seed`); `deal_bots`: per episode of `deals`, its seats' bots as `bots` gives
    them (later episodes: `bots`); `deal_leaders`: per episode of `deals`, the seat that leads it (a
    Khasino-family game: P10, a series' later matches; 0 otherwise and later; a P11 lead choice overrides it). `limit`: the episodes begun stop there (a slot whose next episode would be
    `limit` or later stays idle: its mask is empty, its token ignored, `active` False).

    `episode` (Cassino and Kasino formats): "game" (one round dealt from the episode's seed, as engine.new_game
    deals it), "match" (a whole match, to its target in Cassino, C7, of its rounds in Kasino, N7, dealt as
    `simulate` deals them; the returns are match totals, Kasino's negated) or "single" (a match of one round, as
    `simulate --rounds 1`). After each step, where `ready` is True a game (a round) ended and `rows` holds its statistics row, as the game loop writes it
    (kernels/core/layout.py, G_*; G_MATCH: its episode).

    `copy` (as Gymnasium's vector environments): False returns the environment's own arrays from `reset` and
    `step`, which the next step overwrites (no copying: a loop that reads them before stepping on)."""

    def __init__(self, format="khasino", n=64, reward="points", options=None, seed=0, bots=None,
                 table_rows=TABLE_ROWS, cache_words=CACHE_WORDS, deals=None, deal_bots=None, limit=None,
                 episode="game", deal_leaders=None, copy=True):
        from .. import engine
        from ..bots import code
        from ..kernels.core.heuristic import searches
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        fmt = format if hasattr(format, "rules_array") else engine._format(format, options)   # a Format, or a name
        if int(n) < 1 or table_rows < 2 or table_rows & (table_rows - 1) or cache_words < 0:
            raise ValueError("n must be positive, table_rows a power of two (at least 2), cache_words >= 0")
        if episode not in EPISODES or (episode != "game" and not fmt.matches):
            raise ValueError(f"episode is 'game', or 'match' or 'single' in a Cassino or Kasino format, not "
                             f"{episode!r}")
        bots = [None] * fmt.seats if bots is None else list(bots)
        codes = {None: -1}

        def row_codes(row, what):
            row = list(row)
            if len(row) != fmt.seats:
                raise ValueError(f"{what} names {fmt.seats} seats (None for an agent's), not {len(row)}")
            if all(b is not None for b in row):
                raise ValueError(f"at least one seat of {what} must be an agent's (None)")
            for b in row:
                if b not in codes:
                    codes[b] = code(b)
            return [codes[b] for b in row]

        self.fmt, self.n, self.seats = fmt, int(n), fmt.seats
        self.win = reward == "win"
        self.copy = bool(copy)
        self.mode = np.int64(EPISODES.index(episode))
        self.rules = fmt.rules_array()
        self.family = int(self.rules[L.R_FAMILY])
        self.bot_codes = np.array(row_codes(bots, "bots"), dtype=np.int64)
        self.deal_bots = None if deal_bots is None else np.array(
            [row_codes(r, f"deal_bots[{i}]") for i, r in enumerate(deal_bots)], dtype=np.int64).reshape(-1, fmt.seats)
        self.deal_leaders = None if deal_leaders is None else np.array(deal_leaders, dtype=np.int64)
        if self.deal_leaders is not None and ((self.deal_leaders < 0) | (self.deal_leaders >= fmt.seats)).any():
            raise ValueError(f"deal_leaders are seats 0 .. {fmt.seats - 1}")
        self.limit = np.int64(2**62 if limit is None else limit)
        self.searching = searches([c for c in codes.values() if c >= 0] or [0])
        self.root = int(seed)
        n = self.n
        self.states = np.zeros((n, L.STATE_SIZE), dtype=np.int64)
        self.gws = np.zeros((n, K.GW_SIZE), dtype=np.int64)
        self.pends = np.zeros((n, L.REC_SIZE), dtype=np.int64)
        self.endrecs = np.zeros((n, L.REC_SIZE), dtype=np.int64)
        self.playeds = np.zeros((n, 52), dtype=np.int64)
        self.prefixes = np.zeros((n, K.MAX_SEQ), dtype=np.int64)
        self.streams = np.zeros(n, dtype=np.uint64)
        self.masks = np.zeros((n, actions.N_ACTIONS), dtype=np.int8)
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.rewards = np.zeros((n, fmt.seats), dtype=np.float32)
        self.done = np.zeros(n, dtype=np.int8)
        self.winners = np.zeros(n, dtype=np.int64)
        self.finished = np.zeros(n, dtype=np.int64)
        self.deals = None if deals is None else np.ascontiguousarray(deals, dtype=np.uint64)
        self._deck = np.zeros(104, dtype=np.int64)
        self.slot_bots = np.zeros((n, fmt.seats), dtype=np.int64)
        self.game_rows = np.zeros((n, L.STATS_SIZE), dtype=np.int64)      # each game's row as it is played
        self.rows = np.zeros((n, L.STATS_SIZE), dtype=np.int64)
        self.ready = np.zeros(n, dtype=np.int8)
        from khasino_sim.kernels.core.heuristic import install_bot_table
        self._ws = install_bot_table(np.zeros(L.WS_SIZE + K.area_size(table_rows, cache_words), dtype=np.int64))
        self._ws[L.WS_SIZE + K.A_TROWS] = table_rows
        self._ws[L.WS_SIZE + K.A_STORE_CAP] = cache_words
        self.caches = np.zeros((n, cache_words + 1), dtype=np.int64)
        self._address = np.int64(K.env_offer.address)
        self._wsg = new_workspace()
        self.episodes = 0           # episodes begun
        self._seeds_at = -1
        self._seeds = None
        self._entries = {}

    # ---- the compiled calls ------------------------------------------------------------------------------
    def _call(self, name, *args):
        """The compiled kernel `name` for this format's family and bots, its entry point found once (typing
        the arguments on every call would cost more than a step of 64 games)."""
        f = self._entries.get(name)
        if f is None:
            f = self._entries[name] = entry(getattr(K, name), (self.family, self.searching), args)
        return f(self.family, self.searching, *args)

    def _next_seeds(self):
        """The seeds, bots and leading seats of the next n episodes: the given ones (`deals`, `deal_bots`,
        `deal_leaders`) where they reach, else the root seed's, `bots` and seat 0."""
        if self._seeds_at != self.episodes:
            e = self.episodes

            def given(default, per_episode):
                if per_episode is not None and e < len(per_episode):
                    part = per_episode[e: e + self.n]
                    default[: len(part)] = part
                return default
            self._seeds = given(seeds_for(self.root, e, self.n), self.deals)
            self._ebots = given(np.repeat(self.bot_codes[None, :], self.n, axis=0), self.deal_bots)
            self._leaders = given(np.zeros(self.n, dtype=np.int64), self.deal_leaders)
            self._seeds_at = e
        return self._seeds, self._ebots, self._leaders

    def _check(self):
        if self.gws[:, K.W_ERROR].any():
            g = int(np.flatnonzero(self.gws[:, K.W_ERROR])[0])
            raise RuntimeError(f"game {g} (episode {int(self.gws[g, K.W_EPISODE])}) has no legal move or overflowed "
                               f"a scratch bound: never in reachable play (docs/ENGINE.md)")

    def reset(self, seed=None):
        """Deal n new games (episodes 0 .. n-1 of the root seed, or of `seed` when given). Returns (obs,
        mask)."""
        if seed is not None:
            self.root = int(seed)
        self.episodes = 0
        self._seeds_at = -1
        seeds, ebots, leaders = self._next_seeds()
        self.ready[:] = 0
        self._call("reset_batch", self.mode, self.rules, self.slot_bots, ebots, seeds, leaders, np.int64(0),
                   self.limit, self.states, self._deck, self.streams, self.gws, self.pends, self.playeds, self.prefixes,
                   self.masks, self.endrecs, self.obs, self._ws, self._wsg, self._address, self.caches,
                   self.game_rows)
        self.episodes = self.n
        self._check()
        if not self.copy:
            return self.obs, self.masks
        return self.obs.copy(), self.masks.copy()

    def step(self, tokens):
        """One token per game (each allowed by its mask; ValueError naming the first game that is not, nothing
        changed). Returns (obs, mask, rewards, done)."""
        tokens = np.ascontiguousarray(tokens, dtype=np.int64)
        if tokens.shape != (self.n,):
            raise ValueError(f"step takes one token per game: shape ({self.n},), not {tokens.shape}")
        seeds, ebots, leaders = self._next_seeds()
        begun = self._call(
            "step_batch", self.mode, self.rules, self.slot_bots, ebots, self.win, tokens, seeds, leaders,
            np.int64(self.episodes), self.limit, self.states, self._deck, self.streams, self.gws, self.pends,
            self.playeds, self.prefixes, self.masks, self.endrecs, self.obs, self.rewards, self.done, self.winners,
            self.finished, self._ws, self._wsg, self.game_rows, self.rows, self.ready, self._address, self.caches)
        if begun < 0:
            g = -1 - begun
            t = int(tokens[g])
            name = actions.token_name(t) if 0 <= t < actions.N_ACTIONS else "out of range"
            raise ValueError(f"game {g}: token {t} ({name}) is not allowed by its mask")
        self.episodes += begun
        self._check()
        if not self.copy:
            return self.obs, self.masks, self.rewards, self.done.view(np.bool_)
        return self.obs.copy(), self.masks.copy(), self.rewards.copy(), self.done.astype(bool)

    @property
    def active(self):
        """Whether each slot holds an episode (False: idle, past `limit`)."""
        return self.gws[:, K.W_IDLE] == 0

    @property
    def episode_of(self):
        """The episode each slot plays."""
        return self.gws[:, K.W_EPISODE].copy()

    @property
    def to_move(self):
        """The seat each game waits on."""
        return self.states[:, L.S_TO_MOVE].copy()

    @property
    def prefix_lengths(self):
        return self.gws[:, K.W_PLEN].copy()

    def state_json(self, g):
        """Game g's JSON state (docs/ENGINE.md), a pending decision included, as engine.new_game writes it."""
        from ..engine import move_json, to_json
        st = self.states[g]
        phase = int(self.gws[g, K.W_PHASE])
        decision = None
        if phase == K.PH_LEAD:
            decision = {"kind": "lead", "team": [0, 1]}
        elif phase == K.PH_STAY:
            rec = self.pends[g]
            decision = {"kind": "stay", "seat": int(self.gws[g, K.W_MOVER]), "value": int(rec[L.M_TARGET]),
                        "move": move_json(rec)}
        return to_json(st, self.fmt, decision)
