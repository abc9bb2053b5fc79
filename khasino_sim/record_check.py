"""A game record read from a file, rebuilt through the engine before any of it is shown (`khasino replay`,
`khasino show`): nothing a record says is taken on trust.

Each round's first position must be a valid state of the record's format and options and, where the record
has a seed, the deal of that seed (engine.new_game, as records.play_record and `khasino play --human` deal it;
a Cassino or Kasino round after the first from the match totals before it). Every later position is the
`result` of the legal move with the recorded key (engine.move_of_key: one generation pass, then that move's
result alone); each move's seat must be the seat to move, its bot that seat's (a four-player lead is chosen by
a seat of the team that leads, P11) and its `move` the engine's. Each round must end its game, and its scores, the
match totals, the final score and the winner must be what the engine counts. Anything else is a RecordError
with one line.
"""
from . import engine
from .codec.common import StateError
from .engine import EngineError
from .records import MAX_ROUNDS, RecordError, key_text, round_seed
from .text import printable

KINDS = ("game", "match", "single", "round")
SHOWN = 60          # characters of a record's own text quoted in a refusal


def _quote(value):
    return repr(printable(value, SHOWN)) if isinstance(value, str) else printable(repr(value), SHOWN)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _ints(value, n):
    return isinstance(value, list) and len(value) == n and all(_is_int(x) for x in value)


def _seed(value, what):
    """A seed as the record holds it (a decimal string), as an int; None where there is none."""
    if value is None:
        return None
    text = str(value) if _is_int(value) else value
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > 20 \
            or int(text) >= 2**64:
        raise RecordError(f"{what} {_quote(value)} is not a seed (a decimal string below 2**64)")
    return int(text)


def record_format(rec):
    """The format of a record with its rule options applied, once its header fields are checked."""
    options = rec.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(k, str) and (isinstance(v, (int, str)))
                                                for k, v in options.items()):
        raise RecordError("'options' must map option names to values (docs/RECORDS.md)")
    try:
        fmt = engine._format(rec["format"], options)
    except (StateError, ValueError, TypeError) as e:
        raise RecordError(f"its options: {printable(e, 200)}") from None
    bots = rec["bots"]
    if len(bots) != fmt.seats:
        raise RecordError(f"'bots' names {len(bots)} bot(s): {fmt.name} has {fmt.seats} seats")
    kind = rec.get("kind", "game")
    if kind not in KINDS:
        raise RecordError(f"kind {_quote(kind)} is none of {', '.join(KINDS)}")
    if (kind == "game") == bool(fmt.matches):
        want = "match, single or round" if fmt.matches else "game"
        raise RecordError(f"kind {kind!r} is not a kind of {fmt.name} records ({want})")
    if not _ints(rec.get("score"), fmt.seats):
        raise RecordError(f"'score' must be {fmt.seats} whole numbers, one a seat")
    if rec.get("winner") is not None and not _is_int(rec["winner"]):
        raise RecordError("'winner' must be a seat (a team) or null")
    if "leader" in rec and not _is_int(rec["leader"]):
        raise RecordError("'leader' must be a seat")
    rounds = len(rec["rounds"])
    if kind != "match" and rounds != 1:
        raise RecordError(f"a record of kind {kind!r} holds one round, not {rounds}")
    if rounds > MAX_ROUNDS:
        raise RecordError(f"a match of {rounds} rounds: at most {MAX_ROUNDS}")
    return fmt


def checked_steps(rec):
    """Every position of a (shape-checked, records._malformed) record in order, rebuilt through the engine:
    dicts {index (1-based), round, move (the number of the move played from it, 1-based over the record; at a
    round's end the next one's), state, played (the move entry played from it, None at a round's end),
    scores (at a round's end)}. RecordError (one line) where the record disagrees with the engine."""
    fmt = record_format(rec)
    kind = rec.get("kind", "game")
    seed = _seed(rec.get("seed"), "its seed")
    bots = rec["bots"]
    match = _Match(fmt)
    out, number, final, first = [], 0, None, None
    for r, rnd in enumerate(rec["rounds"], 1):
        if match.over:
            raise RecordError(f"round {r} follows the end of the match (after round {r - 1})")
        if fmt.matches and "round" not in rnd:
            raise RecordError(f"round {r} has no 'round' number")
        if rnd.get("round", 1) != r or isinstance(rnd.get("round"), bool):
            raise RecordError(f"round {r} says it is round {_quote(rnd.get('round'))}")
        before = match.before(rnd, r) if fmt.matches else None
        state = _first_state(fmt, rec, kind, seed, rnd, r, before, number)
        first = first or state
        for played in rnd["moves"]:
            number += 1
            move = _replayed(state, played, bots, number)
            entry = {"seat": state["to_move"], "bot": played["bot"], "move": _shown(move),
                     "key": key_text(move.key)}
            out.append({"index": len(out) + 1, "round": r if fmt.matches else 1, "move": number, "state": state,
                        "played": entry})
            state = move.result
        if not state.get("over"):
            raise RecordError(f"round {r} stops after move {number}, before its game is over")
        scores = engine.scores(state)
        if rnd["scores"] != scores:
            raise RecordError(f"round {r}: its scores are not those of its last position (the engine counts "
                              f"{[s['score'] for s in scores]})")
        if fmt.matches:
            match.count(state, scores, r, kind)
        out.append({"index": len(out) + 1, "round": r if fmt.matches else 1, "move": number + 1, "state": state,
                    "played": None, "scores": scores, "end": True})
        final = state
    if kind == "match":
        score, winner = match.result()
    else:
        score = [s["score"] for s in engine.scores(final)]
        w = engine.winner(final)
        winner = None if w < 0 else w
    if rec["score"] != score:
        raise RecordError(f"its final score {printable(rec['score'], SHOWN)} is not the engine's {score}")
    if rec.get("winner") != winner:
        raise RecordError(f"its winner {_quote(rec.get('winner'))} is not the engine's "
                          f"({'a tie' if winner is None else winner})")
    _check_leader(rec, first)
    return out


def _first_state(fmt, rec, kind, seed, rnd, r, before, number):
    """Round r's first position, checked: a valid state of the record's format and options, the deal of its
    seed where the record has one. Returned as the engine writes it."""
    try:
        parsed_fmt, vector, decision = engine.parse(rnd["state"])
    except StateError as e:
        where = f"round {r}, move {number + 1}" if rnd["moves"] else f"round {r}"
        raise RecordError(f"{where}: its position is not a valid state ({printable(e, 300)})") from None
    state = engine.to_json(vector, parsed_fmt, decision)
    if state.get("over"):
        raise RecordError(f"round {r}: its first position is already over")
    deal = seed
    if fmt.matches:
        deal = _seed(rnd.get("seed"), f"round {r}'s seed") if "seed" in rnd or seed is not None else None
        if seed is not None:
            allowed = {round_seed(seed, r)} | ({seed} if kind == "round" else set())
            if deal not in allowed:
                raise RecordError(f"round {r}'s seed {_quote(rnd.get('seed'))} is not the round seed of the "
                                  f"record's seed {seed}")
    leader = state.get("to_move") if kind == "game" else 0
    extra = {"round": r, "scores": before if r > 1 else None} if fmt.matches else {}
    try:
        want = engine.new_game(fmt.name, deal or 0, leader=leader, options=rec.get("options"), **extra)
    except (StateError, ValueError):
        raise RecordError(f"round {r}: its first position has seat {_quote(leader)} lead, which "
                          f"{fmt.name} does not deal") from None
    if state.get("format") != want["format"]:
        raise RecordError(f"round {r}: its first position's format {printable(state.get('format'), SHOWN)} is not "
                          f"the record's ({fmt.name})")
    if isinstance(state.get("options"), dict) and state.get("options") != want.get("options"):
        name = next(k for k in sorted(set(state["options"]) | set(want["options"]))
                    if state["options"].get(k) != want["options"].get(k))
        raise RecordError(f"round {r}: its first position's option {printable(name, 40)} is "
                          f"{printable(state['options'].get(name), SHOWN)}, the record's "
                          f"{printable(want['options'].get(name), SHOWN)}")
    for k in ("rounds", "round", "scores"):
        if k in want and state.get(k) != want[k]:
            said = "the record's" if k == "rounds" else f"round {r}'s"
            raise RecordError(f"round {r}: its first position's {k} {printable(state.get(k), SHOWN)} is not "
                              f"{said} ({printable(want[k], SHOWN)})")
    if deal is not None and state != want:
        differ = [printable(k, 20) for k in sorted(set(state) | set(want)) if state.get(k) != want.get(k)]
        raise RecordError(f"round {r}: its first position is not the deal of its {'round ' * fmt.matches}seed "
                          f"{deal} (differing: {', '.join(differ[:4])})")
    return state


def _shown(move):
    shown = move.to_json()
    del shown["result"]
    return shown


def _replayed(state, played, bots, number):
    """The engine's move that `played` (a record's move entry) says is played from `state`, checked."""
    if not isinstance(played.get("bot"), str) or "move" not in played or not _is_int(played.get("seat")):
        raise RecordError(f"move {number} needs 'seat' (a number), 'bot' (a name), 'move' and 'key'")
    if state.get("over"):
        raise RecordError(f"move {number} follows the end of its round")
    to_move = state["to_move"]
    if played["seat"] != to_move:
        raise RecordError(f"move {number}: seat {_quote(played['seat'])} is not the seat to move (seat {to_move})")
    key = int(played["key"], 16)
    try:
        move = engine.move_of_key(state, key)
    except (StateError, EngineError) as e:
        raise RecordError(f"move {number}: its position is not a valid state ({printable(e, 300)})") from None
    if move is None:
        raise RecordError(f"move {number}: key {played['key']} is no legal move of its position")
    shown = _shown(move)
    if played["move"] != shown:
        said = played["move"].get("text") if isinstance(played["move"], dict) else played["move"]
        if said != shown["text"]:
            raise RecordError(f"move {number}: its text {_quote(said)} is not the move its key plays "
                              f"({shown['text']!r})")
        fields = sorted(k for k in set(shown) | set(played["move"]) if shown.get(k) != played["move"].get(k))
        raise RecordError(f"move {number}: its {', '.join(printable(k, 20) for k in fields[:3])} "
                          f"{'are' if len(fields) > 1 else 'is'} not the move its key plays")
    decision = state.get("decision") or {}
    deciders = decision.get("team", [to_move]) if decision.get("kind") == "lead" else [to_move]
    if played["bot"] not in {bots[s] for s in deciders}:
        raise RecordError(f"move {number}: bot {_quote(played['bot'])} is not seat {to_move}'s "
                          f"({_quote(bots[to_move])})")
    return move


class _Match:
    """The match totals of a Cassino or Kasino record, round by round, as the engine counts them (C7, N7: in
    Kasino each seat carries its side's total, its pair's in the pair formats)."""

    def __init__(self, fmt):
        self.fmt = fmt
        self.totals = [0] * fmt.seats
        self.over = False
        self.winner = None

    def before(self, rnd, r):
        """The totals before round r; the round's own `scores_before`, where it has one, must be them."""
        said = rnd.get("scores_before")
        if said is not None and said != self.totals:
            raise RecordError(f"round {r}: its scores_before {printable(said, SHOWN)} are not the match totals "
                              f"before it ({self.totals})")
        return self.totals

    def count(self, final, scores, r, kind):
        if kind != "match":
            self.over = True
            return
        if self.fmt.family == "cassino":
            counted = engine.count_round(final)
            self.totals, self.winner = counted["totals"], counted["winner"]
            self.over = self.winner is not None or r >= MAX_ROUNDS
        else:
            self.totals = [t + s["team_score"] for t, s in zip(self.totals, scores)]
            self.over = r >= self.fmt.match_rounds

    def result(self):
        """(the final score, the winner) of the match: the totals and, in Kasino, the side with the lowest
        total (N7), None on a tie."""
        if not self.over:
            raise RecordError("the match is not over after its last round"
                              + (" (no side has reached 21, C7)" if self.fmt.family == "cassino" else
                                 f" ({self.fmt.name} plays {self.fmt.match_rounds} rounds, N7)"))
        if self.fmt.family == "cassino":
            return self.totals, self.winner
        from .duplicate import units
        _, unit_of = units(self.fmt)
        sides = {unit_of[s]: t for s, t in enumerate(self.totals)}
        best = min(sides.values())
        winners = [u for u, t in sides.items() if t == best]
        return self.totals, (winners[0] if len(winners) == 1 else None)


def _check_leader(rec, first):
    """`leader`, where the record has one: the seat that played first (a four-player team's chosen leader)."""
    if "leader" not in rec or first is None:
        return
    seats = {first.get("to_move")}
    moves = rec["rounds"][0]["moves"]
    if moves and isinstance(moves[0].get("move"), dict) and moves[0]["move"].get("kind") == "lead":
        seats.add(moves[0]["move"].get("seat"))
    if rec["leader"] not in seats:
        raise RecordError(f"its leader {_quote(rec['leader'])} is not the seat that played first "
                          f"({' or '.join(str(s) for s in sorted(seats, key=str))})")
