"""Outputs checked when the options are read (issue 51, after review): `bench --json`, `play --record` (bots
only) and `match --record-out` refuse a symbolic link (files.check_not_link: khasino-sim never writes through
one), a folder, and a folder that cannot be written, in one line before any benchmark or game runs. Before,
`bench --quick --json LINK` ran the whole benchmark and `play --record LINK` played the game, and only then
failed. Each test replaces the work with a failure, so a refusal that comes late fails the test at once."""
import os

import pytest

from tests.test_bad_inputs import read_only, refused  # noqa: F401  (read_only: a fixture)
from tests.test_fuzz_inputs import run_cli


@pytest.fixture
def no_work(monkeypatch):
    """The benchmark, the bots' game and the match's pairs, each replaced by a failure."""
    from khasino_sim import bench, compile_bench, duplicate, records

    def ran(*args, **kwargs):
        pytest.fail("the work ran before its output was checked")
    for module, name in ((bench, "run_bench"), (bench, "plan"), (compile_bench, "run"), (records, "play_record"),
                         (duplicate, "pair_counts")):
        monkeypatch.setattr(module, name, ran)


@pytest.fixture
def victim(tmp_path):
    """A file that a link points to, and the link (and a dangling link)."""
    target = tmp_path / "victim.txt"
    target.write_text("precious\n")
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    return target


def _commands(path):
    return {
        "bench": ["bench", "--quick", "--json", path],
        "bench --compile": ["bench", "--compile", "--json", path],
        "play": ["play", "--seed", "3", "--record", path],
        "match": ["match", "greedy", "random", "--max-pairs", "2", "--batch", "2", "--record", "1",
                  "--record-out", path],
    }


COMMANDS = sorted(_commands("x"))
OPTIONS = {"bench": "--json", "bench --compile": "--json", "play": "--record", "match": "--record-out"}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("link", ["link", "dangling"])
def test_a_link_as_the_output_is_refused_before_any_work(tmp_path, victim, no_work, command, link):
    before = sorted(os.listdir(tmp_path))
    path = tmp_path / link
    refused(_commands(path)[command], f"{OPTIONS[command]} {path} is a symbolic link",
            "khasino-sim never writes through one")
    assert victim.read_text() == "precious\n" and sorted(os.listdir(tmp_path)) == before


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_as_the_output_is_refused_before_any_work(tmp_path, no_work, command):
    refused(_commands(tmp_path)[command], f"{OPTIONS[command]} {tmp_path}", "is a folder")
    (tmp_path / "file").write_text("x")
    refused(_commands(tmp_path / "file" / "out.json")[command], f"{OPTIONS[command]} {tmp_path / 'file'} is a "
            "file, not a folder")


@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_in_a_folder_that_cannot_be_written_is_refused_before_any_work(read_only, no_work, command):
    refused(_commands(read_only / "sub" / "out.json")[command], f"{OPTIONS[command]} ", f"{read_only} is not "
            "writable")


def test_play_record_makes_its_folder_and_follows_a_linked_folder(tmp_path):
    """A missing folder is made (it failed after the game, naming a temporary file); a folder that is a link is
    the user's choice and followed: only the file itself must not be a link (khasino_sim/files.py)."""
    path = tmp_path / "new" / "dir" / "game.jsonl"
    code, out, err, exc = run_cli(["play", "--seed", "3", "--record", str(path)])
    assert code == 0 and path.is_file(), err
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real)
    code, out, err, exc = run_cli(["play", "--seed", "3", "--record", str(tmp_path / "via" / "game.jsonl")])
    assert code == 0 and (real / "game.jsonl").read_text() == path.read_text(), err
