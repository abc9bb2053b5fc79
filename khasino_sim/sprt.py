"""`khasino match A B --sprt`: a sequential probability ratio test over duplicate pairs, as fishtest runs one.

A **duplicate pair** is one deal played twice with the seats (teams) swapped, so both bots hold the same cards:
A's pair score is 0, 1/2, 1, 3/2 or 2 points (a win 1, a draw 1/2). The test is the generalised SPRT on the
pentanomial frequencies of those scores (Van den Bergh's approximation, used by fishtest): with the pair score
per game x (0, 1/4, ..., 1), its sample mean m and variance v over N pairs, and s(e) = 1 / (1 + 10^(-e/400)) the
score of a logistic Elo difference e,

    LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v),     s0 = s(elo0), s1 = s(elo1),

accepting H1 (A is elo1 stronger) at LLR >= log((1 - beta) / alpha) and H0 (elo0) at LLR <= log(beta / (1 - alpha)),
tested after every batch of pairs.
The Elo estimate is -400 log10(1/m - 1), its 95% interval from m +- 1.96 sqrt(v / N).
"""
import math
from dataclasses import dataclass, field

import numpy as np

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)      # A's pair score / 2
REGULARISE = 1e-3
MAX_ELO = 2000.0        # past it a score is 1 - 1e-5 or more: no test of that is meant


def expected_score(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score):
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass
class SPRT:
    """The test's state: pentanomial counts (pairs scoring 0, 1/2, 1, 3/2, 2 points for A)."""
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    counts: list = field(default_factory=lambda: [0] * 5)

    def __post_init__(self):
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not math.isfinite(value) or abs(value) > MAX_ELO:
                raise ValueError(f"{name} must be a finite Elo difference in -{MAX_ELO:g}..{MAX_ELO:g}, not {value:g}")
        if not 0 < self.alpha < 0.5 or not 0 < self.beta < 0.5:
            raise ValueError("alpha and beta must lie in (0, 0.5)")
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 must be above elo0 (got elo0={self.elo0}, elo1={self.elo1})")

    @property
    def bounds(self):
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    @property
    def pairs(self):
        return sum(self.counts)

    def add(self, counts):
        for k in range(5):
            self.counts[k] += int(counts[k])

    def moments(self):
        """Mean and variance of the pair score per game, each pentanomial count regularised by 1e-3 so that a
        degenerate sample (two identical bots: every pair scores exactly 1 point) still has a variance."""
        n = self.pairs
        if n == 0:
            return 0.5, 0.0
        c = np.array(self.counts, dtype=float) + REGULARISE
        p = c / c.sum()
        x = np.array(PAIR_SCORES)
        m = float((p * x).sum())
        return m, float((p * (x - m) ** 2).sum())

    def llr(self):
        m, v = self.moments()
        if v <= 0:
            return 0.0
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return self.pairs * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)

    def verdict(self):
        """"H1", "H0" or None (go on)."""
        lo, hi = self.bounds
        llr = self.llr()
        return "H1" if llr >= hi else "H0" if llr <= lo else None

    def score(self):
        """A's points per game so far (a win 1, a draw 1/2), from the counts as they are (0.5 before any pair)."""
        return float(np.dot(self.counts, PAIR_SCORES)) / self.pairs if self.pairs else 0.5

    def progress(self):
        """One line on the test so far: pairs and games played, A's score, the LLR against its bounds."""
        lo, hi = self.bounds
        return (f"pairs {self.pairs:,} (games {2 * self.pairs:,}): score {self.score():.3f}, "
                f"LLR {self.llr():+.3f} (bounds {lo:+.3f}, {hi:+.3f})")

    def elo(self):
        """(estimate, low, high) of A's Elo over B, 95%."""
        m, v = self.moments()
        half = 1.96 * math.sqrt(v / max(self.pairs, 1))
        return elo_of(m), elo_of(m - half), elo_of(m + half)


def parse_sprt(text):
    """`elo0=0,elo1=10[,alpha=0.05,beta=0.05]` as keyword arguments; ValueError names a bad part: an unknown
    key, a key without a value, or one given twice (the last would silently win)."""
    out = {}
    given = {}
    for part in (p.strip() for p in str(text).split(",") if p.strip()):
        key, _, value = (x.strip() for x in part.partition("="))
        if key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"--sprt takes elo0=E0,elo1=E1[,alpha=A,beta=B], not {part[:40]!r}")
        if not value:
            raise ValueError(f"--sprt {key} needs a value: {key}=NUMBER")
        if key in given:
            raise ValueError(f"--sprt {key} is given twice ({given[key][:20]} and {value[:20]}); give it once")
        given[key] = value
        try:
            out[key] = float(value)
        except ValueError:
            raise ValueError(f"--sprt {key} must be a number, not {value[:40]!r}") from None
    missing = [k for k in ("elo0", "elo1") if k not in out]
    if missing:
        raise ValueError(f"--sprt needs both elo0 and elo1 (the two hypotheses), e.g. elo0=0,elo1=10; "
                         f"{' and '.join(missing)} missing")
    SPRT(**out)         # validates
    return out
