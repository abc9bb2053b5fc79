"""Saved games are untrusted input (issue 51): `khasino play --resume GAME.json` rebuilds the game from the save's
format, options, seed and move keys through the engine and refuses, in one line and exit 2, a save that is not
what `khasino play --save` writes; a save names no file that is run or written.

The reported cases were played on saves written by the previous version (tests/fixtures/saves/v1-*.json, format
khasino-play/1, which kept every state): a card swapped between hands, a bot file named by its path, mode
"god", a trace path that was overwritten at the game's end, and six tampers that ended in "internal error".
Such a save is now refused as a whole, whatever it holds; each case is also played on the current format
(khasino-play/2), with and without its digest computed again. The rest is the current format: what it holds,
its digest, bot files by content, the bots' moves checked by replaying them, and symbolic links refused."""
import copy
import hashlib
import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from khasino_sim import bots, engine
from khasino_sim.cli import main

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "saves"
QUIT = ["q"]
TO_THE_END = ["1"] * 3000


def run(args, lines=()):
    r = CliRunner().invoke(main, [str(a) for a in args], input="".join(f"{x}\n" for x in lines))
    return r.exit_code, r.stdout, r.stderr


def refused(code, err, *words):
    """Exit 2 and one line on stderr, "Error: ...", holding `words`."""
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("Error: "), (code, err)
    assert "internal error" not in err and "Traceback" not in err, err
    for w in words:
        assert w in err, (w, err)
    return lines[0]


def old_save(name="khasino"):
    """A save written by the previous version (khasino-play/1, every state kept); "khasino": khasino seed 0, the
    human at seat 0 against greedy, Classic, three moves each, quit."""
    return json.loads((FIXTURES / f"v1-{name}.json").read_text())


OLD_SAVES = sorted(p.stem[3:] for p in FIXTURES.glob("v1-*.json"))
OLD = ("was written by an earlier khasino-sim (khasino-play/1), whose saves are not checked and cannot be "
       "resumed; start a new game with `khasino play")


def reseal(data):
    """The save with its digest computed again over the edited content (README: SHA-256 of the canonical JSON
    of every other field), as someone who edits a save on purpose would; an old save has none."""
    if isinstance(data, dict) and "digest" in data:
        body = {k: v for k, v in data.items() if k != "digest"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        data["digest"] = hashlib.sha256(text.encode()).hexdigest()
    return data


def write(path, data):
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def resume(tmp_path, data, lines=QUIT, *extra):
    save = write(tmp_path / "game.json", data)
    return run(["play", "--resume", save, "--trace", tmp_path / "trace.jsonl", *extra], lines)


@pytest.fixture
def new_save(tmp_path):
    """A save of the current format: khasino seed 0, the human at seat 0 against greedy, Classic, three
    moves of his, quit."""
    save = tmp_path / "new.json"
    code, _, err = run(["play", "--human", "0", "--bots", "greedy", "--mode", "classic", "--save", save,
                        "--trace", tmp_path / "t.jsonl"], ["1", "1", "1", "q"])
    assert code == 0, err
    return json.loads(save.read_text())


@pytest.fixture(autouse=True)
def no_bot_files(monkeypatch):
    """Each test starts with no --bot-file registered (the aliases are the process's)."""
    monkeypatch.setattr(bots, "ALIASES", {})


def refused_both_ways(tmp_path, data, *words, extra=()):
    """`data`, a save of the current format edited, refused in one line both as edited by hand (its digest left:
    it no longer matches) and as edited on purpose (its digest computed again: the replay finds `words`)."""
    code, out, err = resume(tmp_path, copy.deepcopy(data), QUIT, *extra)
    refused(code, err, "its digest does not match its content")
    assert "khasino ·" not in out
    code, out, err = resume(tmp_path, reseal(copy.deepcopy(data)), QUIT, *extra)
    refused(code, err, *words)
    assert "khasino ·" not in out                  # no screen drawn


# ---- the reported cases: on saves of the previous version, and on the current format -----------------------------

@pytest.mark.parametrize("where", ["state", "current"])
def test_a_card_swapped_into_the_humans_hand_is_refused(tmp_path, where):
    """Before: the swapped card was dealt to the human and played. Now: a save of that version is refused."""
    data = old_save()
    state = data["current"]["state"] if where == "current" else data["state"]       # the deal, or the position
    hands = state["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    code, out, err = resume(tmp_path, data)
    refused(code, err, OLD)
    assert "khasino ·" not in out


def test_a_move_changed_to_play_another_card_is_refused(tmp_path, new_save):
    """The current format holds no hand to swap: a card is played only where the seed dealt it. The human's
    first move changed from Trail AD to Trail 2S (his third move's key): greedy's build of 4 with 3D+AD, next,
    is then no legal move."""
    data = copy.deepcopy(new_save)
    data["moves"][0][0] = data["moves"][0][2]
    refused_both_ways(tmp_path, data, "round 1, move 2: 0x448081c9c1e2ff55 is no legal move of its position")


def test_a_bot_file_named_in_a_save_is_never_loaded(tmp_path, new_save):
    """Before: `file:/path/bot.py` in a save was imported and run. Now: a save of that version is refused; the
    current format names a bot file by its content, and only the user gives the file (--bot-file)."""
    marker = tmp_path / "ran"
    bot = tmp_path / "evil.py"
    bot.write_text(f"open({str(marker)!r}, 'w').write('ran')\n\ndef score(view, move):\n    return 0\n")
    data = old_save()
    data["names"][1] = f"file:{bot}"
    code, _, err = resume(tmp_path, data)
    refused(code, err, OLD)
    by_content = {"bot_file": str(bot), "sha256": hashlib.sha256(bot.read_bytes()).hexdigest()}
    for entry, words in [(f"file:{bot}", "names a bot file; a saved game holds a bot file's SHA-256"),
                         (by_content, "seat 1's bot is the bot file")]:
        refused_both_ways(tmp_path, dict(new_save, names=["human", entry]), words, "--bot-file")
    assert not marker.exists()


def test_mode_god_is_refused(tmp_path, new_save):
    code, _, err = resume(tmp_path, dict(old_save(), mode="god"))
    refused(code, err, OLD)
    refused_both_ways(tmp_path, dict(new_save, mode="god"), "'mode' must be practice or classic, not \"god\"")


def test_the_trace_path_in_a_save_is_never_written(tmp_path, new_save, monkeypatch):
    """Before: the finished game was written over the file the save's `trace` named. Now: a save of that version
    is refused, the current format holds no trace, and a resumed game's trace is the command line's (--trace,
    else its default under the working folder)."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    monkeypatch.chdir(tmp_path)
    save = tmp_path / "game.json"
    code, _, err = run(["play", "--resume", write(save, dict(old_save(), trace=str(victim)))], TO_THE_END)
    refused(code, err, OLD)
    for data in (dict(new_save, trace=str(victim)), reseal(dict(new_save, trace=str(victim)))):
        code, _, err = run(["play", "--resume", write(save, data)], TO_THE_END)
        refused(code, err, "it holds \"trace\", which a saved game does not hold")
    code, out, err = run(["play", "--resume", write(save, new_save)], TO_THE_END)
    assert code == 0, err
    assert victim.read_text() == "precious\n"
    assert (tmp_path / "results" / "play" / "khasino-s0.jsonl").exists()
    assert "trace      results/play/khasino-s0.jsonl" in out


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(names=["human"]), OLD),
    (lambda d: d.update(humans=[5]), OLD),
    (lambda d: d.update(state={"x": 1}), OLD),
    (lambda d: d.update(seen_by=[1]), OLD),
    (lambda d: d.update(current=None), OLD),
    (lambda d: '{"khasino_play": "khasino-play/1", "seed": ' + "9" * 5000 + "}", "is not a saved game (not JSON"),
], ids=["names-short", "humans-out-of-range", "state-junk", "seen_by-list", "current-null", "huge-number"])
def test_tampers_that_were_internal_errors_are_one_line(tmp_path, edit, words):
    """On the current format the same tampers are test_every_tampered_part_of_a_save_is_one_line's."""
    data = old_save()
    data = edit(data) or data
    code, _, err = resume(tmp_path, data)
    refused(code, err, words)


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(seed="1"), "round 1, move 2: 0x448081c9c1e2ff55 is no legal move of its position"),
    (lambda d: d.update(format="cassino"), "round 1, move 1: 0x8fd91037c9d4c61d is no legal move of its position"),
    (lambda d: d.update(format="khasino-4p"), "'names' must name the player of each of the 4 seats"),
    (lambda d: d.update(names=["human", "random"]), "round 1, move 4: seat 1's bot (random) plays"),
    (lambda d: d.update(names=["greedy", "human"]), "seat 0 is a human's: its name must be \"human\""),
    (lambda d: d.update(humans=[1]), "seat 0's bot is \"human\", yet its seat is not among 'humans'"),
    (lambda d: d.update(humans=[0, 1]), "seat 1 is a human's: its name must be \"human\""),
    (lambda d: d.update(single=True), "'single' must be false"),
    (lambda d: d.update(options={"opponent_piles": "false"}), "'options' must map rule options"),
    (lambda d: d["moves"][0].__setitem__(2, "0x0000000000000001"), "round 1, move 3: 0x0000000000000001 is no legal"),
    (lambda d: d["moves"][0].reverse(), "round 1, move 1: 0xff4eed27db2dfdde is no legal move"),
], ids=["seed", "format", "format-seats", "bot", "bot-at-the-humans-seat", "humans", "humans-more", "single",
        "options", "illegal-key", "keys-reordered"])
def test_the_reported_attacks_on_the_current_format_are_refused(tmp_path, new_save, edit, words):
    """Setup and moves edited as the reported cases edited the previous format: refused with the digest left as it
    was and with it computed again (then by the part's check or the replay)."""
    data = copy.deepcopy(new_save)
    edit(data)
    refused_both_ways(tmp_path, data, words)


def test_changed_rules_are_refused_or_are_the_game_they_deal(tmp_path):
    """A save's rule options are part of the game from its deal. Cassino seed 1, four moves each: with face values
    (C1) greedy's eighth move would be KD capturing 7C+6D, not the saved Trail KD: refused. With sweeps (C1),
    which change only the scoring, every saved move stands: the resumed game is the one played straight through
    with --set sweeps=true."""
    save = tmp_path / "c.json"
    cassino = ["--format", "cassino", "--seed", "1", "--human", "0", "--bots", "greedy", "--mode", "classic"]
    code, _, err = run(["play", *cassino, "--save", save, "--trace", tmp_path / "t.jsonl"], ["1"] * 4 + QUIT)
    assert code == 0, err
    data = json.loads(save.read_text())
    refused_both_ways(tmp_path, dict(data, options={"face_values": True}),
                      "round 1, move 8: seat 1's bot (greedy) plays Play KD to capture 7C+6D, not the saved move "
                      "(Trail KD)")
    code, _, err = run(["play", *cassino, "--set", "sweeps=true", "--trace", tmp_path / "a.jsonl"], TO_THE_END)
    assert code == 0, err
    code, _, err = resume(tmp_path, reseal(dict(data, options={"sweeps": True})), TO_THE_END)
    assert code == 0, err
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.jsonl", "trace.jsonl"))
    assert a["rounds"] == b["rounds"] and a["score"] == b["score"] and a["options"] == {"sweeps": True}


def test_a_trained_policy_is_refused_before_the_game(tmp_path):
    """Before: `--bots policy:P.npz` drew the board, then ended in an internal error at the bot's first move."""
    policy = tmp_path / "p.npz"
    policy.write_bytes(b"")
    code, out, err = run(["play", "--human", "0", "--bots", f"policy:{policy}"], ["1", "1"])
    refused(code, err, "is a trained policy", "not in `khasino play`")
    assert "khasino ·" not in out


@pytest.mark.parametrize("what", ["save", "trace", "resume"])
def test_a_symbolic_link_where_the_game_writes_is_refused(tmp_path, new_save, what):
    """Before: the save and the trace were written through a link, over the file it points to."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    if what == "resume":
        write(tmp_path / "real.json", new_save)
        link.unlink()
        link.symlink_to(tmp_path / "real.json")
        code, _, err = run(["play", "--resume", link, "--trace", tmp_path / "t2.jsonl"], TO_THE_END)
    else:
        code, _, err = run(["play", "--human", "0", "--bots", "greedy", "--mode", "classic", f"--{what}", link,
                            *(["--trace", tmp_path / "t2.jsonl"] if what == "save" else [])], TO_THE_END)
    refused(code, err, f"{link} is a symbolic link")
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "t2.jsonl").exists()


# ---- saves of the previous version are refused ------------------------------------------------------------------

@pytest.mark.parametrize("name", OLD_SAVES)
def test_a_save_of_the_previous_version_is_refused_in_one_line(tmp_path, name):
    """Every save of the previous version, untouched (a Stay pending, saved at a Pass-and-Play prompt or a
    handoff, a Cassino match in its second round) or marked finished: refused, saying to start a new game; the
    file is left as it was, no trace written, nothing drawn."""
    assert len(OLD_SAVES) == 5
    for data in (old_save(name), dict(old_save(name), finished=True)):
        save = write(tmp_path / "game.json", data)
        before = save.read_bytes()
        code, out, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl"], TO_THE_END)
        line = refused(code, err, OLD)
        assert save.read_bytes() == before and not (tmp_path / "t.jsonl").exists() and "khasino ·" not in out
        assert line == (f"Error: --resume {save}: it {OLD} --human SEAT ...`")


# ---- the current format -------------------------------------------------------------------------------------------

def test_a_save_holds_what_cannot_be_derived_and_no_path(tmp_path, new_save):
    assert set(new_save) == {"khasino_play", "format", "options", "seed", "single", "mode", "humans", "names",
                             "hint_bot", "moves", "digest"}
    assert new_save["khasino_play"] == "khasino-play/2" and new_save["names"] == ["human", "greedy"]
    assert len(new_save["moves"]) == 1 and len(new_save["moves"][0]) == 6
    assert str(tmp_path) not in json.dumps(new_save)


def test_an_edit_without_its_digest_is_refused_and_with_it_checked(tmp_path, new_save):
    data = dict(new_save, mode="practice")
    code, _, err = resume(tmp_path, data)
    refused(code, err, "its digest does not match its content")
    code, out, err = resume(tmp_path, reseal(data))                    # a valid save (the mode is the user's)
    assert code == 0 and "resuming khasino" in out, err


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["moves"].append([]), "round 1 is not over after its 6 move(s), yet the save goes on"),
    (lambda d: d["moves"][0].__setitem__(0, 5), "round 1, move 1: 5 is not a move key"),
    (lambda d: d.update(moves=[]), "'moves' must be a list of rounds"),
    (lambda d: d.update(names=["human", "file:/tmp/x.py"]), "names a bot file"),
    (lambda d: d.update(names=["human", "human"]), "seat 1's bot is \"human\""),
    (lambda d: d.update(names=["human", "greedy:x=1"]), "greedy has no parameter"),
    (lambda d: d.update(names=["human", " greedy"]), "is not written as `khasino play` writes it"),
    (lambda d: d.update(humans=[]), "'humans' must list"),
    (lambda d: d.update(humans=[True]), "'humans' must list"),
    (lambda d: d.update(humans=[0, 0]), "'humans' must list"),
    (lambda d: d.update(format=["khasino"]), "unknown format"),
    (lambda d: d.update(options={"max_builds_owned": 10**30}), "max_builds_owned must be in"),
    (lambda d: d.update(options={"opponent_piles": 0}), "are not written as `khasino play` writes them"),
    (lambda d: d.update(seed="01"), "'seed' must be a seed"),
    (lambda d: d.update(seed=str(2**64)), "'seed' must be a seed"),
    (lambda d: d.update(seed=0), "'seed' must be a seed"),
    (lambda d: d.update(hint_bot="policy:/tmp/p.npz"), "the hint bot is a trained policy"),
    (lambda d: d.update(hint_bot={"bot_file": "x.py"}), "the hint bot must be a bot's name or a bot file's"),
    (lambda d: d.update(trace="/tmp/elsewhere.jsonl"), "it holds \"trace\", which a saved game does not hold"),
    (lambda d: d.__delitem__("moves"), "it has no 'moves'"),
    (lambda d: d.update(khasino_play="khasino-play/3"), "is not a game saved by `khasino play --save`"),
    (lambda d: [d], "is not a game saved by `khasino play --save`"),
    (lambda d: "[" * 100000, "nested too deeply"),
    (lambda d: "\xff{}", "is not a saved game (not JSON"),
])
def test_every_tampered_part_of_a_save_is_one_line(tmp_path, new_save, edit, words):
    data = copy.deepcopy(new_save)
    data = edit(data) or data
    code, _, err = resume(tmp_path, reseal(data))
    refused(code, err, words)


def test_a_bot_move_that_is_not_its_bots_choice_is_refused(tmp_path, new_save, monkeypatch):
    """The last bot move of the save replaced by another legal move: refused, the bot's choice named. A search
    bot's moves are re-run within REPLAY_SEARCH_BUDGET iterations; past it, only their legality is checked."""
    from khasino_sim.terminal import saves
    keys = [int(k, 16) for k in new_save["moves"][0]]
    state = engine.new_game("khasino", 0)
    for k in keys[:-1]:
        state = next(m for m in engine.legal_moves(state) if m.key == k).result
    other = next(m for m in engine.legal_moves(state) if m.key != keys[-1])
    data = copy.deepcopy(new_save)
    data["moves"][0][-1] = f"0x{other.key:016x}"
    refused_both_ways(tmp_path, data, "round 1, move 6: seat 1's bot (greedy) plays",    # the bot that played
                      f"not the saved move ({other.text})")
    data["names"][1] = "ismcts:n=50"
    code, _, err = resume(tmp_path, reseal(data))
    refused(code, err, "seat 1's bot (ismcts:n=50) plays")
    monkeypatch.setattr(saves, "REPLAY_SEARCH_BUDGET", 49)             # n=50 is past the budget
    code, out, err = resume(tmp_path, reseal(data))
    assert code == 0 and "resuming" in out, err


def test_a_bot_file_is_saved_by_its_content_and_given_again(tmp_path):
    bot = tmp_path / "my_bot.py"
    bot.write_text("def score(view, move):\n    return int(move[0])\n")
    save = tmp_path / "g.json"
    code, _, err = run(["play", "--human", "0", "--bot-file", bot, "--bots", "my_bot", "--mode", "classic",
                        "--save", save, "--trace", tmp_path / "t.jsonl"], ["1", "1", "q"])
    assert code == 0, err
    data = json.loads(save.read_text())
    digest = hashlib.sha256(bot.read_bytes()).hexdigest()
    assert data["names"][1] == {"bot_file": "my_bot.py", "sha256": digest} and str(tmp_path) not in save.read_text()
    bots.ALIASES.clear()
    code, _, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl"], QUIT)
    refused(code, err, "seat 1's bot is the bot file my_bot.py (SHA-256 " + digest[:16], "--bot-file PATH")
    moved = tmp_path / "elsewhere" / "renamed.py"                       # the same content anywhere: it plays
    moved.parent.mkdir()
    moved.write_bytes(bot.read_bytes())
    code, out, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl", "--bot-file", moved], QUIT)
    assert code == 0 and "resuming" in out and f"file:{moved}" in out, err
    bots.ALIASES.clear()
    changed = tmp_path / "changed.py"
    changed.write_text(bot.read_text() + "# changed\n")
    code, _, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl", "--bot-file", changed], QUIT)
    refused(code, err, "the --bot-file given (changed.py) holds other content")


def test_the_resume_line_gives_the_bot_files_again(tmp_path, monkeypatch):
    """A game against bot files, left: the line that says how to resume it names each file again (--bot-file:
    the save holds its content's SHA-256, not its path), as typed from here (inside the working folder, relative;
    outside it, absolute; quoted for the shell); the command it gives resumes the game."""
    here, other = tmp_path / "here", tmp_path / "other bots"
    here.mkdir()
    other.mkdir()
    monkeypatch.chdir(here)
    (here / "my_bot.py").write_text("def score(view, move):\n    return int(move[0])\n")
    (other / "helper.py").write_text("def score(view, move):\n    return int(move[1])\n")
    code, out, err = run(["play", "--human", "0", "--bot-file", "my_bot.py", "--bots", "my_bot", "--bot-file",
                          other / "helper.py", "--hint-bot", "helper", "--save", "g.json", "--trace", "t.jsonl"],
                         ["1"])
    assert code == 0, err
    said = [line for line in out.splitlines() if "the game is saved in" in line]
    command = f"khasino play --resume g.json --bot-file my_bot.py --bot-file '{other / 'helper.py'}'"
    assert len(said) == 1 and said[0].endswith(f"input ended: the game is saved in {here / 'g.json'} ({command})"), out
    bots.ALIASES.clear()
    code, out, err = run([*shlex.split(command)[1:], "--trace", "t2.jsonl"], QUIT)
    assert code == 0 and "resuming" in out, err


def test_a_bot_file_swapped_in_the_save_is_refused(tmp_path):
    """The SHA-256 of the save's bot file replaced by another file's (one that would run code): refused with the
    digest left and with it computed again, the file the user gives (--bot-file) holding other content; the
    other file is never loaded."""
    marker = tmp_path / "ran"
    bot, evil = tmp_path / "my_bot.py", tmp_path / "evil.py"
    bot.write_text("def score(view, move):\n    return int(move[0])\n")
    evil.write_text(f"open({str(marker)!r}, 'w').write('ran')\n\ndef score(view, move):\n    return 0\n")
    save = tmp_path / "g.json"
    code, _, err = run(["play", "--human", "0", "--bot-file", bot, "--bots", "my_bot", "--mode", "classic",
                        "--save", save, "--trace", tmp_path / "t.jsonl"], ["1", "1", "q"])
    assert code == 0, err
    data = json.loads(save.read_text())
    data["names"][1] = {"bot_file": "my_bot.py", "sha256": hashlib.sha256(evil.read_bytes()).hexdigest()}
    refused_both_ways(tmp_path, data, "the --bot-file given (my_bot.py) holds other content",
                      extra=["--bot-file", bot])
    assert not marker.exists()


def test_a_pending_stay_and_a_pending_lead_are_rebuilt(tmp_path):
    """Khasino-4p saved with a Stay offered to a human (seed 2, Pass-and-Play) and with team AB's lead asked
    of the human at seat 1: both are rebuilt by the replay and asked again."""
    save = tmp_path / "s.json"
    run(["play", "--format", "khasino-4p", "--seed", "2", "--human", "0", "--human", "2", "--bots", "random",
         "--mode", "classic", "--save", save, "--trace", tmp_path / "t.jsonl"], ["1"] * 9)
    code, out, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl"], ["", "q"])
    assert code == 0 and "stay (load it, the build becomes yours) or decline (P15)?" in out, err
    run(["play", "--format", "khasino-4p", "--seed", "1", "--human", "1", "--mode", "classic", "--save", save,
         "--trace", tmp_path / "t.jsonl"], [])
    assert json.loads(save.read_text())["moves"] == [[]]
    code, out, err = run(["play", "--resume", save, "--trace", tmp_path / "t.jsonl"], ["lead 1", "q"])
    assert code == 0 and "you: Seat 1 leads for team AB" in out, err


def test_a_finished_game_is_refused(tmp_path):
    save = tmp_path / "g.json"
    code, _, err = run(["play", "--human", "0", "--bots", "greedy", "--mode", "classic", "--save", save,
                        "--trace", tmp_path / "t.jsonl"], TO_THE_END)
    assert code == 0, err
    code, _, err = run(["play", "--resume", save, "--trace", tmp_path / "t2.jsonl"], QUIT)
    refused(code, err, "that game is finished")
    assert not (tmp_path / "t2.jsonl").exists()
