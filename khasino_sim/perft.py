"""Move-count fixtures ("perft"): the number of distinct positions reachable from a fixed position in 1 and
2 plies. Fixtures are small JSON files under tests/fixtures/perft; `scripts/make_perft_fixtures.py` writes
them with the reference engine, and the tests recount them with the compiled core."""
import json


def _canon(state):
    return json.dumps(state, sort_keys=True)


def perft(state, depth, legal_moves):
    """Distinct positions at exactly `depth` plies from `state` (finished games stay where they end)."""
    frontier = {_canon(state): state}
    for _ in range(depth):
        nxt = {}
        for s in frontier.values():
            if s.get("over"):
                nxt[_canon(s)] = s
                continue
            for m in legal_moves(s):
                nxt[_canon(m.result)] = m.result
        frontier = nxt
    return len(frontier)
