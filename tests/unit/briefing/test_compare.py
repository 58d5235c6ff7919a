"""`shu compare` and the forecast fan: charts with the table behind them, from a real store."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

import pandas as pd
import pytest

from shu.briefing.compare import compare_chart, compare_frame, fan_chart, summary_table
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
    assert table.loc["acme/platform", "value now"] == stored
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
    _, drawn = fan_chart(con, "acme/platform", day, tmp_path / "none.png")
    assert not drawn
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
    path, drawn = fan_chart(con, "acme/platform", day, tmp_path / "fan.png")
    assert drawn and path.read_bytes()[:8] == PNG
    from shu.briefing.sections.glance import summary_rows
    from shu.receipts import ReceiptBook

    rows = summary_rows(filled, ReceiptBook(), ["acme/platform"], [], day, day)["rows"]
    assert rows[0]["forecast"].startswith(
        f"velocity on {day + timedelta(days=30)}: median 13.00 (80%: 11.00 to 15.00) stars/day"
    )


def test_lines_break_at_gaps_instead_of_bridging_them():
    from shu.briefing.compare import _broken_at_gaps

    days = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-03-01", "2024-03-02"])
    days_out, values = _broken_at_gaps(pd.DataFrame({"day": days, "value": [1.0, 2, 3, 4]}))
    assert values.isna().sum() == 1
    assert days_out[values.isna()].iloc[0] == pd.Timestamp("2024-02-29")
