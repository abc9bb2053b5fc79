"""The batched environment in the compiled core (khasino_sim/agents/batch.py, kernels/batch_env.py): the same
masks, observations and returns as the Python step functions, token for token, in every format; its table of keys split into slices where a position's keys do not fit; core bots
playing seats inside the step as the game loop plays them; what a seat sees and no more."""
import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.agents import actions, steps
from khasino_sim.agents.batch import BatchEnv
from khasino_sim.agents.observation import OBS_SIZE, OFFSETS, observe
from khasino_sim.formats import FORMATS
from khasino_sim.kernels import batch_env as K
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.seeding import seeds_for

EVERY = sorted(FORMATS)


def test_the_kernel_uses_the_python_token_and_observation_layouts():
    for name in ("GROUP_END", "TAKE_BUILD", "TRAIL", "CAPTURE", "BUILD", "REBUILD", "LOAD", "CHANGE", "FOLLOW",
                 "LEAD_0", "LEAD_1", "STAY", "DECLINE", "END", "N_ACTIONS"):
        assert getattr(K, name) == getattr(actions, name), name
    assert K.TOK_VALUES == actions.MAX_VALUE and K.LEN_SCALE == actions.LEN_SCALE
    assert K.OBS_SIZE == OBS_SIZE
    for name, kname in (("hand", "O_HAND"), ("loose", "O_LOOSE"), ("in_build", "O_IN_BUILD"), ("build", "O_BUILD"),
                        ("pile_top", "O_PILE_TOP"), ("hand_size", "O_HAND_SIZE"), ("pile_size", "O_PILE_SIZE"),
                        ("score", "O_SCORE"), ("tabbe", "O_TABBE"), ("last_capturer", "O_LAST_CAP"),
                        ("stock", "O_STOCK"), ("deal", "O_DEAL"), ("played", "O_PLAYED"),
                        ("stay_offer", "O_STAY_OFFER"), ("prefix", "O_PREFIX"), ("prefix_len", "O_PREFIX_LEN")):
        assert OFFSETS[name][0] == getattr(K, kname), name


def follow_python(env, root, episodes, rng, kind):
    """Play `episodes` games of a one-game BatchEnv beside the Python step functions with the same random
    tokens; every mask, observation, seat to move and return must agree. Returns the steps taken."""
    obs, mask = env.reset(seed=root)
    taken = 0
    for ep in range(episodes):
        pos = steps.begin(engine.new_game(env.fmt.name, int(seeds_for(root, ep, 1)[0]), options=None))
        while True:
            seat = pos.seat
            st, played = pos.seen_by(seat)
            assert int(env.to_move[0]) == seat
            np.testing.assert_array_equal(mask[0], pos.mask(), err_msg=f"mask, episode {ep} step {taken}")
            np.testing.assert_array_equal(obs[0], observe(st, seat, played, pos.prefix),
                                          err_msg=f"observation, episode {ep} step {taken}")
            t = int(rng.choice(np.flatnonzero(pos.mask())))
            pos = steps.step(pos, t)
            obs, mask, rewards, done = env.step([t])
            taken += 1
            if pos.over:
                assert done[0]
                assert list(rewards[0]) == steps.returns(pos.state, env.fmt, kind)
                break
            assert not done[0]
    return taken


@pytest.mark.parametrize("fmt", EVERY)
def test_token_for_token_the_python_environment(fmt):
    rng = np.random.default_rng(len(fmt))
    kind = "win" if len(fmt) % 2 else "points"
    env = BatchEnv(fmt, n=1, reward=kind)
    assert follow_python(env, 11, 3, rng, kind) > 50


@pytest.mark.parametrize("fmt", ["khasino", "khasino-4p", "cassino", "kasino-4p"])
def test_a_tiny_key_table_splits_the_key_space_and_gives_the_same_masks(fmt):
    """Four slots hold two keys a pass: every position with more is listed in slices (docs/ENGINE.md), and no
    move cache fits; with no cache at all, each token's mask is a streamed pass."""
    rng = np.random.default_rng(5)
    assert follow_python(BatchEnv(fmt, n=1, table_rows=4), 3, 2, rng, "points") > 50
    assert follow_python(BatchEnv(fmt, n=1, cache_words=0), 4, 2, rng, "points") > 50
    assert follow_python(BatchEnv(fmt, n=1, cache_words=40), 5, 2, rng, "points") > 50


def test_whole_batches_reach_the_ends_and_begin_the_next_episodes():
    env = BatchEnv("khasino-4p", n=16, reward="win")
    obs, mask = env.reset(seed=2)
    rng = np.random.default_rng(0)
    finished = 0
    totals = np.zeros(4)
    for _ in range(3000):
        tokens = [int(rng.choice(np.flatnonzero(m))) for m in mask]
        obs, mask, rewards, done = env.step(tokens)
        finished += int(done.sum())
        totals += rewards.sum(axis=0)
        assert not rewards[~done].any()
        assert (mask.sum(axis=1) > 0).all()
    assert finished >= 16 and env.episodes == 16 + finished
    team = [env.fmt.team_of(s) for s in range(4)]
    for s in range(4):              # a team's seats share its result; the teams' results cancel
        assert totals[s] == totals[team.index(team[s])] == -totals[team.index(1 - team[s])]


def test_a_run_is_a_function_of_its_seed_and_tokens():
    """The same seed and tokens give the same run, whether the arrays are returned copied or the environment's
    own (copy=False: the same arrays each step, rewritten)."""
    def run(copy):
        env = BatchEnv("cassino", n=4, seed=9, copy=copy)
        obs, mask = env.reset()
        rng = np.random.default_rng(3)
        out = []
        for _ in range(400):
            tokens = [int(rng.choice(np.flatnonzero(m))) for m in mask]
            got = env.step(tokens)
            assert all((a is b) != copy for a, b in zip(got[:3], (env.obs, env.masks, env.rewards)))
            obs, mask, rewards, done = got
            assert done.dtype == bool
            out.append((obs.tobytes(), mask.tobytes(), rewards.sum(), tuple(done)))
        return out
    assert run(True) == run(True) == run(False)


def test_a_seat_sees_no_hidden_card():
    """Shuffling the cards the seat to move cannot see (the other hands, the stock) leaves its observation
    unchanged; its own hand changes it."""
    env = BatchEnv("khasino-3p-stock", n=1)
    obs, mask = env.reset(seed=1)
    st = env.states[0]
    seat = int(st[L.S_TO_MOVE])
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    hidden = [int(st[L.S_HANDS + 2 * s]) for s in range(3) if s != seat]
    stock = st[L.S_STOCK + st[L.S_STOCK_POS]: L.S_STOCK + st[L.S_STOCK_LEN]]
    cards = [c for h in hidden for c in range(52) if h >> c & 1] + [int(c) for c in stock]
    rng = np.random.default_rng(0)
    for _ in range(20):
        perm = rng.permutation(cards)
        alt = st.copy()
        at = 0
        for s in range(3):
            if s == seat:
                continue
            size = bin(int(st[L.S_HANDS + 2 * s])).count("1")
            alt[L.S_HANDS + 2 * s] = sum(1 << int(c) for c in perm[at: at + size])
            at += size
        alt[L.S_STOCK + st[L.S_STOCK_POS]: L.S_STOCK + st[L.S_STOCK_LEN]] = perm[at:]
        K.write_observation(alt, env.rules, seat, 0, env.pends[0], env.playeds[0], env.prefixes[0], 0, out)
        np.testing.assert_array_equal(out, obs[0])
    alt = st.copy()
    alt[L.S_HANDS + 2 * seat] ^= 1 << 51 if not st[L.S_HANDS + 2 * seat] >> 51 & 1 else 1 << 50
    K.write_observation(alt, env.rules, seat, 0, env.pends[0], env.playeds[0], env.prefixes[0], 0, out)
    assert not np.array_equal(out, obs[0])


def test_bad_input_is_refused_in_one_line_and_changes_nothing():
    env = BatchEnv("khasino", n=2)
    obs, mask = env.reset()
    bad = int(np.flatnonzero(mask[1] == 0)[0])
    good = int(np.flatnonzero(mask[0])[0])
    before = env.states.copy()
    with pytest.raises(ValueError, match="game 1: token"):
        env.step([good, bad])
    assert (env.states == before).all()
    with pytest.raises(ValueError, match="one token per game"):
        env.step([good])
    with pytest.raises(ValueError, match="'match' or 'single' in a Cassino or Kasino format"):
        BatchEnv("khasino", episode="match")
    with pytest.raises(ValueError, match="at least one seat"):
        BatchEnv("khasino", bots=["random", "random"])
    with pytest.raises(ValueError, match="reward"):
        BatchEnv("khasino", reward="money")
