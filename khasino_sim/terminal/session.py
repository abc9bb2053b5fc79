"""A game at the terminal (`khasino play --human SEAT`): humans at their seats, bots elsewhere, every format;
Cassino and Kasino as whole matches (or one round). Practice shows counts, build details and hints and ends
with a review; Classic shows what the rulebook's Classic mode shows; two or more humans play Pass-and-Play,
with a handoff screen between their turns.

Each human sees only his seat's view (seat_view.py): his screen is drawn from it, and the moves of others are
told as public events (a Stay offer, P15, is seen by the partner asked alone; the others see the move that
results). Input is read line by line, so a script can play through a pipe. With --save the game is written
after every move and `--resume` continues it (the save's format, its checks and the replay that rebuilds the
game: saves.py); a finished game is written as a record (docs/RECORDS.md) that `khasino replay` steps through."""
import os
import shlex
import sys

import numpy as np

from .. import engine
from ..records import MAX_ROUNDS, SCHEMA, key_text, round_seed
from . import hints, notation, saves, screen
from .seat_view import seat_view

HELP = """Enter a move: its number, or the notation (README, "Playing in the terminal"):
  9S            the move that plays 9S, when only one does      9S t          9S trails (Kasino: crawls)
  9S x 4C+5H    9S captures, taking 4C and 5H                   9S x b9       9S captures the build of 9
  5H b9         5H builds 9 (or loads, or changes a build to 9); 5H b9 4C names the cards it uses
  lead 0|1, stay, decline    the four-player decisions
Other commands: ? or hint (Practice: what the strongest bot would play), m (the moves again), s (the table
again), help, q (quit; with --save the game can be resumed)."""


def _typed(path):
    """A file's path for a command line: relative to the working folder when the file is inside it, quoted for
    the shell."""
    try:
        relative = os.path.relpath(path)
    except (OSError, ValueError):   # no working folder, or (Windows) another drive
        relative = os.pardir
    outside = relative == os.pardir or relative.startswith(os.pardir + os.sep)
    return shlex.quote(path if outside else relative)


def category_text(fmt, seat_scores):
    """One side's points by category from engine.scores of its seats (a team's together): Khasino and Cassino
    score the majorities (K13, K16, C7) and the cards (aces 1 each, 2S 1, 10D 2; sweeps 1 each); Kasino adds
    card points, the last point and the tabbe (N4, N6, N7). The total is the side's score."""
    first = seat_scores[0]
    total = first.get("team_score", first["score"]) if fmt.teams else first["score"]
    if "card_points" in first:
        parts = {k: sum(s[k] for s in seat_scores) for k in ("card_points", "last_point", "tabbe_plus",
                                                              "tabbe_minus")}
        return (f"{total} point(s): card points {parts['card_points']}, last point {parts['last_point']}, "
                f"tabbe {parts['tabbe_plus']:+d} {parts['tabbe_minus']:+d} (the lowest total wins, N7)")
    count = {k: sum(s.get(k, 0) for s in seat_scores) for k in ("cards", "spades", "aces", "two_spades",
                                                                 "ten_diamonds", "sweeps")}
    pts = [("most cards", first["most_cards"]), ("most spades", first["most_spades"]),
           ("aces", count["aces"]), ("two of spades", count["two_spades"]),
           ("ten of diamonds", 2 * count["ten_diamonds"])]
    if count["sweeps"]:
        pts.append(("sweeps", count["sweeps"]))
    return (f"{total} point(s): " + ", ".join(f"{k} {v}" for k, v in pts)
            + f" (took {count['cards']} cards, {count['spades']} spades)")


class Quit(Exception):
    """The human quit, or the input ended."""


class Game:
    """One game (a match in Cassino and Kasino) being played: the current state, the moves so far by round,
    the humans' decisions (for the review), and how to talk to the terminal."""

    def __init__(self, fmt_name, seed, names, humans, mode="practice", options=None, single=False,
                 hint_bot=hints.HINT_BOT, plain=True, out=None, inp=None, save=None, trace=None):
        from ..formats import options_of
        self.fmt = engine._format(fmt_name, options)
        typed = options_of(self.fmt)        # "--set opponent_piles=false" arrives as text: kept as the value
        self.options = {k: typed[k] for k in options or {}}
        self.seed = int(seed)
        self.names = list(names)
        self.humans = sorted(set(humans))
        self.mode = mode
        self.single = single
        self.hint_bot = hint_bot
        self.plain = plain
        self.con = screen.console(plain, out)
        self.inp = inp or sys.stdin
        self.save_path = save
        self.trace_path = trace
        self.rounds = []            # finished rounds, as record entries (docs/RECORDS.md)
        self.current = None         # the round being played: {round, seed, state, moves, scores_before}
        self.state = None
        self.decisions = []         # the humans' decisions: {seat, state, key, number}
        self.pending = None         # a capture waiting on a Stay decision: (mover, its text)
        self.seen_by = {h: 0 for h in self.humans}      # events each human has been shown
        self.events = []            # public events: (mover, text)
        self.last_human = None
        self.totals = None          # a match's final totals (Cassino, Kasino)
        self.over = False           # the game (the whole match) has ended
        self.bot_files = saves.bot_files(self.names + [self.hint_bot])     # what a save names a bot file by

    # ------------------------------------------------------------------------------ rounds and the match
    @property
    def matches(self):
        return self.fmt.family in ("cassino", "kasino")

    def start(self):
        """Deal the first round (the first game) and play it to the end."""
        self._deal(1, [0] * self.fmt.seats)
        return self.play()

    def _deal(self, r, totals):
        if not self.matches:
            seed, state = self.seed, engine.new_game(self.fmt.name, self.seed, options=self.options)
        else:
            seed = round_seed(self.seed, r)
            rounds = None if self.single or self.fmt.family != "kasino" else self.fmt.match_rounds
            state = engine.new_game(self.fmt.name, seed, options=self.options, round=r,
                                    scores=totals if r > 1 else None, rounds=rounds)
        self.current = {"round": r, "seed": str(seed), "state": state, "moves": [], "scores_before": list(totals)}
        self.state = state

    def _round_over(self):
        """Count the finished round; deal the next one when the match goes on. True when the game is over."""
        final = self.state
        scores = engine.scores(final)
        entry = dict(self.current, scores=scores)
        if not self.matches:
            entry = {k: entry[k] for k in ("state", "moves", "scores")}
        self.rounds.append(entry)
        self._say_round(scores)
        if not self.matches or self.single:
            self.over = True
            return True
        r = self.current["round"]
        if self.fmt.family == "cassino":
            counted = engine.count_round(final)
            totals = counted["totals"]
            done = counted["winner"] is not None or r >= MAX_ROUNDS     # C7: to 21 (the cap never reached)
        else:
            # N7 as the core counts it: each seat carries its side's total (its pair's in kasino-4p, -6p)
            totals = [b + s["team_score"] for b, s in zip(self.current["scores_before"], scores)]
            done = r >= self.fmt.match_rounds
        self.say("match totals after round %d: %s" % (r, ", ".join(
            f"{self._who(s, None)} {t}" for s, t in enumerate(totals))))
        if done:
            self.totals = totals
            self.over = True
            return True
        self._deal(r + 1, totals)
        return False

    # ------------------------------------------------------------------------------------------ the loop
    def play(self):
        """Play until the game ends (True) or the human quits (False)."""
        try:
            while True:
                if self._ended():
                    if self._round_over():
                        break
                    self._save()
                    continue
                self._turn()
                self._save()
        except Quit as q:
            self._save()
            self.say(str(q) + (f": the game is saved in {self.save_path} ({self._resume_command()})"
                               if self.save_path else " (not saved: --save GAME.json keeps it)"))
            return False
        self._finish()
        if self.save_path and os.path.exists(self.save_path):
            self._save()
        return True

    def _resume_command(self):
        """The command that continues the save: --resume, and --bot-file again for each bot file the game plays
        (a save names a bot file by its content, never by a path: saves.py), every path as it can be typed."""
        files = "".join(f" --bot-file {_typed(spec[5:])}" for spec in self.bot_files)
        return f"khasino play --resume {_typed(str(self.save_path))}{files}"

    def _decider(self):
        """The seat that decides now: the seat to move; team AB's lead (P11) is asked of a human of the team
        when seat 0 is a bot."""
        seat = self.state["to_move"]
        d = self.state.get("decision")
        if d and d.get("kind") == "lead" and seat not in self.humans:
            return next((s for s in d.get("team", []) if s in self.humans), seat)
        return seat

    def _ended(self):
        """The round (the game) being played is over."""
        return self.state["over"] or self.state.get("to_move") is None

    def _turn(self):
        state = self.state
        moves = engine.legal_moves(state)
        seat = self._decider()
        ply = len(self.current["moves"])
        if seat in self.humans:
            move = self._ask(seat, moves)
            if not (move.result.get("decision") or {}).get("kind") == "stay":
                self.say(f"you: {move.text}")
        else:
            move = engine.bot_move(state, self.names[seat], self._draw(ply))
        self._apply(seat, move)

    def _apply(self, seat, move):
        """Play `move`, chosen by `seat` (the decider): kept in the round's moves (and a human's in the
        decisions), told to the others."""
        state = self.state
        if seat in self.humans:
            self.decisions.append({"seat": seat, "state": state, "key": key_text(move.key),
                                   "number": self._move_number() + 1})
        mover = seat if move.kind == "lead" else state["to_move"]     # P11: the team's lead, by who chose it
        shown = move.to_json()
        del shown["result"]
        self.current["moves"].append({"seat": state["to_move"], "bot": self.names[seat], "move": shown,
                                      "key": key_text(move.key)})
        self._public(mover, move, state)
        self.state = move.result

    def _draw(self, ply):
        """A bot's draw seed: from the game seed, the round and the move, so a resumed game plays the same."""
        ss = np.random.SeedSequence([self.seed, self.current["round"], ply])
        return int(ss.generate_state(1, dtype=np.uint64)[0])

    def _move_number(self):
        return sum(len(r["moves"]) for r in self.rounds) + len(self.current["moves"])

    # ------------------------------------------------------------------------------- what people are told
    def say(self, text=""):
        self.con.print(screen.styled(text, self.plain))

    def _who(self, s, viewer):
        if viewer is not None and s == viewer:
            return "you"
        return f"seat {s} ({self.names[s]})"

    def _public(self, mover, move, state):
        """Tell the move as the others see it: a capture that offers a Stay is held until the partner decides
        (P15: the offer is private); then the move that resulted is told."""
        if move.kind == "lead":
            self._event(mover, move.text, own=mover in self.humans)
            return
        if move.result.get("decision", {}) and move.result["decision"].get("kind") == "stay":
            self.pending = (mover, move.text)
            return
        if move.kind in ("stay", "decline"):
            p, text = self.pending or (state["decision"]["seat"], "")
            self.pending = None
            if move.kind == "decline":
                self._event(p, text)
            else:
                card = state["decision"]["move"]["card"]
                value = state["decision"]["value"]
                self._event(p, f"Play {card} to load build {value}: seat {mover} stays, and the build is now "
                               f"seat {mover}'s (P15)", also_told=mover)
            return
        self._event(mover, move.text, own=mover in self.humans)

    def _event(self, mover, text, own=False, also_told=None):
        """A public event; `own`: a human's move that stands as he chose it, confirmed to him when he chose it
        (_turn), so not told to him again; `also_told`: another seat it was confirmed to (a Stay)."""
        self.events.append((mover, text))
        for seat in ([mover] if own else []) + ([also_told] if also_told is not None else []):
            if self.seen_by.get(seat) == len(self.events) - 1:
                self.seen_by[seat] += 1
        if len(self.humans) == 1:
            self._flush(self.humans[0])

    def _flush(self, viewer):
        """Show `viewer` the public events since he last looked."""
        for mover, text in self.events[self.seen_by[viewer]:]:
            told = screen.as_seen_by(text, mover, viewer, self.fmt.seats)
            self.say(f"{self._who(mover, viewer)}: {told}")
        self.seen_by[viewer] = len(self.events)

    def _handoff(self, seat):
        """Pass-and-Play: clear the screen and wait until the seat's player is at the keyboard."""
        if len(self.humans) < 2 or self.last_human == seat:
            return
        if self.con.is_terminal:
            self.con.clear()
        else:
            self.say("\n" + "=" * 60)
        self.say(f"Pass the device to seat {seat}. Seat {seat}: press Enter when nobody else can see the screen.")
        self._read("")
        if self.con.is_terminal:
            self.con.clear()

    def _show(self, seat, moves):
        view = seat_view(self.state, seat, self.mode)
        self.say("")
        head, *rest = screen.draw(view, self.names)
        self.con.print(screen.styled(head, self.plain) if self.plain else f"[bold]{screen.styled(head, False)}[/bold]")
        for line in rest:
            self.say(line)
        d = view.get("decision")
        if d and d.get("kind") == "stay":
            self.say(f"  seat {d['seat']} is capturing build {d['value']}: stay (load it, the build becomes "
                     "yours) or decline (P15)?")
        self._list(moves)

    def _list(self, moves):
        practice = self.mode == "practice"
        self.say("moves:")
        for i, m in enumerate(moves):
            self.say(screen.move_line(i + 1, m, practice))

    def _read(self, prompt):
        self.con.print(prompt, end="")
        self.con.file.flush()
        line = self.inp.readline()
        if not line:
            raise Quit("input ended")
        if not self.con.is_terminal:
            self.con.print(line.rstrip("\n"))
        return line.strip()

    def _ask(self, seat, moves):
        """The human at `seat` picks a move: by number, by notation, or asks for a hint."""
        self._handoff(seat)
        self.last_human = seat
        self._flush(seat)
        self._show(seat, moves)
        while True:
            text = self._read(f"seat {seat}> ")
            low = text.lower()
            if low in ("q", "quit", "exit"):
                raise Quit("quit")
            if low in ("help", "h"):
                self.say(HELP)
                continue
            if low in ("m", "moves"):
                self._list(moves)
                continue
            if low in ("s", "show", "table"):
                self._show(seat, moves)
                continue
            if low in ("?", "hint"):
                self._hint(moves)
                continue
            move = self._choose(text, moves)
            if move is not None:
                return move

    def _choose(self, text, moves):
        try:
            entry = notation.parse(text)
        except notation.NotationError as e:
            self.say(str(e))
            return None
        exact, cands = notation.matches(entry, moves)
        if entry.number is not None and not exact:
            self.say(f"there {'is 1 move' if len(moves) == 1 else f'are {len(moves)} moves'}: 1 .. {len(moves)}")
            return None
        if len(exact) == 1:
            return exact[0]
        if cands:
            number = {m.key: i + 1 for i, m in enumerate(moves)}
            self.say(f"{entry.text()} could be {len(cands)} moves: type its number, or name the cards it uses")
            for m in cands[:12]:
                self.say(f"  {number[m.key]:>3}  {m.text}")
            if len(cands) > 12:
                self.say(f"  ... and {len(cands) - 12} more")
            return None
        if entry.card is None:
            kinds = sorted({m.kind for m in moves})
            self.say(f"no {entry.kind} decision now (the moves are: {', '.join(kinds)})")
            return None
        from .explain import why_illegal
        self.say(why_illegal(self.state, entry, moves))
        return None

    def _hint(self, moves):
        if self.mode != "practice":
            self.say("no hints in Classic (play --mode practice for hints)")
            return
        if len(moves) == 1:
            self.say("hint: there is only one move")
            return
        if self.last_human != self.state["to_move"]:
            self.say("no hint for the team's lead: the bots would decide it from seat 0's hand, which you do "
                     "not see (P11)")
            return
        from ..tournament import announce_compile
        lines = announce_compile(f"search for hints ({self.hint_bot})",
                                 lambda: hints.hint_lines(self.state, moves, self.hint_bot,
                                                          self._draw(10_000 + len(self.decisions))), self.say)
        for line in lines:
            self.say(line)

    def _say_round(self, scores):
        """The round's (game's) points by category, per side (a team's seats together), with the counts behind
        the majorities."""
        if self.current is None:
            return
        from ..duplicate import units
        title = f"round {self.current['round']}" if self.matches else "game"
        self.say("")
        self.say(f"-- {title} over: points by category")
        n, unit_of = units(self.fmt)
        for u in range(n):
            seats = [s for s in range(self.fmt.seats) if unit_of[s] == u]
            who = self._team(u) if self.fmt.teams else self._who(seats[0], None)
            self.say(f"  {who}: {category_text(self.fmt, [scores[s] for s in seats])}")

    # --------------------------------------------------------------------------------- the end of a game
    def record(self):
        """The game as a record (docs/RECORDS.md), humans named "human"."""
        bots = [("human" if s in self.humans else self.names[s]) for s in range(self.fmt.seats)]
        if self.matches:
            score = self.totals or [s["score"] for s in self.rounds[-1]["scores"]]
            kind = "round" if self.single else "match"
        else:
            score, kind = [s["score"] for s in self.rounds[-1]["scores"]], "game"
        first = self.rounds[0]
        return {"record": SCHEMA, "format": self.fmt.name, "options": self.options, "bots": bots,
                "seed": str(self.seed), "leader": int(first["state"].get("to_move") or 0), "kind": kind,
                "rounds": self.rounds, "score": [int(x) for x in score], "winner": self.winner(score),
                "game": None, "mode": self.mode, "humans": self.humans}

    def winner(self, score):
        """The winning seat (team in a team format), None on a tie: a Khasino game's own winner; Cassino the
        highest total (C7), Kasino the lowest (N7), pairs' totals combined."""
        from ..duplicate import units
        if not self.matches or self.single:
            w = engine.winner(self.state)
            return None if w < 0 else int(w)
        n, unit_of = units(self.fmt)
        totals = [sum(score[s] for s in range(self.fmt.seats) if unit_of[s] == u) for u in range(n)]
        best = (min if self.fmt.family == "kasino" else max)(totals)
        return totals.index(best) if totals.count(best) == 1 else None

    def _team(self, unit):
        """A team by name: Khasino's AB and CD (K15), else the pair by its seats (C8, N7)."""
        from ..duplicate import units
        seats = [s for s, u in enumerate(units(self.fmt)[1]) if u == unit]
        if self.fmt.family == "khasino":
            return f"team {screen.TEAM_NAMES[unit]} (seats {'+'.join(map(str, seats))})"
        return f"the pair of seats {'+'.join(map(str, seats))}"

    def _finish(self):
        rec = self.record()
        w = rec["winner"]
        teams = self.fmt.teams
        who = "nobody (a tie)" if w is None else (self._team(w) if teams else self._who(w, None))
        self.say("")
        self.say("final: " + ", ".join(f"{self._who(s, None)} {x}" for s, x in enumerate(rec["score"]))
                 + f"; the winner: {who}")
        if self.trace_path:
            from ..files import make_folder
            from ..records import dumps, write_lines
            make_folder(os.path.dirname(os.path.abspath(self.trace_path)))
            write_lines(self.trace_path, [dumps(rec)])         # whole, never through a link (files.replacing)
            self.say(f"trace      {self.trace_path} (khasino replay {self.trace_path})")
        if self.mode == "practice":
            self._review()

    def _review(self, top=3):
        """The human decisions where the move chosen lost the most against the best by the bots' estimate."""
        judged = []
        for d in self.decisions:
            if d["state"]["to_move"] != d["seat"]:      # a lead chosen for seat 0: judged from his hand
                continue
            moves = engine.legal_moves(d["state"])
            got = hints.judge(d["state"], moves, int(d["key"], 16), self._draw(20_000 + d["number"]))
            if got is not None and got[0] > 0.005:
                judged.append((got[0], d, got[1], got[2]))
        judged.sort(key=lambda x: -x[0])
        self.say("")
        if not judged:
            self.say("review: none of your moves lost against the bots' estimate (flat Monte Carlo over the "
                     "cards you could not see)")
            return
        self.say(f"review: the moves that cost you most by the bots' estimate (flat Monte Carlo, {hints.REVIEW_PLAYOUTS[1]}"
                 " playouts a move at least, over deals of the cards you could not see; reward 0 to 1: half the "
                 "chance of winning, half the share of points)")
        for loss, d, mine, best in judged[:top]:
            self.say(f"  move {d['number']} (seat {d['seat']}): you played {mine.move.text} ({mine.reward:.3f}); "
                     f"{best.move.text} ({best.reward:.3f}) was estimated {loss:.3f} better")

    # ------------------------------------------------------------------------------------ save and resume
    def _save(self):
        """Write the game to --save (saves.py), when given."""
        if self.save_path:
            saves.write(self.save_path, saves.to_json(self))

    @classmethod
    def resume(cls, data, plain=True, out=None, inp=None, save=None, mode=None, hint_bot=None, trace=None):
        """The game saved in `data` (a save's parsed JSON), its setup checked (saves.read) and its moves replayed
        through the engine (saves.replay), ready to go on; `mode` and `hint_bot`, when given, replace the saved
        ones. saves.SaveError (one line) if `data` is not a game `khasino play --save` wrote, saves.Finished if
        that game is over. The trace is written to `trace`, from the command line."""
        setup, keys = saves.read(data, hint_bot)
        g = cls(setup["format"], setup["seed"], setup["names"], setup["humans"], mode or setup["mode"],
                setup["options"], setup["single"], hint_bot or setup["hint_bot"], plain, out, inp, save, trace)
        saves.replay(g, keys)
        return g
