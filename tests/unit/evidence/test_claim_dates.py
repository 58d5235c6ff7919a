"""Claims dated honestly, on stores holding the committed H100/H200 probe runs: a check for a
dated briefing uses the latest run made by that day and says how far its run lies from the day,
names a run made after the day as not known on it, and a geomean claim is judged without the
kernel Inductor substituted (SDPA for naive_attention), saying when only that carries it."""

from __future__ import annotations

import copy
import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from shu.briefing.sections.claims import claims_section
from shu.evidence.checked_claims import configured_checks
from shu.evidence.claims import CONTRADICTED, SUPPORTED, ClaimSpec, evaluate_claims
from shu.evidence.document_claims import ingest_with_claims
from shu.evidence.run_dates import run_made_words
from shu.probe_ingest import ingest_probe_file, store_probe_document
from shu.receipts import ReceiptBook, resolve
from shu.settings import get_settings

ROOT = Path(__file__).resolve().parents[3]
PROBE = ROOT / "docs" / "probe"
FIXTURES = Path(__file__).parent / "fixtures"
H100_WARM = "vm-20261127T033527Z-a06dd3d1"  # the committed runs were made on 2026-11-27


def _doc(name: str) -> dict:
    path = PROBE / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return json.loads(path.read_text())


@pytest.fixture
def h100(store):
    """A store holding the committed H100 warm run only."""
    _doc("h100-full-warm")
    ingest_probe_file(store, PROBE / "h100-full-warm.json")
    return store


def _geomean(checks):
    return next(c for c in checks if c.claim_id == "inductor_geomean_1_5x" and c.backend == "cuda")


def test_a_run_made_after_the_briefings_day_is_named_as_later(h100):
    check = _geomean(evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 2, 28)))
    assert check.run_id == H100_WARM  # the only run there is, so it is used…
    assert check.run_after_day  # …and named as later, never as known on the day
    assert check.run_made == "run made 9 months after this briefing's day, so not known on it"
    assert check.as_json()["run_made"] == check.run_made
    on_day = _geomean(
        evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 11, 27))
    )
    assert on_day.run_made == "run made on this briefing's day" and not on_day.run_after_day
    later = _geomean(evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 11, 30)))
    assert later.run_made == "run made 3 days before this briefing's day"
    undated = _geomean(evaluate_claims(h100, get_settings(), documents=False))
    assert undated.run_made is None and not undated.run_after_day


def test_the_latest_run_made_by_the_day_counts_over_a_later_one(h100):
    # the same H100 measurements, as if run in February 2026, then a faster run in November
    earlier = copy.deepcopy(_doc("h100-full-warm"))
    earlier["run_id"] = "vm-20260210T000000Z-feb"
    earlier["started_at"], earlier["finished_at"] = (
        "2026-02-10T00:00:00+00:00",
        "2026-02-10T00:01:00+00:00",
    )
    store_probe_document(h100, earlier, "feb run")
    on_day = _geomean(evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 2, 28)))
    assert on_day.run_id == "vm-20260210T000000Z-feb"
    assert on_day.run_made == "run made 18 days before this briefing's day"
    assert not on_day.run_after_day
    # with no day, or a day after both, the newest run counts
    assert _geomean(evaluate_claims(h100, get_settings(), documents=False)).run_id == H100_WARM
    assert (
        _geomean(
            evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 12, 1))
        ).run_id
        == H100_WARM
    )
    # the oldest later run is used when none was made by the day
    before_both = _geomean(
        evaluate_claims(h100, get_settings(), documents=False, day=date(2026, 1, 1))
    )
    assert before_both.run_id == "vm-20260210T000000Z-feb" and before_both.run_after_day


def test_a_geomean_claim_is_judged_without_the_substituted_kernel(h100):
    summary = _doc("h100-full-warm")["summary"]
    raw, without = summary["geomean_speedup"], summary["geomean_speedup_without_substitutions"]
    assert raw >= 1.5 > without  # 1.69x with SDPA standing in for naive_attention, 1.32x without
    check = _geomean(evaluate_claims(h100, get_settings(), documents=False))
    assert check.verdict == CONTRADICTED and check.measured == without
    assert check.verdict_words == (
        "contradicted: the raw geomean supports it only because Inductor substituted a library "
        f"kernel for naive_attention ({raw:.2f}x with it, {without:.2f}x without): "
        "bmm+mul+_softmax+bmm → aten._scaled_dot_product_cudnn_attention (SDPA)"
    )
    assert check.as_json()["verdict_in_words"] == check.verdict_words
    cited = {(c.table, c.column) for c in check.probe_cites}
    assert ("probe_runs", "geomean_speedup_without_substitutions") in cited
    assert ("probe_results", "substitutions") in cited
    # a claim the geomean without the substitution meets is supported, with nothing to add
    low = ClaimSpec("gm_1_3", "about 1.3x on average", "speedup", 1.3, "about", workload="suite")
    (check,) = [
        c for c in evaluate_claims(h100, get_settings(), claims=(low,)) if c.backend == "cuda"
    ]
    assert check.verdict == SUPPORTED and check.carried_by_substitution is None
    assert check.verdict_words == SUPPORTED


def test_the_briefing_lines_say_when_the_run_was_made(h100, tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "docs")
    ingest_with_claims(h100, [tmp_path / "docs"])
    book = ReceiptBook()
    view = claims_section(h100, book, date(2026, 11, 24), get_settings())  # documents up to it
    assert view["checked"]
    # when the run was made is said once, at the head of the runs it names; not per row
    assert [h.split(":")[0] for h in view["runs"]] == [
        "Made 3 days after this briefing's day, so not known on it"
    ]
    for item in view["checked"]:
        assert "not known" not in item["measured"] and item["run"] in view["runs"][0]
    assert all(resolve(h100, r) is None for r in book.receipts)
    (geomean,) = [
        c
        for c in configured_checks(h100, get_settings(), date(2026, 2, 28))
        if "1.5x" in c.claim and "cuda" in c.claim
    ]
    assert geomean.run_after_day and geomean.run_made is not None
    assert "only because Inductor substituted a library kernel" in geomean.verdict_words
    assert geomean.verdict_words.endswith("(SDPA)")


def test_spans_in_words():
    at = datetime(2026, 11, 27, 3, 35, tzinfo=UTC)
    assert run_made_words(at, date(2026, 11, 26)) == (
        "run made 1 day after this briefing's day, so not known on it"
    )
    assert run_made_words(at, date(2028, 12, 1)) == "run made 2 years before this briefing's day"
    assert run_made_words(None, date(2026, 11, 26)) is None
