"""khasino-sim: exact, fast simulation of the Cassino family of card games.

Python API: `khasino_sim.engine` (positions, moves, single games), `khasino_sim.formats` (the format
registry). The compiled core is `khasino_sim.kernels` (source folder `kernels/`).
"""
__version__ = "0.1.0"

# Bumped whenever the engine's behaviour changes (rules, dealing, bots, statistics): any change that can
# alter a game played from the same seed. Stamped into every results file.
ENGINE_VERSION = 2        # 2: the heuristic's build safety (its games changed); leader_2, ahead_1


def simulate(*args, **kwargs):
    """Play a run of games: see khasino_sim.runs.simulate (returns the dataset folder, or a DataFrame
    for a run without `out`)."""
    from .runs import simulate as run
    return run(*args, **kwargs)
