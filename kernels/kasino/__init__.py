"""Norwegian misère Kasino on the double deck (N1–N7; formats kasino-2p … kasino-6p, kasino-2p-alt).

- `moves`: compulsory maximal capture, builds and tabbe (N2–N4) on card counts (`core.multiset`).
- `state`: applying a move, deals, the face cards set aside (N5), scoring (N6).
- `game`: rounds and fixed-length matches (N7), and the batch player.
- `search`: the search bots on Kasino positions.

Kasino shares only the ground floor (`kernels/core`) with the other families.
"""
