#!/usr/bin/env python3
"""Map every rule id of docs/rules/ to the kernel, reference and test files that cite it.

The rules are the `### ID — title` headings of docs/rules/*.md (K1–K16, C1–C8, N1–N7, P1–P27). A file cites a
rule when the id stands on its own in it, in any text (`K8`, `(K7, P6)`, `K5/K6`; `K1` never matches inside
`K13`, and `_C1` inside a name is no citation), or as a part of a test name between underscores, in either
case (`test_K4_P3_...`, `test_p15_stay_...`). A range such as `K3–K11` or `P1..P7` names a span, not each
rule, and cites none of them.

Scanned (recursively, whatever the folders inside are called):
  kernel files     kernels/**/*.py
  reference files  khasino_sim/reference*.py and khasino_sim/reference/**/*.py
  test files       tests/**/*.py, except tests/test_rule_map.py (the checker's own test, whose ids are samples)

    python3 scripts/rule_map.py           write docs/RULE_MAP.md; exit 1 if a rule lacks a citation
    python3 scripts/rule_map.py --check   write nothing; exit 1 also if docs/RULE_MAP.md is out of date
"""
import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = "docs/rules"
MAP_PATH = "docs/RULE_MAP.md"
PAGE_ORDER = ("khasino.md", "cassino.md", "kasino.md", "project.md")
LETTERS = "KCNP"

# Rules that by their nature have no kernel code (a rule only about the JSON codec or the output files, say):
# rule id -> why. Kept as small as honest; a rule listed here still needs a reference and a test citation.
NOT_IN_KERNELS = {}

HEADING = re.compile(r"^### ([KCNP]\d{1,2}) — (\S.*?)\s*$", re.M)
ID = re.compile(r"(?<![A-Za-z0-9_])([KCNP])(\d{1,2})(?![0-9A-Za-z_])")
RANGE = re.compile(r"(?<![A-Za-z0-9_])([KCNP])(\d{1,2})\s*(?:–|—|-|\.\.)\s*\1?(\d{1,2})(?![0-9A-Za-z_])")
TEST_NAME = re.compile(r"(?<![A-Za-z0-9_])test_\w+")
NAME_PART = re.compile(r"^([KCNPkcnp])(\d{1,2})$")

KINDS = ("kernel", "reference", "test")
NOT_SCANNED = {"tests/test_rule_map.py"}   # the checker's own test: the ids in it are samples, not citations


def _py_files(root, pattern):
    return sorted(p for p in root.glob(pattern) if p.is_file() and "__pycache__" not in p.parts
                  and p.relative_to(root).as_posix() not in NOT_SCANNED)


def scanned_files(root=ROOT):
    """{kind: [paths]} of the files whose citations count."""
    root = Path(root)
    refs = set(_py_files(root, "khasino_sim/reference*.py")) | set(_py_files(root, "khasino_sim/reference/**/*.py"))
    return {"kernel": _py_files(root, "kernels/**/*.py"), "reference": sorted(refs),
            "test": _py_files(root, "tests/**/*.py")}


def rule_headings(root=ROOT):
    """[(id, title, page)] in page order; ValueError when an id is defined twice."""
    root = Path(root)
    pages = sorted((root / RULES_DIR).glob("*.md"),
                   key=lambda p: (PAGE_ORDER.index(p.name) if p.name in PAGE_ORDER else len(PAGE_ORDER), p.name))
    out, seen = [], {}
    for page in pages:
        rel = page.relative_to(root).as_posix()
        for m in HEADING.finditer(page.read_text(encoding="utf-8")):
            rid, title = m.group(1), m.group(2)
            if rid in seen:
                raise ValueError(f"rule {rid} is defined twice: {seen[rid]} and {rel}")
            seen[rid] = rel
            out.append((rid, title, rel))
    return sorted(out, key=lambda r: (LETTERS.index(r[0][0]), int(r[0][1:])))


def cited(text):
    """The rule ids a text cites (ranges excluded)."""
    plain = RANGE.sub(" ", text)
    ids = {m.group(1) + str(int(m.group(2))) for m in ID.finditer(plain)}
    for name in TEST_NAME.findall(text):
        for part in name.split("_"):
            m = NAME_PART.match(part)
            if m:
                ids.add(m.group(1).upper() + str(int(m.group(2))))
    return ids


def mentioned(text):
    """Every rule id a text names, range ends included (for the check that each has a heading)."""
    ids = cited(text)
    for m in RANGE.finditer(text):
        ids.add(m.group(1) + str(int(m.group(2))))
        ids.add(m.group(1) + str(int(m.group(3))))
    return ids


def build_map(root=ROOT):
    """[{id, title, page, kernel: [files], reference: [files], test: [files]}] for every rule heading."""
    root = Path(root)
    found = {kind: {} for kind in KINDS}
    for kind, files in scanned_files(root).items():
        for f in files:
            for rid in cited(f.read_text(encoding="utf-8", errors="replace")):
                found[kind].setdefault(rid, []).append(f.relative_to(root).as_posix())
    return [{"id": rid, "title": title, "page": page, **{k: sorted(found[k].get(rid, [])) for k in KINDS}}
            for rid, title, page in rule_headings(root)]


def missing(rmap):
    """[(id, [kinds it lacks])] for the rules some kind of file does not cite (NOT_IN_KERNELS exempts
    the kernel kind only)."""
    out = []
    for r in rmap:
        lacks = [k for k in KINDS if not r[k] and not (k == "kernel" and r["id"] in NOT_IN_KERNELS)]
        if lacks:
            out.append((r["id"], lacks))
    return out


def render(rmap):
    """The text of docs/RULE_MAP.md."""
    def cell(files):
        return ", ".join(f"`{f}`" for f in files) if files else "**none**"

    lines = [
        "# Rule map",
        "",
        "Generated by `python3 scripts/rule_map.py` (do not edit; `--check` verifies it is current). For every rule",
        "of [docs/rules/](rules/README.md), the files that cite its id: kernel files under `kernels/`, reference",
        "files `khasino_sim/reference*.py` and under `khasino_sim/reference/`, test files under `tests/`. Paths are",
        "relative to the repository root. A range such as `K3–K11` counts as no citation.",
        "",
        "| rule | title | page | kernel files | reference files | test files |",
        "|---|---|---|---|---|---|",
    ]
    for r in rmap:
        page = r["page"].removeprefix("docs/")
        kernel = cell(r["kernel"])
        if not r["kernel"] and r["id"] in NOT_IN_KERNELS:
            kernel = f"exempt: {NOT_IN_KERNELS[r['id']]}"
        lines.append(f"| {r['id']} | {r['title']} | [{page}]({page}) | {kernel} | {cell(r['reference'])} | "
                     f"{cell(r['test'])} |")
    gaps = missing(rmap)
    lines += ["", "## Missing citations", ""]
    if gaps:
        lines += [f"- {rid}: no {' and no '.join(kinds)} file cites it" for rid, kinds in gaps]
    else:
        lines.append("None: every rule is cited by a kernel, a reference and a test file.")
    lines += ["", "## Exempt from kernel citations", ""]
    if NOT_IN_KERNELS:
        lines += [f"- {rid}: {why}" for rid, why in sorted(NOT_IN_KERNELS.items())]
    else:
        lines.append("None (`NOT_IN_KERNELS` in `scripts/rule_map.py` is empty).")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; also fail if docs/RULE_MAP.md is stale")
    args = ap.parse_args(argv)
    try:
        rmap = build_map(ROOT)
    except ValueError as e:
        print(f"rule_map: {e}", file=sys.stderr)
        return 1
    text = render(rmap)
    out = ROOT / MAP_PATH
    status = 0
    if args.check:
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            print(f"rule_map: {MAP_PATH} is out of date; run: python3 scripts/rule_map.py", file=sys.stderr)
            status = 1
    else:
        out.write_text(text, encoding="utf-8")
        print(f"rule_map: wrote {MAP_PATH} ({len(rmap)} rules)")
    for rid, kinds in missing(rmap):
        print(f"rule_map: {rid} lacks a {' and a '.join(kinds)} citation", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
