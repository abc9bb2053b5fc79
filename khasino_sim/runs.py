"""Orchestration of a simulation run: plan shards, play them (local threads or a Dask cluster), write each
shard atomically, resume an interrupted run.

A game is a function of (rules, bots of its seats, root seed, global index): its seed comes from the index
(`kernels.core.seeding`, numpy SeedSequence spawn keys) and its bots from the rotation, so the dataset is the
same whatever the number of workers, the shard size or the backend.
"""
import contextlib
import os
import queue
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field, asdict
from pathlib import Path

import numpy as np

from khasino_sim.kernels.core import layout as L
from . import bot_calls, files, run_folder, storage, userbots
from .bots import display_names
from .version import ENGINE_VERSION, __version__
from .formats import FORMATS, get_format, with_options, options_of

CHUNK = 2000          # games per compiled call: the granularity of progress and of Ctrl-C
STOP_WAIT_S = 0.5     # on Ctrl-C, how long a local run waits for its threads to stop (`_run_local`)


class SimulationError(Exception):
    """A problem with the run's input or output folder; the message is one line."""


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's games (workers and backend do not)."""
    format: str = "khasino"
    games: int = 100_000
    bots: tuple = ("greedy", "random")
    seed: int = 0
    rotate: bool = True
    options: dict = field(default_factory=dict)
    shard_size: int = 50_000
    series: int = 1             # P10: matches per series (1: independent games)
    rounds: int = 0             # Cassino (C7): 0 plays matches to 21, 1 single rounds
    tags: dict = field(default_factory=dict)    # constant columns stamped into every row (a balance variant)

    def __post_init__(self):
        # Team formats (K15) also take one bot per team: (b0, b1) is (b0, b0, b1, b1) in khasino-4p. The spec
        # always holds one bot per seat, so both forms are the same run (and resume each other).
        object.__setattr__(self, "bots", expand_bots(self.format, self.bots))

    def fmt(self):
        return with_options(get_format(self.format), self.options)

    def shards(self):
        """(shard, first game, games); shards hold whole series (their size is rounded up to a multiple)."""
        size = -(-self.shard_size // self.series) * self.series
        return [(k, start, min(size, self.games - start))
                for k, start in enumerate(range(0, self.games, size))]

    def chunk(self):
        """Games per compiled call: about CHUNK, whole series."""
        return max(1, CHUNK // self.series) * self.series

    def bot_names(self):
        return sorted(set(self.bots))

    def bot_ids(self):
        """The compiled bot code of each of bot_names() (a bot with parameters: its row of the bot table)."""
        from .bots import is_policy
        from .engine import bot_id
        return np.array([-1 if is_policy(n) else bot_id(n) for n in self.bot_names()], dtype=np.int64)

    def policies(self):
        """True where a seat is a trained policy's (policy:PATH): the run plays in the batched environment."""
        from .bots import is_policy
        return any(is_policy(b) for b in self.bots)

    def bot_codes(self, start, count):
        """(count, seats) indices into bot_names(): seat s of game i plays bots[(s + i) % seats] when
        rotating, so every bot plays every seat equally often; in a run of series, seat s of every match of
        series j plays bots[(s + j) % seats] (the same players keep their seats for a series, P10). In a team
        format the rotation steps by a whole team: seat s of game i plays bots[(s + size * i) % seats], size
        the seats of a team (2 in khasino-4p), so teammates stay together and the teams swap sides every game
        (team AB always leads, P11)."""
        names = self.bot_names()
        codes = np.array([names.index(b) for b in self.bots], dtype=np.int8)
        seats = len(self.bots)
        if not self.rotate:
            return np.tile(codes, (count, 1))
        turn = np.arange(start, start + count, dtype=np.int64) // self.series
        idx = (turn[:, None] * team_size(self.format) + np.arange(seats)[None, :]) % seats
        return codes[idx]

    def identity(self):
        """What a resumed run must match (`series` only when it is used, as runs made before it had none)."""
        d = asdict(self)
        d["bots"] = list(self.bots)
        if self.series == 1:
            del d["series"]
        if self.rounds == 0:
            del d["rounds"]
        if not self.tags:
            del d["tags"]
        return d

    def matches(self):
        """True where each game is a match of rounds (Cassino C7, Kasino N7): one statistics row per round, a
        rounds table."""
        return get_format(self.format).matches


def team_size(format_name):
    """The seat rotation's step: the smallest shift of the seats that maps every team onto a team (K15:
    2 in khasino-4p, teams AB and CD; C8: 1 in cassino-4p, partners sitting opposite), 1 without teams."""
    fmt = FORMATS.get(format_name)
    if fmt is None or not fmt.teams:
        return 1
    teams = {frozenset(t) for t in fmt.teams}
    return next(k for k in range(1, fmt.seats + 1)
                if all(frozenset((s + k) % fmt.seats for s in t) in teams for t in teams))


def expand_bots(format_name, bots):
    """`bots` as one bot per seat: in a team format one bot per team, (b0, b1), is (b0, b0, b1, b1); any other
    count is returned as given (validate judges it)."""
    bots = tuple(bots)
    fmt = FORMATS.get(format_name) if isinstance(format_name, str) else None
    if fmt is not None and fmt.teams and len(bots) == fmt.n_teams != fmt.seats:
        return tuple(bots[fmt.team_of(s)] for s in range(fmt.seats))
    return bots


def validate(spec):
    """Raise SimulationError on an unusable spec (unknown format, bot or option, bad counts)."""
    try:
        fmt = get_format(spec.format)
    except KeyError as e:
        raise SimulationError(e.args[0])
    try:
        with_options(fmt, spec.options)
    except ValueError as e:
        raise SimulationError(str(e))
    if not isinstance(spec.games, int) or spec.games <= 0:
        raise SimulationError(f"the number of games must be positive, not {spec.games}")
    if spec.games >= 2**32:
        raise SimulationError("at most 4,294,967,295 games per run")
    if spec.shard_size <= 0:
        raise SimulationError(f"the shard size must be positive, not {spec.shard_size}")
    if not 0 <= spec.seed < 2**64:
        raise SimulationError("the seed must be in 0 .. 2**64-1")
    from . import bots as bot_specs
    for b in spec.bots:
        try:
            bot_specs.parse(b)
        except bot_specs.BotSpecError as e:
            raise SimulationError(str(e))
    try:
        bot_specs.check_playable(spec.bots, fmt.family, fmt.name)
    except bot_specs.BotSpecError as e:
        raise SimulationError(str(e))
    if len(spec.bots) != fmt.seats:
        if fmt.teams:
            raise SimulationError(f"{fmt.name} has {fmt.seats} seats in {fmt.n_teams} teams: give {fmt.seats} "
                                  f"bots (one per seat) or {fmt.n_teams} (one per team), not {len(spec.bots)}")
        raise SimulationError(f"{fmt.name} has {fmt.seats} seats: give {fmt.seats} bots, not {len(spec.bots)}")
    if isinstance(spec.series, bool) or not isinstance(spec.series, int) or spec.series < 1:
        raise SimulationError(f"a series holds at least 1 match, not {spec.series}")
    if spec.series > 1 and not fmt.series:
        with_series = ", ".join(sorted(n for n, f in FORMATS.items() if f.series))
        raise SimulationError(f"{fmt.name} has no series of matches (P10); --series works with {with_series}")
    if spec.series > 65535:
        raise SimulationError("at most 65,535 matches per series")
    if spec.series > 1 and spec.games % spec.series:
        # whole series only: a last series cut short would weigh its leaders unevenly (P10) and silently
        lo, hi = spec.games // spec.series * spec.series, -(-spec.games // spec.series) * spec.series
        nearest = f"--games {lo} or {hi}" if lo else f"--games {hi}"
        raise SimulationError(f"--games {spec.games:,} is not a multiple of --series {spec.series}: every series "
                              f"holds {spec.series} matches (use {nearest})")
    if isinstance(spec.rounds, bool) or spec.rounds not in (0, 1):
        raise SimulationError(f"--rounds takes 1 (single rounds; whole matches without it), not {spec.rounds}")
    if spec.rounds and not fmt.matches:
        with_matches = ", ".join(sorted(n for n, f in FORMATS.items() if f.matches))
        raise SimulationError(f"{fmt.name} plays single games; --rounds works with {with_matches}")


def _meta(spec, shard, start, count, command):
    fmt = spec.fmt()
    return {"engine_version": ENGINE_VERSION, "package_version": __version__, "format": spec.format,
            "rules_hash": fmt.rules_hash(), "rules": options_of(fmt), "root_seed": spec.seed,
            "bots": list(spec.bots), "rotate": spec.rotate, "series": spec.series,
            **({"rounds": spec.rounds, "match_target": fmt.match_target} if spec.matches() else {}),
            **({"match_rounds": fmt.match_rounds} if fmt.match_rounds else {}),
            **({"tags": dict(spec.tags)} if spec.tags else {}), "shard": shard,
            "first_game": start, "games": count, "command": command}


_LOCAL = threading.local()


def run_shard(spec_dict, shard, start, count, out, command="", progress=None, stop=None, backend="cpu"):
    """Play games start .. start+count-1 and write shard `shard` of the run in `out`. Returns (the count, the
    shard, its files' listing for the manifest), or (0, shard, None) if `stop` was set before the shard
    finished (nothing is written then). Used by local threads and by Dask workers alike.

    The shard is streamed: each chunk of CHUNK games is played, turned into Arrow rows and handed to a
    storage.ShardWriter, so a worker holds one chunk of statistics rows at a time (plus at most one Parquet
    row group of compact Arrow columns), whatever the shard size. The files appear only when the whole
    shard is written (seats first, games last); a stopped or failed shard leaves nothing behind.

    With `backend` "cuda" the whole shard is one launch on the GPU (khasino_sim/gpu.py), its rows the same."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.dispatch import play_matches
    from khasino_sim.kernels.core.workspace import new_workspace
    from khasino_sim.kernels.core.seeding import seeds_for
    spec = RunSpec(**{**spec_dict, "bots": tuple(spec_dict["bots"])})
    fmt = spec.fmt()
    rules = fmt.rules_array()
    names = display_names(spec.bot_names())     # the names the tables show: a bot file by its stem
    bot_ids = spec.bot_ids()            # bots with parameters: the table's rows
    if getattr(_LOCAL, "ws", None) is None or _LOCAL.ws.shape[0] < workspace_size():
        _LOCAL.ws = new_workspace()         # sized for the bots registered so far (a search bot's area)
    meta = _meta(spec, shard, start, count, command)
    matches = spec.matches()
    with storage.ShardWriter(out, shard, rounds=matches) as writer:
        chunk = count if backend == "cuda" else spec.chunk()
        for lo in range(0, count, chunk):
            if stop is not None and stop.is_set():
                return 0, shard, None
            n = min(count - lo, chunk)
            codes = spec.bot_codes(start + lo, n)
            seeds = seeds_for(spec.seed, start + lo, n)
            if spec.policies():         # a trained policy: the batched environment (khasino_sim/agents/games.py)
                from .agents.games import play_rows
                with userbots.watching(fmt.family):
                    rows = play_rows(fmt, seeds, np.array(spec.bot_names(), dtype=object)[codes],
                                     single=spec.rounds == 1, ws=_LOCAL.ws, series=spec.series)
            elif backend == "cuda":
                from . import gpu
                if matches:
                    rows = gpu.play_matches(rules, seeds, bot_ids[codes], single=spec.rounds == 1,
                                            runner=gpu.runner())
                else:
                    rows = gpu.play_batch(rules, seeds, bot_ids[codes], series=spec.series, runner=gpu.runner())
            elif matches:
                rows = play_matches(rules, seeds, bot_ids[codes], ws=_LOCAL.ws, single=spec.rounds == 1)
            else:
                rows = play_batch(rules, seeds, bot_ids[codes], ws=_LOCAL.ws, series=spec.series)
            userbots.check_faults(fmt.family)     # a bot file's score function failed: stop (one line)
            if rows[:, L.G_OVERFLOW].any():
                i = np.flatnonzero(rows[:, L.G_OVERFLOW])[0]
                bad = int(start + lo + (rows[i, L.G_MATCH] if matches else i))
                raise RuntimeError(f"game {bad}: a scratch bound was exceeded (never expected: please report it); "
                                   "results would not be exact")
            tables = storage.match_tables if matches else storage.shard_tables
            writer.write(*storage.add_tags(tables(rows, start + lo, codes, names, fmt.name, fmt.rules_hash(),
                                                  meta), spec.tags))
            del rows
            if progress is not None:
                progress(n)
        entries = writer.commit()
    return count, shard, entries


BACKENDS = ("cpu", "cuda")


def check_backend(backend, bots=(), dask=None):
    """SimulationError (one line) unless `backend` can play games of `bots` here: "cpu" always; "cuda" needs a usable
    NVIDIA GPU on this machine, not a Dask cluster, and the built-in bots (a --bot-file bot is CPU code)."""
    if backend not in BACKENDS:
        raise SimulationError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if backend == "cpu":
        return
    if dask:
        raise SimulationError("--backend cuda plays on this machine's GPU; it does not combine with --dask")
    from . import bots as bot_specs
    if any(bot_specs.parse(b)[0] == "file" for b in bots):
        raise SimulationError("--backend cuda plays the built-in bots; a --bot-file bot runs with --backend cpu")
    if any(bot_specs.parse(b)[0] == "policy" for b in bots):
        raise SimulationError("--backend cuda plays the built-in bots; a trained policy runs with --backend cpu")
    from . import gpu
    try:
        gpu.require()
    except gpu.BackendError as e:
        raise SimulationError(str(e)) from None


def workspace_size():
    """The length of a game workspace for the bots this process has registered (kernels/core/tree.py)."""
    from khasino_sim.kernels.core.heuristic import search_iterations
    from khasino_sim.kernels.core.tree import search_words
    return L.WS_SIZE + (search_words(search_iterations()) if search_iterations() else 0)


def warm_up(spec):
    """Compile the core, or load it from Numba's cache, and load the storage path before timing a run: one
    game in this process, its rows turned into the two tables and written to memory as Parquet. Returns the
    seconds it took (minutes on a first run, under a second after).

    The storage half matters for timing: pyarrow's first conversion of a numpy array imports pandas (about
    half a second, holding the import lock) and its first Parquet write loads the codec. Inside a run that
    cost fell on the workers' first chunk, where the threads queued behind one another for it."""
    from khasino_sim.kernels.khasino.game import play_batch
    from khasino_sim.kernels.dispatch import play_matches
    import pyarrow as pa
    import pyarrow.parquet as pq
    t = time.time()
    fmt = spec.fmt()
    codes = spec.bot_codes(0, 1)
    ids = spec.bot_ids()[codes]                             # the run's own bots: the
    if spec.policies():                                     # kernels compiled are those the run calls
        from .agents.games import play_rows
        rows = play_rows(fmt, np.zeros(1, dtype=np.uint64), np.array(spec.bot_names(), dtype=object)[codes],
                         single=spec.rounds == 1)
        tables = storage.match_tables if spec.matches() else storage.shard_tables
    elif spec.matches():
        rows = play_matches(fmt.rules_array(), np.zeros(1, dtype=np.uint64), ids, single=spec.rounds == 1)
        tables = storage.match_tables
    else:
        rows = play_batch(fmt.rules_array(), np.zeros(1, dtype=np.uint64), ids)
        tables = storage.shard_tables
    for table in tables(rows, 0, codes, display_names(spec.bot_names()), fmt.name, fmt.rules_hash(),
                        _meta(spec, 0, 0, 1, "")):
        pq.write_table(table, pa.BufferOutputStream(), compression="zstd")
    return time.time() - t


def compiled_parts(spec):
    """What a run of `spec` compiles (or loads from Numba's disk cache): its family's game and move rules, and
    the search if one of its bots searches (kernels/core/specialise.py), for the progress line."""
    from khasino_sim.kernels.core.heuristic import searches
    fmt = spec.fmt()
    search = searches(spec.bot_ids())
    names = ", ".join(display_names(spec.bot_names()))
    return f"{fmt.family} {'game with the search' if search else 'game'} for {names}"


def _prepare_out(out, spec, resume, force, log=None):
    """Check and set up the output folder (its lock held by the caller): returns (the shards already played,
    each checked against the manifest's listing, the manifest or None). A folder holding a tournament, a study
    or anything else, another run, a run whose bot file changed, or an unfinished run without --resume is
    refused; a listed shard whose files are missing or damaged is played again (said through `log`)."""
    out = Path(out)
    try:
        files.make_folder(out, "an --out folder")
    except files.LinkError as e:
        raise SimulationError(f"--out {e.filename} {e.strerror}") from None
    except OSError as e:
        raise SimulationError(f"cannot write to output folder {out}: {e.strerror or e}") from None
    try:
        manifest = run_folder.claim(out, "run", force, SimulationError)
    except run_folder.RunFolderError as e:
        raise SimulationError(f"{e}" if "--force" in str(e) else f"{e}; use --force to start the run again") \
            from None
    if manifest is not None:
        if manifest.get("spec") != spec.identity():
            raise SimulationError(f"{out} holds another run's output (use --force to replace it, or another --out)")
        changed = run_folder.changed_bot_files(manifest)
        if changed:
            path, how = changed[0]
            raise SimulationError(f"bot file {path} {how} since the run in {out} was played (its results would mix "
                                  "two versions of the bot): use --force to play it again, or another --out")
        if manifest.get("complete") and not resume:
            return _complete(out, spec, manifest), manifest
        if not resume:
            raise SimulationError(f"{out} holds an unfinished run: add --resume to finish it, or --force")
        return _resumable(out, spec, manifest, log)
    _table_folders(out, spec)
    return set(), None


def _table_folders(out, spec):
    for sub in (storage.GAMES, storage.SEATS) + ((storage.ROUNDS,) if spec.matches() else ()):
        files.make_folder(Path(out) / sub)


def _resumable(out, spec, manifest, log):
    """The shards of an unfinished run that stand: listed (in run.json or its journal), and their files as
    listed. The others are dropped from the manifest (and played again); leftovers of the interrupted writers
    are removed."""
    _table_folders(out, spec)           # a folder removed by hand: its shards are played again
    run_folder.clean_partial(out)
    manifest = run_folder.fold(out, manifest)
    plan = run_folder.expected(spec)
    keep = {}
    for k, entry in sorted(run_folder.listed(manifest).items()):
        problem = (run_folder.shard_problem(out, k, entry, plan[k], spec) if k in plan
                   else (out, "not a shard of the run"))
        if problem is None:
            keep[k] = entry
        elif log is not None:
            log(f"shard {k}: {problem[0]} is {problem[1]}; playing it again")
    for p in run_folder.strays(out, {"files": keep}):
        if storage.shard_of(p) not in plan and log is not None:
            log(f"warning: {p} is not a file of this run (not in {run_folder.MANIFEST}): ignored")
    manifest["files"] = {str(k): e for k, e in keep.items()}
    manifest["complete"] = len(keep) == len(plan)
    run_folder.write_manifest(out, manifest)
    return set(keep), manifest


def _complete(out, spec, manifest):
    """A finished run's shards, each checked (re-running a finished run prints its summary): SimulationError
    naming the first missing or damaged file, and --resume."""
    plan = run_folder.expected(spec)
    have = run_folder.listed(manifest)
    for k in sorted(plan):
        problem = run_folder.shard_problem(out, k, have.get(k, {}), plan[k], spec)
        if problem:
            raise SimulationError(f"{problem[0]} is {problem[1]}; run the same command with --resume to play its "
                                  "shard again")
    return set(plan)


def _stderr(line):
    print(line, file=sys.stderr)


def _progress_bar(total, initial, quiet):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=total, initial=initial, unit=" games", unit_scale=True, dynamic_ncols=True,
                smoothing=0.1)


def _need_distributed():
    """The `distributed` package, or a one-line SimulationError naming what to install."""
    try:
        import distributed
    except ImportError:
        raise SimulationError("--dask needs the distributed package: pip install 'khasino-sim[dask]'") from None
    return distributed


DASK_CONNECT_S = 5      # the wall-clock limit on reaching a --dask scheduler


def _connect_dask(address, limit=DASK_CONNECT_S):
    """A distributed.Client of the scheduler at `address`, or a one-line SimulationError within `limit` seconds.

    Client(timeout=) does not bound the handshake (a listener that accepts the connection and never answers
    holds it forever), so the client is made in a daemon thread that is given up after `limit`; a client that
    comes later is closed there."""
    Client = _need_distributed().Client
    box = {}
    lock = threading.Lock()

    def connect():
        try:
            client = Client(address, timeout=f"{limit}s")
        except BaseException as e:      # refused, timed out, or something that is not a Dask scheduler answered
            with lock:
                box["error"] = e
            return
        with lock:
            if "given up" not in box:
                box["client"] = client
                return
        client.close()

    thread = threading.Thread(target=connect, daemon=True, name="khasino-dask-connect")
    thread.start()
    thread.join(limit)
    with lock:
        box["given up"] = True
    if "client" in box:
        return box["client"]
    if "error" in box:
        raise SimulationError(f"cannot reach the Dask scheduler at {address}: "
                              f"{box['error'].__class__.__name__}") from None
    raise SimulationError(f"cannot reach the Dask scheduler at {address} within {limit:g} s (no answer)")


def simulate(format="khasino", games=100_000, bots=("greedy", "random"), seed=0, out=None, workers=None,
             shard_size=50_000, rotate=True, options=None, dask=None, resume=False, force=False, quiet=True,
             command="", log=None, series=1, rounds=0, tags=None, backend="cpu", progress=None):
    """Play a run of games and write its Parquet dataset (see khasino_sim.storage).

    `bots`: one bot per seat, or in a team format (khasino-4p) one per team, ("greedy", "random") standing for
    ("greedy", "greedy", "random", "random"). Returns the output folder; with out=None the run goes to a
    temporary folder and a pandas DataFrame of its seats table (one row per seat per game, game columns joined)
    is returned instead. Raises SimulationError on bad input. `log` (a callable) receives progress lines when
    quiet. `backend` "cuda" plays each shard on this machine's NVIDIA GPU (khasino_sim/gpu.py): the same rows.
    `progress` (a callable, thread-safe) receives the games of each chunk as it is played (local runs).
    """
    spec = RunSpec(format=format, games=int(games), bots=tuple(bots), seed=int(seed), rotate=rotate,
                   options=dict(options or {}), shard_size=int(shard_size), series=series, rounds=rounds,
                   tags=dict(tags or {}))
    validate(spec)
    # before the output folder is touched: a run that cannot start leaves nothing
    check_backend(backend, spec.bots, dask)
    if dask:
        _need_distributed()
    if out is None:
        with tempfile.TemporaryDirectory(prefix="khasino-") as tmp:
            simulate(format, games, bots, seed, tmp, workers, shard_size, rotate, options, dask, False, True,
                     True, command, series=series, rounds=rounds, tags=tags, backend=backend)
            return load(tmp)
    client = _connect_dask(dask) if dask else None
    try:
        _play_run(spec, Path(out), client, workers, resume, force, quiet, command, log, backend, progress)
    finally:
        if client is not None:
            client.close()
    return Path(out)


@contextlib.contextmanager
def holding(out, command, error):
    """Hold `out`'s lock (files.FolderLock) for the block; `error` (an exception class) with one line when
    another live process holds it or `out` is a symbolic link."""
    lock = files.FolderLock(out, command)
    try:
        lock.__enter__()
    except files.FolderBusy as e:
        raise error(f"{out}: {e.strerror}") from None
    except files.LinkError as e:
        raise error(f"{e.filename} {e.strerror}") from None
    except OSError as e:
        raise error(f"cannot write to output folder {out}: {e.strerror or e}") from None
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def _play_run(spec, out, client, workers, resume, force, quiet, command, log, backend, progress=None):
    """Set up `out` under its lock, play the shards not yet done (on the Dask `client`, or local threads),
    listing each in the run's journal as it finishes, and fold the journal into run.json, marked complete, once
    every shard is listed."""
    with holding(out, command, SimulationError):
        done, manifest = _prepare_out(out, spec, resume, force, log or _stderr)
        todo = [s for s in spec.shards() if s[0] not in done]
        started = time.time()
        if manifest is None:
            manifest = run_folder.write_manifest(out, {
                "spec": spec.identity(), "complete": False, "engine_version": ENGINE_VERSION,
                "rules_hash": spec.fmt().rules_hash(), "command": command, "shards": len(spec.shards()),
                "bot_files": run_folder.bot_files(spec.bots), "files": {}})

        played = 0
        userbots.clear_faults()
        if todo:
            spec_dict = spec.identity()
            with run_folder.Journal(out) as journal:

                def finished(k, entries):   # one line of the journal: a long run pays O(1) a shard
                    journal.add(k, entries)
                    manifest["files"][str(k)] = entries

                if client is not None:
                    played = _run_dask(client, spec_dict, todo, out, command, spec.games, quiet, finished)
                else:
                    played = _run_local(spec_dict, todo, out, command, spec.games, quiet,
                                        1 if backend == "cuda" else workers or os.cpu_count() or 1, backend,
                                        progress, finished)
        if len(manifest["files"]) == len(spec.shards()) and not manifest.get("complete"):
            manifest.update(complete=True, seconds=round(time.time() - started, 3), games_played_last=played)
            run_folder.fold(out, manifest)


def _run_local(spec_dict, todo, out, command, total, quiet, workers, backend="cpu", progress=None, finished=None):
    bar = _progress_bar(total, total - sum(c for _, _, c in todo), quiet)
    lock = threading.Lock()
    stop = threading.Event()

    def tick(n):
        if progress is not None:
            progress(n)
        if bar is not None:
            with lock:
                bar.update(n)

    played = 0
    pool = ThreadPoolExecutor(max_workers=workers)
    futures = []
    try:
        ended = queue.SimpleQueue()     # futures as they finish: O(1) each, however many shards a run has
        futures = [pool.submit(run_shard, spec_dict, k, start, count, str(out), command, tick, stop, backend)
                   for k, start, count in todo]
        for f in futures:
            f.add_done_callback(ended.put)
        for _ in futures:
            while True:
                try:
                    f = ended.get(timeout=0.5)      # a timeout, so the main thread sees Ctrl-C
                    break
                except queue.Empty:
                    continue
            n, k, entries = f.result()
            played += n
            if entries is not None and finished is not None:
                finished(k, entries)
    except BaseException as e:
        stop.set()
        bot_calls.stop_calls()      # a thread in a user bot's score returns at once; its chunk is not written
        if isinstance(e, Exception):            # a failed shard: the others stop at their next chunk
            pool.shutdown(wait=True, cancel_futures=True)
        else:
            # Ctrl-C: the threads get STOP_WAIT_S to drop their unfinished files, not more: one may be in a bot
            # that never returns (the CLI then ends the process, cli/interrupts.py)
            pool.shutdown(wait=False, cancel_futures=True)
            wait([f for f in futures if not f.cancelled()], timeout=STOP_WAIT_S)
        raise
    finally:
        if bar is not None:
            bar.close()
    pool.shutdown()
    return played


def _run_dask(client, spec_dict, todo, out, command, total, quiet, finished=None):
    from distributed import as_completed
    bar = _progress_bar(total, total - sum(c for _, _, c in todo), quiet)
    played = 0
    try:
        futures = [client.submit(run_shard, spec_dict, k, start, count, str(Path(out).resolve()), command,
                                 pure=False, key=f"khasino-shard-{k}-{start}")
                   for k, start, count in todo]
        for f in as_completed(futures):
            n, k, entries = f.result()
            played += n
            if entries is not None and finished is not None:
                finished(k, entries)
            if bar is not None:
                bar.update(n)
    finally:
        if bar is not None:
            bar.close()
    return played


def load(out, table="seats"):
    """A finished run's table as a DataFrame, read from the files its manifest lists, each checked first
    (run_folder.verified_tables; RunFolderError otherwise); `seats` rows get the game columns joined (winner,
    turns, seed…)."""
    import pandas as pd

    def read(name, columns=None):
        return pd.concat([pd.read_parquet(p, columns=columns) for p in run_folder.verified_tables(out, name)],
                         ignore_index=True)
    if table != "seats":        # games, or rounds (Cassino and Kasino matches: one row per round)
        return read(table)
    games = read(storage.GAMES, ["game", "seed", "format", "rules", "winner", "turns", "last_capturer", "leader",
                                 "series", "match"])
    return read(storage.SEATS).merge(games, on="game", how="left").sort_values(["game", "seat"], ignore_index=True)
