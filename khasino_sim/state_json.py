"""Kept for one release: the JSON state codec is now the package khasino_sim/codec/ (``common``, one module per
family, and ``dispatch``). This module re-exports the names other code imported from here; new code imports
``khasino_sim.codec.dispatch`` (parse, from_json, to_json) and ``khasino_sim.codec.common`` instead."""
from .codec.common import (MAX_DEPTH, MAX_DIGITS, MAX_STATE_BYTES, StateError, bounded, brief, decode,  # noqa: F401
                           k10_order, loads, names, options_json, read_text, state_options, values)
from .codec.common import Cards as _Cards, field as _field, seat as _seat  # noqa: F401
from .codec.dispatch import from_json, parse, to_json  # noqa: F401
