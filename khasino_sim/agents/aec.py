"""The PettingZoo AEC environment (docs/AGENTS.md): one agent per seat, `seat_0` ... ; each step is one token
of the action space (actions.py) with its mask; a move is played when its END token is chosen, and the turn
passes. An episode is one game (one round in Cassino and Kasino); rewards come at its end: the seat's points
(`reward="points"`; Kasino's misère points negated) or +1/0/-1 for a win, a tie or a loss of the seat's side
(`reward="win"`)."""
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import engine
from . import actions
from .observation import OBS_SIZE, observe


class RawEnv(AECEnv):
    """A game of `format` with rule `options`, seats as agents."""
    metadata = {"render_modes": ["ansi"], "name": "khasino_v0", "is_parallelizable": False}

    def __init__(self, format="khasino", reward="points", options=None, render_mode=None):
        super().__init__()
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        self.fmt = engine._format(format, options)
        self.options = dict(options or {})
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(self.fmt.seats)]
        self.agents = self.possible_agents[:]
        obs = spaces.Box(low=-8.0, high=8.0, shape=(OBS_SIZE,), dtype=np.float32)
        self.observation_spaces = {a: spaces.Dict({"observation": obs, "action_mask": spaces.Box(
            0, 1, shape=(actions.N_ACTIONS,), dtype=np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(actions.N_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state_json = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------------------------------- the game
    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(0, 2 ** 63))
        if self.fmt.matches:
            self.state_json = engine.new_game(self.fmt.name, game_seed, options=self.options, round=1)
        else:
            self.state_json = engine.new_game(self.fmt.name, game_seed, options=self.options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.played = []
        self._turn()

    def _turn(self):
        """The seat to move, its legal sequences, an empty prefix."""
        self.sequences = actions.legal_sequences(self.state_json)
        self.prefix = []
        self.agent_selection = f"seat_{self.state_json['to_move']}"

    def observe(self, agent):
        seat = int(agent.split("_")[1])
        acting = agent == self.agent_selection and not self.terminations[agent]
        obs = observe(self.state_json, seat, self.played, self.prefix if acting else ())
        mask = actions.mask(self.sequences, self.prefix) if acting else np.zeros(actions.N_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = int(action)
        if not actions.mask(self.sequences, self.prefix)[action]:
            raise ValueError(f"{agent}: token {action} ({actions.token_name(action)}) is not allowed after "
                             f"{[actions.token_name(t) for t in self.prefix]}")
        self._cumulative_rewards[agent] = 0
        self.prefix.append(action)
        if action == actions.END:
            key = self.sequences[tuple(self.prefix)]
            move = next(m for m in engine.iter_moves(self.state_json) if m.key == key)
            if move.card is not None:
                self.played.append(move.card)
            self.state_json = move.result
            if self.state_json["over"]:
                self._end()
            else:
                self._turn()
        self._accumulate_rewards()

    def _end(self):
        scores = engine.scores(self.state_json)
        sign = -1 if self.fmt.family == "kasino" else 1
        if self.reward_kind == "points":
            for s, a in enumerate(self.agents):
                self.rewards[a] = sign * scores[s]["score"]
        else:
            from ..duplicate import units
            w = engine.winner(self.state_json)
            _, unit_of = units(self.fmt)
            for s, a in enumerate(self.agents):
                self.rewards[a] = 0 if w < 0 else (1 if unit_of[s] == w else -1)
        self.terminations = {a: True for a in self.agents}

    def render(self):
        if self.render_mode != "ansi":
            return None
        from ..render import render
        return render(self.state_json)

    def close(self):
        pass


def env(**kwargs):
    """The environment with PettingZoo's usual checks wrapped around it (an illegal token raises)."""
    e = RawEnv(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
