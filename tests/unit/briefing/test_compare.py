"""`shu compare` and the forecast fan: charts with the table behind them, from a real store."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, timedelta

import pandas as pd
import pytest

from shu.briefing.compare import compare_chart, compare_frame, summary_table
from shu.briefing.fan_chart import fan_chart
from shu.errors import InputError

PNG = b"\x89PNG\r\n\x1a\n"


def test_compare_frame_and_table(filled, day):
    frame = compare_frame(
        filled.con, ["acme/platform", "acme/runtime"], "stars", since=day - timedelta(days=30)
    )
    assert set(frame["repo"]) == {"acme/platform", "acme/runtime"}
    assert frame["day"].min().date() == day - timedelta(days=30)
    table = summary_table(frame).set_index("repo")
    stored = filled.con.execute(
        "SELECT stars FROM star_signals WHERE repo = 'acme/platform' AND day = ?", [day]
    ).fetchone()[0]
    assert table.loc["acme/platform", "value_now"] == stored
    assert table.loc["acme/platform", "change"] > 0
    with pytest.raises(InputError, match="no star signals for nope/nope"):
        compare_frame(filled.con, ["acme/platform", "nope/nope"], "velocity")
    with pytest.raises(InputError, match="--metric 'forks'"):
        compare_frame(filled.con, ["acme/platform"], "forks")


def test_compare_chart_is_a_png(filled, tmp_path):
    frame = compare_frame(filled.con, ["acme/platform", "acme/other-platform"], "acceleration")
    path = compare_chart(frame, "acceleration", tmp_path / "c.png", log=True)
    assert path.read_bytes()[:8] == PNG


def test_shu_compare_prints_the_table_and_writes_png_and_csv(filled, tmp_path):
    """--from/--to for the range, --out the folder, names matched case-insensitively; piped,
    the table keeps every name and date whole (COLUMNS is left at 80)."""
    db = filled.path
    filled.close()
    out = tmp_path / "charts"

    def compare(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "shu", "compare", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            env={**_env(), "COLUMNS": "80"},
        )

    proc = compare(
        "ACME/Platform",
        "acme/other-platform",
        "--metric",
        "velocity",
        "--from",
        "2026-01-01",
        "--log",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "acme/platform" in proc.stdout and "acme/other-platform" in proc.stdout
    assert "value now" in proc.stdout and "…" not in proc.stdout
    assert "2026-01-01" in proc.stdout
    png = out / "compare-velocity.png"
    assert png.read_bytes()[:8] == PNG
    data = pd.read_csv(png.with_suffix(".csv"))
    assert list(data.columns) == ["repo", "day", "value"]
    assert data["day"].min() == "2026-01-01"
    assert set(data["repo"]) == {"acme/platform", "acme/other-platform"}
    old = compare("acme/platform", "--since", "2026-02-01", "--to", "2026-02-10", "--out", str(out))
    assert old.returncode == 0, old.stderr  # the older spelling still works
    data = pd.read_csv(png.with_suffix(".csv"))
    assert (data["day"].min(), data["day"].max()) == ("2026-02-01", "2026-02-10")
    bad = compare("acme/platform", "--from", "yesterday")
    assert bad.returncode == 1 and "--from 'yesterday'" in bad.stderr
    bad = compare("acme/platform", "--out", str(tmp_path / "c.png"))
    assert bad.returncode == 1 and "--out is the folder" in bad.stderr
    bad = compare("not a repo")
    assert bad.returncode == 1 and "expected owner/name" in bad.stderr


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_fan_appears_when_interval_forecasts_are_stored(filled, day, tmp_path):
    con = filled.con
    _, drawn, title = fan_chart(filled, "acme/platform", day, tmp_path / "none.png")
    assert not drawn and title.endswith("(no interval forecast stored), to 2026-02-28")
    # The interval table (`forecast_intervals`); created here if the schema lacks it.
    con.execute("""CREATE TABLE IF NOT EXISTS forecast_intervals (forecast_id VARCHAR PRIMARY KEY,
        quantity VARCHAR, unit VARCHAR, median DOUBLE, lower_50 DOUBLE, upper_50 DOUBLE,
        lower_80 DOUBLE, upper_80 DOUBLE, lower_95 DOUBLE, upper_95 DOUBLE)""")
    for h, mid in ((7, 12.0), (30, 13.0), (90, 15.0)):
        fid = f"iv-{h}"
        con.execute(
            "INSERT INTO forecasts (forecast_id, repo, template, origin, horizon_days, "
            "resolves_on, threshold, question, probability) VALUES (?, 'acme/platform',"
            " 'star_velocity_interval', ?, ?, ?, 0, 'q', 0.8)",
            [fid, day, h, day + timedelta(days=h)],
        )
        con.execute(
            "INSERT INTO forecast_intervals VALUES (?, 'velocity_28d', 'stars/day', ?, "
            "?, ?, ?, ?, ?, ?)",
            [fid, mid, mid - 1, mid + 1, mid - 2, mid + 2, mid - 4, mid + 4],
        )
    path, drawn, title = fan_chart(filled, "acme/platform", day, tmp_path / "fan.png")
    assert drawn and path.read_bytes()[:8] == PNG
    assert title == "acme/platform: 28-day star velocity with its forecast fan, to 2026-02-28"
    # A question about the velocity on its day: its threshold is drawn, and the title says so.
    asked = {
        "template": "star_velocity_up",
        "threshold": 12.4,
        "origin": day,
        "resolves_on": day + timedelta(days=30),
        "probability": 0.44,
    }
    _, _, title = fan_chart(filled, "acme/platform", day, tmp_path / "q.png", question=asked)
    assert title.endswith("with its forecast fan and the threshold asked (dashed), to 2026-02-28")
    # A question about the acceleration: the chart draws the acceleration and its threshold,
    # not the velocity's fan (the question's own quantity, issue 39)
    other = asked | {"template": "star_accel_reach", "threshold": 0.5}
    _, drawn, title = fan_chart(filled, "acme/platform", day, tmp_path / "a.png", question=other)
    assert not drawn
    assert title == (
        "acme/platform: 28-day star acceleration with the threshold asked (dashed), to 2026-02-28"
    )


def test_a_log_axis_where_the_series_differ_tenfold():
    import pandas as pd

    from shu.briefing.compare import needs_log

    def frame(levels: dict[str, float]) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {"repo": r, "day": pd.Timestamp(2026, 2, d), "value": v + d / 10}
                for r, v in levels.items()
                for d in range(1, 20)
            ]
        )

    assert needs_log(frame({"big/one": 87.0, "small/one": 4.5}))  # ollama against keras: 19x
    assert not needs_log(frame({"big/one": 87.0, "mid/one": 22.7}))  # ollama against LocalAI
    assert not needs_log(frame({"only/one": 5.0}))


def test_gaps_in_the_star_counts_are_found_and_named(store, settings):
    import pandas as pd

    from shu.briefing.charts import pace_gaps
    from shu.signals import refresh_signals

    days = [date(2025, 9, 1) + timedelta(days=i) for i in range(120)]
    hole = (date(2025, 10, 13), date(2025, 10, 22))  # ten days without a count
    seen = [d for d in days if not hole[0] <= d <= hole[1]]
    store.upsert(
        "stars_daily",
        pd.DataFrame(
            {"repo": "gap/repo", "day": seen, "stars": [1000 + 5 * i for i in range(len(seen))]}
        ).assign(source="test"),
    )
    refresh_signals(store, full=True, settings=settings)
    gaps = pace_gaps(store, ["gap/repo"], date(2025, 10, 1), date(2025, 12, 29))
    assert len(gaps) == 1
    assert gaps[0].missing == hole
    # a count holds for 7 days after it is seen (to 19 Oct); the 28-day window then spans the
    # hole until 28 days after the first count after it (23 Oct)
    assert (gaps[0].first, gaps[0].last) == (date(2025, 10, 20), date(2025, 11, 19))
    assert gaps[0].label() == "no star counts 13–22 Oct 2025: 28-day pace undefined to 19 Nov 2025"
    # a chart window that opens inside the undefined stretch names it too (the counts before
    # the window explain it), so a chart's first days are never blank without a word
    opening = pace_gaps(store, ["gap/repo"], date(2025, 11, 1), date(2025, 12, 29))
    assert [(g.first, g.last, g.missing) for g in opening] == [
        (date(2025, 11, 1), date(2025, 11, 19), hole)
    ]
    # a repository whose history starts inside the window has no gap before it
    assert pace_gaps(store, ["gap/repo"], date(2025, 8, 1), date(2025, 9, 30)) == []


def test_lines_break_at_gaps_instead_of_bridging_them():
    from shu.briefing.charts import broken_at_gaps

    days = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-03-01", "2024-03-02"])
    days_out, values = broken_at_gaps(pd.DataFrame({"day": days, "value": [1.0, 2, 3, 4]}))
    assert values.isna().sum() == 1
    assert days_out[values.isna()].iloc[0] == pd.Timestamp("2024-02-29")
