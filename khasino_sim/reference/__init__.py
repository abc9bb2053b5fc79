"""The pure-Python reference engines, one module per family: ``khasino`` (Khasino, durban, 3p, 4p),
``cassino`` (Classic Cassino), ``kasino`` (Norwegian misère Kasino), and ``common`` (what they share).  They
are the slow, readable oracles the compiled core is tested against: written from the rules pages
(``docs/rules/``) alone, standard library only, importing nothing of the kernels.

For one release this package also stands for the former module ``khasino_sim/reference.py`` (the Khasino
engine): ``from khasino_sim.reference import X`` and ``reference.X`` give the Khasino engine's X.  New code
imports ``khasino_sim.reference.khasino`` (or ``.common``) instead.
"""
from __future__ import annotations

from . import common, khasino
# the former module's names: its constants and card helpers (now common's), its public API, and the private
# names the tests read
from .common import (BOT_SALT, GOLDEN, M64, RANK_NAMES, SUIT_NAMES, SplitMix64, Z, bits, card_name,  # noqa: F401
                     fmix, k10_order, mask_of, parse_card, popcount)
from .khasino import *  # noqa: F403
from .khasino import __all__ as _khasino_all
from .khasino import _Collections, _collections, _from_json, _Gen, _State, _to_json  # noqa: F401

__all__ = list(_khasino_all)


def __getattr__(name: str):
    """Any other name of the former module (its private helpers): the Khasino engine's, else common's."""
    for module in (khasino, common):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
