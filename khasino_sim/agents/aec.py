"""The PettingZoo AEC environment (docs/AGENTS.md): one agent per seat, `seat_0` ... ; each step is one token
of the action space (actions.py) with its mask; a move is played when its END token is chosen, and the turn
passes. An episode is one game (one round in Cassino and Kasino); rewards come at its end: the seat's points
(`reward="points"`; Kasino's misère points negated) or +1/0/-1 for a win, a tie or a loss of the seat's side
(`reward="win"`). A thin layer over steps.py."""
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import engine
from . import actions, steps
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
        self.pos = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def state_json(self):
        """The game's JSON state (docs/ENGINE.md)."""
        return self.pos.state

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(0, 2 ** 63))
        self.pos = steps.begin(engine.new_game(self.fmt.name, game_seed, options=self.options))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = f"seat_{self.pos.seat}"

    def observe(self, agent):
        seat = int(agent.split("_")[1])
        acting = agent == self.agent_selection and not self.terminations[agent]
        state, played = self.pos.seen_by(seat)
        obs = observe(state, seat, played, self.pos.prefix if acting else ())
        mask = self.pos.mask() if acting else np.zeros(actions.N_ACTIONS, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self.pos = steps.step(self.pos, action)         # ValueError on a token the mask does not allow
        self._cumulative_rewards[agent] = 0
        if self.pos.over:
            for a, r in zip(self.agents, steps.returns(self.pos.state, self.fmt, self.reward_kind)):
                self.rewards[a] = r
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = f"seat_{self.pos.seat}"
        self._accumulate_rewards()

    def render(self):
        if self.render_mode != "ansi":
            return None
        from ..render import render
        return render(self.pos.state)

    def close(self):
        pass


def env(**kwargs):
    """The environment with PettingZoo's usual checks wrapped around it (an illegal token raises)."""
    e = RawEnv(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
