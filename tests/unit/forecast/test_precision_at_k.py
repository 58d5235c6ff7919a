"""precision@k per origin by hand: ordering, ties, missing scores, the mean over origins, its
interval over origins and a ranking's lead over another."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from shu.forecast.evaluation.precision_at_k import momentum, precision_by_origin, ranking_metrics


def _frame() -> pd.DataFrame:
    # origin 1: the two events score highest under "good", lowest under "bad"
    # origin 2: one event, tied with a non-event at the top; "good" misses a score there
    rows = [
        ("o1", "a", 1, 0.9, 0.1),
        ("o1", "b", 1, 0.8, 0.2),
        ("o1", "c", 0, 0.3, 0.7),
        ("o1", "d", 0, 0.1, 0.9),
        ("o2", "a", 0, 0.5, 0.5),
        ("o2", "b", 1, 0.5, 0.4),
        ("o2", "c", 0, np.nan, 0.9),
    ]
    return pd.DataFrame(rows, columns=["origin", "repo", "label", "good", "bad"])


def test_precision_by_origin_by_hand():
    f = _frame()
    good = precision_by_origin(f, "good", 2)
    assert good["o1"] == 1.0
    assert good["o2"] == 0.5  # tie at 0.5 broken by name (a, b); the missing score comes last
    assert precision_by_origin(f, "bad", 2)["o1"] == 0.0
    assert precision_by_origin(f, "good", 10)["o1"] == 0.5  # fewer rows than k: all of them


def test_ranking_metrics_mean_interval_and_lead():
    f = _frame()
    m = ranking_metrics(f, {"good": "good", "bad": "bad"}, baseline="bad", ks=(1, 2), n_boot=200)
    assert m["n_origins"] == 2 and m["events_per_origin"] == 1.5
    p2 = m["good"]["precision_at_2"]
    assert p2["mean"] == pytest.approx(0.75)
    assert p2["low"] <= p2["mean"] <= p2["high"] and p2["low"] >= 0.5
    # bad: o1 top-2 = d, c (0 events), o2 top-2 = c, a (0): 0; the lead of good is 0.75
    assert m["bad"]["precision_at_2"]["mean"] == 0
    assert m["good"]["lead_over_bad_at_2"]["mean"] == pytest.approx(0.75)
    assert "lead_over_bad_at_2" not in m["bad"]


def test_momentum_is_the_week_ahead_of_the_month():
    f = pd.DataFrame({"velocity_7d": [12.0, 3.0], "velocity_28d": [5.0, 4.0]})
    assert momentum(f).tolist() == [7.0, -1.0]
