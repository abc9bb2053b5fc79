"""The families of games, one `Family` record each (``khasino``, ``cassino``, ``kasino``): the rule options a
family accepts and their checks, its JSON codec (khasino_sim/codec/), and the engine hooks and fields by which
the rest of the package treats its formats, in place of branches on the family's name. Formats
(khasino_sim/formats.py) register under their family; `family_of` raises ValueError on an unknown family.
"""
from .base import FAMILIES, Family, family_of, register_family, register_format  # noqa: F401
from . import khasino, cassino, kasino  # noqa: F401,E402 (each registers its record)
