"""The rules live in docs/rules/ and every rule is implemented and tested where it says (scripts/rule_map.py).

- every rule heading (`### K4 — Capture`) is cited by a kernel file, a reference file and a test file;
- docs/RULE_MAP.md is what the script writes;
- every rule id the code, tests, scripts and docs cite has a heading in docs/rules/;
- every test the rules pages name (`FILE::FUNCTION`) exists."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "python3 scripts/rule_map.py"


def _load():
    spec = importlib.util.spec_from_file_location("rule_map", ROOT / "scripts" / "rule_map.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


RM = _load()


def test_citation_regex():
    assert RM.cited("K13 and K1") == {"K13", "K1"}
    assert RM.cited("K13") == {"K13"}
    assert RM.cited("(K7, P6); K5/K6; K11's") == {"K7", "P6", "K5", "K6", "K11"}
    assert RM.cited("_C1 = np.uint64(1); AK13 K1x") == set()
    assert RM.cited("K3–K11, P1..P7, C3-C6, N5–7") == set()
    assert RM.mentioned("K3–K11") == {"K3", "K11"}
    assert RM.cited("def test_K4_P3_seed001_eight(): test_p15_stay test_c3_six") == {"K4", "P3", "P15", "C3"}
    assert RM.cited("p1 = pile; k1 = 3") == set()


def test_headings_are_well_formed_and_unique():
    """Every `### ID...` heading of docs/rules has the exact form `### ID — title` (the script reads only
    those), and no id is defined twice (rule_headings raises)."""
    bad = []
    for page in sorted((ROOT / RM.RULES_DIR).glob("*.md")):
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"###\s*[KCNP]\d", line) and not RM.HEADING.match(line):
                bad.append(f"{page.relative_to(ROOT)}:{n}: {line}")
    assert not bad, "headings not of the form '### ID — title':\n" + "\n".join(bad)
    ids = [r[0] for r in RM.rule_headings(ROOT)]
    assert len(ids) == len(set(ids))
    for letter, top in (("K", 16), ("C", 8), ("N", 7)):
        assert {f"{letter}{i}" for i in range(1, top + 1)} <= set(ids), letter


def test_every_rule_is_cited_by_kernel_reference_and_test():
    gaps = RM.missing(RM.build_map(ROOT))
    assert not gaps, ("rules without a citation (cite the id in a comment or docstring where the rule is "
                      "implemented, or in the name or docstring of the test that checks it):\n"
                      + "\n".join(f"  {rid}: no {', no '.join(kinds)} file" for rid, kinds in gaps)
                      + f"\nthen regenerate docs/RULE_MAP.md: {REGENERATE}")


def test_rule_map_is_up_to_date():
    want = RM.render(RM.build_map(ROOT))
    path = ROOT / RM.MAP_PATH
    have = path.read_text(encoding="utf-8") if path.exists() else ""
    assert have == want, f"{RM.MAP_PATH} is out of date: run {REGENERATE}"


def _cited_files():
    files = []
    for top in ("kernels", "khasino_sim", "tests", "scripts", "bench"):
        files += [p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in (ROOT / "docs").rglob("*.md") if p != ROOT / RM.MAP_PATH]
    files.append(ROOT / "README.md")
    return sorted(f for f in files if f.is_file())


def test_no_undefined_rule_is_cited():
    defined = {r[0] for r in RM.rule_headings(ROOT)}
    bad = []
    for f in _cited_files():
        for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for rid in sorted(RM.mentioned(line) - defined):
                bad.append(f"{f.relative_to(ROOT)}:{n}: {rid}")
    assert not bad, ("rule ids cited but defined nowhere in docs/rules/ (add a '### ID — title' heading "
                     "or fix the citation):\n" + "\n".join(bad))


def test_tests_named_by_the_rules_pages_exist():
    """`FILE.py::FUNCTION` in docs/rules: FILE is a test file somewhere under tests/ (one of that name) that
    defines FUNCTION."""
    by_name = {}
    for p in (ROOT / "tests").rglob("*.py"):
        by_name.setdefault(p.name, []).append(p)
    defs = {}
    bad = []
    for page in sorted((ROOT / RM.RULES_DIR).glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\w/])(?:tests/(?:\w+/)*)?(\w+\.py)::(\w+)", text):
            fname, func = m.group(1), m.group(2)
            where = f"{page.relative_to(ROOT)}: {fname}::{func}"
            paths = by_name.get(fname, [])
            if len(paths) != 1:
                bad.append(f"{where}: {len(paths)} files named {fname} under tests/")
                continue
            if paths[0] not in defs:
                defs[paths[0]] = set(re.findall(r"^\s*def (\w+)", paths[0].read_text(encoding="utf-8"), re.M))
            if func not in defs[paths[0]]:
                elsewhere = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                             if re.search(rf"^\s*def {func}\b", p.read_text(encoding="utf-8"), re.M)]
                bad.append(f"{where}: not defined in {paths[0].relative_to(ROOT)}"
                           + (f" (found in {', '.join(elsewhere)})" if elsewhere else ""))
    assert not bad, "tests named in docs/rules/ that do not exist:\n" + "\n".join(bad)


def test_script_check_mode_agrees():
    """`rule_map.py --check` writes nothing and exits 0 exactly when no rule lacks a citation and the map is
    current."""
    path = ROOT / RM.MAP_PATH
    before = path.read_bytes() if path.exists() else None
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "rule_map.py"), "--check"], capture_output=True,
                       text=True, timeout=120)
    after = path.read_bytes() if path.exists() else None
    assert before == after
    rmap = RM.build_map(ROOT)
    ok = not RM.missing(rmap) and before is not None and before.decode("utf-8") == RM.render(rmap)
    assert (r.returncode == 0) == ok, r.stderr
    for rid, _ in RM.missing(rmap):
        assert f"rule_map: {rid} lacks" in r.stderr
