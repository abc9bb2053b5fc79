"""A linear softmax policy over the action space (docs/AGENTS.md, "A trained policy"): logits = W @ observation
+ b, masked to the legal tokens. Small enough to train with numpy alone (scripts/train_policy.py, REINFORCE)
and to play through the environments' step functions; saved as an .npz file (W, b, format)."""
import numpy as np

from .actions import N_ACTIONS
from .observation import OBS_SIZE


class LinearPolicy:
    def __init__(self, W=None, b=None, fmt="khasino"):
        self.W = np.zeros((N_ACTIONS, OBS_SIZE), np.float32) if W is None else np.asarray(W, np.float32)
        self.b = np.zeros(N_ACTIONS, np.float32) if b is None else np.asarray(b, np.float32)
        self.format = fmt

    def probabilities(self, obs, mask):
        """The masked softmax over the tokens."""
        z = self.W @ obs + self.b
        z = np.where(mask.astype(bool), z, -np.inf)
        z = z - z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, obs, mask, rng=None):
        """A token: drawn from the probabilities with `rng`, the most likely one without."""
        p = self.probabilities(obs, mask)
        return int(np.argmax(p)) if rng is None else int(rng.choice(N_ACTIONS, p=p))

    def probabilities_batch(self, obs, mask):
        """The masked softmax of each row of obs (k, OBS_SIZE) and mask (k, N_ACTIONS)."""
        z = np.where(mask.astype(bool), obs @ self.W.T + self.b, -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def act_batch(self, obs, mask):
        """The most likely allowed token of each row of obs (k, OBS_SIZE) and mask (k, N_ACTIONS)."""
        z = obs @ self.W.T + self.b
        return np.argmax(np.where(mask.astype(bool), z, -np.inf), axis=1)

    def save(self, path):
        """Write the policy as .npz at `path`, whole and never through a symbolic link."""
        import io
        from ..files import write_bytes
        buf = io.BytesIO()
        np.savez(buf, W=self.W, b=self.b, format=self.format)
        write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path):
        d = np.load(path)
        return cls(d["W"], d["b"], str(d["format"]))


PREFIX = "policy:"
_LOADED = {}


def is_policy(spec):
    """Whether a bot spec names a trained policy file (`policy:PATH.npz`)."""
    return str(spec).startswith(PREFIX)


def load_policy(spec, fmt_name):
    """The LinearPolicy a `policy:PATH` spec names, checked against the format it plays; ValueError (one line)
    on a file that is not one, or one trained for another format."""
    path = str(spec)[len(PREFIX):]
    if (path, fmt_name) not in _LOADED:
        try:
            pol = LinearPolicy.load(path)
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"bot {spec}: not a policy file ({type(e).__name__}: {str(e)[:120]})") from None
        if pol.W.shape != (N_ACTIONS, OBS_SIZE) or pol.b.shape != (N_ACTIONS,):
            raise ValueError(f"bot {spec}: its weights are {pol.W.shape}, not ({N_ACTIONS}, {OBS_SIZE}) (trained "
                             "for another version of the observation?)")
        if pol.format != fmt_name:
            raise ValueError(f"bot {spec} was trained for {pol.format}, not {fmt_name}")
        _LOADED[(path, fmt_name)] = pol
    return _LOADED[(path, fmt_name)]


def play_deal(fmt_name, options, seat_bots, game_seed):
    """One game of a Khasino-family format from `game_seed` (rule `options`) with a bot spec per seat, policies
    among them, in Python: a policy enters its moves token by token (its most likely token), a built-in bot or
    bot file decides through engine.bot_move, its one draw taken from the game's bot stream as in the game loop
    (so the game is the batched environment's, and the game loop's where no seat is a policy).
    Returns (score per seat, winner: the seat or team, -1 on a tie)."""
    from .. import engine
    from ..kernels.core.rng import GOLDEN, bot_stream_seed
    from . import steps
    from .observation import observe
    pos = steps.begin(engine.new_game(fmt_name, game_seed, options=options))
    stream = int(bot_stream_seed(np.uint64(game_seed)))
    while not pos.over:
        seat, spec = pos.seat, seat_bots[pos.seat]
        if is_policy(spec):
            pol = load_policy(spec, fmt_name)
            pos = steps.step(pos, pol.act(observe(pos.state, seat, pos.played, pos.prefix), pos.mask()))
            continue
        key = engine.bot_move(pos.state, spec, stream).key
        stream = (stream + int(GOLDEN)) % (1 << 64)
        for t in next(q for q, k in pos.sequences.items() if k == key):
            pos = steps.step(pos, t)
    return [s["score"] for s in engine.scores(pos.state)], engine.winner(pos.state)
