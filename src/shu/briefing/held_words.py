"""The tracked repositories that held near their pace of 28 days ago, told together in one
sentence in "What moved" (only departures get a line of their own: `story_words`), and the
store-wide event days (`market_spikes`, `Story.store_wide_now`) taken out of the paces quoted:
said in full once ("without 19–20 Feb 2026, when the whole store spiked"), by their days after.
"""

from __future__ import annotations

from shu.briefing.story_words import StoryReceipts, oldest_week_out, store_wide_when
from shu.briefing.text import days_text, num, ref, repo_link
from shu.receipts import ReceiptBook
from shu.safe_markdown import Md
from shu.signals.stories import Story
from shu.store import Store

STORE_WIDE_SAID = "store-wide days"  # `BriefingContext.said`: the days were named in full


def store_wide_told(story: Story) -> str:
    """'19–20 Feb 2026, when the whole store spiked' (or lost stars): the store-wide event days
    inside the story's window, said in full ('' when none)."""
    when = store_wide_when(story)
    if not when:
        return ""
    moved = "spiked" if all(e.kind != "removal" for e in story.store_wide_now) else "lost stars"
    return f"{when}, when the whole store {moved}"


def without_store_wide(story: Story, said: set[str]) -> str:
    """'without 19–20 Feb 2026, when the whole store spiked' the first time the note nets a
    pace of store-wide days (named in `said`), 'without 19–20 Feb 2026' after."""
    if STORE_WIDE_SAID in said:
        return f"without {store_wide_when(story)}"
    said.add(STORE_WIDE_SAID)
    return f"without {store_wide_told(story)}"


def held(story: Story) -> bool:
    """Whether What moved tells the story among those that held near their pace of 28 days ago
    (`held_sentence`): a steady story that is not part of a shared burst, names no spike of its
    own and stays near that pace without the store-wide event days too (`Story.net_departs`);
    the others (departures) get their own line."""
    return (
        story.kind == "steady"
        and story.shared is None
        and not story.named_small
        and not story.net_departs
    )


def _path_counts_store_wide(story: Story) -> bool:
    """Whether the lowest or highest 28-day pace of the story's 90 days is of a day whose 28-day
    window holds one of its store-wide event days (`Story.store_wide_now`)."""
    path, runs = story.path, story.store_wide_now
    if path is None or not runs:
        return False
    first = min(e.first for e in runs)
    return max(path.low_day, path.high_day) >= first


def held_sentence(store: Store, book: ReceiptBook, stories: list[Story], said: set[str]) -> Md:
    """The repositories that held near their pace of 28 days ago, in one sentence: each one's
    28-day pace (net of store-wide event days inside the window, `without_store_wide`), the
    range its 28-day pace ran over the last 90 days (left out when its lowest or highest day
    counts those store-wide days: a range of the store's event, not the repository's), and a
    short clause for an oldest week that ran far from the pace and leaves the window within 7
    days."""
    each = []
    for story in stories:
        c = StoryReceipts(store, book, story)
        if story.store_wide_now:
            pace, r_pace = c.net()
            net = without_store_wide(story, said)
            text = f"{repo_link(story.repo)}, {num(pace, 1)} stars/day {net} {ref(r_pace)}"
        else:
            pace, r_pace = c.velocity()
            text = f"{repo_link(story.repo)}, {num(pace, 1)} stars/day {ref(r_pace)}"
        extra = []
        if story.path is not None and not _path_counts_store_wide(story):
            r_low, r_high = c.path_range()
            low, high = num(story.path.low, 1), num(story.path.high, 1)
            extra.append(f"{low}–{high} over 90 days {ref(r_low, r_high)}")
        if story.week_leaving:
            first, last, out = oldest_week_out(story)
            pace_word = "faster" if story.week_leaving == "up" else "slower"
            extra.append(
                f"a {pace_word} week, {days_text(first, last)}, leaves the window by "
                f"{days_text(out, out)}"
            )
        each.append(text + (f" ({'; '.join(extra)})" if extra else ""))
    whose = "their" if len(stories) > 1 else "its"
    return Md(f"Near {whose} pace of 28 days ago: " + "; ".join(each) + ".")
