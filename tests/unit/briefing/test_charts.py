"""Each chart kind rendered from a small store and inspected through matplotlib's objects
(issue 39, charts that read): the legend covers no plotted point, no two texts overprint, a
log axis has no zero, gaps are thin bands rather than half the chart, single-day events are
marked, and a card's chart draws its question's quantity with the threshold."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from support.chart_checks import covered_data, gap_share, overlapping_texts, visible_ticks

from shu.briefing.charts import (
    index_figure,
    pace_gaps,
    reliability_figure,
    rocm_figure,
    stories_figure,
    watch_figure,
)
from shu.briefing.compare import compare_figure, compare_frame
from shu.briefing.fan_chart import cards_figure, fan_figure
from shu.briefing.sections.calibration_watch import calibration_watch
from shu.signals import refresh_signals
from shu.signals.story_reads import story_of

DAY = date(2026, 2, 28)
HOLE = (DAY - timedelta(days=110), DAY - timedelta(days=99))  # twelve days without counts
SPIKE_OLD = DAY - timedelta(days=75)  # a single-day spike before the story's 56 days
SPIKE_NEW = DAY - timedelta(days=12)


def _gains(repo: str) -> list[float]:
    """Daily gains of 200 days to DAY: `big/fading` fast at first, then slow (its line high on
    the left, where a legend used to sit); `small/steady` small, losing stars for a stretch."""
    t = np.arange(200, dtype=float)
    if repo == "big/fading":
        gains = 40 + 260 * np.exp(-t / 25) + 5 * np.sin(t / 3)
    else:
        gains = 3 + 1.5 * np.sin(t / 5)
        gains[120:150] = -2.0  # a month of losses: its 28-day pace falls to zero and below
    return gains.tolist()


@pytest.fixture
def chart_store(store, settings):
    """Two repositories' counts with a hole and single-day spikes, and their real signals."""
    rows = []
    for repo in ("big/fading", "small/steady"):
        gains = _gains(repo)
        stars = 10_000.0 if repo == "big/fading" else 500.0
        for i, g in enumerate(gains):
            d = DAY - timedelta(days=199 - i)
            stars += g + (600 if repo == "big/fading" and d in (SPIKE_OLD, SPIKE_NEW) else 0)
            if not HOLE[0] <= d <= HOLE[1]:
                rows.append({"repo": repo, "day": d, "stars": round(stars), "source": "test"})
    store.upsert("stars_daily", pd.DataFrame(rows))
    refresh_signals(store, full=True, settings=settings)
    return store


def _assert_reads(fig) -> None:
    """No legend covers data and no two texts overprint, on every axes of `fig`."""
    for ax in fig.axes:
        assert not len(covered_data(ax)), f"legend covers data on {ax.get_title()!r}"
    assert overlapping_texts(fig) == []


def _markers_on(ax, day: date) -> bool:
    """Whether `ax` has a marker (▼) drawn at `day`."""
    return any(
        line.get_marker() == "v" and pd.Timestamp(day) in pd.to_datetime(line.get_xdata())
        for line in ax.get_lines()
    )


def test_stories_chart(chart_store):
    stories = [story_of(chart_store, r, DAY) for r in ("big/fading", "small/steady")]
    fig = stories_figure(chart_store, stories, DAY)
    _assert_reads(fig)
    big = fig.axes[0]
    # the spike in the story's window is its episode, shaded and marked as a single day; the
    # older one, outside the story, is marked as a single-day spike all the same
    assert _markers_on(big, SPIKE_NEW) and _markers_on(big, SPIKE_OLD)
    labels = big.get_legend_handles_labels()[1]
    assert "single-day spike" in labels
    assert any(label.startswith("spike ") for label in labels), labels


def test_fan_chart_of_a_velocity_question(chart_store):
    repo = "big/fading"
    con = chart_store.con
    for h, mid in ((7, 50.0), (30, 48.0), (90, 45.0)):
        con.execute(
            "INSERT INTO forecasts (forecast_id, repo, template, origin, horizon_days, "
            "resolves_on, threshold, question, probability) VALUES (?, ?, "
            "'star_velocity_interval', ?, ?, ?, 0, 'q', 0.8)",
            [f"iv-{h}", repo, DAY, h, DAY + timedelta(days=h)],
        )
        con.execute(
            "INSERT INTO forecast_intervals (forecast_id, quantity, unit, median, lower_50, "
            "upper_50, lower_80, upper_80, lower_95, upper_95) VALUES (?, 'velocity_28d', "
            "'stars/day', ?, ?, ?, ?, ?, ?, ?)",
            [f"iv-{h}", mid, mid - 3, mid + 3, mid - 6, mid + 6, mid - 10, mid + 10],
        )
    asked = {
        "template": "star_velocity_level",
        "threshold": 40.0,
        "origin": DAY,
        "resolves_on": DAY + timedelta(days=30),
        "probability": 0.7,
    }
    fig, drawn, title = fan_figure(chart_store, repo, DAY, 180, asked)
    assert drawn and "threshold asked" in title
    _assert_reads(fig)
    ax = fig.axes[0]
    (threshold,) = [c for c in ax.collections if c.get_label().startswith("asked:")]
    assert {y for seg in threshold.get_segments() for _, y in seg} == {40.0}
    # the hole is a thin band: it and the four weeks the pace is undefined after it cover a
    # small part of the chart, not half of it
    assert pace_gaps(chart_store, [repo], DAY - timedelta(days=180), DAY)
    assert 0 < gap_share(ax) < 0.05


def test_fan_chart_of_an_acceleration_question_draws_the_acceleration(chart_store):
    asked = {
        "template": "star_accel_reach",
        "threshold": 2.5,
        "origin": DAY,
        "resolves_on": DAY + timedelta(days=30),
        "probability": 0.3,
    }
    fig, drawn, title = fan_figure(chart_store, "big/fading", DAY, 180, asked)
    ax = fig.axes[0]
    assert not drawn and title.startswith("big/fading: 28-day star acceleration with")
    assert "acceleration" in ax.get_ylabel()
    (threshold,) = [c for c in ax.collections if c.get_label().startswith("asked: reaches")]
    assert {y for seg in threshold.get_segments() for _, y in seg} == {2.5}
    low, high = ax.get_ylim()
    assert low < 2.5 < high
    _assert_reads(fig)


def test_cards_small_multiples_draw_each_question_and_its_threshold(chart_store):
    """One panel per card: its question's quantity with the threshold asked (dashed), the alt
    text saying so of each; no legend on the data, no text overprinting."""
    asked = [
        (
            "big/fading",
            {
                "template": "star_velocity_level",
                "threshold": 40.0,
                "origin": DAY,
                "resolves_on": DAY + timedelta(days=30),
                "probability": 0.7,
            },
        ),
        (
            "small/steady",
            {
                "template": "star_accel_reach",
                "threshold": 0.5,
                "origin": DAY,
                "resolves_on": DAY + timedelta(days=30),
                "probability": 0.3,
            },
        ),
        ("big/fading", None),  # a card leading with its range alone: no threshold to draw
    ]
    fig, alt = cards_figure(chart_store, asked, DAY)
    _assert_reads(fig)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 3
    for ax, (_, question), words in zip(
        panels, asked, ("velocity", "acceleration", "velocity"), strict=True
    ):
        assert words in ax.get_title()
        dashed = [c for c in ax.collections if c.get_label() == "threshold asked"]
        if question is None:
            assert dashed == []
        else:
            (line,) = dashed
            assert {y for seg in line.get_segments() for _, y in seg} == {question["threshold"]}
    assert alt.count("the threshold asked (dashed)") == 2
    assert "big/fading: 28-day star velocity" in alt and "small/steady: 28-day star acc" in alt


def test_compare_chart_on_a_log_axis_has_no_zero(chart_store):
    repos = ["big/fading", "small/steady"]
    since = DAY - timedelta(days=180)
    frame = compare_frame(chart_store.con, repos, "velocity", since=since, until=DAY)
    gaps = pace_gaps(chart_store, repos, since, DAY)
    fig = compare_figure(frame, "velocity", gaps=gaps, span=(since, DAY))
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and "log scale" in ax.get_title()
    ticks = visible_ticks(ax.yaxis)
    assert ticks and min(ticks) > 0
    assert "0" not in [t.get_text() for t in ax.get_yticklabels()]
    left_out = int((frame["value"] <= 0).sum())
    assert left_out and f"({left_out} days at or below 0 not drawn)" in ax.get_title()
    _assert_reads(fig)
    assert gap_share(ax) < 0.05


def test_reliability_chart_counts_never_overprint():
    # 700 forecasts between 14% and 66%: ten bins whose points sit close together
    rng = np.random.default_rng(3)
    probabilities = np.sort(rng.uniform(0.14, 0.66, 700))
    pairs = [(float(p), int(rng.uniform() < p + 0.2)) for p in probabilities]
    fig = reliability_figure(pairs, "Track record")
    _assert_reads(fig)
    assert "10 bins of 70 each" in fig.axes[0].get_legend_handles_labels()[1][1]


def test_rocm_chart(filled, day):
    asked = {
        "repo": "acme/platform",
        "template": "rocm_share_reach",
        "threshold": 0.3,
        "origin": day,
        "resolves_on": day + timedelta(days=90),
        "probability": 0.4,
    }
    fig = rocm_figure(filled, asked, day)
    _assert_reads(fig)


def test_index_and_watch_charts(filled, day):
    _assert_reads(index_figure(filled, day))
    _assert_reads(watch_figure(calibration_watch(filled, day)))
