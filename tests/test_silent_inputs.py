"""Inputs that were accepted silently or answered with a misleading line (issue 51): two bot files with one
name, a parameter given twice or without its value, --force with --resume, a bot file that moves the working
folder, an integer too long for any option, parameters on a bot file's name, an empty run folder. Each is one
line naming the problem and exit 2 (or, for the moved folder, results where the command line said), before
any game is played."""
import os
from pathlib import Path

import pytest

from khasino_sim import bots
from tests.test_bad_inputs import refused
from tests.test_fuzz_inputs import _tree, run_cli

SCORE = "def score(view, move):\n    return 0\n"


@pytest.fixture(autouse=True)
def bot_names():
    """The --bot-file names a test registers are forgotten after it (they are the process's)."""
    saved = dict(bots.ALIASES)
    yield
    bots.ALIASES.clear()
    bots.ALIASES.update(saved)


@pytest.fixture
def cwd():
    """Restores the working folder after a test that runs a bot file moving it."""
    here = os.getcwd()
    yield
    os.chdir(here)


def _bot(folder, name="my_bot", text=SCORE):
    path = Path(folder) / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---- 1. two bot files with one name -------------------------------------------------------------------------

def test_two_bot_files_with_one_stem_are_refused_naming_both(tmp_path):
    a, b = _bot(tmp_path / "a"), _bot(tmp_path / "b")
    err = refused(["play", "--bot-file", a, "--bot-file", b, "--bots", "my_bot,greedy"],
                  f"--bot-file {a} and --bot-file {b}", "both name a bot 'my_bot'", "rename one")
    assert len(err) < 300
    refused(["simulate", "--bot-file", a, "--bot-file", b, "--bots", "my_bot,greedy", "--games", "5",
             "--out", tmp_path / "r"], "both name a bot 'my_bot'")
    assert not (tmp_path / "r").exists()


def test_the_same_bot_file_twice_is_one_bot(tmp_path):
    a = _bot(tmp_path / "a")
    assert bots.add_bot_files([a, tmp_path / "a" / "." / "my_bot.py"]) == ["my_bot"]
    assert bots.ALIASES["my_bot"] == f"file:{a}"


# ---- 2. a key given twice -----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, fragment", [
    ("heuristic:cards=1,cards=2,greedy", "cards is given twice"),
    ("heuristic:cards=1,spades=2,cards=1", "cards is given twice"),
    ("rollout:policy=greedy,n=10,policy=random", "policy is given twice"),
])
def test_a_bot_parameter_given_twice_is_refused(spec, fragment):
    refused(["play", "--bots", spec], fragment, "give each parameter once")
    with pytest.raises(bots.BotSpecError, match=fragment):
        bots.split_list(spec)


def test_an_sprt_key_given_twice_is_refused(tmp_path):
    refused(["match", "greedy", "random", "--sprt", "elo0=0,elo1=10,elo1=20", "--max-pairs", "1"],
            "--sprt elo1 is given twice (10 and 20); give it once")


def test_a_rule_option_set_twice_is_refused(tmp_path):
    refused(["simulate", "--set", "follow_ups=true", "--set", "follow_ups=false", "--games", "5",
             "--out", tmp_path / "r"], "--set follow_ups is given twice (true and false); give it once")
    refused(["balance", "--vary", "trail_restricted=true,false", "--set", "follow_ups=true",
             "--set", "follow_ups=false", "--games", "5", "--out", tmp_path / "b"], "follow_ups is given twice")
    assert _tree(tmp_path) == {}


# ---- 3. --force with --resume -------------------------------------------------------------------------------

@pytest.mark.parametrize("command, what", [
    (["simulate", "--games", "5"], "run"),
    (["tournament", "--bots", "greedy,random", "--games", "5"], "tournament"),
    (["balance", "--vary", "follow_ups=true,false", "--games", "5"], "study"),
])
@pytest.mark.parametrize("order", [["--force", "--resume"], ["--resume", "--force"]])
def test_force_with_resume_is_refused(command, what, order, tmp_path):
    refused(command + ["--out", tmp_path / "r"] + order, f"--resume finishes the {what} in --out, --force "
            "replaces it: give one")
    assert _tree(tmp_path) == {}


# ---- 4. a bot file that moves the working folder ------------------------------------------------------------

def test_importing_a_bot_file_keeps_the_working_folder(tmp_path, cwd):
    from khasino_sim.userbots import load
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    bot = _bot(tmp_path, "chdir_bot", f"import os\nos.chdir({str(elsewhere)!r})\n" + SCORE)
    os.chdir(tmp_path)
    load(bot)
    assert os.getcwd() == str(tmp_path)


def test_a_bot_file_moving_the_working_folder_on_import_moves_no_results(tmp_path, cwd):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    bot = _bot(tmp_path, "chdir_on_import_bot", f"import os\nos.chdir({str(elsewhere)!r})\n" + SCORE)
    os.chdir(here)
    code, out, err, exc = run_cli(["simulate", "--bot-file", str(bot), "--bots", "chdir_on_import_bot,greedy",
                                   "--games", "10", "--workers", "1", "--out", "rel", "--quiet"])
    assert code == 0, (err, exc)
    assert os.getcwd() == str(here)
    assert (here / "rel" / "run.json").is_file()
    assert not list(elsewhere.iterdir())


def test_output_paths_are_fixed_when_the_command_line_is_read(tmp_path, cwd):
    """A bot whose score function moves the working folder while it plays: --out was made absolute before."""
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    bot = _bot(tmp_path, "chdir_in_play_bot", f"import os\n\n\ndef score(view, move):\n"
                                              f"    os.chdir({str(elsewhere)!r})\n    return 0\n")
    os.chdir(here)
    code, out, err, exc = run_cli(["simulate", "--bot-file", str(bot), "--bots", "chdir_in_play_bot,greedy",
                                   "--games", "10", "--workers", "1", "--out", "rel", "--quiet"])
    os.chdir(here)
    assert code == 0, (err, exc)
    assert (here / "rel" / "run.json").is_file()
    assert not list(elsewhere.iterdir())


def test_every_output_path_option_is_made_absolute():
    """--out, --report, --record-out, --save, --trace and play's --record all read through absolute_path."""
    from khasino_sim.cli import main
    from khasino_sim.cli.shared_options import absolute_path
    outputs = {"simulate": {"out"}, "tournament": {"out", "report_dir"}, "balance": {"out", "report_dir"},
               "match": {"record_out"}, "play": {"save_file", "trace_file", "record_file"}}
    for name, wanted in outputs.items():
        params = {p.name: p for p in main.commands[name].params}
        for option in wanted:
            assert params[option].callback is absolute_path, (name, option)


# ---- 5. a key without its value -----------------------------------------------------------------------------

@pytest.mark.parametrize("spec, fragment", [
    ("heuristic:cards", "cards needs a value: heuristic:cards=N"),
    ("heuristic:cards=", "cards needs a value: heuristic:cards=N"),
    ("heuristic:cards=1,spades,greedy", "spades needs a value: heuristic:spades=N"),
    ("rollout:policy", "policy needs a value: rollout:policy=random|greedy|heuristic"),
])
def test_a_bot_parameter_without_a_value_says_so(spec, fragment):
    err = refused(["play", "--bots", spec], fragment)
    assert "has no parameter" not in err and "unknown bot" not in err


def test_an_sprt_or_set_key_without_a_value_says_so(tmp_path):
    refused(["match", "greedy", "random", "--sprt", "elo0=,elo1=10"], "--sprt elo0 needs a value: elo0=NUMBER")
    refused(["match", "greedy", "random", "--sprt", "elo0,elo1=10"], "--sprt elo0 needs a value")
    refused(["simulate", "--set", "follow_ups=", "--games", "5", "--out", tmp_path / "r"],
            "--set follow_ups needs a value: --set follow_ups=VALUE")


# ---- 6. an integer longer than any option takes -------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["simulate", "--set", "max_builds_owned=1234567890123456789"],
    ["simulate", "--set", "max_builds_owned=-1234567890123456789"],
    ["balance", "--vary", "max_builds_owned=1," + "9" * 30],
    ["match", "greedy", "random", "--set", "max_builds_owned=" + "9" * 5000],
], ids=["simulate", "negative", "balance", "match-5000-digits"])
def test_a_huge_option_value_names_the_range(args, tmp_path):
    err = refused(args + (["--out", tmp_path / "r"] if args[0] != "match" else []),
                  "option max_builds_owned must be in 0..14")
    assert "takes an integer" not in err and len(err) < 300


@pytest.mark.parametrize("value", ["1234567890123456789", "9" * 5000], ids=["19-digits", "5000-digits"])
def test_a_huge_bot_parameter_names_the_range(value):
    err = refused(["play", "--bots", f"heuristic:cards={value}"], "cards must be in -1000000..1000000")
    assert len(err) < 300


# ---- 7. parameters on a bot file's name ---------------------------------------------------------------------

def test_parameters_on_a_bot_files_name(tmp_path):
    a = _bot(tmp_path)
    refused(["play", "--bot-file", a, "--bots", "my_bot:n=3,greedy"],
            f"my_bot is a bot file ({a}); a bot file takes no parameters")
    refused(["match", "--bot-file", a, "my_bot:n=3", "greedy"], "a bot file takes no parameters")


# ---- 8. an empty run folder ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["", " "])
def test_report_of_an_empty_name(name):
    refused(["report", name], "report needs a run folder, not an empty name")
