"""Fitted gradient-boosting trees as a few flat arrays of our own: what shu saves (and predicts
with once saved; fitting and the backtest use the estimators themselves).

scikit-learn's HistGradientBoosting keeps each tree as an object with a 56-byte record per node
(gain, sample count, depth and binned thresholds included, which prediction never reads) plus
the binning tables of the fit; serialised with skops, every tree is a separate entry of the zip
file. `BoostedTrees.from_hgb` keeps only what prediction reads — per node the feature, the
threshold (float64, so every split decision is the estimator's own), the child nodes, where a
missing value goes and the leaf value (float32: at most ~1e-7 of a leaf's value) — for all
trees in one set of arrays: a fraction of the size, predicting what the estimator predicts (to
about 1e-6 in log-odds; the figures are in benchmarks/README.md, Forecast).

`decision_function` / `predict` return the raw prediction (the baseline plus the leaf values of
every tree): the log-odds of a binary classifier, the prediction of a regressor with an
identity link (the quantile loss of the interval models).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ROWS_PER_CHUNK = 4096  # rows traversed at once (memory: trees x rows x 8 bytes per array)


class BoostedTrees:
    """The trees of one fitted HistGradientBoosting estimator (single output)."""

    def __init__(
        self,
        baseline: float,
        roots: np.ndarray,
        feature: np.ndarray,
        threshold: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        missing_left: np.ndarray,
        is_leaf: np.ndarray,
        value: np.ndarray,
        depth: int,
    ):
        self.baseline = float(baseline)
        self.roots = np.asarray(roots, dtype=np.int32)
        self.feature = np.asarray(feature, dtype=np.int16)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.left = np.asarray(left, dtype=np.int32)
        self.right = np.asarray(right, dtype=np.int32)
        self.missing_left = np.asarray(missing_left, dtype=bool)
        self.is_leaf = np.asarray(is_leaf, dtype=bool)
        self.value = np.asarray(value, dtype=np.float32)
        self.depth = int(depth)

    @classmethod
    def from_hgb(cls, estimator: Any) -> BoostedTrees:
        """The trees of a fitted HistGradientBoostingClassifier (two classes) or Regressor."""
        if getattr(estimator, "n_trees_per_iteration_", 1) != 1:
            raise ValueError("only single-output boosting (binary or regression) is supported")
        if np.any(getattr(estimator, "is_categorical_", None) or False):
            raise ValueError("categorical splits are not supported")
        parts: list[tuple[np.ndarray, ...]] = []
        roots: list[int] = []
        offset = depth = 0
        for (tree,) in estimator._predictors:
            nodes = tree.nodes
            roots.append(offset)
            parts.append(
                (
                    nodes["feature_idx"],
                    nodes["num_threshold"],
                    nodes["left"] + offset,
                    nodes["right"] + offset,
                    nodes["missing_go_to_left"],
                    nodes["is_leaf"],
                    nodes["value"],
                )
            )
            depth = max(depth, int(nodes["depth"].max()))
            offset += len(nodes)
        feature, threshold, left, right, missing_left, is_leaf, value = (
            np.concatenate(c) for c in zip(*parts, strict=True)
        )
        baseline = float(np.asarray(estimator._baseline_prediction).ravel()[0])
        return cls(
            baseline,
            np.array(roots),
            feature,
            threshold,
            left,
            right,
            missing_left,
            is_leaf,
            value,
            depth,
        )

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        """The raw prediction for each row of `x` (float64, NaN = missing)."""
        x = np.asarray(x, dtype=np.float64)
        out = np.empty(len(x))
        for start in range(0, len(x), ROWS_PER_CHUNK):
            out[start : start + ROWS_PER_CHUNK] = self._raw(x[start : start + ROWS_PER_CHUNK])
        return out

    predict = decision_function  # regressors: identity link

    def _raw(self, x: np.ndarray) -> np.ndarray:
        """Every tree traversed for every row at once, one level a step, over the (tree, row)
        pairs not yet at a leaf only: a node's next node is read from `_children` (left, right;
        a leaf is its own child both ways), the row's value from x flattened. The leaves
        reached, and their sum in tree order, are those of a plain traversal (2.4x less CPU
        than stepping every pair through the deepest tree's levels)."""
        leaves = self._leaves(x, self.roots).astype(np.float64)
        return self.baseline + leaves.sum(axis=0)

    def _leaves(self, x: np.ndarray, roots: np.ndarray) -> np.ndarray:
        """(trees, rows): the leaf value (float32) each row of `x` reaches in each tree whose
        root is in `roots` (see `_raw`)."""
        n, k = x.shape
        trees = len(roots)
        values = np.ascontiguousarray(x).ravel()
        node = np.repeat(roots.astype(np.int64), n)  # pair tree * n + row
        at = np.tile(np.arange(n, dtype=np.int64) * k, trees)  # the row's first value
        children = self._children().ravel()
        active = np.flatnonzero(~self.is_leaf[node])
        for _ in range(self.depth):
            if not len(active):
                break
            here = node[active]
            value = values[at[active] + self.feature[here]]
            go_right = ~(value <= self.threshold[here])
            missing = np.isnan(value)
            if missing.any():
                go_right = np.where(missing, ~self.missing_left[here], go_right)
            here = children[2 * here + go_right]
            node[active] = here
            active = active[~self.is_leaf[here]]
        return self.value[node.reshape(trees, n)]

    def occluded(self, x: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """(features * rows,): the raw prediction of each row of `x` with feature j set to
        `reference[j]`, feature-major (j * rows + row): what `decision_function` gives on those
        rows stacked, bit for bit. A tree that never splits on j reaches the row's own leaf, so
        only the trees that do are traversed again (each tree reads about a third of the
        features); the leaves are summed in tree order over the same chunks of rows as
        `decision_function` sums them."""
        x = np.asarray(x, dtype=np.float64)
        n, k = x.shape
        own = np.concatenate(
            [
                self._leaves(x[s : s + ROWS_PER_CHUNK], self.roots)
                for s in range(0, n, ROWS_PER_CHUNK)
            ]
            or [np.empty((len(self.roots), 0), dtype=np.float32)],
            axis=1,
        )
        leaves = np.tile(own, (1, k))
        ends = np.append(self.roots[1:], len(self.feature))
        splits = [
            set(self.feature[r:e][~self.is_leaf[r:e]].tolist())
            for r, e in zip(self.roots, ends, strict=True)
        ]
        for j in range(k):
            trees = np.array([t for t, used in enumerate(splits) if j in used], dtype=np.int64)
            if not len(trees):
                continue
            moved = x.copy()
            moved[:, j] = reference[j]
            for s in range(0, n, ROWS_PER_CHUNK):
                part = self._leaves(moved[s : s + ROWS_PER_CHUNK], self.roots[trees])
                leaves[trees, j * n + s : j * n + s + part.shape[1]] = part
        out = np.empty(k * n)
        for s in range(0, k * n, ROWS_PER_CHUNK):
            chunk = leaves[:, s : s + ROWS_PER_CHUNK].astype(np.float64)
            out[s : s + ROWS_PER_CHUNK] = self.baseline + chunk.sum(axis=0)
        return out

    def _children(self) -> np.ndarray:
        """(nodes, 2): each node's left and right child, a leaf's both itself (a few hundred
        microseconds against the traversal of a chunk of rows: not kept)."""
        own = np.arange(len(self.left), dtype=np.int64)
        return np.column_stack(
            [np.where(self.is_leaf, own, self.left), np.where(self.is_leaf, own, self.right)]
        )
