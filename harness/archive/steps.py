"""Step detection in a series (pass rates, median latencies over versions), as asv does it.

asv (``asv/step_detect.py``) models a benchmark's history as piecewise
constant plus Laplace noise and fits it by minimising the L1 Potts
functional ``gamma * k + sum_r sum_{i in r} |y_i - mu_r|`` (Friedrich et al.,
"Complexity Penalized M-Estimation: Fast Computation", JCGS 17(1), 2008),
and choosing gamma by the Schwarz-criterion form
``beta * k + ln(sigma_0 + sum |y_i - mu_r|)``, with ``sigma_0`` a floor of
the noise (0.1 x the smallest step between pieces, or 0.001 x the level when
there is one piece) so that a perfect fit is not always chosen.

asv solves the Potts problem approximately because its series have
thousands of commits; ours have one point per archived version (tens), so
each gamma's problem is solved exactly (dynamic programming over
precomputed segment costs, O(m^2) per gamma after an O(m^3) table).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Sequence

BETA = 1.0  # asv's pragmatic factor is built into beta = 4 ln(m) / m; this scales it


@dataclass(frozen=True)
class Step:
    """The level changed between point ``index - 1`` and point ``index``."""

    index: int
    before: float  # the fitted level of the piece that ends at index - 1
    after: float  # the fitted level of the piece that starts at index

    @property
    def ratio(self) -> float:
        return self.after / self.before if self.before else math.inf


def _segment_costs(y: Sequence[float]) -> list[list[tuple[float, float]]]:
    """cost[i][j] = (sum |y - median|, median) of y[i:j+1]."""
    m = len(y)
    out = [[(0.0, 0.0)] * m for _ in range(m)]
    for i in range(m):
        for j in range(i, m):
            piece = y[i:j + 1]
            mu = median(piece)
            out[i][j] = (sum(abs(v - mu) for v in piece), mu)
    return out


def _potts(cost: list[list[tuple[float, float]]], gamma: float) -> list[tuple[int, int, float]]:
    """The exact minimiser of gamma * pieces + L1 cost (Friedrich 2008), by dynamic programming."""
    m = len(cost)
    best, back = [0.0] + [math.inf] * m, [0] * (m + 1)
    for j in range(1, m + 1):
        for i in range(j):
            c = best[i] + cost[i][j - 1][0] + gamma
            if c < best[j]:
                best[j], back[j] = c, i
    pieces, j = [], m
    while j > 0:
        i = back[j]
        pieces.append((i, j, cost[i][j - 1][1]))
        j = i
    return pieces[::-1]


def fit(y: Sequence[float], grid: int = 40) -> list[tuple[int, int, float]]:
    """The piecewise-constant fit: [(start, end exclusive, level)], pieces in order.

    As asv's ``solve_potts_autogamma``: gamma ranges over a log scale from
    0.1/m to 1 times the L1 deviation of the one-piece fit (asv searches that
    interval by golden section; a grid of 40 is as cheap for tens of points),
    and the fit with the least ``beta * k + ln(sigma_0 + cost)``, beta = 4 ln(m) / m, wins."""
    m = len(y)
    if m == 0:
        return []
    cost = _segment_costs(y)
    total = cost[0][m - 1][0]
    if total == 0:
        return [(0, m, cost[0][m - 1][1])]
    beta = BETA * 4 * math.log(m) / m
    chosen, choice = [], math.inf
    for n in range(grid + 1):
        gamma = total * math.exp(math.log(0.1 / m) * (1 - n / grid))
        pieces = _potts(cost, gamma)
        levels = [p[2] for p in pieces]
        sigma0 = (0.1 * min(abs(a - b) for a, b in zip(levels, levels[1:])) if len(levels) > 1
                  else 0.001 * abs(levels[0]))
        s = sum(cost[i][j - 1][0] for i, j, _ in pieces)
        criterion = beta * len(pieces) + math.log(sigma0 + s + 1e-300)  # 1e-300: a perfect fit of zeros
        if criterion < choice:
            choice, chosen = criterion, pieces
    return chosen


def detect_steps(y: Sequence[float], min_relative: float = 0.0, min_absolute: float = 0.0) -> tuple[Step, ...]:
    """Where the fitted level changes by at least ``min_relative`` of the level
    before it and at least ``min_absolute`` (asv reports a step only past a threshold)."""
    pieces = fit(y)
    steps = []
    for (_, _, before), (start, _, after) in zip(pieces, pieces[1:]):
        delta = abs(after - before)
        if delta >= min_absolute and delta >= min_relative * abs(before) and delta > 0:
            steps.append(Step(start, before, after))
    return tuple(steps)
