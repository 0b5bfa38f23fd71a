"""The best one-to-one pairing of two lists' items: an optimal assignment in O(n²m).

The shortest-augmenting-path form of the Hungarian algorithm (Kuhn 1955, Munkres 1957;
the potentials of Jonker and Volgenant 1987): rows are added one at a time, each by a
Dijkstra-like search over reduced costs, so ``n`` rows and ``m >= n`` columns cost
``O(n² m)`` steps. Pure Python: the evaluation keeps lists within ``MAX_ASSIGNED`` items
before calling it.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MAX_ASSIGNED", "best_pairs"]

#: The most items either side of a list may have for an optimal assignment (128 x 128
#: is about two million steps; longer lists are paired by position, and said so).
MAX_ASSIGNED = 128


def best_pairs(score: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """The pairs ``(row, column)`` whose scores add up to the most, each row and column
    used at most once (as many pairs as the shorter side has items).

    Args:
        score: A rectangular matrix of non-negative integers, ``score[i][j]`` how well
            row ``i`` goes with column ``j``.

    Returns:
        The pairs, by row. Ties go the same way for the same matrix.
    """
    n = len(score)
    if n == 0 or not score[0]:
        return []
    m = len(score[0])
    if n > m:  # the algorithm adds rows; it needs no more rows than columns
        flipped = [[score[i][j] for i in range(n)] for j in range(m)]
        return sorted((i, j) for j, i in best_pairs(flipped))
    top = max(max(row) for row in score)
    # Costs to minimise: the best score costs nothing.
    cost = [[top - value for value in row] for row in score]
    inf = float("inf")
    u = [0.0] * (n + 1)  # row potentials
    v = [0.0] * (m + 1)  # column potentials
    owner = [0] * (m + 1)  # owner[j]: the row (from 1) holding column j; 0 for none
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        owner[0] = row
        j0 = 0
        least = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            costs = cost[i0 - 1]
            ui0 = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = costs[j - 1] - ui0 - v[j]
                    if reduced < least[j]:
                        least[j] = reduced
                        way[j] = j0
                    if least[j] < delta:
                        delta = least[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:  # flip the augmenting path
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    return sorted((owner[j] - 1, j - 1) for j in range(1, m + 1) if owner[j])
