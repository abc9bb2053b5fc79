"""The package version and the engine's behaviour version (stamped into every results file)."""
__version__ = "0.1.0"

# Bumped whenever the engine's behaviour changes (rules, dealing, bots, statistics): any change that can
# alter a game played from the same seed. Stamped into every results file.
ENGINE_VERSION = 3        # 2: the heuristic's build safety (its games changed); leader_2, ahead_1
                          # 3: Cassino moves are the moves a player can tell apart (P27; its games changed)
