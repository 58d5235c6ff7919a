"""Cards in an analyst's words: every model feature has a plain statement with its number, no
identifier reaches a card, and a card fits a screen."""

from __future__ import annotations

import math
import re

from shu.briefing.compose import compose_briefing
from shu.briefing.sections.cards import MAX_WORDS
from shu.briefing.text import word_count
from shu.forecast.features import feature_names
from shu.forecast.features.words import statement
from shu.forecast.questions.registry import TEMPLATES

FLAGS = {"phase_emerging", "phase_expansion", "phase_decline", "ever_rocm"}


def _features() -> list[tuple[str, str]]:
    out = []
    for template in TEMPLATES:
        names = feature_names(template)
        out += [(template, name) for name in names]
    return out


def test_every_feature_the_models_use_reads_as_a_statement():
    features = _features()
    assert len(features) > 300  # every template's features, ROCm's included
    for template, name in features:
        for value in (0.0, 0.37, 1.8, -0.6, 12.0):
            text = statement(name, value, template)
            assert text, (template, name)
            assert "_" not in text and name not in text  # never the identifier
            assert text[0] == text[0].upper()
            if name not in FLAGS:
                assert re.search(r"\d", text), (name, text)


def test_statements_give_the_number_the_feature_encodes():
    assert statement("rel_velocity_7d", 1.3, "star_velocity_up") == (
        "The last 7 days ran 30% above the 28-day pace"
    )
    assert statement("rel_velocity_7d", 0.75, "star_velocity_up") == (
        "The last 7 days ran 25% below the 28-day pace"
    )
    assert statement("log_stars", math.log1p(12345), "star_gain") == "It has 12,345 stars"
    assert statement("slog_velocity_28d", -math.log1p(3.5), "star_gain") == (
        "It lost 3.5 stars a day over the last 28 days"
    )
    assert statement("velocity_change_91d", 0.25, "star_gain") == (
        "91 days ago the 28-day pace was 75% of today's"
    )
    assert statement("share_90d", 0.034, "rocm_share_reach") == (
        "3.4% of its mainline commits in 90 days touched ROCm"
    )
    # the same name reads by what the ROCm templates measure with it
    assert "commit history" in statement("history_years", 2.0, "rocm_share_reach")
    assert "star history" in statement("history_years", 2.0, "star_gain")
    assert statement("not_a_feature", 1.0, "star_gain") is None
    assert statement("log_stars", None, "star_gain") is None


def _cards(markdown: str) -> list[str]:
    body = markdown.split("## Forecasts", 1)[1].split("\n## ", 1)[0]
    return [c for c in re.split(r"\n(?=### )", body) if c.startswith("### [")]


def test_a_card_fits_a_screen_and_shows_no_identifier(filled, settings, day):
    text = compose_briefing(filled, day, settings).path.read_text()
    cards = _cards(text)
    assert len(cards) == 3
    for card in cards:
        assert word_count(card) <= MAX_WORDS, card
        why = next(
            line for line in card.splitlines() if "**Why higher than the base rate:**" in line
        )
        assert "pace" in why and not re.search(r"\b[a-z]+_[a-z0-9_]+\b", why)
        assert "log-odds" not in card and "typical value" not in card


def test_word_count_counts_what_a_reader_reads():
    markdown = (
        "### [a/b](https://github.com/a/b) · star velocity\n\n"
        "**Will it?** 30% yes [R1, R2].\n\n![a chart of many words](x.png)\n\n"
        "```\ncode block words\n```\n\n- one `two` 3.5 — four\n"
    )
    # a/b, star, velocity, Will, it?, yes, one, two, four (numbers, dashes, receipts, the
    # image's words, the code block and the link's address are not read as words)
    assert word_count(markdown) == 9
