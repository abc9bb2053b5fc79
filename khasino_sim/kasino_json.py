"""Kept for one release: Kasino's JSON state is now khasino_sim/codec/kasino.py. This module re-exports the
names other code imported from here; new code imports ``khasino_sim.codec.kasino`` instead."""
from .codec.kasino import multiset_names, parse, to_json  # noqa: F401
