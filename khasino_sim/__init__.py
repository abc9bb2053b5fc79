"""khasino-sim: exact, fast simulation of the Cassino family of card games.

Python API: `khasino_sim.engine` (positions, moves, single games), `khasino_sim.formats` (the format
registry). The compiled core is `khasino_sim.kernels` (source folder `kernels/`).
"""
from .version import ENGINE_VERSION, __version__  # noqa: F401


def simulate(*args, **kwargs):
    """Play a run of games: see khasino_sim.runs.simulate (returns the dataset folder, or a DataFrame
    for a run without `out`)."""
    from .runs import simulate as run
    return run(*args, **kwargs)
