"""ROCm adoption templates: each resolution rule (yes / no / void) on hand-built commits and
releases in a real store, thresholds, and features that never read past the origin."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import numpy as np
import pandas as pd

from shu.forecast.features import feature_names, rocm
from shu.forecast.features.examples import rocm_question_rows
from shu.forecast.questions.registry import ROCM_TEMPLATES, TEMPLATES
from shu.forecast.questions.resolution import resolve_questions

T0 = date(2024, 6, 1)


def _commits(store, repo, days, rocm_days=(), merges=(), mainline_known=True):
    """One counted commit per offset in `days` (relative to T0); `rocm_days` touch ROCm."""
    rows = []
    for i, d in enumerate(days):
        rows.append(
            {
                "repo": repo,
                "sha": f"{repo}-{i}",
                "committed_at": datetime.combine(T0 + timedelta(days=d), datetime.min.time()),
                "subject": "x",
                "parents": 2 if d in merges else 1,
                "is_mainline": True if mainline_known else None,
                "touches_rocm": d in rocm_days,
                "source": "history",
            }
        )
    store.upsert("commits", pd.DataFrame(rows))


def _releases(store, repo, items):
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": repo,
                    "tag": tag,
                    "name": tag,
                    "body": body,
                    "source": "history",
                    "published_at": datetime.combine(T0 + timedelta(days=d), datetime.min.time()),
                }
                for tag, d, body in items
            ]
        ),
    )


def _resolve(store, name, questions):
    frame = pd.DataFrame(questions, columns=["qid", "repo", "origin", "horizon_days", "threshold"])
    store.con.register("_q_df", frame)
    store.con.execute(
        "CREATE OR REPLACE TEMP TABLE q AS SELECT qid, repo, origin::DATE AS "
        "origin, horizon_days::INTEGER AS horizon_days, threshold FROM _q_df"
    )
    out = resolve_questions(store.con, name, "q").set_index("qid")
    return {k: (r["outcome"], r["observed_value"], r["detail"]) for k, r in out.iterrows()}


def test_templates_are_registered_with_wording():
    for name in ROCM_TEMPLATES:
        assert name in TEMPLATES
    text = TEMPLATES["rocm_share_reach"].question("a/b", T0, 30, 0.1)
    assert "10.0%" in text and "(2024-06-01, 2024-07-01]" in text


def test_share_reach_yes_no_and_void_by_coverage(store):
    # one commit a day from day -100 to day 40; ROCm ones rise after day 10 in "up".
    days = list(range(-100, 41))
    _commits(store, "r/up", days, rocm_days=set(range(-100, -90)) | set(range(10, 41)))
    _commits(store, "r/flat", days, rocm_days=set(range(-100, -90)))
    _commits(store, "r/short", [d for d in range(-100, 20)], rocm_days=set(range(0, 20)))
    got = _resolve(
        store,
        "rocm_share_reach",
        [
            (1, "r/up", T0, 30, 0.2),
            (2, "r/flat", T0, 30, 0.2),
            (3, "r/short", T0, 30, 0.2),
            (4, "r/none", T0, 30, 0.2),
        ],
    )
    # r/up on day 30: 21 ROCm of 90 commits = 0.233 >= 0.2 (first reached: 18 of 90 on day 27)
    assert got[1][0] == "yes" and got[1][1] >= 0.2 and "first reached on 2024-06-28" in got[1][2]
    assert got[2][0] == "no" and got[2][1] == 0.0
    assert got[3][0] == "void" and "ends on" in got[3][2]  # data ends before t+H: not "no"
    assert got[4][0] == "void"


def test_share_reach_void_when_share_undefined_even_if_reached(store):
    # commits on days -100..-1, then none for 91+ days except a ROCm burst at day 95:
    # the share is undefined on some days of the window although it reaches 1.0 later.
    _commits(
        store,
        "r/gap",
        [*range(-100, 0), 95, 96, 97, 98, 99, 100],
        rocm_days={95, 96, 97, 98, 99, 100},
    )
    got = _resolve(store, "rocm_share_reach", [(1, "r/gap", T0, 100, 0.5)])
    assert got[1][0] == "void" and "undefined on" in got[1][2]


def test_share_counts_mainline_only_or_non_merges_when_unknown(store):
    days = list(range(-100, 31))
    # Mainline unknown on every row (API listings): only non-merge commits count.
    _commits(
        store,
        "r/nomain",
        days,
        rocm_days=set(range(0, 31)),
        merges=set(range(0, 31)),
        mainline_known=False,
    )
    got = _resolve(store, "rocm_share_reach", [(1, "r/nomain", T0, 30, 0.01)])
    assert got[1][0] == "no" and got[1][1] == 0.0  # ROCm commits were merges: not counted


def test_release_mention_rule(store):
    _commits(store, "m/a", [-10, 60])
    _releases(store, "m/a", [("v1.0", -5, "first"), ("v1.1", 10, "Adds ROCm 6.1 wheels")])
    _commits(store, "m/b", [-10, 60])
    _releases(store, "m/b", [("v1.0", -5, "first"), ("v1.1", 10, "CUDA only; hiphop")])
    _commits(store, "m/c", [-10, 60])
    _releases(store, "m/c", [("v1.1", 10, "ROCm")])  # no release on or before t
    _commits(store, "m/d", [-10, 5])
    _releases(store, "m/d", [("v1.0", -5, "x")])  # data ends before t+H
    got = _resolve(
        store,
        "rocm_release_mention",
        [
            (1, "m/a", T0, 30, 1.0),
            (2, "m/b", T0, 30, 1.0),
            (3, "m/c", T0, 30, 1.0),
            (4, "m/d", T0, 30, 1.0),
            (5, "m/a", T0, 5, 1.0),
        ],
    )
    assert got[1][:2] == ("yes", 1.0) and "v1.1" in got[1][2]
    assert got[2][:2] == ("no", 0.0)  # 'hiphop' is not \bhip\b
    assert got[3][0] == "void" and "no release history" in got[3][2]
    assert got[4][0] == "void"
    assert got[5][0] == "no"  # the mention lands after t+H


def test_first_commit_rule(store):
    _commits(store, "f/new", list(range(-100, 61)), rocm_days={20, 40})
    _commits(store, "f/never", list(range(-100, 61)))
    _commits(store, "f/old", list(range(-100, 61)), rocm_days={-50})
    _commits(store, "f/late", list(range(-100, 61)), rocm_days={45})
    got = _resolve(
        store,
        "rocm_first_commit",
        [
            (1, "f/new", T0, 30, 1.0),
            (2, "f/never", T0, 30, 1.0),
            (3, "f/old", T0, 30, 1.0),
            (4, "f/late", T0, 30, 1.0),
            (5, "f/new", T0, 90, 1.0),
        ],
    )
    assert got[1][:2] == ("yes", 20.0)
    assert got[2][0] == "no"
    assert got[3][0] == "void" and "already" in got[3][2]
    assert got[4][:2] == ("no", 45.0)
    assert got[5][0] == "void"  # commit data ends on day 60 < t+90


def test_thresholds_are_a_real_rise_from_a_fixed_ladder():
    base = pd.DataFrame(
        {
            "share_90d": [0.0, 0.1, 0.5, 0.6, 0.7, np.nan],
            "has_release": [1] * 6,
            "ever_rocm": [0] * 6,
        }
    )
    rows = rocm_question_rows(base, "rocm_share_reach", 30)
    assert list(rows["threshold"]) == [0.01, 0.2, 0.8, 0.95]  # 0.7 has no level that high
    assert (rows["threshold"] >= 1.5 * rows["share_90d"] + 0.01 - 1e-12).all()


def test_features_do_not_read_past_the_origin(store):
    _commits(store, "p/x", list(range(-400, 1)), rocm_days=set(range(-60, 1, 3)))
    _releases(store, "p/x", [("v1.0", -30, "ROCm 6"), ("v0.9", -200, "cuda")])
    origins = pd.DataFrame({"repo": ["p/x"], "origin": [T0]})
    before = rocm.build_features(store.con, origins)
    # The future changes completely: ROCm commits every day and ROCm releases after t.
    future = pd.DataFrame(
        [
            {
                "repo": "p/x",
                "sha": f"future-{i}",
                "subject": "rocm",
                "committed_at": datetime.combine(T0 + timedelta(days=i), datetime.min.time()),
                "parents": 1,
                "is_mainline": True,
                "touches_rocm": True,
                "source": "history",
            }
            for i in range(1, 200)
        ]
    )
    store.upsert("commits", future)
    _releases(store, "p/x", [("v2.0", 1, "ROCm everywhere"), ("v2.1", 40, "more")])
    after = rocm.build_features(store.con, origins)
    columns = [*rocm.FEATURES, *rocm.YEAR_SHARE_COLUMNS]
    pd.testing.assert_frame_equal(before[columns], after[columns])
    assert before["share_90d"].iloc[0] > 0 and before["ever_rocm"].iloc[0] == 1
    asked = [rocm_question_rows(f, "rocm_share_reach", 90) for f in (before, after)]
    names = feature_names("rocm_share_reach")
    pd.testing.assert_frame_equal(asked[0][names], asked[1][names])


def test_share_reach_reads_the_year_of_shares_before_the_origin(store):
    """The threshold features against the trailing year's 90-day shares equal a direct count
    over the repository's daily share series; the model reads its chosen inputs only."""
    rocm_days = set(range(-300, -200, 2)) | set(range(-40, 1, 5))
    _commits(store, "p/y", list(range(-500, 1)), rocm_days=rocm_days)
    base = rocm.build_features(store.con, pd.DataFrame({"repo": ["p/y"], "origin": [T0]}))
    row = rocm_question_rows(base, "rocm_share_reach", 90).iloc[0]
    x = row["threshold"]
    series = rocm.share_series(store.con, "p/y", T0 - timedelta(days=364), T0)["share_90d"]
    assert len(series) == 365 and 0 < (series >= x).mean() < 1
    assert row["reached_365d"] == (series >= x).mean()
    assert np.isclose(
        row["log_max_365d_vs_threshold"], np.log((series.max() + 0.005) / (x + 0.005))
    )
    assert np.isclose(
        row["log_mean_365d_vs_threshold"], np.log((series.mean() + 0.005) / (x + 0.005))
    )
    spec = TEMPLATES["rocm_share_reach"]
    assert spec.base_features is not None
    names = feature_names("rocm_share_reach")
    assert names == [*spec.base_features, *spec.threshold_features]
    assert spec.logistic_c < 1.0
