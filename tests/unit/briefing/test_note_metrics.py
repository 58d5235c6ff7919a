"""The note's measuring rules (`tests/support/note_metrics.py`) on a note built to break each
target once, so the figures the demo's test checks can fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.browser import find_chromium
from support.note_metrics import body_screens, count_words, measure, p_above

LONG = " ".join(f"w{i}" for i in range(150)) + " words, 5 of them [R1]."  # 153 words: too many
NOTE = f"""# a title here

## At a glance

[a/b](https://github.com/a/b) slowed to 3.1 stars/day [R1].
It has no number here [R2].
c/d rose without a receipt 4 times.
{LONG}

| repository | pace |
|---|---:|
| [a/b](https://github.com/a/b) | 3.1 [R1] |

## Breaking out

| repository | chance |
|---|---:|
| e/f | 20% [R3] |

## Calibration watch

How sure shu was [R2].

## Forecasts

### [a/b](https://github.com/a/b) · star velocity · 30 days

**Will it?** 40% yes, against a base rate of 50% in the walk-forward band [R4].

![a chart with many many words in its alt text](x.png)

- **How sure:** low confidence [R9].

*Receipts R4–R9 · forecast `abc`*

```
star_accel_reach in a code block is not read
```

## Appendix

### More

- One: the same six words said again.
- Two: the same six words said again.
- Three: the same six words said again.
- Four: the same six words said again.

| a table row | the same six words said again |
| a table row | the same six words said again |

### Receipts

- **R1** (row) x
- **R2** (row) x
- **R3** (row) x
- **R4** (row) x
- **R5** (row) x, the same six words said again
- **R6** (row) x, the same six words said again
"""


def test_each_target_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "2026-02-28.md"
    path.write_text(NOTE)
    interval = {
        "lower_95": 1.0,
        "lower_80": 2.0,
        "lower_50": 3.0,
        "median": 4.0,
        "upper_50": 5.0,
        "upper_80": 6.0,
        "upper_95": 7.0,
    }
    doc = {
        "cards": [
            {
                "repo": "a/b",
                "template": "star_velocity_up",
                "question": "q",
                "threshold": 4.5,
                "probability": 0.50,
                "interval": interval,
            },
            {"repo": "c/d", "template": "star_gain", "question": "q", "threshold": None},
        ],
        "radar": [{"repo": "e/f"}],
    }
    path.with_suffix(".json").write_text(json.dumps(doc))
    m = measure(path)
    targets = m.targets()
    assert m.glance_sentences == 4 and m.glance_sentences_with_number_and_receipt == 2
    assert m.glance_words == 15 + 153  # the table aside
    assert m.bookkeeping_in_body == ["Calibration watch"]
    assert m.glance_repos_unlinked == ["c/d"] and m.radar_repos_unlinked == ["e/f"]
    # not the code block's
    assert m.jargon == {r"\bbase rates?\b": 1, r"walk-forward": 1, r"\bbands?\b": 1}
    # four times in the prose (its tables and what follows `### Receipts` aside): boilerplate
    assert m.repeated_phrases == {"the same six words said again": 4}
    assert m.receipts_cited_undefined == ["R9"]
    assert (m.json_cards_with_question, m.json_cards_with_threshold) == (2, 1)
    # P(v > 4.5) between the median (4.0) and the upper 50% bound (5.0): 1 - 0.625
    (card,) = m.velocity_cards
    assert abs(card["from_interval"] - 0.375) < 1e-9 and not card["within"]
    assert m.body_screens is None  # not asked for
    assert [met for met in targets.values()].count(True) == 2  # body length, card length
    assert m.card_words == [20]


def test_words_are_words_of_letters_outside_code_images_and_receipts() -> None:
    assert count_words("One `two` 3.5 [four](https://x.y/five) ![six](s.png) [R1, R2] —") == 3
    assert count_words("```\nnot these words\n```\nbut this") == 2
    assert count_words("| a | 12 | b c |") == 3


def test_p_above_reads_the_quantiles_linearly() -> None:
    q = {
        "lower_95": 0.0,
        "lower_80": 10.0,
        "lower_50": 20.0,
        "median": 30.0,
        "upper_50": 40.0,
        "upper_80": 50.0,
        "upper_95": 60.0,
    }
    assert p_above(q, 30.0) == 0.5
    assert abs(_said(q, 45.0) - 0.175) < 1e-9
    assert p_above(q, -5.0) == 0.975 and abs(_said(q, 99.0) - 0.025) < 1e-9
    assert p_above({**q, "median": None}, 30.0) is None


def _said(quantiles, x: float) -> float:
    """P(V > x) read from the quantiles (`note_metrics.p_above`), which has one."""
    p = p_above(quantiles, x)
    assert p is not None
    return p


PAGE = """<!DOCTYPE html><html><head><style>body {{ margin: 0; }}</style></head><body>
<div style="height: {height}px">the body</div>
<details><summary>Appendix: how to read this</summary><div style="height: 9000px"></div></details>
</body></html>"""


@pytest.mark.skipif(
    find_chromium() is None, reason="no chromium installed (apt-get install chromium)"
)
def test_body_screens_are_the_appendix_offset_in_chromium_over_800(tmp_path: Path) -> None:
    pytest.importorskip("playwright", reason="Playwright is not installed (the dev extra)")
    page = tmp_path / "note.html"
    page.write_text(PAGE.format(height=4000))
    screens = body_screens(page)
    if screens is None:
        pytest.skip("chromium is installed but would not start here")
    assert screens == 5.0  # 4000 px of body over 800 px screens
    page.write_text(PAGE.format(height=5200).replace("Appendix:", "Not the appendix:"))
    assert body_screens(page) is None  # no appendix: nothing to measure against
