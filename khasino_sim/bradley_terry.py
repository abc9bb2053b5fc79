"""Batch maximum-likelihood Bradley-Terry ratings on the Elo scale, with cluster-robust 95% intervals.

The model: entrant i beats entrant j with probability s(E_i - E_j), s(e) = 1 / (1 + 10^(-e/400)), the logistic
Elo curve `khasino match` uses (khasino_sim/sprt.py). A draw counts as half a win for each side (the score
likelihood, as Elo scores draws; not Davidson's tie model). All results are fitted at once, by Newton's method on
the log-likelihood (scipy.optimize's trust-region Newton with the exact Hessian), from per-pair totals: the fit
does not depend on the order of the games, and its intervals narrow as 1/sqrt(games).

Anchor: the ratings have mean 0 (only differences are identified). One virtual drawn game between every two
entrants (half a win each, as BayesElo's prior) keeps them finite when one entrant wins every game; its weight
is one game in thousands.

Intervals: the estimate +- 1.96 standard errors. Results in one cluster (a duplicate deal: the same cards in
every seat assignment, and with three or more units every pair of units of one game) are not independent, so
the covariance is the cluster-robust sandwich H^-1 (sum over clusters of s_c s_c^T) H^-1 * C / (C - 1), with H
the observed information and s_c a cluster's score (gradient); without clusters, H^-1."""
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

ELO = 400.0 / math.log(10.0)      # Elo points per natural-log unit of odds
Z95 = 1.959963984540054
PRIOR = 1.0                        # virtual drawn games per pair of entrants


@dataclass
class Fit:
    """Ratings on the Elo scale (mean 0): `elo`, their covariance `cov`, and `low`, `high` (95%)."""
    elo: np.ndarray
    cov: np.ndarray
    clusters: int
    results: int

    @property
    def se(self):
        return np.sqrt(np.clip(np.diag(self.cov), 0, None))

    @property
    def low(self):
        return self.elo - Z95 * self.se

    @property
    def high(self):
        return self.elo + Z95 * self.se


def pair_totals(first, second, result, k):
    """(wins, games): k x k matrices, wins[i, j] = points i scored against j (a draw a half), games[i, j] the
    results between them, from one row per result (entrant `first` scoring `result` in 0, 1/2, 1 v `second`)."""
    idx = np.asarray(first, dtype=np.int64) * k + np.asarray(second, dtype=np.int64)
    result = np.asarray(result, dtype=float)
    w = np.bincount(idx, weights=result, minlength=k * k).reshape(k, k)
    n = np.bincount(idx, minlength=k * k).reshape(k, k).astype(float)
    return w + (n - w).T, n + n.T


def fit(first, second, result, k, cluster=None, prior=PRIOR):
    """Fit k entrants' ratings to one row per pairwise result (see the module docstring): `first`, `second`
    entrant indices, `result` first's score (1 win, 1/2 draw, 0 loss), `cluster` a label per row (the deal) for
    the cluster-robust covariance, or None for the model-based one. Returns a Fit."""
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    result = np.asarray(result, dtype=float)
    wins, games = pair_totals(first, second, result, k)
    off = 1.0 - np.eye(k)
    wins = wins + prior / 2 * off
    games = games + prior * off

    def full(beta):                             # entrant 0 at 0 while fitting
        return np.r_[0.0, beta]

    def nll(beta):
        t = full(beta)
        return -float((wins * log_expit(t[:, None] - t[None, :])).sum())

    def grad(beta):
        t = full(beta)
        return -(wins - games * expit(t[:, None] - t[None, :])).sum(axis=1)[1:]

    def info(beta):
        t = full(beta)
        p = expit(t[:, None] - t[None, :])
        h = -games * p * (1 - p)
        np.fill_diagonal(h, 0.0)
        np.fill_diagonal(h, -h.sum(axis=1))
        return h

    if k > 1:
        beta = minimize(nll, np.zeros(k - 1), jac=grad, hess=lambda b: info(b)[1:, 1:], method="trust-exact",
                        options={"gtol": 1e-10}).x
    else:
        beta = np.zeros(0)
    theta = full(beta)
    h_inv = np.linalg.inv(info(beta)[1:, 1:]) if k > 1 else np.zeros((0, 0))
    clusters = 0
    if cluster is not None and k > 1 and len(result):
        _, c = np.unique(np.asarray(cluster), return_inverse=True)
        clusters = int(c.max()) + 1
        resid = result - expit(theta[first] - theta[second])
        score = (np.bincount(c * k + first, weights=resid, minlength=clusters * k)
                 - np.bincount(c * k + second, weights=resid, minlength=clusters * k)).reshape(clusters, k)[:, 1:]
        meat = score.T @ score * (clusters / (clusters - 1) if clusters > 1 else 1.0)
        cov_beta = h_inv @ meat @ h_inv
    else:
        cov_beta = h_inv
    centre = np.eye(k) - 1.0 / k                # to mean 0: theta - mean(theta) = centre @ [0, beta]
    lift = centre[:, 1:]
    return Fit(elo=ELO * (centre @ theta), cov=ELO ** 2 * (lift @ cov_beta @ lift.T), clusters=clusters,
               results=int(len(result)))
