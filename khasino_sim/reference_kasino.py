"""Kept for one release: the Norwegian misère Kasino reference engine is now ``khasino_sim.reference.kasino``
(with the shared helpers in ``khasino_sim.reference.common``).  This module re-exports its names, so
``from khasino_sim import reference_kasino`` keeps working; new code imports the new module."""
from __future__ import annotations

from khasino_sim.reference import common as _common
from khasino_sim.reference import kasino as _kasino
from khasino_sim.reference.common import M64, SplitMix64, fmix  # noqa: F401 (read by tests and scripts)
from khasino_sim.reference.kasino import *  # noqa: F403
from khasino_sim.reference.kasino import __all__  # noqa: F401
from khasino_sim.reference.kasino import _from_json, _to_json  # noqa: F401 (read by tests)


def __getattr__(name: str):
    """Any other name (the engine's private helpers, the shared constants): the new module's, else common's."""
    for module in (_kasino, _common):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
