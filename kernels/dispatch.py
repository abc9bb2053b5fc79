"""The host's one dispatch point: the batch player of a ruleset's family, chosen from `rules[R_FAMILY]`.

Khasino games are played by `khasino.game.play_batch`; matches by their family's player, Cassino's to a target
(C7, P21: `cassino.game.play_matches`) and Kasino's of a fixed number of rounds (N7: `kasino.game`). Inside the
compiled code the one family switch is `movegen.generate` (Khasino or Cassino move rules); Kasino's game loop
is compiled apart and calls its own generator.
"""
from .cassino.game import play_matches as play_cassino_matches
from .core.layout import FAMILY_CASSINO, FAMILY_KASINO, FAMILY_KHASINO, R_FAMILY
from .kasino.game import play_kasino_matches
from .khasino.game import play_batch

__all__ = ["play_batch", "play_matches", "family_of_rules"]

FAMILY_NAMES = {FAMILY_KHASINO: "khasino", FAMILY_CASSINO: "cassino", FAMILY_KASINO: "kasino"}


def family_of_rules(rules):
    """The family name of a ruleset array; ValueError for a family code no kernel plays."""
    code = int(rules[R_FAMILY])
    if code not in FAMILY_NAMES:
        raise ValueError(f"ruleset of unknown family code {code}")
    return FAMILY_NAMES[code]


def play_matches(rules, seeds, bots, check=False, ws=None, single=False):
    """Play len(seeds) whole matches of a Cassino or Kasino ruleset (with `single`, one round each); bots is
    (n_matches, n_seats) bot ids. Returns the statistics rows, one per round, match by match (G_MATCH: the
    match's index in `seeds`, G_ROUND its round; G_MATCH_WINNER is set on a match's last round)."""
    family = family_of_rules(rules)
    if family == "kasino":
        return play_kasino_matches(rules, seeds, bots, check, ws, nrounds=1 if single else None)
    if family == "cassino":
        return play_cassino_matches(rules, seeds, bots, check, ws, single=single)
    raise ValueError("Khasino formats play games, not matches: use play_batch")
