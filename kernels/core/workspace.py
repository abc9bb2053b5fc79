"""One thread's scratch: a workspace (layout WS_*) allocated once and reused for every position of every game."""
import numpy as np

from .layout import REC_SIZE, WS_SIZE


def new_workspace(list_capacity=0):
    """The scratch of one thread (WS_SIZE int64, under 1 MB): allocated once, reused for every position of
    every game. A listing workspace also holds `list_capacity` move records from WS_LIST; a game workspace, once
    the process has a search bot (khasino_sim/bots.py registers them in the bot table), the search area for the
    largest n among them (kernels/core/tree.py, `search_words`)."""
    from .heuristic import install_bot_table, search_iterations
    from .tree import search_words
    n = search_iterations()
    extra = list_capacity * REC_SIZE if list_capacity else search_words(n) if n else 0
    return install_bot_table(np.zeros(WS_SIZE + extra, dtype=np.int64))
