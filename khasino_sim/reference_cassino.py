"""Kept for one release: the Classic Cassino reference engine is now ``khasino_sim.reference.cassino`` (with
the shared helpers in ``khasino_sim.reference.common``).  This module re-exports its names, so
``from khasino_sim import reference_cassino`` keeps working; new code imports the new module."""
from __future__ import annotations

from khasino_sim.reference import common as _common
from khasino_sim.reference import cassino as _cassino
from khasino_sim.reference.cassino import *  # noqa: F403
from khasino_sim.reference.cassino import __all__  # noqa: F401
from khasino_sim.reference.common import M64, SplitMix64, fmix  # noqa: F401 (read by tests and scripts)


def __getattr__(name: str):
    """Any other name (the engine's private helpers, the shared constants): the new module's, else common's."""
    for module in (_cassino, _common):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
