"""Resolution rules on hand-built signal rows: yes, no and void for every template."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pandas as pd
import pytest

from shu.errors import InputError
from shu.forecast.questions.registry import TEMPLATES, template
from shu.forecast.questions.resolution import resolve_questions
from shu.forecast.questions.star import ACCEL_LADDER

T0 = date(2024, 3, 1)


def _signals(store, repo, accel, velocity=None, stars=None, table="star_signals"):
    """Rows for days T0 .. T0+len-1 (None = no row that day)."""
    rows = []
    for i, a in enumerate(accel):
        if a is None:
            continue
        row = {
            "repo": repo,
            "day": T0 + timedelta(days=i),
            "acceleration_28d": a,
            "velocity_28d": velocity[i] if velocity else 1.0,
        }
        if table == "star_signals":
            row["stars"] = stars[i] if stars else 100 + i
        rows.append(row)
    store.upsert(table, pd.DataFrame(rows))


def _resolve(store, name, questions):
    frame = pd.DataFrame(questions, columns=["qid", "repo", "origin", "horizon_days", "threshold"])
    store.con.register("_q_df", frame)
    store.con.execute(
        "CREATE OR REPLACE TEMP TABLE q AS SELECT qid, repo, origin::DATE AS "
        "origin, horizon_days::INTEGER AS horizon_days, threshold FROM _q_df"
    )
    out = resolve_questions(store.con, name, "q").set_index("qid")
    return {k: (r["outcome"], r["observed_value"]) for k, r in out.iterrows()}


def test_accel_reach_first_passage_yes_no_void(store):
    _signals(store, "a/yes", [0.0, 0.2, 1.6, 0.1, 0.0])  # reaches 1.5 on day 2
    _signals(store, "a/no", [0.0, 0.2, 1.4, 0.1, 0.0])  # never reaches 1.5
    _signals(store, "a/gap", [0.0, 0.2, None, 0.1, 0.0])  # a missing day, not reached
    _signals(store, "a/gapyes", [0.0, None, 2.0, 0.1, 0.0])  # missing day, reached: still void
    got = _resolve(
        store,
        "star_accel_reach",
        [
            (1, "a/yes", T0, 4, 1.5),
            (2, "a/no", T0, 4, 1.5),
            (3, "a/gap", T0, 4, 1.5),
            (4, "a/gapyes", T0, 4, 1.5),
            (5, "a/none", T0, 4, 1.5),
        ],
    )
    assert got[1] == ("yes", 1.6)
    assert got[2] == ("no", 1.4)
    assert got[3][0] == "void"
    assert got[4][0] == "void"  # voiding never depends on the outcome
    assert got[5][0] == "void"


def test_velocity_up_at_horizon(store):
    _signals(store, "v/up", [0, 0, 0], velocity=[2.0, 1.0, 2.5])
    _signals(store, "v/flat", [0, 0, 0], velocity=[2.0, 1.0, 2.0])
    _signals(store, "v/gone", [0, 0, None], velocity=[2.0, 1.0, 3.0])
    got = _resolve(
        store,
        "star_velocity_up",
        [(1, "v/up", T0, 2, 2.0), (2, "v/flat", T0, 2, 2.0), (3, "v/gone", T0, 2, 2.0)],
    )
    assert got[1] == ("yes", 2.5)
    assert got[2] == ("no", 2.0)  # equal is not above
    assert got[3][0] == "void"


def test_star_gain(store):
    _signals(store, "g/x", [0, 0, 0], stars=[100, 130, 150])
    got = _resolve(
        store, "star_gain", [(1, "g/x", T0, 2, 50), (2, "g/x", T0, 2, 51), (3, "g/x", T0, 3, 1)]
    )
    assert got[1] == ("yes", 50.0)
    assert got[2] == ("no", 50.0)
    assert got[3][0] == "void"


def test_release_within_needs_release_history(store):
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {"repo": "r/x", "tag": "v1", "published_at": datetime(2024, 1, 5, 12)},
                {"repo": "r/x", "tag": "v2", "published_at": datetime(2024, 3, 4, 23, 59)},
            ]
        ),
    )
    got = _resolve(
        store,
        "release_within",
        [
            (1, "r/x", T0, 3, 1),
            (2, "r/x", T0, 2, 1),
            (3, "r/new", T0, 3, 1),
            (4, "r/x", date(2024, 3, 4), 5, 1),
        ],
    )
    assert got[1] == ("yes", 1.0)  # v2 on day 3 of (t, t+3]
    assert got[2] == ("no", 0.0)
    assert got[3][0] == "void"  # nothing known about r/new's releases
    assert got[4] == ("no", 0.0)  # published on the origin day itself is not in (t, t+H]


def test_commit_velocity_up_voids_gaps(store):
    store.upsert(
        "commit_signals",
        pd.DataFrame(
            [
                {"repo": "c/x", "day": T0, "commit_velocity_28d": 1.0, "gap": False},
                {
                    "repo": "c/x",
                    "day": T0 + timedelta(days=7),
                    "commit_velocity_28d": 2.0,
                    "gap": False,
                },
                {"repo": "c/y", "day": T0, "commit_velocity_28d": 1.0, "gap": False},
                {
                    "repo": "c/y",
                    "day": T0 + timedelta(days=7),
                    "commit_velocity_28d": 2.0,
                    "gap": True,
                },
            ]
        ),
    )
    got = _resolve(store, "commit_velocity_up", [(1, "c/x", T0, 7, 1.0), (2, "c/y", T0, 7, 1.0)])
    assert got[1] == ("yes", 2.0)
    assert got[2][0] == "void"


def test_thresholds_and_wording(store):
    store.con.execute(
        "CREATE TEMP TABLE st AS SELECT * FROM (VALUES (0.7, 4.3, 0.5), "
        "(-0.05, 0.2, NULL), (6000.0, 1.0, 100.0), (0.0, 19.0, 2.0), "
        "(2.1, 100.0, 0.05)) t(acceleration_28d, velocity_28d, accel_sd_91d)"
    )
    from shu.forecast.questions.registry import threshold_sql

    got = store.con.execute(
        f"SELECT {threshold_sql('star_accel_reach', 'st')}, "
        f"{threshold_sql('star_accel_fall', 'st')}, "
        f"{threshold_sql('star_velocity_level', 'st')}, "
        f"{threshold_sql('star_gain', 'st', '30')} FROM st"
    ).fetchall()
    # reach: 0 when negative (turns positive?), else the ladder level nearest a one-sd rise,
    # at least two steps up; fall mirrors it; velocity level: nearest round level, not the one
    # just above (19 -> 10, not 20)
    assert got == [
        (1.5, 0.0, 5.0, 200.0),
        (0.0, -0.2, 0.2, 10.0),
        (None, 0.0, 1.0, 50.0),
        (2.0, -2.0, 10.0, 1000.0),
        (5.0, 0.0, 100.0, 5000.0),
    ]
    assert list(ACCEL_LADDER) == sorted(ACCEL_LADDER)
    text = TEMPLATES["star_accel_reach"].question("pytorch/pytorch", T0, 30, 1.5)
    assert text == (
        "Will the 28-day star acceleration of pytorch/pytorch reach >= +1.50 "
        "stars/day on any day in (2024-03-01, 2024-03-31]?"
    )
    with pytest.raises(InputError, match="unknown template"):
        template("nope")


def test_no_threshold_is_the_next_step_above_today(store):
    values = [-7.3, -1.2, -0.05, 0.0, 0.04, 0.3, 1.2, 4.0, 17.0, 260.0]
    store.con.execute(
        "CREATE TEMP TABLE st (acceleration_28d DOUBLE, velocity_28d DOUBLE, accel_sd_91d DOUBLE)"
    )
    store.con.executemany(
        "INSERT INTO st VALUES (?, ?, ?)",
        [[a, abs(a) * 3 + 0.7, sd] for a in values for sd in (None, 0.1, 3.0)],
    )
    from shu.forecast.questions.registry import threshold_sql
    from shu.forecast.questions.star import VELOCITY_LEVELS

    rows = store.con.execute(
        f"SELECT acceleration_28d, velocity_28d, "
        f"{threshold_sql('star_accel_reach', 'st')}, "
        f"{threshold_sql('star_velocity_level', 'st')} FROM st"
    ).fetchall()
    for accel, velocity, reach, level in rows:
        next_accel = min(x for x in ACCEL_LADDER if x > accel)
        assert reach != next_accel or (accel < 0 and reach == 0.0)
        next_level = min(x for x in VELOCITY_LEVELS if x > velocity)
        assert level != next_level or next_level > velocity * 1.1


def test_accel_fall_first_passage(store):
    _signals(store, "f/yes", [0.5, 0.2, -0.1, 0.1, 0.3])  # falls to <= 0 on day 2
    _signals(store, "f/no", [0.5, 0.2, 0.1, 0.1, 0.3])
    _signals(store, "f/gap", [0.5, None, -0.5, 0.1, 0.3])  # reached, but a day is missing
    got = _resolve(
        store,
        "star_accel_fall",
        [(1, "f/yes", T0, 4, 0.0), (2, "f/no", T0, 4, 0.0), (3, "f/gap", T0, 4, 0.0)],
    )
    assert got[1] == ("yes", -0.1)
    assert got[2] == ("no", 0.1)
    assert got[3][0] == "void"


def test_velocity_level_at_horizon(store):
    _signals(store, "l/above", [0, 0, 0], velocity=[4.3, 1.0, 5.5])
    _signals(store, "l/equal", [0, 0, 0], velocity=[4.3, 1.0, 5.0])
    _signals(store, "l/gone", [0, 0, None], velocity=[4.3, 1.0, 9.0])
    got = _resolve(
        store,
        "star_velocity_level",
        [(1, "l/above", T0, 2, 5.0), (2, "l/equal", T0, 2, 5.0), (3, "l/gone", T0, 2, 5.0)],
    )
    assert got[1] == ("yes", 5.5)
    assert got[2] == ("no", 5.0)  # equal is not above
    assert got[3][0] == "void"
