"""Trained policies in `simulate`, `tournament` and `match` (khasino_sim/agents/games.py): the batched
environment writes the game loop's statistics rows.

The rows test drives the environment with an agent that plays as a compiled bot would: at its turn it asks
engine.bot_move with the game's own bot stream (then advances the stream by the one draw the core's bot takes),
so the games are the game loop's and every field of every row must be equal to play_batch's (play_matches' for
Cassino's and Kasino's matches and single rounds)."""
import numpy as np
import pytest

from khasino_sim import engine
from khasino_sim.agents import actions
from khasino_sim.agents.batch import BatchEnv
from khasino_sim.agents.policy import LinearPolicy
from khasino_sim.formats import get_format
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.rng import GOLDEN
from khasino_sim.kernels.core.seeding import seeds_for


def _as_bot(env, g, bot):
    """The tokens of the move `bot` makes in slot g's position, its draw taken from the slot's bot stream
    (advanced as the core's bot advances it)."""
    rounds = int(env.states[g, L.S_ROUNDS])
    if env.fmt.family == "kasino":      # a Kasino round played alone (rounds 1) has no JSON state (N7: a match is
        env.states[g, L.S_ROUNDS] = env.fmt.match_rounds    # a multiple of the seats); greedy reads no rounds
    state = env.state_json(g)
    env.states[g, L.S_ROUNDS] = rounds
    mv = engine.bot_move(state, bot, int(env.streams[g]))
    env.streams[g] = np.uint64((int(env.streams[g]) + int(GOLDEN)) % (1 << 64))
    if mv.kind in ("lead", "stay", "decline"):
        return actions.move_sequence(mv)
    return next(list(q) for q, k in actions.legal_sequences(state).items() if k == mv.key)


def _env_rows(fmt_name, seats, count, episode="game", seed=5, agent_bot="greedy", leaders=None):
    """Rows of `count` games (matches) in the environment, agent seats `seats` played as `agent_bot`, the others
    random, dealt from the game seeds of `seed` (led by `leaders`)."""
    f = get_format(fmt_name)
    bots = [None if s in seats else "random" for s in range(f.seats)]
    env = BatchEnv(fmt_name, n=min(count, 7), bots=bots, deals=seeds_for(seed, 0, count), limit=count,
                   episode=episode, deal_leaders=leaders)
    env.reset()
    queue = {}
    rows, left = [], count
    while left:
        tokens = np.zeros(env.n, dtype=np.int64)
        for g in np.flatnonzero(env.active):
            if not queue.get(g):
                assert env.prefix_lengths[g] == 0
                queue[g] = _as_bot(env, g, agent_bot)
            tokens[g] = queue[g].pop(0)
        _, _, _, done = env.step(tokens)
        rows += [env.rows[g].copy() for g in np.flatnonzero(env.ready)]
        left -= int(done.sum())
    rows = np.array(rows)
    return rows[np.lexsort((rows[:, L.G_ROUND], rows[:, L.G_MATCH]))]


def _core_rows(fmt_name, seats, count, single=False, seed=5, agent_bot="greedy"):
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.khasino.game import play_batch
    f = get_format(fmt_name)
    ids = np.array([[engine.bot_id(agent_bot if s in seats else "random") for s in range(f.seats)]] * count)
    if f.matches:
        return play_matches(f.rules_array(), seeds_for(seed, 0, count), ids, single=single)
    rows = play_batch(f.rules_array(), seeds_for(seed, 0, count), ids)
    rows[:, L.G_MATCH] = np.arange(count)
    return rows


@pytest.mark.parametrize("fmt,seats", [("khasino", {0}), ("khasino", {1}), ("khasino-3p", {2}),
                                       ("khasino-3p-stock", {0}), ("khasino-4p", {0}), ("khasino-4p", {1, 3})])
def test_the_environment_writes_the_game_loops_rows(fmt, seats):
    count = 12
    np.testing.assert_array_equal(_env_rows(fmt, seats, count), _core_rows(fmt, seats, count))


@pytest.mark.parametrize("fmt", ["khasino-3p", "khasino-3p-stock"])
def test_episodes_led_by_the_seat_given_are_the_game_loops(fmt):
    """deal_leaders (a series' later matches, P10): each game as play_game plays it led by that seat."""
    from khasino_sim.kernels.core.workspace import new_workspace
    from khasino_sim.kernels.khasino.game import play_one_game
    f = get_format(fmt)
    count = 9
    leaders = np.arange(count) % f.seats
    got = _env_rows(fmt, {1}, count, leaders=leaders)
    ids = np.array([engine.bot_id("greedy" if s == 1 else "random") for s in range(f.seats)])
    for g, seed in enumerate(seeds_for(5, 0, count)):
        row = np.zeros(L.STATS_SIZE, dtype=np.int64)
        play_one_game(f.rules_array(), seed, ids, np.zeros(L.STATE_SIZE, dtype=np.int64),
                      np.zeros(104, dtype=np.int64), new_workspace(), row, np.zeros(0, dtype=np.int64), False,
                      np.zeros(1, dtype=np.uint64), int(leaders[g]))
        row[L.G_MATCH] = g
        np.testing.assert_array_equal(got[g], row)
        assert row[L.G_LEADER] == leaders[g]


@pytest.mark.parametrize("fmt,episode", [("cassino", "match"), ("cassino", "single"), ("cassino-4p", "match"),
                                         ("kasino-2p", "match"), ("kasino-3p", "single"), ("kasino-4p", "match")])
def test_matches_and_single_rounds_are_the_game_loops(fmt, episode):
    count = 5
    got = _env_rows(fmt, {1}, count, episode=episode)
    want = _core_rows(fmt, {1}, count, single=episode == "single")
    assert episode == "single" or len(want) > count          # matches of several rounds
    np.testing.assert_array_equal(got, want)


@pytest.fixture(scope="module")
def policies(tmp_path_factory):
    """A random linear policy per format (small weights: not a trained one, but a distinct player)."""
    rng = np.random.default_rng(11)
    out = {}
    for name in ("khasino", "khasino-3p", "khasino-4p", "cassino", "kasino-3p"):
        pol = LinearPolicy(rng.normal(scale=0.1, size=(actions.N_ACTIONS, 858)), rng.normal(size=actions.N_ACTIONS),
                           name)
        path = tmp_path_factory.mktemp("pol") / f"{name}.npz"
        pol.save(path)
        out[name] = f"policy:{path}"
    return out


def test_policy_rows_are_whole_games_in_seed_order(policies):
    """play_rows: games with and without a policy seat in one call, rows in game order; each game's turns are
    its card plays (one kind counted per turn), its score the Python step functions' for the same policy."""
    from khasino_sim.agents.games import play_rows
    from khasino_sim.agents.policy import play_deal
    f = get_format("khasino")
    pol = policies["khasino"]
    bots = [[pol, "random"], ["greedy", "random"], ["random", pol]] * 4
    seeds = seeds_for(9, 0, len(bots))
    rows = play_rows(f, seeds, bots, batch=5)
    np.testing.assert_array_equal(rows[:, L.G_SEED], seeds.astype(np.int64))
    kinds = [L.SEAT_CAPTURES, L.SEAT_BUILDS, L.SEAT_LOADS, L.SEAT_CHANGES, L.SEAT_TRAILS]
    for g, row in enumerate(rows):
        assert row[L.G_TURNS] == sum(row[L.G_SEAT0 + s * L.SEAT_FIELDS + k] for s in range(2) for k in kinds)
        assert row[L.G_TURNS] == rows[1, L.G_TURNS]           # every card of the deck played
        if g % 3 != 1:
            scores, _ = play_deal("khasino", None, bots[g], int(seeds[g]))
            assert scores == [row[L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_SCORE] for s in range(2)]
    plain = play_rows(f, seeds[1::3], bots[1::3])
    np.testing.assert_array_equal(rows[1::3], plain)


def test_a_policy_enters_simulate_and_tournament(policies, tmp_path):
    from click.testing import CliRunner
    from khasino_sim.cli import main
    from khasino_sim.runs import load
    pol = policies["khasino"]
    r = CliRunner().invoke(main, ["simulate", "--games", "60", "--bots", f"{pol},random", "--out",
                                  str(tmp_path / "sim"), "--shard-size", "25", "--quiet"])
    assert r.exit_code == 0, r.output
    seats = load(tmp_path / "sim")
    assert len(seats) == 120 and set(seats.bot) == {"khasino", "random"}       # the policy by its file's stem
    assert (seats.groupby("bot").seat.nunique() == 2).all()                     # rotated over the seats
    r = CliRunner().invoke(main, ["tournament", "--games", "30", "--bots", f"{pol},greedy,random", "--out",
                                  str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    assert "khasino" in r.output and "greedy" in r.output and "elo" in r.output.lower()


@pytest.mark.parametrize("fmt", ["cassino", "kasino-3p"])
def test_a_policy_plays_matches(policies, tmp_path, fmt):
    from khasino_sim.duplicate import pair_counts
    from khasino_sim.runs import simulate, load
    bots = [policies[fmt], "random"] + ["greedy"] * (get_format(fmt).seats - 2)
    if get_format(fmt).seats == 2:
        assert pair_counts(fmt, policies[fmt], "random", 3, 0, 6).sum() == 6
    out = simulate(fmt, 8, bots, seed=2, out=tmp_path / "c")
    rounds = load(out, "rounds")
    assert rounds.game.nunique() == 8 and len(rounds) > 8
    if fmt == "cassino":            # C7: to 21, a winner (Kasino, N7: a fixed number of rounds, ties possible)
        assert (rounds.groupby("game").match_winner.last() >= 0).all()
    else:
        assert (rounds.groupby("game").size() == get_format(fmt).match_rounds).all()


def test_a_policy_plays_series(policies, tmp_path):
    """--series with a policy (P10): each later match of a series led by the previous one's loser, as the game
    loop's series lead them; the series of the games without a policy are the game loop's own."""
    from khasino_sim.agents.games import play_rows
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.khasino.state import series_leader
    from khasino_sim.runs import simulate, load
    f = get_format("khasino-3p")
    pol = policies["khasino-3p"]
    seeds = seeds_for(4, 0, 12)
    bots = [[pol, "random", "greedy"]] * 4 + [["greedy", "random", "random"]] * 4 + [["random", "random", pol]] * 4
    rows = play_rows(f, seeds, bots, series=4, batch=3)
    for g in range(12):
        want = 0 if g % 4 == 0 else series_leader(f.rules_array(), rows[g - 1])
        assert rows[g, L.G_LEADER] == want
    ids = np.array([[engine.bot_id("greedy"), engine.bot_id("random"), engine.bot_id("random")]] * 4)
    np.testing.assert_array_equal(rows[4:8], play_batch(f.rules_array(), seeds[4:8], ids, series=4))
    assert len(set(rows[:, L.G_LEADER])) > 1
    with pytest.raises(ValueError, match="whole series"):     # a series whose bots change within it
        play_rows(f, seeds[:8], bots[2:10], series=4)
    out = simulate("khasino-3p", 12, (pol, "random", "greedy"), seed=4, out=tmp_path / "s", series=3)
    games = load(out, "games")
    assert len(games) == 12 and list(games.series.unique()) == [0, 1, 2, 3]


def test_policy_input_is_refused_in_one_line(policies, tmp_path):
    from click.testing import CliRunner
    from khasino_sim.cli import main
    pol = policies["khasino"]
    cases = [
        (["simulate", "--format", "cassino", "--bots", f"{pol},random"], "trained for khasino, not cassino"),
        (["simulate", "--bots", f"{pol},random", "--record", "2"], "--record"),
        (["simulate", "--bots", "policy:/no/such.npz,random"], "not a policy file"),
        (["match", pol, "random", "--format", "khasino-4p"], "trained for khasino, not khasino-4p"),
        (["tournament", "--bots", f"{pol},random", "--record", "1"], "--record"),
    ]
    for args, words in cases:
        r = CliRunner().invoke(main, args + ["--out", str(tmp_path / "x")] if args[0] != "match" else args)
        assert r.exit_code == 2, (args, r.output)
        assert words in r.output and len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output, r.output
    with pytest.raises(KeyError, match="a trained policy plays in"):
        engine.bot_id(pol)
