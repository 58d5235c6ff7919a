"""Measure a briefing as a note: body and card words, the body's screens at 1280×800 in
chromium (its HTML page beside it), jargon, repeated phrases, At a glance sentences and words,
bookkeeping left in the body, links, receipts and the velocity cards' coherence with their own
interval (the rules
are in `tests/support/note_metrics.py`).

Usage: .venv/bin/python benchmarks/note_metrics.py reports/2026-02-28.md [--json] [--no-screens]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.note_metrics import MAX_CARD_WORDS, SCREEN, as_dict, measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="the briefing's markdown (its .json beside it)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--no-screens", action="store_true", help="skip measuring the body's screens in chromium"
    )
    args = parser.parse_args()
    m = measure(args.path, screens=not args.no_screens)
    if args.json:
        print(json.dumps(as_dict(m), indent=1, default=str))
        return
    print(f"{m.path}")
    print(f"body words (before the appendix):        {m.body_words:,}")
    screens = "not measured" if m.body_screens is None else f"{m.body_screens:.2f}"
    print(f"body screens at {SCREEN[0]}x{SCREEN[1]} (chromium):    {screens}")
    print(f"appendix words:                          {m.appendix_words:,}")
    print(
        f"words per card (max {MAX_CARD_WORDS}):                 "
        + (", ".join(str(n) for n in m.card_words) or "no card")
    )
    print(f"jargon in the body:                      {m.jargon or 'none'}")
    print(
        f"6-word phrases > 3 times before receipts: {len(m.repeated_phrases)}"
        + "".join(f"\n  {n}x {phrase}" for phrase, n in list(m.repeated_phrases.items())[:10])
    )
    print(
        f"At a glance sentences:                   {m.glance_sentences} "
        f"({m.glance_sentences_with_number_and_receipt} with a number and a receipt), "
        f"{m.glance_words} words"
    )
    print(f"bookkeeping in the body:                 {m.bookkeeping_in_body or 'none'}")
    print(
        f"unlinked repositories (glance / radar):  {m.glance_repos_unlinked} / "
        f"{m.radar_repos_unlinked}"
    )
    print(
        f"receipts cited in the body:              {m.receipts_cited_in_body} "
        f"(undefined in the appendix: {m.receipts_cited_undefined or 'none'})"
    )
    print(
        f"JSON cards with a question / threshold:  {m.json_cards_with_question} / "
        f"{m.json_cards_with_threshold}"
    )
    for c in m.velocity_cards:
        read = "—" if c["from_interval"] is None else f"{c['from_interval']:.3f}"
        print(
            f"velocity card {c['repo']} ({c['template']} > {c['threshold']:.2f}): answer "
            f"{c['answer']:.3f}, from its interval {read}: "
            + ("within 0.05" if c["within"] else "NOT within 0.05")
        )
    print("targets:")
    for target, met in m.targets().items():
        print(f"  [{'x' if met else ' '}] {target}")


if __name__ == "__main__":
    main()
