"""The agents' layer (issue 40, docs/AGENTS.md): the action space is a bijection with the legal moves, the
observation shows nothing hidden, and the PettingZoo environment passes PettingZoo's own API and seed tests in
every format."""
import functools
import random
import warnings

import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.agents import actions
from khasino_sim.agents.observation import OBS_SIZE, OFFSETS, observe
from khasino_sim.formats import FORMATS

pettingzoo = pytest.importorskip("pettingzoo")


def positions(fmt, count=1000, seed=0):
    """The first `count` positions of random games of `fmt` (rounds in Cassino and Kasino), game after game
    (scripts/check_agents.py checks more)."""
    rng = random.Random(seed)
    g = 0
    while True:
        state = engine.new_game(fmt, seed * 100 + g)
        g += 1
        while not state["over"]:
            yield state
            count -= 1
            if not count:
                return
            state = rng.choice(engine.legal_moves(state)).result


def walk(state):
    """Every token sequence the masks allow, found by following them from the empty prefix."""
    seqs = actions.legal_sequences(state)
    done, stack = [], [()]
    while stack:
        prefix = stack.pop()
        m = actions.mask(seqs, prefix)
        assert m.any(), prefix                          # a prefix the masks allow always goes on
        for t in np.flatnonzero(m):
            (done if t == actions.END else stack).append(prefix + (int(t),))
    return done, seqs


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_masks_reach_every_legal_move_and_no_other(fmt):
    """Bijection: the sequences the masks allow are as many as the engine's distinct legal moves (P7), each
    names one of them, and together they name them all."""
    for state in positions(fmt):
        done, seqs = walk(state)
        keys = [seqs[s] for s in done]
        legal = [m.key for m in engine.iter_moves(state)]
        assert len(done) == len(set(done)) == len(set(keys)) == len(legal), fmt
        assert set(keys) == set(legal), fmt


def _shuffle_hidden(state, seat, rng):
    """The state with the cards `seat` cannot see (other hands, the stock) dealt afresh in the same sizes."""
    hidden = [c for s, h in enumerate(state["hands"]) if s != seat for c in h] + list(state["stock"])
    rng.shuffle(hidden)
    out = dict(state, hands=[list(h) for h in state["hands"]])
    i = 0
    for s, h in enumerate(state["hands"]):
        if s != seat:
            out["hands"][s] = hidden[i: i + len(h)]
            i += len(h)
    out["stock"] = hidden[i:]
    return out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_an_observation_does_not_change_when_hidden_cards_are_permuted(fmt):
    rng = random.Random(7)
    checked = 0
    for state in positions(fmt, 1000, seed=3):
        if state.get("decision"):
            continue                # a 4p decision names the mover's card; the bots' own test covers it
        for seat in range(len(state["hands"])):
            other = _shuffle_hidden(state, seat, rng)
            assert np.array_equal(observe(state, seat, ["5H"]), observe(other, seat, ["5H"]))
            checked += 1
    assert checked > 1000
    # and the observation does see the seat's own hand
    state = engine.new_game(fmt, 1)
    hand = observe(state, state["to_move"])[OFFSETS["hand"][0]: OFFSETS["hand"][1]]
    assert hand.sum() == len(state["hands"][state["to_move"]])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_pettingzoo_api_and_seed_tests(fmt):
    from pettingzoo.test import api_test, seed_test
    from khasino_sim.agents import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # PettingZoo warns on Dict observation spaces, its own convention
        api_test(env(format=fmt), num_cycles=3000)
        seed_test(functools.partial(env, format=fmt), num_cycles=200)


@pytest.mark.parametrize("fmt,reward", [("khasino", "points"), ("khasino-4p", "win"), ("cassino-3p", "points"),
                                        ("kasino-2p", "points")])
def test_a_whole_game_through_the_environment(fmt, reward):
    """Random masked tokens play a game to its end; the rewards are the engine's scores (Kasino negated, misère)
    or the sides' win and loss."""
    from khasino_sim.agents import env
    e = env(format=fmt, reward=reward)
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    totals = {a: 0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        totals[agent] += rew
        assert obs["observation"].shape == (OBS_SIZE,)
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = e.unwrapped.state_json
    assert state["over"]
    scores = engine.scores(state)
    if reward == "points":
        sign = -1 if fmt.startswith("kasino") else 1
        assert [totals[f"seat_{s}"] for s in range(len(scores))] == [sign * x["score"] for x in scores]
    else:
        assert sorted(totals.values()) in ([-1, -1, 1, 1], [0, 0, 0, 0])


def test_an_illegal_token_is_refused():
    from khasino_sim.agents import env
    e = env(format="khasino")
    e.reset(seed=1)
    with pytest.raises(ValueError, match="is not allowed"):
        e.step(actions.END)


def test_token_names():
    assert [actions.token_name(t) for t in (0, actions.GROUP_END, actions.TAKE_BUILD + 8, actions.TRAIL,
                                            actions.BUILD + 8, actions.FOLLOW, actions.END)] == \
        ["AS", "|", "take 9", "trail", "build 9", "follow 1", "end"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_openspiel_random_simulations(fmt):
    """OpenSpiel's own random_sim_test on every format's registered game (chance deals, then token moves)."""
    pyspiel = pytest.importorskip("pyspiel")
    from khasino_sim.agents import openspiel_game
    game = pyspiel.load_game(openspiel_game.short_name(fmt))
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    points = pyspiel.load_game(openspiel_game.short_name(fmt), {"reward": "points"})
    pyspiel.random_sim_test(points, num_sims=1, serialize=False, verbose=False)


def test_openspiel_plays_the_engine_game_of_its_deal():
    """The chance nodes deal the deck top first; the game is engine.new_game(format, deck=...)."""
    pyspiel = pytest.importorskip("pyspiel")
    from khasino_sim.agents import openspiel_game  # noqa: F401 (registers the games)
    game = pyspiel.load_game("khasino_sim_khasino")
    state = game.new_initial_state()
    deck = engine.new_game("khasino", 4)
    order = deck["hands"][0] + deck["hands"][1] + deck["stock"]
    from khasino_sim.kernels.core.bits import parse_card
    for c in order:
        assert state.is_chance_node()
        state.apply_action(parse_card(c))
    assert state.current_player() == 0 and state.pos.state["hands"] == deck["hands"]
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert sorted(state.returns()) == [-1.0, 1.0]


def test_a_stay_offer_is_observed_by_the_partner_asked_alone():
    """P15 in the environments: while a capture waits on the partner's Stay, the partner sees the offer; the
    other seats (the mover included) see the position before the capture, the card not yet played."""
    from khasino_sim.agents import env
    from khasino_sim.kernels.core.bits import parse_card
    found = 0
    for seed in range(40):
        e = env(format="khasino-4p")
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            pos = e.unwrapped.pos
            if pos.held is not None and not pos.prefix:
                found += 1
                offer = pos.state["decision"]["move"]["card"]
                partner = f"seat_{pos.seat}"
                for other in e.possible_agents:
                    o = e.unwrapped.observe(other)["observation"]
                    played = o[OFFSETS["played"][0] + parse_card(offer)]
                    stay = o[OFFSETS["stay_offer"][0]: OFFSETS["stay_offer"][1]]
                    if other == partner:
                        assert stay[parse_card(offer)] == 1 and stay.sum() == 2
                    else:
                        assert stay.sum() == 0 and played == 0, other
                        held_obs = observe(pos.held[0], int(other[5:]), pos.held[1])
                        assert np.array_equal(o, held_obs)
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if found >= 3:
            break
    assert found >= 3


def test_bad_rewards_are_refused():
    from khasino_sim.agents import env
    with pytest.raises(ValueError, match="reward"):
        env(format="khasino", reward="pts")
    pyspiel = pytest.importorskip("pyspiel")
    from khasino_sim.agents import openspiel_game  # noqa: F401 (registers the games)
    with pytest.raises(Exception, match="reward"):
        pyspiel.load_game("khasino_sim_khasino", {"reward": "pts"})
    assert pyspiel.load_game("khasino_sim_khasino").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert pyspiel.load_game("khasino_sim_khasino_3p").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_a_trained_policy_plays_a_match(tmp_path):
    """A policy file (LinearPolicy, .npz) is a bot of `khasino match` (docs/AGENTS.md, "A trained policy"):
    the duplicate deals are the simulate seeds, played in the batched environment; there they are the games the
    Python step functions play (khasino_sim/agents/policy.py, play_deal: the bots' draws from the game's bot
    stream)."""
    from click.testing import CliRunner
    from khasino_sim.agents.policy import LinearPolicy, play_deal
    from khasino_sim.cli import main
    path = tmp_path / "p.npz"
    rng = np.random.default_rng(0)
    LinearPolicy(rng.normal(size=(actions.N_ACTIONS, OBS_SIZE)).astype(np.float32), fmt="khasino").save(path)
    spec = f"policy:{path}"
    r = CliRunner().invoke(main, ["match", spec, "random", "--max-pairs", "6", "--batch", "6"])
    assert r.exit_code == 0, r.output
    assert "pairs 6 = games 12" in r.stdout and f"Elo {spec} - random" in r.stdout
    # deterministic: the same deal, the same game
    assert play_deal("khasino", None, [spec, "greedy"], 12345) == play_deal("khasino", None, [spec, "greedy"], 12345)
    scores, _ = play_deal("khasino", None, [spec, "greedy"], 12345)
    assert sum(scores) == 11                                    # K13
    from khasino_sim.duplicate import play_deals
    from khasino_sim.formats import get_format
    from khasino_sim.kernels.core.seeding import seeds_for
    other = tmp_path / "q.npz"
    LinearPolicy(rng.normal(size=(actions.N_ACTIONS, OBS_SIZE)).astype(np.float32), fmt="khasino").save(other)
    pair = [spec, f"policy:{other}"]
    for two in (pair, [spec, "random"]):
        batched, winners = play_deals(get_format("khasino"), two, 7, 0, 12)
        for i, seed in enumerate(seeds_for(7, 0, 12)):
            assert play_deal("khasino", None, two, int(seed)) == (list(batched[i]), winners[i])
    vs_bot, _ = play_deals(get_format("khasino"), [spec, "random"], 7, 0, 40)
    assert (vs_bot.sum(axis=1) == 11).all()
    bad = [(["match", spec, "random", "--format", "cassino"], "trained for khasino, not cassino"),
           (["match", spec, "random", "--format", "kasino-2p"], "trained for khasino, not kasino-2p"),
           (["match", "policy:/nonexistent.npz", "random"], "not a policy file"),
           (["match", spec, "random", "--format", "khasino-4p"], "trained for khasino, not khasino-4p")]
    for args, message in bad:
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
