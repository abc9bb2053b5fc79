"""The step functions both environments are thin layers over (aec.py for PettingZoo, openspiel_game.py for
OpenSpiel): a position while a move is being entered token by token, its mask, one token applied, and the
returns at the end. Pure: a Position is never changed, a step gives a new one."""
from dataclasses import dataclass

from .. import engine
from . import actions


@dataclass(frozen=True)
class Position:
    """A JSON state, the cards played so far (public history), the legal moves' sequences of the seat to move
    ({sequence: move key}) and the tokens of the move being entered."""
    state: dict
    played: tuple = ()
    sequences: dict = None
    prefix: tuple = ()
    records: dict = None        # {move key: its record} where the engine has one (actions.legal_table)
    held: tuple = None          # (state, played) before a capture that waits on a Stay (P15): what the others see

    def seen_by(self, seat):
        """(state, played) as `seat` sees them: while a Stay is pending, the seats other than the partner
        asked see the position before the capture (P15: the offer is private; the mover knows his own play)."""
        if self.held is not None and seat != self.seat:
            return self.held
        return self.state, self.played

    @property
    def over(self):
        return bool(self.state["over"])

    @property
    def seat(self):
        """The seat entering a move (None once the game is over)."""
        return None if self.over else int(self.state["to_move"])

    def mask(self):
        return actions.mask(self.sequences, self.prefix)


def begin(state, played=()):
    """The position where the seat to move starts entering a move."""
    sequences, records = actions.legal_table(state)
    return Position(state, tuple(played), sequences, (), records)


def step(pos, token):
    """The position after one token (ValueError if the mask does not allow it): the prefix grown, or, on END,
    the move played and the next seat's turn begun."""
    token = int(token)
    if not 0 <= token < actions.N_ACTIONS or not pos.mask()[token]:
        name = actions.token_name(token) if 0 <= token < actions.N_ACTIONS else "out of range"
        raise ValueError(f"token {token} ({name}) is not allowed after "
                         f"{[actions.token_name(t) for t in pos.prefix]}")
    prefix = pos.prefix + (token,)
    if token != actions.END:
        return Position(pos.state, pos.played, pos.sequences, prefix, pos.records)
    key = pos.sequences[prefix]
    result, card = actions.apply(pos.state, key, (pos.records or {}).get(key))
    played = pos.played + ((card,) if card is not None else ())
    if result["over"]:
        return Position(result, played, {}, (), {})
    nxt = begin(result, played)
    if (result.get("decision") or {}).get("kind") == "stay":
        nxt = Position(nxt.state, nxt.played, nxt.sequences, (), nxt.records, (pos.state, pos.played))
    return nxt


def returns(state, fmt, kind="points"):
    """Each seat's return at the end: its points (its side's; Kasino's negated, misère) with `kind`
    "points", +1, 0 or -1 for its side's win, a tie or a loss with "win"."""
    scores = engine.scores(state)
    if kind == "points":
        sign = -1 if fmt.family == "kasino" else 1
        return [sign * s["score"] for s in scores]
    from ..duplicate import units
    w = engine.winner(state)
    _, unit_of = units(fmt)
    return [0 if w < 0 else (1 if unit_of[s] == w else -1) for s in range(fmt.seats)]
