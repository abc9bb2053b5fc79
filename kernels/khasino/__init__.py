"""South African Khasino (K1–K16; formats khasino, khasino-3p, khasino-3p-stock, khasino-4p, durban).

- `moves`: K3–K11 move rules for each hand card (captures, builds, loads, changes, trails, follow-ups),
  offered to the sink as they are generated; the per-position tables (`prepare_position`).
- `state`: applying a move or a Stay (K15, P15), sweeping, dealing the next hand, scoring (K12–K14).
- `game`: a whole game in one compiled call, and the batch player.
- `search`, `bots`: the search bots (rollout, IS-MCTS) and the basic ones (random, greedy, heuristic).

Classic Cassino is Khasino's position and move record plus C rules read from the ruleset: `kernels/cassino`
imports `state` and `game` from here, and the search and basic bots here serve both families.
"""
