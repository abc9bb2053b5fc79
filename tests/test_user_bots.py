"""User bots (khasino_sim/userbots.py, kernels/userbot.py; issue 10 item 2): the example bot plays compiled
in simulate and from the CLI's --bot-file, its plain-Python form plays exactly the same games, it is blind to
hidden cards, and a bad bot file gets one clear line and exit 2."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from khasino_sim import bots
from khasino_sim.formats import FORMATS
from khasino_sim.kernels import layout as L
from khasino_sim.kernels.game import play_batch, play_matches
from tests.helpers import count_blind_choices

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "my_bot.py"


@pytest.fixture(scope="module")
def python_copy(tmp_path_factory):
    """The example without its @njit line: the prototyping form of the same function (one file, one row of
    the process's bot table, for every format)."""
    path = tmp_path_factory.mktemp("userbot") / "my_bot_python.py"
    path.write_text(EXAMPLE.read_text().replace("@njit\n", ""))
    return path


@pytest.mark.parametrize("fmt", ["khasino", "khasino-4p", "cassino"])
def test_python_and_njit_forms_play_the_same_games(python_copy, fmt):
    f = FORMATS[fmt]
    jit = bots.code(f"file:{EXAMPLE}")
    py = bots.code(f"file:{python_copy}")
    assert jit != py and jit >= L.BOT_TABLE_BASE
    seeds = np.arange(1, 31, dtype=np.uint64)

    def rows(code):
        table = np.array([[code, L.BOT_GREEDY] * (f.seats // 2)] * 30)
        if f.match_target:
            return play_matches(f.rules_array(), seeds, table, check=True, single=True)
        return play_batch(f.rules_array(), seeds, table, check=True)
    a, b = rows(jit), rows(py)
    assert np.array_equal(a, b)
    assert a[:, L.G_BAD].sum() == 0 and a[:, L.G_NO_MOVE].sum() == 0 and a[:, L.G_OVERFLOW].sum() == 0


def test_example_bot_beats_random():
    f = FORMATS["khasino"]
    code = bots.code(f"file:{EXAMPLE}")
    rows = play_batch(f.rules_array(), np.arange(200, dtype=np.uint64),
                      np.array([[code, L.BOT_RANDOM], [L.BOT_RANDOM, code]] * 100), check=True)
    mine = sum(int(rows[g, L.G_SEAT0 + (g % 2) * L.SEAT_FIELDS + L.SEAT_SCORE]) for g in range(200))
    assert mine / (11 * 200) > 0.6 and rows[:, L.G_BAD].sum() == 0


def test_user_bot_is_blind():
    assert count_blind_choices("khasino", f"file:{EXAMPLE}", 3, 8) > 100


def test_simulate_with_bot_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--bot-file", str(EXAMPLE), "--bots",
                        "my_bot,greedy", "--games", "300", "--out", str(tmp_path / "run"), "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    from khasino_sim.runs import load
    df = load(tmp_path / "run")
    assert set(df["bot"]) == {f"file:{EXAMPLE}", "greedy"} and len(df) == 600


@pytest.mark.parametrize("content, message", [
    (None, "does not exist"),
    ("x = 1\n", "defines no function score(view, move)"),
    ("def score(view, move)\n", "failed to load: SyntaxError"),
])
def test_bad_bot_files(tmp_path, content, message):
    path = tmp_path / "bad_bot.py"
    if content is not None:
        path.write_text(content)
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--bot-file", str(path), "--bots",
                        "bad_bot,greedy", "--games", "5", "--out", str(tmp_path / "run")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and message in r.stderr
    assert "Traceback" not in r.stderr


def test_kasino_refuses_user_bots(tmp_path):
    r = subprocess.run([sys.executable, "-m", "khasino_sim", "simulate", "--format", "kasino-2p", "--bots",
                        f"file:{EXAMPLE},greedy", "--games", "5", "--out", str(tmp_path / "run")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "user bots play Khasino and Cassino formats" in r.stderr


def test_same_games_whatever_workers(tmp_path):
    from khasino_sim.runs import simulate
    from tests.test_simulate import same_dataset
    specs = (f"file:{EXAMPLE}", "heuristic")
    a = simulate("khasino", games=400, bots=specs, seed=6, out=tmp_path / "a", workers=1, shard_size=400)
    b = simulate("khasino", games=400, bots=specs, seed=6, out=tmp_path / "b", workers=2, shard_size=90)
    same_dataset(a, b)
