"""Recompute the scratch bounds of docs/ENGINE.md ("Scratch bounds") and check the layout against them.

Run: python scripts/scratch_bounds.py. Prints each bound and the table size that covers it; exits 1 if a
table is too small. tests/test_scratch_bounds.py runs the same checks.
"""
import sys
from itertools import combinations_with_replacement
from math import comb


def sets_and_sizes_up_to(copies_of_value, g):
    """Card sets with sum <= g of a deck holding copies_of_value[v] cards of value v, and the sum of their
    sizes: the coefficients up to x^g of prod_v (1 + x^v)^copies, each counted once and once per card."""
    count = [1] + [0] * g
    size = [0] * (g + 1)
    for v, copies in copies_of_value.items():
        new_count = [0] * (g + 1)
        new_size = [0] * (g + 1)
        for s, c in enumerate(count):
            if c:
                for k in range(copies + 1):
                    if s + k * v > g:
                        break
                    ways = comb(copies, k)
                    new_count[s + k * v] += c * ways
                    new_size[s + k * v] += (size[s] + k * c) * ways
        count, size = new_count, new_size
    return sum(count), sum(size)


def subsets_up_to(copies_of_value, g):
    """Card sets with sum <= g (the subset table's entries)."""
    return sets_and_sizes_up_to(copies_of_value, g)[0]


def memberships_up_to(copies_of_value, g):
    """The (set, card) pairs with the card in a set of sum <= g (the pile index lists a group once per pile
    card it holds)."""
    return sets_and_sizes_up_to(copies_of_value, g)[1]


def kasino_table_bound(g=14, extra=5):
    """N1/N2: at most one table card per rank, plus up to `extra` more from the deal; the worst case."""
    best, worst = 0, None
    for more in combinations_with_replacement(range(1, 14), extra):
        mult = {v: 1 for v in range(1, 14)}
        for v in more:
            mult[v] += 1
        n = subsets_up_to(mult, g)
        if n > best:
            best, worst = n, more
    return best, worst


def bounds():
    """{name: (bound, capacity)} for every scratch table and format family."""
    from khasino_sim.kernels.core import layout as L
    four = lambda top: {v: 4 for v in range(1, top + 1)}          # noqa: E731
    kasino, _ = kasino_table_bound()
    return {
        "subsets, 40 cards (Khasino), G=10": (subsets_up_to(four(10), 10), L.MAX_SUBSETS),
        "subsets, 52 cards (Cassino), G=10": (subsets_up_to(four(10), 10), L.MAX_SUBSETS),
        "subsets, 52 cards, face_values, G=13": (subsets_up_to(four(13), 13), L.MAX_SUBSETS),
        "subsets, 52 cards, face_values + ace_14, G=14": (subsets_up_to(four(13), 14), L.MAX_SUBSETS),
        "subsets, 104 cards (Kasino table), G=14": (kasino, L.MAX_SUBSETS),
        "pile index entries, 40 cards (K8 piles), G=10": (memberships_up_to(four(10), 10), L.MAX_SUBSETS),
        "groups of one move (52 cards + played card)": (53, L.MAX_MOVE_GROUPS),
        "selection stack depth": (53, L.STACK_LEN),
        "usable pile prefix (52-card pile)": (52, L.PREFIX_STRIDE - 1),
        "workspace bytes (budget 1 MB)": (L.WS_SIZE * 8, 1_000_000),
    }


def main():
    ok = True
    for name, (bound, capacity) in bounds().items():
        fits = bound <= capacity
        ok &= fits
        print(f"{name:<48} bound {bound:>9,}  capacity {capacity:>9,}  {'ok' if fits else 'TOO SMALL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
