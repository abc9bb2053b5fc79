"""OpenSpiel games for every format (docs/AGENTS.md), registered through pyspiel's Python game API as
`khasino_sim_<format>` (hyphens as underscores): `pyspiel.load_game("khasino_sim_khasino_4p")` after
`import khasino_sim.agents.openspiel_game`. Needs the `openspiel` extra (`pip install -e '.[openspiel]'`).

The deal is chance: one chance node per card of the deck, top first (each remaining card identity with its
share of the copies left), then the game is played from `engine.new_game(format, deck=...)`: one game, one
round in Cassino and Kasino. Players enter moves token by token as in the PettingZoo environment (actions.py,
steps.py). Returns: +1, 0 or -1 for the player's side's win, a tie or a loss (`reward=win`, the default) or its
points (`reward=points`). Observations: the seat's tensor (observation.py) and text; no information state
(the observation holds the public history of cards played)."""
from collections import Counter

import numpy as np
import pyspiel

from khasino_sim.kernels.core.bits import card_name, parse_card

from .. import engine
from ..formats import FORMATS
from . import actions, steps
from .observation import OBS_SIZE, observe

TOKENS_PER_MOVE = 2 + 2 * 104 + 2      # card, kind, at most every card of a double deck and a group end each, END


def short_name(fmt_name):
    return "khasino_sim_" + fmt_name.replace("-", "_")


def _deck(fmt):
    """The format's deck as a multiset of card identities (from a deal: hands, table, stock)."""
    s = engine.new_game(fmt.name, 0)
    cards = [c for h in s["hands"] for c in h] + list(s["table"]["loose"]) + list(s.get("stock", []))
    cards += [c for b in s["table"]["builds"] for g in b["groups"] for c in g]
    return Counter(parse_card(c) for c in cards)


class Game(pyspiel.Game):
    """One format as an OpenSpiel game."""

    def __init__(self, fmt_name, params=None):
        params = dict(params or {})
        self.fmt = engine._format(fmt_name)
        self.reward = params.get("reward", "win")
        if self.reward not in ("win", "points"):
            raise ValueError(f"reward must be 'win' or 'points', not {self.reward!r}")
        self.deck = _deck(self.fmt)
        size = sum(self.deck.values())
        points = self.reward == "points"
        from ..duplicate import units
        zero_sum = not points and units(self.fmt)[0] == 2        # a win and a loss (or a tie): returns sum to 0
        game_type = pyspiel.GameType(
            short_name=short_name(fmt_name), long_name=f"khasino-sim {fmt_name}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=self.fmt.seats, min_num_players=self.fmt.seats,
            provides_information_state_string=False, provides_information_state_tensor=False,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification={"reward": "win"})
        info = pyspiel.GameInfo(
            num_distinct_actions=actions.N_ACTIONS, max_chance_outcomes=52, num_players=self.fmt.seats,
            min_utility=-200.0 if points else -1.0, max_utility=200.0 if points else 1.0,
            utility_sum=0.0 if zero_sum else None, max_game_length=size + (2 * size + 1) * TOKENS_PER_MOVE)
        super().__init__(game_type, info, params)

    def new_initial_state(self):
        return State(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer()


class State(pyspiel.State):
    """A deal in progress (chance), then a game being played token by token."""

    def __init__(self, game):
        super().__init__(game)
        self.fmt = game.fmt
        self.left = Counter(game.deck)
        self.order = []
        self.pos = None

    def current_player(self):
        if self.pos is None:
            return pyspiel.PlayerId.CHANCE
        if self.pos.over:
            return pyspiel.PlayerId.TERMINAL
        return self.pos.seat

    def chance_outcomes(self):
        total = sum(self.left.values())
        return [(c, n / total) for c, n in sorted(self.left.items()) if n]

    def _legal_actions(self, player):
        return [int(t) for t in np.flatnonzero(self.pos.mask())]

    def _apply_action(self, action):
        if self.pos is None:
            self.left[action] -= 1
            self.order.append(card_name(action))
            if not sum(self.left.values()):
                self.pos = steps.begin(engine.new_game(self.fmt.name, deck=self.order))
            return
        self.pos = steps.step(self.pos, action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return actions.token_name(action)

    def is_terminal(self):
        return self.pos is not None and self.pos.over

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self.fmt.seats
        return [float(r) for r in steps.returns(self.pos.state, self.fmt, self.get_game().reward)]

    def __str__(self):
        if self.pos is None:
            return f"dealing: {len(self.order)} cards dealt"
        from ..render import render
        return render(self.pos.state)


class Observer:
    """The seat's observation (observation.py) as OpenSpiel's PyObserver: a tensor and a text."""

    def __init__(self):
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = 0
        if state.pos is not None:
            acting = state.pos.seat == player
            seen, played = state.pos.seen_by(player)
            self.tensor[:] = observe(seen, player, played, state.pos.prefix if acting else ())

    def string_from(self, state, player):
        if state.pos is None:
            return f"dealing: {len(state.order)} cards dealt"
        from ..terminal import screen
        from ..terminal.seat_view import seat_view
        view = seat_view(state.pos.seen_by(player)[0], player, "practice")
        prefix = " ".join(actions.token_name(t) for t in state.pos.prefix) if state.pos.seat == player else ""
        return "\n".join(screen.draw(view, ["?"] * len(view["seats"])) + [f"entering: {prefix}"])


def _register():
    """One registered game class per format (a class, as OpenSpiel's own Python games register: a factory
    closure crashes the interpreter at exit)."""
    classes = {}
    for name in sorted(FORMATS):
        cls = type(f"Game_{name.replace('-', '_')}", (Game,),
                   {"__init__": lambda self, params=None, _name=name: Game.__init__(self, _name, params)})
        pyspiel.register_game(cls().get_type(), cls)
        classes[name] = cls
    return classes


GAMES = _register()
