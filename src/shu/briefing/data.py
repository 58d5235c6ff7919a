"""The briefing as data: `reports/DATE.json` beside the markdown, what a Slack bot or a notebook
reads instead of parsing prose.

Top-level keys (each section contributes its own through `Part.data`):
- `at_a_glance`: the At a glance sentences (markdown, receipts as `[Rn]`);
- `field`: the field by category (`shu.signals.field.FieldView.as_json`): per category of the
  field watchlist its share of the watchlist's 28-day gain now / 28 days before / a year before
  (each with its receipt and the repositories counted), its top movers by the pace underneath,
  the windows' repositories not counted and those without counts in the store;
- `stories`: per tracked repository what moved its star pace (`kind`, its sentence, the 28-day,
  7-day and ordinary paces, the episodes: bursts and removals with their days and effect, and
  `store_wide`: its runs on store-wide event days, which its story does not claim);
- `store_wide_events`: the days the whole store spiked or lost stars that a tracked story set
  aside (`day`, `kind`, `repos`, the `ordinary` day's count, the `tracked` repositories);
- `since_last_briefing`: the chances that moved 10 points or more, the repositories new on the
  radar and the forecasts resolved since the previous briefing; null on a first briefing;
- `cards`: per card `repo`, `kind` ("star" or "rocm"), `template`, `horizon`, `question` (the
  stored question, or null when the card leads with its interval alone) and
  `question_in_words`, the question as `quantity` `comparator` `threshold` (e.g.
  "velocity_28d on resolves_on" ">" 4.54), `probability`, `base_rate`, `declared`, `skill`
  (demonstrated or not, and why), `reasons` (the reasons shown, each with its contribution in
  log-odds and the chance without it), `interval` (its forecast id, median and the 50/80/95%
  bounds of the 28-day velocity on `resolves_on`) or null, `forecast_id`;
- `radar`: the "Breaking out" section's candidates, each `repo`, `probability`,
  `velocity_28d` (plus `origin`, `horizon`, `bar`, `forecast_id` and the drivers in words);
- `claims`: each `text`, `source` (the document's location, or "built-in" for a configured
  claim), `verdict`, `evidence`;
- `calibration_watch`: the calibration watch as plain data
  (`sections.calibration_watch.calibration_watch`), or null;
- `track_record`: the rolling scores, interval coverage, what resolved since the last
  briefing, and the radar's own record (`radar`: precision@k and Brier with their intervals);
- `left_out`: the sections left out of the body for having nothing to say, each "Heading (why)"
  as the appendix's first line names them (an empty list when none was);
- `notes`: why a key holds an empty list or null, when it does; plus `day`, `data_as_of`,
  `title`, `generated_at` and `synthetic`.

A key no section provides is an empty list or null; nothing is invented.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime
from pathlib import Path
from typing import Any

from shu.briefing.context import BriefingContext, Part
from shu.store import utcnow

KEYS = (
    "at_a_glance",
    "field",
    "stories",
    "since_last_briefing",
    "cards",
    "radar",
    "claims",
    "calibration_watch",
    "track_record",
)
LISTS = ("at_a_glance", "stories", "cards", "claims")


def briefing_data(ctx: BriefingContext, parts: list[Part]) -> dict[str, Any]:
    """The JSON document of the briefing whose sections built `parts`."""
    doc: dict[str, Any] = {
        "day": ctx.as_of,
        "data_as_of": ctx.data_through,
        "title": ctx.title,
        "generated_at": utcnow().replace(microsecond=0),
        "synthetic": ctx.synthetic,
    }
    notes: dict[str, str] = {}
    for part in parts:
        for key, value in part.data.items():
            if key == "notes":
                notes.update(value)
            elif isinstance(doc.get(key), list) and isinstance(value, list):
                doc[key] += value
            else:
                doc[key] = value
    for key in KEYS:
        doc.setdefault(key, [] if key in LISTS else None)
    doc["left_out"] = [part.left_out for part in parts if part.left_out]
    doc["notes"] = notes
    return doc


def write_data(path: Path, doc: dict[str, Any]) -> Path:
    """Write `doc` as JSON to `path` (dates as ISO text, NaN as null)."""
    path.write_text(json.dumps(_plain(doc), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float):
        return None if math.isnan(value) else value
    return value
