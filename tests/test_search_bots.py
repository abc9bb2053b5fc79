"""The search bots (kernels/search.py, kasino_search.py, tree.py; issue 10 item 1): `rollout` and `ismcts`
specs, whole games in every family with the invariants holding, determinism whatever the workers, the P11
lead and P15 Stay searched in 4p, blindness to every card the seat cannot see, the guard when a workspace has
no room for the search, and a strength check against random."""
import numpy as np
import pytest

from khasino_sim import bots
from khasino_sim.formats import FORMATS
from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.khasino.game import play_batch
from khasino_sim.kernels.dispatch import play_matches
from khasino_sim.kernels.core.heuristic import install_bot_table, search_iterations, BOT_TABLE
from khasino_sim.runs import simulate
from tests.helpers import count_blind_choices
from tests.test_simulate import same_dataset


def test_specs():
    assert bots.parse("ismcts") == ("ismcts", {"n": 1000, "c": 70, "policy": 2})
    assert bots.canonical("ismcts:policy=greedy,n=50") == "ismcts:n=50,policy=greedy"
    assert bots.canonical("rollout:n=200,policy=heuristic") == "rollout"
    for spec, kind in (("rollout", L.BOT_ROLLOUT), ("ismcts", L.BOT_ISMCTS), ("ismcts:n=40", L.BOT_ISMCTS)):
        c = bots.code(spec)         # always a row of the bot table, which sizes the workspaces (kernels/tree.py)
        assert c >= L.BOT_TABLE_BASE and BOT_TABLE[(c - L.BOT_TABLE_BASE) * L.BOT_STRIDE] == kind
    assert search_iterations() >= 1000


def rows_for(fmt, specs, games, seed=11):
    f = FORMATS[fmt]
    codes = [bots.code(s) for s in specs]
    table = np.array([[codes[(s + g) % len(codes)] for s in range(f.seats)] for g in range(games)])
    seeds = np.arange(seed, seed + games, dtype=np.uint64) * np.uint64(2654435761)
    if f.family in ("cassino", "kasino"):
        return play_matches(f.rules_array(), seeds, table, check=True, single=True)
    return play_batch(f.rules_array(), seeds, table, check=True)


@pytest.mark.parametrize("fmt", ["khasino", "durban", "khasino-3p-stock", "khasino-4p", "cassino",
                                 "cassino-4p", "kasino-2p", "kasino-4p"])
def test_games_complete_with_the_invariants(fmt):
    rows = rows_for(fmt, ["ismcts:n=24", "rollout:n=16,policy=greedy", "greedy"], 9)
    assert rows[:, L.G_BAD].sum() == 0 and rows[:, L.G_NO_MOVE].sum() == 0 and rows[:, L.G_OVERFLOW].sum() == 0


@pytest.mark.parametrize("fmt, specs", [("khasino", ("ismcts:n=20", "greedy")),
                                        ("kasino-2p", ("rollout:n=12", "heuristic"))])
def test_same_games_whatever_workers(tmp_path, fmt, specs):
    a = simulate(fmt, games=40, bots=specs, seed=2, out=tmp_path / "a", workers=1, shard_size=40)
    b = simulate(fmt, games=40, bots=specs, seed=2, out=tmp_path / "b", workers=2, shard_size=15)
    same_dataset(a, b)


def test_lead_and_stay_are_searched_in_4p():
    """P11/P15: an ISMCTS seat 0 picks its team's leader by search and an ISMCTS partner answers Stay offers;
    over these games both options of each are taken (the policy bots alone always decline a Stay)."""
    spec = "ismcts:n=60"
    rows = rows_for("khasino-4p", [spec, "greedy"], 40, seed=3)
    ism = [g % 2 == 0 for g in range(40)]                  # seat 0 plays ismcts in the even games
    leaders = {int(rows[g, L.G_LEADER]) for g in range(40) if ism[g]}
    assert leaders == {0, 1}
    stays = sum(int(rows[g, L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_STAYS])
                for g in range(40) for s in range(4) if (s + g) % 2 == 0)
    offers = sum(int(rows[g, L.G_SEAT0 + s * L.SEAT_FIELDS + L.SEAT_STAY_OFFERS])
                 for g in range(40) for s in range(4) if (s + g) % 2 == 0)
    assert 0 < stays < offers


@pytest.mark.parametrize("fmt", ["khasino", "khasino-4p", "cassino-3p", "kasino-2p"])
@pytest.mark.parametrize("spec", ["ismcts:n=12", "rollout:n=8"])
def test_search_bots_are_blind(fmt, spec):
    """Every determinisation is dealt from the unseen cards as a set, in card order, by the bot stream: a
    permutation of the hidden cards (the other hands and the stock) never changes the choice, nor a lead or
    Stay decision (4p)."""
    assert count_blind_choices(fmt, spec, 2, 17, every=3) >= 8


def test_a_workspace_without_room_is_flagged():
    """The search area is sized for the largest n registered (kernels/tree.py); a workspace without it makes
    the search bot play its policy and the game reports the overflow, never a wrong read."""
    f = FORMATS["khasino"]
    ws = install_bot_table(np.zeros(L.WS_SIZE, dtype=np.int64))
    rows = play_batch(f.rules_array(), np.array([9], dtype=np.uint64), np.array([[bots.code("ismcts"), 1]]),
                      ws=ws, check=True)
    assert rows[0, L.G_OVERFLOW] == 1 and rows[0, L.G_BAD] == 0


def test_search_beats_random():
    """A sanity check of the search, not a benchmark (figures in docs/ENGINE.md): rollout and ismcts take most
    of the points from random in khasino."""
    for spec in ("rollout:n=40", "ismcts:n=40"):
        rows = rows_for("khasino", [spec, "random"], 24)
        mine = sum(int(rows[g, L.G_SEAT0 + (g % 2) * L.SEAT_FIELDS + L.SEAT_SCORE]) for g in range(24))
        assert mine / (11 * 24) > 0.6, spec
