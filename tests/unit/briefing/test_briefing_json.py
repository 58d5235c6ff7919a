"""Each briefing writes reports/DATE.json beside the markdown: cards, radar, claims, calibration
watch and track record as plain data, with a note wherever a key is empty and why."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta

import pandas as pd
from support.cli import shu
from support.forecast_data import breakout_forecasts

from shu.briefing.compose import compose_briefing
from shu.evidence.document_claims import refresh_claims


def _add_document_claim(store, location: str = "notes/claims.md") -> None:
    text = "On CPU, torch.compile gives a 2.5x speedup over eager for softmax."
    store.upsert(
        "documents",
        pd.DataFrame(
            [
                {
                    "doc_id": "c1",
                    "location": location,
                    "title": "Compiler claims",
                    "published_on": date(2026, 2, 10),
                    "content_hash": "c1",
                    "format": "markdown",
                    "text": text,
                }
            ]
        ),
    )
    store.upsert("passages", pd.DataFrame([{"doc_id": "c1", "passage_no": 0, "text": text}]))
    assert refresh_claims(store, ["c1"]) >= 1


def _add_breakouts(store, day) -> None:
    store.upsert(
        "star_signals",
        pd.DataFrame(
            [
                {
                    "repo": "rising/llm-star",
                    "day": day,
                    "stars": 900,
                    "velocity_28d": 12.5,
                    "gap": False,
                }
            ]
        ),
    )
    # the second is tracked
    store.upsert(
        "forecasts", breakout_forecasts(day, {"rising/llm-star": 0.31, "acme/platform": 0.55})
    )


def test_briefing_json_has_every_key_in_shape(filled, settings, day):
    _add_document_claim(filled)
    result = compose_briefing(filled, day, settings)
    doc = json.loads(result.path.with_suffix(".json").read_text())
    assert {"cards", "radar", "claims", "calibration_watch", "track_record"} <= set(doc)
    assert doc["day"] == str(day) and doc["title"] == result.title
    assert len(doc["cards"]) == result.n_forecasts == 3
    for card in doc["cards"]:
        assert {
            "repo",
            "template",
            "horizon",
            "question",
            "probability",
            "declared",
            "interval",
        } <= set(card)
        assert card["declared"] is False and 0.1 <= card["probability"] <= 0.9
        assert card["template"] == "star_accel_reach" and card["horizon"] == 30
        assert card["base_rate"] == 0.45 and card["skill"]["demonstrated"] is True
        # the word the card says: 72% yes, no backtest record, 3 resolved (too few to weigh)
        assert card["confidence"] == "medium"
        assert card["interval"] is None  # the sample stores no interval forecast
        # the question as data: "acceleration_28d on some day up to resolves_on >= 0.5"
        assert (card["threshold"], card["comparator"]) == (0.5, ">=")
        assert card["quantity"] == "acceleration_28d on some day up to resolves_on"
        assert card["question_in_words"].startswith(f"Will {card['repo']}'s 28-day star")
        # the reasons shown add up to the answer's direction (here above the base rate)
        assert card["reasons"] and sum(r["contribution"] for r in card["reasons"]) > 0
    assert {c["repo"] for c in doc["cards"]} == {r.repo for r in settings.repos}
    # At a glance in words (its story, with what it means, and the furthest forecast: nothing of
    # shu's own bookkeeping), the stories, and nothing since a last briefing on a first one
    assert len(doc["at_a_glance"]) == 2 and "largest 28-day fall" in doc["at_a_glance"][0]
    # the track record's reliability by tenths of probability, and the widest gap (none named:
    # no tenth holds 20 answers)
    tenths = doc["track_record"]["tenths"]
    assert sum(t["n"] for t in tenths) == doc["track_record"]["n"] == 6
    assert doc["track_record"]["widest_gap"] is None
    assert doc["stories"][0]["repo"] == "acme/runtime"
    assert doc["stories"][0]["kind"] == "pace_down"
    assert all(isinstance(s["spikes"], list) for s in doc["stories"])
    assert doc["since_last_briefing"] is None and "first" in doc["notes"]["since_last_briefing"]
    built_in = [c for c in doc["claims"] if c["source"] == "built-in"]
    from_documents = [c for c in doc["claims"] if c["source"] == "notes/claims.md"]
    assert built_in and from_documents
    for claim in doc["claims"]:
        assert {"text", "source", "verdict"} <= set(claim) and claim["text"]
    assert "2.5x" in from_documents[0]["text"]
    track = doc["track_record"]
    assert track["n"] == 6 and track["window_days"] == 90 and track["brier"] is not None
    assert {b["band"] for b in track["bands"]} <= {"low", "medium", "high"}
    # nothing is invented: empty keys say why
    assert doc["radar"] == [] and "ranking_files" in doc["notes"]["radar"]
    watch = doc["calibration_watch"]
    assert watch["window_days"] == 56 and {"yes_no", "intervals", "lines"} <= set(watch)


def test_radar_holds_the_stored_breakout_forecasts_of_untracked_repositories(
    filled, settings, day, tmp_path
):
    """The sidecar's radar entries are `shu radar --json`'s, in one shape (receipts included)."""
    _add_breakouts(filled, day)
    doc = json.loads(compose_briefing(filled, day, settings).path.with_suffix(".json").read_text())
    (entry,) = doc["radar"]
    assert entry | {"receipts": None} == {
        "repo": "rising/llm-star",
        "origin": str(day),
        "horizon_days": 30,
        "resolves_on": str(day + timedelta(days=30)),  # as `breakout_forecasts` stores it
        "probability": 0.31,
        "bar": 10.0,
        "velocity_28d": 12.5,
        "velocity_7d": None,
        "forecast_id": "b-rising/llm-star",
        "model_version": entry["model_version"],
        "drivers": [],
        "receipts": None,
    }
    assert [r["table"] for r in entry["receipts"]] == ["forecasts", "star_signals"]
    filled.con.execute("CHECKPOINT")
    copy = tmp_path / "copy.duckdb"  # the fixture's connection holds the original's lock
    shutil.copy(filled.path, copy)
    tracked = json.dumps([{"repo": r.repo, "category": r.category} for r in settings.repos])
    listed = shu("radar", "--json", "--as-of", str(day), db=copy, SHU_REPOS=tracked)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == doc["radar"]
    assert "radar" not in doc["notes"]


def test_a_claim_source_under_the_working_directory_is_written_relative(
    filled, settings, day, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # a document ingested by its absolute path names no machine path
    _add_document_claim(filled, str(tmp_path / "notes" / "claims.md"))
    doc = json.loads(compose_briefing(filled, day, settings).path.with_suffix(".json").read_text())
    assert {c["source"] for c in doc["claims"]} - {"built-in"} == {"notes/claims.md"}
