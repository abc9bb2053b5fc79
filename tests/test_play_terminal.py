"""`khasino play --human` (issue 39): whole games from a pipe in every format, a scripted human picking moves
by number and by notation, illegal and ambiguous entries, hints, save and resume, Pass-and-Play handoffs, and
the hidden-information rule: nothing printed to a human before he moves shows a card another seat holds."""
import io
import random
import json
import re

import pytest
from click.testing import CliRunner

from khasino_sim import engine
from khasino_sim.cli import main
from khasino_sim.formats import FORMATS
from khasino_sim.records import read_records, steps
from khasino_sim.terminal import notation
from khasino_sim.terminal.seat_view import seat_view, visible_cards
from khasino_sim.terminal.session import Game

CARD = re.compile(r"(?<![0-9A-Za-z])(10|[A2-9JQK])([SHDC])(?![0-9A-Za-z])")


def run(args, lines):
    r = CliRunner().invoke(main, [str(a) for a in args], input="".join(f"{x}\n" for x in lines),
                           catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_whole_game_from_a_pipe_in_every_format(fmt, tmp_path):
    """One human picking the first move every time against random bots, in Classic: the game (the whole
    match in Cassino and Kasino) ends, its points by category are printed, and its trace replays."""
    trace = tmp_path / "t.jsonl"
    code, out, err = run(["play", "--format", fmt, "--human", "0", "--bots", "random", "--mode", "classic",
                          "--seed", "3", "--trace", trace], ["1"] * 3000)
    assert code == 0, err
    assert "points by category" in out and "final: " in out and "the winner: " in out
    assert "hint (" not in out and "review" not in out          # Classic: no hints, no review
    rec = read_records(trace)[0]
    assert rec["bots"][0] == "human" and rec["kind"] == ("game" if FORMATS[fmt].family == "khasino" else "match")
    positions = steps(rec)                                      # every key replays on the states
    assert positions[-1]["played"] is None and len(positions) > 10
    if FORMATS[fmt].family == "cassino":
        assert max(rec["score"]) >= 21                          # C7: a match to 21


def scripted(fmt, seed, humans, answer, mode="practice", bots=None, **kw):
    """A Game whose humans are a function answer(game, seat, moves) -> the line typed; returns (game,
    the text printed to each prompt of each human: [(seat, text since the previous prompt)])."""
    out = io.StringIO()
    segments = []

    class Scripted(Game):
        def _read(self, prompt):
            text = out.getvalue()
            if prompt:                  # a move prompt (a handoff's Enter is an empty prompt)
                played = [c for r in self.rounds + [self.current] for m in r["moves"]     # the cards each move
                          for c in CARD.findall(m["move"]["text"])]                   # played or took
                played = ["".join(c) for c in played]
                segments.append((self.last_human, text[self._mark:], self.state, played))
                self._mark = len(text)
            line = answer(self, self.last_human, engine.legal_moves(self.state))
            if line is None:
                from khasino_sim.terminal.session import Quit
                raise Quit("input ended")
            out.write(prompt + line + "\n")
            return line

    n = FORMATS[fmt].seats
    names = [("human" if s in humans else (bots or "random")) for s in range(n)]
    g = Scripted(fmt, seed, names, humans, mode, out=out, plain=True, **kw)
    g._mark = 0
    return g, segments, out


def _hidden(state, seat, view):
    """Cards another seat holds (or the stock) that the seat's view does not show."""
    others = [c for s, h in enumerate(state["hands"]) if s != seat for c in h] + list(state.get("stock", []))
    return set(others) - visible_cards(view) - set(state["hands"][seat])


@pytest.mark.parametrize("fmt,humans", [("khasino", [0]), ("khasino-4p", [0, 2]), ("cassino-3p", [1, 2]),
                                        ("kasino-2p", [0, 1]), ("khasino-3p-stock", [2]), ("durban", [1])])
def test_nothing_printed_to_a_human_shows_a_card_another_seat_holds(fmt, humans):
    """At every prompt, the whole text printed since the previous prompt (the other seats' moves, a handoff,
    the screen and the move list) names no card that another seat holds or the stock hides, unless the seat's
    view shows it or a move since played or took that card (a double deck holds two of each card: the copy
    taken from the table is public, its twin in a hand is not)."""
    def first(game, seat, moves):
        return "1"
    g, segments, _ = scripted(fmt, 5, humans, first, mode="practice")
    g._review = lambda top=3: None                      # the review is after the game (all cards known)
    g.start()
    checked, before = 0, {}
    for seat, text, state, played in segments:
        view = seat_view(state, seat, "practice")
        named = {m.group(1) + m.group(2) for m in CARD.finditer(text)}
        leak = (named & _hidden(state, seat, view)) - set(played[before.get(seat, 0):])
        assert not leak, (fmt, seat, leak, text)
        checked += 1
        before[seat] = len(played)
    assert checked > 5


def test_pass_and_play_hands_off_between_humans():
    def first(game, seat, moves):
        return "1"
    g, segments, out = scripted("khasino", 2, [0, 1], first, mode="classic")
    g.start()
    text = out.getvalue()
    assert text.count("Pass the device to seat 1") > 5 and text.count("Pass the device to seat 0") > 5
    # between the handoff to seat 1 and its prompt, seat 0's hand is never printed
    for block in text.split("Pass the device to seat 1")[1:]:
        screen = block.split("seat 1> ")[0]
        assert "your hand:" in screen and screen.count("your hand:") == 1


def test_moves_by_number_notation_illegal_ambiguous_hint_and_help():
    state = engine.new_game("khasino", 11)
    moves = engine.legal_moves(state)
    hand = state["hands"][0]
    script = iter(["help", "xyz", "99", f"{hand[0]} b11", "?", "m", "s"])

    def answer(game, seat, moves):
        line = next(script, None)
        if line is not None:
            return line
        return f"{moves[0].card} t" if moves[0].kind == "trail" else "1"
    g, segments, out = scripted("khasino", 11, [0], answer, mode="practice")
    g._review = lambda top=3: None
    g.start()
    text = out.getvalue()
    assert "Enter a move: its number, or the notation" in text          # help
    assert "'xyz' is not a move number or a card" in text               # not the notation
    assert f"there are {len(moves)} moves: 1 .. {len(moves)}" in text     # a number out of range
    assert "hint (ismcts:n=3000" in text and "expected reward" in text   # a Practice hint
    assert "final: " in text


def test_notation_reads_and_matches():
    e = notation.parse("9s x 4c+5H")
    assert (e.card, e.kind, e.cards) == ("9S", "capture", ("4C", "5H"))
    assert notation.parse("5H b9 4C").value == 9 and notation.parse("9S x b9").target == 9
    assert notation.parse("lead 1") == notation.Entry(kind="lead", value=1)
    assert notation.parse(" 7 ").number == 7
    for bad in ("", "9S x b9 b8 b7", "9S t 4C", "lead", "Z9"):
        with pytest.raises(notation.NotationError):
            notation.parse(bad)
    # every legal move of random positions is named by its own notation, exactly
    import random
    for fmt in ("khasino", "khasino-4p", "durban", "cassino", "kasino-3p"):
        state, rng = engine.new_game(fmt, 4), random.Random(4)
        for _ in range(25):
            moves = engine.legal_moves(state)
            if not moves:
                break
            for m in moves:
                card, kind, value, cards, target = notation.facts(m)
                if card is None:
                    continue
                entry = notation.Entry(card=card, kind=kind, value=value, cards=cards, target=target)
                exact, cands = notation.matches(entry, moves)
                assert m in cands, (fmt, m.text)
                assert kind != "build" or value is not None, m.text
            state = rng.choice(moves).result


def test_save_and_resume_play_the_same_game(tmp_path):
    """Quit after six moves with --save, resume, finish: the same trace as the game played straight through."""
    lines = ["1"] * 400
    code, out, _ = run(["play", "--human", "0", "--mode", "classic", "--seed", "9", "--trace", tmp_path / "a.jsonl"],
                       lines)
    assert code == 0
    save = tmp_path / "g.json"
    code, out, _ = run(["play", "--human", "0", "--mode", "classic", "--seed", "9", "--save", save,
                        "--trace", tmp_path / "b.jsonl"], lines[:6])
    assert code == 0 and "input ended: the game is saved in" in out and json.loads(save.read_text())["moves"][0]
    code, out, _ = run(["play", "--resume", save, "--trace", tmp_path / "b.jsonl"], lines)    # (a save names none)
    assert code == 0 and "resuming khasino, seed 9" in out
    a, b = read_records(tmp_path / "a.jsonl")[0], read_records(tmp_path / "b.jsonl")[0]
    assert a["rounds"] == b["rounds"] and a["score"] == b["score"]
    code, _, err = run(["play", "--resume", save], lines)
    assert code == 2 and "that game is finished" in err


def test_practice_ends_with_a_review(tmp_path):
    code, out, _ = run(["play", "--human", "0", "--seed", "2", "--trace", tmp_path / "t.jsonl"], ["1"] * 100)
    assert code == 0 and "review: " in out


@pytest.mark.parametrize("args, message", [
    (["--human", "2"], "khasino has seats 0 .. 1"),
    (["--human", "0", "--bots", "random,random"], "give one bot for every seat no human holds"),
    (["--human", "0", "--json"], "--json and --record are for games the bots play alone"),
    (["--save", "g.json"], "are for games with a human"),
    (["--resume", "/nonexistent/g.json"], "no such file"),
    (["--human", "0", "--rounds", "1"], "plays single games, not matches"),
    (["--human", "0", "--hint-bot", "nosuchbot"], "--hint-bot"),
    (["--human", "0", "--set", "nosuch=1"], "nosuch"),
    (["--bot-file", "/nonexistent/x.py"], "bot file /nonexistent/x.py does not exist"),   # even when unused
])
def test_bad_play_options_are_one_line(args, message):
    code, out, err = run(["play", *args], [])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (code, out, err)


def test_a_stay_offer_is_seen_by_the_partner_alone():
    """P15: when a capture offers the mover's partner a Stay, the opponents are told only the move that
    results (the capture if declined), never the offer."""
    import random
    rng = random.Random(0)
    for seed in range(200):
        state = engine.new_game("khasino-4p", seed)
        while not state["over"]:
            moves = engine.legal_moves(state)
            offer = next((m for m in moves if (m.result.get("decision") or {}).get("kind") == "stay"), None)
            if offer is not None:
                break
            state = rng.choice(moves).result
        if offer is not None:
            break
    assert offer is not None
    mover = state["to_move"]
    partner = offer.result["to_move"]
    opponent = next(s for s in range(4) if s not in (mover, partner))
    g = Game("khasino-4p", 0, ["random"] * 4, [opponent, partner], "classic", out=io.StringIO())
    g._public(mover, offer, state)
    assert g.events == []                                   # nothing told yet
    decline = next(m for m in engine.legal_moves(offer.result) if m.kind == "decline")
    g._public(partner, decline, offer.result)
    assert g.events == [(mover, offer.text)]                # the capture, as it was played
    view = seat_view(offer.result, opponent, "classic")
    assert "decision" not in view and "decision" in seat_view(offer.result, partner, "classic")


def test_the_team_lead_is_asked_of_the_human_of_team_ab_and_gets_no_hint():
    """P11: team AB chooses its leader; with a bot at seat 0 and a human at seat 1 the human is asked, and a
    hint is refused (the bots would decide from seat 0's hand)."""
    asked = []

    def answer(game, seat, moves):
        asked.append((seat, [m.kind for m in moves]))
        return "?" if len(asked) == 1 else ("lead 1" if len(asked) == 2 else "1")
    g, segments, out = scripted("khasino-4p", 1, [1], answer, mode="practice")
    g._review = lambda top=3: None
    g.start()
    assert asked[0] == (1, ["lead", "lead"]) and "no hint for the team's lead" in out.getvalue()
    assert g.rounds[0]["moves"][0]["move"] == {"kind": "lead", "seat": 1, "text": "Seat 1 leads for team AB"}


def test_a_move_is_told_as_its_viewer_reads_it():
    from khasino_sim.terminal.screen import as_seen_by
    assert as_seen_by("Play 8S to capture your build 8", 1, 0, 2) == "Play 8S to capture their own build 8"
    assert as_seen_by("Play 9H to capture the opponent's build 9", 1, 0, 2) == "Play 9H to capture your build 9"
    assert as_seen_by("Play AD on seat 3's build 6 to change it to build 7, now yours", 2, 3, 4) == \
        "Play AD on your build 6 to change it to build 7, now seat 2's"
    assert as_seen_by("Trail 5H", 0, 0, 2) == "Trail 5H"


@pytest.mark.parametrize("fmt", ["cassino", "kasino-3p"])
def test_hints_in_other_families(fmt):
    calls = []

    def answer(game, seat, moves):
        calls.append(1)
        return "?" if len(calls) == 1 else ("q" if len(calls) > 3 else "1")
    g, segments, out = scripted(fmt, 2, [0], answer, mode="practice")
    assert g.start() is False
    text = out.getvalue()
    assert "hint (ismcts:n=3000" in text and "expected reward" in text


def test_the_readme_transcript_is_what_the_game_prints():
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("typed: `1`, `?`, `9S x b4`, `5D b9`):\n\n```text\n")[1].split("\n```")[0]
    code, out, _ = run(["play", "--human", "0"], ["1", "?", "9S x b4", "5D b9", "q"])
    assert code == 0 and block in out


def test_points_by_category_add_up_to_each_sides_score():
    import re as _re
    from khasino_sim.duplicate import units
    from khasino_sim.terminal.session import category_text
    for fmt in ("khasino", "khasino-3p", "khasino-4p", "cassino", "cassino-4p"):
        f = engine._format(fmt)
        state, rng = engine.new_game(fmt, 2), random.Random(2)
        while not state["over"]:
            state = rng.choice(engine.legal_moves(state)).result
        scores = engine.scores(state)
        n, unit_of = units(f)
        for u in range(n):
            text = category_text(f, [scores[s] for s in range(f.seats) if unit_of[s] == u])
            parts = _re.findall(r"(?:most cards|most spades|aces|two of spades|ten of diamonds|sweeps) (-?\d+)", text)
            assert int(text.split()[0]) == sum(map(int, parts)), (fmt, text)


def test_resume_refuses_new_game_options_and_save_makes_its_folder(tmp_path):
    save = tmp_path / "a" / "b" / "g.json"
    code, out, err = run(["play", "--human", "0", "--mode", "classic", "--save", save], ["1", "q"])
    assert code == 0 and save.exists(), err
    code, _, err = run(["play", "--resume", save, "--human", "1", "--seed", "9"], [])
    assert code == 2 and "leave out --seed, --human" in err and len(err.strip().splitlines()) == 1


def test_the_lead_is_told_as_chosen_by_the_human():
    code, out, _ = run(["play", "--format", "khasino-4p", "--human", "1", "--seed", "3", "--mode", "classic"],
                       ["lead 1", "q"])
    assert "you: Seat 1 leads for team AB" in out and "(heuristic): Seat 1 leads" not in out


def test_named_cards_must_be_all_a_move_uses():
    """`7C x AS` where only AS+6D can be taken with AS: the move is listed, not played (N2)."""
    state = None
    for seed in range(300):
        s = engine.new_game("kasino-2p", seed)
        moves = engine.legal_moves(s)
        for m in moves:
            if m.kind == "capture" and len(m.captured) == 2:
                entry = notation.Entry(card=m.card, kind="capture", cards=(m.captured[0],))
                exact, cands = notation.matches(entry, moves)
                if not any(tuple(x.captured) == (m.captured[0],) for x in moves if x.card == m.card):
                    state = (exact, cands, m)
                    break
        if state:
            break
    exact, cands, m = state
    assert exact == [] and m in cands
