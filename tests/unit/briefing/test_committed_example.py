"""The committed example note (docs/examples/2026-02-28.md, rebuilt by
docs/examples/build_example.py) meets every target its measure states: a recomposed example that
grows past one of them fails here, not in a reader's inbox."""

from __future__ import annotations

from pathlib import Path

from support.note_metrics import measure

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "2026-02-28.md"


def test_the_committed_example_meets_every_target_of_the_note() -> None:
    m = measure(EXAMPLE, screens=True)  # screens only where chromium starts (else not measured)
    missed = [target for target, met in m.targets().items() if not met]
    assert not missed, (missed, m.body_words, m.body_screens, list(m.repeated_phrases)[:5])


def test_the_example_measure_counts_the_cards_and_the_glance() -> None:
    # the targets above are not met vacuously: the example has cards, a glance and receipts
    m = measure(EXAMPLE)
    assert m.card_words and m.glance_sentences >= 1
    assert m.receipts_cited_in_body > 50 and m.body_words > 500


def test_the_committed_example_names_no_path_of_the_machine_that_built_it() -> None:
    # receipts name project files by their path under the project (data/example-models/…)
    root = str(EXAMPLE.parents[2])
    for suffix in (".md", ".html", ".json"):
        assert root not in EXAMPLE.with_suffix(suffix).read_text(encoding="utf-8"), suffix


def test_a_card_whose_word_its_record_lowered_says_so() -> None:
    # "Medium confidence (88% no, lowered from high by its record)": the answer's own band is
    # high (80% or more on its side), the word the record allows is lower, and the card says it
    import re

    from shu.forecast.confidence import confidence_band

    body = EXAMPLE.read_text(encoding="utf-8").split("## Appendix", 1)[0]
    lines = re.findall(
        r"^\*\*How sure:\*\* (Low|Medium|High) confidence \((\d+)% [a-z]+([^)]*)\)", body, re.M
    )
    assert lines  # the example's cards each have a How sure line with a confidence word
    lowered = [(w, n, rest) for w, n, rest in lines if confidence_band(int(n) / 100) != w.lower()]
    assert lowered  # the keras card: 88% no, medium by its record
    for word, n, rest in lines:
        own = confidence_band(int(n) / 100)
        assert (own != word.lower()) == (f", lowered from {own} by its record" in rest), (word, n)


def test_a_card_lowered_by_this_store_s_record_shows_the_range_that_lowered_it() -> None:
    # "25 of 42, replayed; 44%–73% with 95% confidence": the word is that of the range's upper
    # end (medium: under 80%), so a reader sees why 88% reads as medium
    import re

    from shu.forecast.confidence import confidence_band

    body = EXAMPLE.read_text(encoding="utf-8").split("## Appendix", 1)[0]
    lowered = re.findall(
        r"^\*\*How sure:\*\* (Low|Medium|High) confidence [^\n]*lowered from [^\n]*"
        r"\(\d+ of (\d+)[^;)]*; (\d+)%–(\d+)% with 95% confidence\)",
        body,
        re.M,
    )
    assert lowered  # the keras card
    for word, n, _low, high in lowered:
        assert int(n) >= 30 and confidence_band(int(high) / 100) == word.lower(), (word, high)
