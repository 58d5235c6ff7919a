"""The "At a glance" section, the briefing's one-screen summary: each tracked repository in one
table row.

Per repository: its 28-day velocity and acceleration, the headline forecast (its probability,
or its median and 80% interval when an interval forecast is stored), and what changed since the
previous briefing (velocity and acceleration then and now, by the data day that briefing saw).
Every number cites its stored row through the receipt book.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from shu.briefing import facts as ev
from shu.briefing.compare import interval_forecasts
from shu.briefing.context import BriefingContext, Part
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md, safe_code, safe_inline
from shu.store import Store


def build(ctx: BriefingContext) -> Part:
    """The summary table."""
    summary = summary_rows(
        ctx.store, ctx.book, ctx.tracked, ctx.headline, ctx.as_of, ctx.day, ctx.synthetic
    )
    return Part(ctx.render("sections/glance.md.j2", summary=summary))


def previous_briefing(store: Store, day: date, synthetic: bool) -> dict[str, Any] | None:
    """The latest briefing before `day` of the same kind (real or synthetic), if any."""
    row = store.con.execute(
        "SELECT day, data_as_of FROM briefings WHERE day < ? AND is_synthetic = ? "
        "ORDER BY day DESC LIMIT 1",
        [day, synthetic],
    ).fetchone()
    return {"day": row[0], "as_of": row[1]} if row else None


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+,.2f}" if signed else f"{value:,.2f}"


def _ref(n: int) -> str:
    return f"[R{n}]" if n else ""


def summary_rows(
    store: Store,
    book: ReceiptBook,
    tracked: list[str],
    headline: list[dict],
    as_of: date,
    day: date,
    synthetic: bool = False,
) -> dict[str, Any]:
    """The summary table's rows and the previous briefing it compares with."""
    before = previous_briefing(store, day, synthetic)
    rows = []
    for repo in tracked:
        now = ev.latest_row(store, "star_signals", repo, as_of)
        cells = {
            "repo": Md(safe_code(repo)),
            "velocity": Md("—"),
            "acceleration": Md("—"),
            "forecast": Md("none issued"),
            "change": Md("first briefing" if not before else "—"),
        }
        if now is not None:
            key = {"repo": repo, "day": now["day"]}
            for name, col, signed in (
                ("velocity", "velocity_28d", False),
                ("acceleration", "acceleration_28d", True),
            ):
                if now[col] is not None:
                    r = book.row("star_signals", key, col, now[col], now["day"], f"{repo} {col}")
                    cells[name] = Md(f"{_fmt(now[col], signed)} {_ref(r)}")
        cells["forecast"] = _forecast_cell(store, book, repo, headline, as_of)
        if before and now is not None:
            cells["change"] = _change_cell(store, book, repo, now, before)
        rows.append(cells)
    return {"rows": rows, "before": before}


def _forecast_cell(
    store: Store, book: ReceiptBook, repo: str, headline: list[dict], as_of: date
) -> Md:
    fan = interval_forecasts(store.con, repo, as_of)
    if not fan.empty:
        near = fan.iloc[(fan["horizon_days"] - 30).abs().argsort().iloc[0]]
        return Md(
            f"velocity on {near['resolves_on'].date()}: median {_fmt(near['median'])} "
            f"(80%: {_fmt(near['lower_80'])} to {_fmt(near['upper_80'])}) "
            f"{safe_inline(near['unit'])}"
        )
    f = next((h for h in headline if h["repo"] == repo), None)
    if f is None:
        return Md("none issued")
    r = book.row(
        "forecasts",
        {"forecast_id": f["forecast_id"]},
        "probability",
        f["probability"],
        f["origin"],
        f"{repo} probability",
    )
    x, on = f["threshold"], f["resolves_on"]
    question = {
        "star_accel_reach": f"acceleration reaches ≥ {_fmt(x, signed=True)} by {on}",
        "star_velocity_up": f"velocity above {_fmt(x)} on {on}",
        "star_gain": f"gains ≥ {x:,.0f} stars by {on}",
        "commit_velocity_up": f"commit velocity above {_fmt(x)} on {on}",
        "release_within": f"a release by {on}",
    }.get(f["template"], f"{safe_code(f['template'])} by {on}")
    return Md(f"{question}: P(yes) {100 * f['probability']:.0f}% {_ref(r)}")


def _change_cell(
    store: Store, book: ReceiptBook, repo: str, now: dict, before: dict[str, Any]
) -> Md:
    then = ev.latest_row(store, "star_signals", repo, before["as_of"])
    if then is None or then["day"] == now["day"]:
        return Md(f"no new data since the {before['day']} briefing")
    parts = []
    for label, col in (("velocity", "velocity_28d"), ("acceleration", "acceleration_28d")):
        if then[col] is None or now[col] is None:
            continue
        r = book.row(
            "star_signals",
            {"repo": repo, "day": then["day"]},
            col,
            then[col],
            then["day"],
            f"{repo} {col} at the previous briefing",
        )
        parts.append(
            f"{label} {_fmt(now[col] - then[col], signed=True)} (was "
            f"{_fmt(then[col], label == 'acceleration')} {_ref(r)})"
        )
    if not parts:
        return Md(f"undefined then or now (data gap) since the {before['day']} briefing")
    return Md("; ".join(parts) + f" since the {before['day']} briefing")
