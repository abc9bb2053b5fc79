"""Classic 52-card Cassino (C1–C8; formats cassino, cassino-3p, cassino-4p).

- `moves`: C3–C6 move rules (captures, builds, loads = adds, changes = raises, trails), offered through the
  shared `core.offer`.
- `game`: rounds and matches to 21 (C7, P20, P21): round seeds, counting a round towards the match, the batch
  player of matches.

A Cassino position is Khasino's (`kernels/khasino/state.py`, with the C rules as ruleset flags), and its game
loop is Khasino's `run_game`: this folder holds only what Cassino adds.
"""
