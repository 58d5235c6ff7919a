"""The synthetic demo sample: deterministic, clearly labelled, and truncatable to a past day."""

from __future__ import annotations

import json
from datetime import date, timedelta

from shu.receipts import ReceiptBook, resolve
from shu.testing.demo_sample import as_of, synthetic_sample

END = date(2026, 3, 1)


def test_same_seed_same_sample_other_seed_other_sample() -> None:
    a, b = synthetic_sample(END, seed=3), synthetic_sample(END, seed=3)
    assert [r.star_counts for r in a.repos] == [r.star_counts for r in b.repos]
    assert a.notes == b.notes
    c = synthetic_sample(END, seed=4)
    assert [r.star_counts for r in a.repos] != [r.star_counts for r in c.repos]


def test_sample_is_labelled_synthetic_everywhere() -> None:
    sample = synthetic_sample(END)
    assert all(r.full_name.startswith("synthetic-demo/") for r in sample.repos)
    assert all("SYNTHETIC" in (r.description or "") for r in sample.repos)
    assert all("SYNTHETIC" in text for text in sample.notes.values())
    assert "SYNTHETIC" in sample.probe["environment"]["device_name"]
    for repo in sample.repos:
        counts = [n for _, n in repo.star_counts]
        assert counts == sorted(counts)  # cumulative
        assert repo.star_counts[-1][0] == END
        assert repo.commits and repo.releases


def test_as_of_hides_the_future() -> None:
    repo = synthetic_sample(END).repos[0]
    day = END - timedelta(days=30)
    past = as_of(repo, day)
    assert past.star_counts[-1][0] == day
    assert all(c.committed_at.date() <= day for c in past.commits)
    assert all(r.published_at.date() <= day for r in past.releases)
    assert len(past.commits) < len(repo.commits)
    assert repo.star_counts[-1][0] == END  # the original is untouched


def test_probe_document_is_accepted_by_the_probe_ingest(store, tmp_path) -> None:
    from shu.probe_ingest import ingest_probe_file

    path = tmp_path / "probe.json"
    path.write_text(json.dumps(synthetic_sample(END).probe))
    load = ingest_probe_file(store, path)
    assert load.rows_inserted == 7
    run = store.con.execute("SELECT backend, device_name, n_valid FROM probe_runs").fetchone()
    assert run == ("cpu", "SYNTHETIC demo CPU", 6)


def test_file_receipts_resolve_against_the_json_they_cite(store, tmp_path) -> None:
    card = tmp_path / "forecaster.json"
    card.write_text(
        json.dumps(
            {
                "backtest": {
                    "slices": {
                        "t/30": {
                            "bands": [
                                {"band": "low", "hit_rate": 0.6},
                                {"band": "high", "hit_rate": 0.83},
                            ]
                        }
                    }
                }
            }
        )
    )
    book = ReceiptBook()
    pointer = ["backtest", "slices", "t/30", "bands", {"band": "high"}, "hit_rate"]
    good = book.get(book.file(str(card), pointer, 0.83))
    bad = book.get(book.file(str(card), pointer, 0.9))
    assert resolve(store, good) is None
    assert resolve(store, bad) is not None
