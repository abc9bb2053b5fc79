"""docs/ENGINE.md "Scratch bounds": every scratch table of the compiled core covers its proven bound, for
every registered format (docs/rules/khasino.md, cassino.md, kasino.md), and a game thread's workspace stays under 1 MB."""
import importlib.util
from pathlib import Path

import numpy as np

from khasino_sim.kernels.core import layout as L
from khasino_sim.kernels.core.workspace import new_workspace

_spec = importlib.util.spec_from_file_location(
    "scratch_bounds", Path(__file__).parent.parent / "scripts" / "scratch_bounds.py")
sb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sb)


def test_subset_counts_match_the_documented_figures():
    four = lambda top: {v: 4 for v in range(1, top + 1)}          # noqa: E731
    assert sb.subsets_up_to(four(10), 10) == 4051
    assert sb.subsets_up_to(four(13), 13) == 18189
    assert sb.subsets_up_to(four(13), 14) == 28937
    assert sb.kasino_table_bound() == (2047, (1, 1, 1, 1, 1))
    assert sb.memberships_up_to(four(10), 10) == 15440


def test_subset_count_by_brute_force_on_a_small_deck():
    """The generating function against plain enumeration: 2 suits of values 1..5, sums <= 6."""
    cards = [v for v in range(1, 6) for _ in range(2)]
    fits = [m for m in range(1 << len(cards)) if sum(c for i, c in enumerate(cards) if m >> i & 1) <= 6]
    assert sb.subsets_up_to({v: 2 for v in range(1, 6)}, 6) == len(fits)
    assert sb.memberships_up_to({v: 2 for v in range(1, 6)}, 6) == sum(bin(m).count("1") for m in fits)


def test_every_table_covers_its_bound():
    for name, (bound, capacity) in sb.bounds().items():
        assert bound <= capacity, name


def test_game_workspace_is_under_one_megabyte():
    """Under 1 MB for every bot but the search bots, whose area (kernels/tree.py) is added once a search bot
    is registered in the process (another test of this worker may have done so)."""
    from khasino_sim.kernels.core.heuristic import search_iterations
    from khasino_sim.kernels.core.tree import search_words
    ws = new_workspace()
    n = search_iterations()
    assert ws.nbytes == (L.WS_SIZE + (search_words(n) if n else 0)) * 8 and L.WS_SIZE * 8 < 1_000_000
    assert ws.dtype == np.int64
