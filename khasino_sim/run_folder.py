"""A results folder proves what it holds: its manifest lists every finished shard's files with their row counts,
sizes and SHA-256, the hash of every bot file the run played, and a digest of its own content.

A run folder (`simulate`) holds `run.json` and the Parquet tables `games/`, `seats/` (and `rounds/` for
matches), one `part-NNNNNN.parquet` per shard (khasino_sim/storage.py writes them). A shard counts as played
only once its files are listed in `run.json`, so:

- `report`, a re-run and `--resume` read exactly the listed files, each checked against its listing first: a
  missing or damaged file is named (and `--resume` plays its shard again), any other file in those folders is
  a stray, named and ignored;
- a manifest edited by hand (its caption, its spec) no longer matches its digest and is refused, as is one
  whose shards disagree with the run its spec describes;
- a bot file changed since the run started is refused on `--resume` and on a re-run: its results would mix two
  bots under one name.

Tournaments (`tournament.json`) and balance studies (`balance.json`) keep their own manifests, written and
read here with the same digest; their runs are run folders.
"""
import hashlib
import json
import os
import re
import shutil
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import files
from .text import printable
from .storage import GAMES, ROUNDS, SEATS, part_name, shard_of

MANIFEST = "run.json"
JOURNAL = "shards.jsonl"        # the shards finished since run.json was last written (Journal)
RECORDS = "records.jsonl"       # a run's game records (khasino_sim/records.py)
MANIFESTS = (MANIFEST, "tournament.json", "balance.json")
TABLES = (GAMES, SEATS, ROUNDS)


class RunFolderError(ValueError):
    """A results folder whose files are missing, damaged, edited or not ours; the message is one line."""


# ---- manifests ------------------------------------------------------------------------------------------------

def _digest(manifest):
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_manifest(out, name=MANIFEST):
    """The manifest `name` of a folder (a run's, a study's, a tournament's), None if the folder has none;
    RunFolderError if it is not one of ours as written (not JSON, not an object, its digest not its content)."""
    p = Path(out) / name
    if os.path.islink(p):
        raise RunFolderError(f"{p} is a symbolic link, not a manifest khasino-sim wrote")
    if not p.exists():
        return None
    try:
        manifest = json.loads(p.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise RunFolderError(f"{p} is damaged: not JSON ({str(e).splitlines()[0][:80]})") from None
    if not isinstance(manifest, dict):
        raise RunFolderError(f"{p} is damaged: not a manifest (a JSON object)")
    if "digest" not in manifest:
        raise RunFolderError(f"{p} has no digest: written by hand or by an older khasino-sim (run the command "
                             "again with --force to replace it)")
    if manifest["digest"] != _digest(manifest):
        raise RunFolderError(f"{p} is damaged: its content does not match its digest (edited by hand?); run the "
                             "command that made it with --force to start again")
    return manifest


def write_manifest(out, manifest, name=MANIFEST):
    """Write a manifest whole (never through a link), with the digest of its content."""
    manifest = {k: v for k, v in manifest.items() if k != "digest"}
    manifest["digest"] = _digest(manifest)
    files.write_text(Path(out) / name, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


# ---- files and bots -------------------------------------------------------------------------------------------

def file_entry(path, rows):
    """A shard file's listing: its rows, size and SHA-256."""
    return {"rows": int(rows), "bytes": os.path.getsize(path), "sha256": files.sha256_file(path)}


def bot_files(bots):
    """{spec: SHA-256 of its file} for the bots of a run that are files (a user bot, a trained policy)."""
    from .bots import is_file_or_policy
    out = {}
    for b in bots:
        if is_file_or_policy(b):
            path = b.partition(":")[2]
            try:
                out[b] = files.sha256_file(path)
            except OSError as e:
                raise RunFolderError(f"bot file {path} cannot be read ({e.strerror or e})") from None
    return out


def changed_bot_files(manifest):
    """The bot files of a run (its manifest) that are not what the run played: [(path, "changed" or "is gone")]."""
    changed = []
    for spec, digest in (manifest.get("bot_files") or {}).items():
        path = spec.partition(":")[2]
        try:
            if files.sha256_file(path) != digest:
                changed.append((path, "changed"))
        except OSError:
            changed.append((path, "is gone (moved or removed)"))
    return changed


# ---- the shards a run holds -----------------------------------------------------------------------------------

def expected(spec):
    """{shard: (first game, games, {table: rows})} of a run of `spec` (runs.RunSpec): the rows of its games and
    seats files (a rounds file's rows vary)."""
    seats = len(spec.bots)
    return {k: (start, count, {GAMES: count, SEATS: count * seats, **({ROUNDS: None} if spec.matches() else {})})
            for k, start, count in spec.shards()}


def listed(manifest):
    """{shard: {table: entry}} of the shards a manifest lists."""
    return {int(k): v for k, v in (manifest.get("files") or {}).items()}


_HASHED = {}            # (path, size, mtime) -> SHA-256: a file checked once per process, not once per read


def _sha256(path):
    st = os.stat(path)
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _HASHED:
        _HASHED[key] = files.sha256_file(path)
    return _HASHED[key]


def _stamp_problem(path, k, start, count, spec):
    """What a shard file's own stamp (its schema metadata, storage.shard_tables) says against the listing and
    the run's spec, or None: a file listed as shard k must have been written as shard k of this run."""
    try:
        stamp = json.loads(pq.read_schema(path).metadata[b"khasino"])
    except (pa.ArrowException, OSError, KeyError, TypeError, ValueError):
        return "not a shard file khasino-sim wrote (no stamp)"
    want = {"shard": k, "first_game": start, "games": count, "root_seed": spec.seed, "bots": list(spec.bots),
            "format": spec.format, "rotate": spec.rotate, "series": spec.series}
    for key, value in want.items():
        if stamp.get(key) != value:
            return f"written as another shard or run's (its {key} is {printable(stamp.get(key), 60)}, not {value})"
    if (stamp.get("tags") or {}) != dict(spec.tags):
        return "written for another study's variant"
    return None


def shard_problem(out, k, entry, plan, spec, tables=None):
    """None if shard k's files (of `tables`, all by default) are as listed and as the run's plan (first game,
    games, {table: rows}) says; else (path, what is wrong) for the first that is not: missing, a link, another
    size or checksum than written, or a stamp of another shard or run."""
    out = Path(out)
    start, count, rows_of = plan
    first = out / GAMES / part_name(k)
    try:
        if set(entry) != set(rows_of):
            return first, "listed with other tables than the run has"
        for table in tables or rows_of:
            rows, path, e = rows_of[table], out / table / part_name(k), entry[table]
            size, digest, listed_rows = int(e["bytes"]), str(e["sha256"]), int(e["rows"])
            if rows is not None and listed_rows != rows:
                return path, f"listed with {listed_rows:,} rows where the run has {rows:,}"
            if os.path.islink(path):
                return path, "a symbolic link, not the file the run wrote"
            if not path.is_file():
                return path, "missing"
            if os.path.getsize(path) != size:
                return path, f"{os.path.getsize(path):,} bytes where {size:,} were written"
            if _sha256(path) != digest:
                return path, "damaged: its checksum differs from the one written"
            stamp = _stamp_problem(path, k, start, count, spec)
            if stamp:
                return path, stamp
    except (TypeError, KeyError, ValueError, AttributeError):
        return first, f"listed wrongly in {MANIFEST}"
    return None


def strays(out, manifest):
    """The files in the run's table folders that its manifest does not list (copies, leftovers, other runs')."""
    out = Path(out)
    keep = {(t, part_name(k)) for k, entry in listed(manifest).items() for t in entry}
    found = []
    for table in TABLES:
        folder = out / table
        if folder.is_dir() and not folder.is_symlink():
            found += [p for p in sorted(folder.iterdir()) if (table, p.name) not in keep
                      and not (p.name.startswith(".") and ".tmp-" in p.name)]
    return found


def check_spec(out, manifest):
    """The run's spec (runs.RunSpec) from its manifest; RunFolderError if it is not a run's. Its shape is
    checked, nothing of it is run: a bot file named in it is not loaded."""
    from .formats import FORMATS
    from .runs import RunSpec
    s = (manifest or {}).get("spec")
    counts = ("games", "seed", "shard_size", "series", "rounds")
    try:
        if not (isinstance(s, dict) and s.get("format") in FORMATS and isinstance(s.get("bots"), list)
                and s["bots"] and all(isinstance(b, str) for b in s["bots"])
                and all(isinstance(s.get(k, 1), int) and not isinstance(s.get(k, 1), bool) for k in counts)
                and s["games"] > 0 and s.get("shard_size", 1) > 0 and s.get("series", 1) > 0):
            raise ValueError
        spec = RunSpec(**{**s, "bots": tuple(s["bots"])})
        if len(spec.bots) != FORMATS[spec.format].seats:
            raise ValueError
        spec.fmt()
    except (TypeError, KeyError, AttributeError, ValueError):
        raise RunFolderError(f"{Path(out) / MANIFEST} is damaged: its spec is not a run's") from None
    return spec


# ---- the journal of a run being played ------------------------------------------------------------------------

class Journal:
    """The journal of a run being played, open for appending while the run plays: `add(k, entries)` lists a
    finished shard in one line with its own digest, O(1) a shard whatever the run's size (rewriting run.json
    instead made a run of many shards quadratic); `fold` moves it into run.json."""

    def __init__(self, out):
        self.path = Path(out) / JOURNAL
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        return self

    def add(self, k, entries):
        body = {"shard": int(k), "files": entries}
        line = json.dumps({**body, "digest": _digest(body)}, sort_keys=True, separators=(",", ":")) + "\n"
        os.write(self.fd, line.encode())

    def __exit__(self, *exc):
        os.close(self.fd)
        return False


def journal(out):
    """{shard: {table: entry}} the journal of `out` lists. A last line cut short (a process killed while
    writing it) is left out: its shard is played again; any other line that is not what Journal.add wrote
    is RunFolderError."""
    path = Path(out) / JOURNAL
    if os.path.islink(path):
        raise RunFolderError(f"{path} is a symbolic link, not a journal khasino-sim wrote")
    if not path.exists():
        return {}
    lines = path.read_bytes().split(b"\n")
    found = {}
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            ok = isinstance(line, dict) and line.get("digest") == _digest(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            ok = False
        if not ok:
            if n == len(lines):         # no newline after it: cut short by a kill
                continue
            raise RunFolderError(f"{path} is damaged at line {n}; run the command with --force to start again")
        found[int(line["shard"])] = line["files"]
    return found


def fold(out, manifest):
    """The run's manifest with its journal's shards listed in it, written; the journal is then removed."""
    manifest["files"] = {**manifest.get("files", {}), **{str(k): e for k, e in journal(out).items()}}
    manifest = write_manifest(out, manifest)
    (Path(out) / JOURNAL).unlink(missing_ok=True)
    return manifest


class StrayFile(UserWarning):
    """A file in a run's table folders that its manifest does not list: named, and left out of every read."""


def verified_tables(out, table):
    """The files of `table` ("games", "seats", "rounds") of the finished run in `out`, in shard order, each
    checked against the manifest: RunFolderError (one line: the file, what is wrong, what to do) if the run is
    unfinished, a listed file is missing, damaged or another shard's, or the manifest was edited. Strays (files
    the manifest does not list) are left out, each named by a StrayFile warning (the command line shows it as
    one line). A file is hashed once per process however often it is read."""
    out = Path(out)
    manifest = read_manifest(out)
    if manifest is None:
        raise RunFolderError(f"{out / MANIFEST} is missing: {out} holds no khasino run")
    spec = check_spec(out, manifest)
    if table == ROUNDS and not spec.matches():
        raise RunFolderError(f"{out} is a run of single games: it has no rounds table")
    plan = expected(spec)
    have = listed(manifest)
    unknown = sorted(set(have) - set(plan))
    if unknown:
        raise RunFolderError(f"{out / MANIFEST} is damaged: it lists shard {unknown[0]}, which the run has not")
    if set(have) != set(plan) or not manifest.get("complete"):
        played = len(set(have) | set(journal(out)))
        raise RunFolderError(f"{out} holds an unfinished run ({played} of {len(plan)} shards played); run "
                             "the command that made it with --resume to finish it")
    for k in sorted(plan):
        problem = shard_problem(out, k, have[k], plan[k], spec, (table,))
        if problem:
            raise RunFolderError(f"{problem[0]} is {problem[1]}; run the command that made it with --resume to play "
                                 "its shard again")
    for p in (p for p in strays(out, manifest) if p.parent.name == table):
        warnings.warn(f"{p} is not a file of this run (not in {MANIFEST}): ignored", StrayFile, stacklevel=2)
    return [out / table / part_name(k) for k in sorted(plan)]


# ---- setting a folder up --------------------------------------------------------------------------------------

def clean_partial(out):
    """Drop leftovers of an interrupted writer: temporary files of ours in the folder and its tables."""
    out = Path(out)
    for folder in [out] + [out / t for t in TABLES]:
        if folder.is_dir() and not folder.is_symlink():
            for p in folder.glob(".*.tmp-*"):
                if p.is_file() or p.is_symlink():
                    p.unlink()


def holds_nothing(out):
    """True if `out` holds nothing but what an interrupted start of ours can leave (empty table folders, the
    lock, temporary files): a folder any command may start in."""
    out = Path(out)
    if not out.exists():
        return True
    for p in out.iterdir():
        if p.name == files.LOCK or (p.name.startswith(".") and ".tmp-" in p.name):
            continue
        if p.name in TABLES + ("variants",) and p.is_dir() and not p.is_symlink() and not any(p.iterdir()):
            continue
        return False
    return True


def kind_of(out):
    """What the folder `out` holds: "run", "tournament", "balance", None (nothing of ours), or "other"."""
    out = Path(out)
    for name, kind in ((MANIFEST, "run"), ("tournament.json", "tournament"), ("balance.json", "balance")):
        if (out / name).exists() or os.path.islink(out / name):
            return kind
    return None if holds_nothing(out) else "other"


KINDS = {"run": (MANIFEST, "simulate run"), "tournament": ("tournament.json", "tournament"),
         "balance": ("balance.json", "balance study")}


def claim(out, kind, force, error, read=None):
    """The manifest of the `kind` of results ("run", "tournament", "balance") a command writes to `out` (its
    lock held by the caller), or None when there is none: a folder holding another kind of results or anything
    else is refused (`error`, one line) without --force, as is a damaged manifest (RunFolderError); with
    --force what of ours the folder holds is cleared first and None returned. `read(out)`: the manifest,
    checked as its kind needs (read_manifest by default)."""
    name, what = KINDS[kind]
    if force:
        clear(out)
        return None
    manifest = (read or (lambda o: read_manifest(o, name)))(out)
    found = kind_of(out)
    if manifest is None and found == "other":
        raise error(f"{out} is not empty and holds no {what} (use --force, or another --out)")
    if manifest is None and found is not None:
        raise error(f"{out} holds a {KINDS[found][1]}, not a {what} (use --force to replace it, or another --out)")
    return manifest


def clear(out):
    """Remove what khasino-sim wrote in `out` before --force starts again: its manifests, journal, records and
    report folder, the Parquet shards and temporary files of its table folders (a table folder left empty goes
    too), and the runs of its tournament assignments and study variants (cleared the same way). A folder
    holding no manifest of ours loses only our leftovers (temporary files, empty table folders). Anything else
    stays; links are removed, never followed."""
    out = Path(out)
    if not out.is_dir() or out.is_symlink():
        return
    ours = any((out / name).exists() or (out / name).is_symlink() for name in MANIFESTS + (JOURNAL,))
    if ours:
        for name in MANIFESTS + (JOURNAL, RECORDS):
            if (out / name).is_symlink() or (out / name).is_file():
                (out / name).unlink()
        _remove_tree(out / "report")
        for p in sorted(out.iterdir()):
            if p.name == "variants" or re.fullmatch(r"assignment-\d{4}", p.name):
                if p.is_symlink():
                    p.unlink()
                elif p.is_dir():
                    for run in [p] if p.name != "variants" else sorted(p.iterdir()):
                        if run.is_symlink():
                            run.unlink()
                        elif run.is_dir() and (p.name != "variants" or re.fullmatch(r"v\d+", run.name)):
                            clear(run)
                            _rmdir_if_empty(run)
                    _rmdir_if_empty(p)
    for table in TABLES:
        folder = out / table
        if folder.is_symlink():
            folder.unlink()
        elif folder.is_dir():
            for p in folder.iterdir():
                if (ours and storage_part(p.name)) or (p.name.startswith(".") and ".tmp-" in p.name):
                    p.unlink()
            _rmdir_if_empty(folder)
    clean_partial(out)


def storage_part(name):
    """True for the name of a shard file of ours (part-NNNNNN.parquet)."""
    return shard_of(name) is not None


def _rmdir_if_empty(folder):
    if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
        folder.rmdir()


def _remove_tree(folder):
    """A folder of ours removed whole; a link in its place removed, never followed."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
