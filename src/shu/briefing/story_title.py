"""The briefing's title from the stories (`shu.signals.stories`): the two most important
stories in a phrase each (a change of pace first, then episodes that moved the pace by at least
`TITLE_ARTEFACT_SHARE` of the earlier ordinary pace), a shared burst's phrase first, one line;
led by a notable move of ROCm work across the ecosystem (`rocm_leads`) when no tracked
repository's pace really changed most, with at most one real change of pace after it.
"""

from __future__ import annotations

from shu.briefing.text import and_more, days_text, pct
from shu.signals.rocm_facts import FINDING_DAYS, Finding
from shu.signals.stories import Episode, Story, burst_groups, shared_underneath

TITLE_ARTEFACT_SHARE = 0.2  # an episode names itself in the title when it moved the pace this much
MAX_TITLE_PHRASES = 2


HEADLINE_SHARE = 0.2  # a story heads the note only at a fifth of the biggest one's size or more
PACE_WEIGHT = 2.0  # a real change of pace weighs this many times a move of the same size that
# is only a few days of counts


def relative_move(story: Story) -> float:
    """How much the story moved the pace, relative to its ordinary level: whether an episode is
    large enough for the title to name (`TITLE_ARTEFACT_SHARE`); a real change of pace is 1 more
    (it is the news whatever its size)."""
    reference = max(story.ordinary_before or 0.0, 1.0)
    if story.kind in ("steady", "no_data"):
        return 0.0
    if story.kind in ("pace_down", "pace_up"):
        return abs(story.effect) / reference + 1.0
    return abs(story.acceleration_28d or story.effect) / reference


def importance(story: Story) -> float:
    """The order stories are told in, most important first: the stars/day the story moved the
    28-day pace by in absolute terms (a change of pace: its ordinary days' change, counted
    PACE_WEIGHT times; an episode: the 28-day acceleration), so what matters to the field comes
    first: a repository of 2 stars/day slowing by half (1 star/day, weighed 2) comes after one
    whose pace fell from 54 to 23 stars/day when a burst left its window (31). A steady pace or
    a story without data is 0 (told last)."""
    if story.kind in ("steady", "no_data"):
        return 0.0
    if story.kind in ("pace_down", "pace_up"):
        return PACE_WEIGHT * abs(story.effect)
    return abs(story.acceleration_28d or story.effect)


def headline_worthy(story: Story, stories: list[Story]) -> bool:
    """Whether a story is big enough beside today's biggest to head the note (the title, At a
    glance): at least HEADLINE_SHARE of the most important story's `importance`; a smaller one
    is told in What moved only (a 2-stars/day repository's wobble beside a 30-stars/day fall)."""
    top = max((importance(s) for s in stories), default=0.0)
    return importance(story) >= HEADLINE_SHARE * top


def rocm_leads(finding: Finding | None, stories: list[Story]) -> bool:
    """Whether a move of the share of commits touching ROCm heads the note (the title and At a
    glance): when it is notable (larger than any over as many days in the year before) and the
    most important story is no real change of a tracked repository's pace (a burst entering or
    leaving its window is the window's, not the field's)."""
    if finding is None or not finding.notable:
        return False
    top = max(stories, key=importance, default=None)
    return top is None or top.kind not in ("pace_down", "pace_up")


def rocm_phrase(finding: Finding) -> str:
    """'ROCm work rose from 1.7% to 4.5% of commits in 90 days, its largest 90-day move in a
    year'
    (the figures are the section's, with their receipts; `Finding.notable`)."""
    way = "rose" if finding.move > 0 else "fell"
    return (
        f"ROCm work {way} from {pct(finding.share_then, 1)} to {pct(finding.share_now, 1)} of "
        f"commits in {FINDING_DAYS} days, its largest {FINDING_DAYS}-day move in a year"
    )


def briefing_title(stories: list[Story], finding: Finding | None) -> str:
    """The title: when `rocm_leads`, the ROCm phrase, then the most important real change of a
    tracked repository's pace big enough to head the note, if any (a burst leaving a window is
    no news beside it); else the stories' (`story_title`)."""
    if finding is not None and rocm_leads(finding, stories):
        paces = [
            s for s in stories if s.kind in ("pace_down", "pace_up") and headline_worthy(s, stories)
        ]
        after = f"; {story_title(paces, room=1)}" if paces else ""
        return rocm_phrase(finding) + after
    return story_title(stories)


def story_title(stories: list[Story], room: int = MAX_TITLE_PHRASES) -> str:
    """The stories' title: the `room` (MAX_TITLE_PHRASES) most important stories, each told by
    the cause that dominates it; a lone story in the whole title names the second cause where
    both hold (a slowdown masked by a burst, slower ordinary days beneath a burst leaving the
    window, the last 7 days turning back); plain changes of pace of several repositories share
    one phrase."""
    if not stories:
        return "No tracked repository has star data yet"
    shared = shared_phrases(stories)
    in_shared = {r for group, _, _ in shared for r in group}
    news = sorted(
        (
            s
            for s in stories
            if (
                s.kind in ("pace_down", "pace_up")
                or (s.is_artefact and relative_move(s) >= TITLE_ARTEFACT_SHARE)
            )
            and headline_worthy(s, stories)
        ),
        key=lambda s: -importance(s),
    )
    told: list[tuple[Story, list[Story]]] = []  # each phrase: its story and those it groups
    grouped: set[str] = set(in_shared)  # told once, first, by the shared phrase
    for s in news:
        if s.repo in grouped:
            continue
        same = [s]
        if s.kind in ("pace_down", "pace_up") and not s.beside:
            same = [t for t in news if t.kind == s.kind and not t.beside]
            grouped.update(t.repo for t in same)
        told.append((s, same))
    told = told[: max(room - len(shared), 0)]
    # two phrases in the title: each story by its dominant cause only (the body says the rest)
    short = len(told) + len(shared) > 1 or room < MAX_TITLE_PHRASES
    phrases = [phrase for _, _, phrase in shared][:room] + [
        f"{_names(same)} {_verb(same, 'slow' if s.kind == 'pace_down' else 'speed')} {_dir(s.kind)}"
        if len(same) > 1 or (s.kind in ("pace_down", "pace_up") and not s.beside)
        else story_phrase(s, short=short)
        for s, same in told
    ]
    if not phrases:
        measured = [s for s in stories if s.kind != "no_data"]
        if not measured:
            return "No tracked repository has a measurable 28-day pace"
        # "hold their pace" only of a pace that held within the steady band over 90 days
        held = [s for s in measured if not (s.path is not None and not s.path.held_steady)]
        moved = [s for s in measured if s not in held]
        if held:
            phrases.append(
                f"{_names(held, limit=3)} {_verb(held, 'hold')} their pace"
                if len(held) > 1
                else f"{_names(held)} holds its pace"
            )
        for shape, words in (
            ("rose", "up over 90 days"),
            ("fell", "down over 90 days"),
            ("swung", "swung over 90 days"),
        ):
            same = [s for s in moved if s.path is not None and s.path.shape == shape]
            if same:
                phrases.append(f"{_names(same, limit=3)} {words}")
    return "; ".join(phrases[:room])  # names keep their own spelling, even first


def shared_phrases(stories: list[Story]) -> list[tuple[list[str], str, str]]:
    """The sets of tracked repositories that burst on the same days and all ran slower (or all
    faster) on their other days: (the set, 'down' / 'up', its title phrase), e.g. 'pytorch,
    tensorflow and keras slower underneath a shared burst on 19–20 Feb 2026'. Told once, first:
    the shared days are one event, and the change beneath them is the same for each."""
    out = []
    for group, first, last in burst_groups(stories):
        under = shared_underneath(stories, group)
        if under is None:
            continue
        members = [s for s in stories if s.repo in group]
        noun = "spike" if first == last else "burst"
        out.append(
            (
                group,
                under,
                f"{_names(members, limit=3)} {'slower' if under == 'down' else 'faster'} "
                f"underneath a shared {noun} on {days_text(first, last)}",
            )
        )
    return out


def story_phrase(story: Story, short: bool = False) -> str:
    """One story for the title, from its dominant cause, with the second where both hold
    (`short`: the dominant cause alone, "mostly" saying there is more)."""
    name = _name(story)
    if story.kind in ("pace_down", "pace_up"):
        text = f"{name} {'slows' if story.kind == 'pace_down' else 'speeds'} {_dir(story.kind)}"
        for e in story.beside[:1]:
            opposite = (e.effect > 0) == (story.kind == "pace_down")
            text += (", masked by " if opposite else ", and ") + _episode_noun(story, e)
        return text
    text = _artefact_phrase(story)
    under = story.underneath
    if under is not None and not short:
        slower = "slower" if under == "down" else "faster"
        text += f", with {slower} ordinary days {'too' if story.mostly else 'underneath'}"
        if story.turn:
            text += (
                f", though its last 7 days {'picked up' if story.turn == 'up' else 'slowed again'}"
            )
    return text


def _dir(kind: str) -> str:
    return "down" if kind == "pace_down" else "up"


def _episode_noun(story: Story, e: Episode) -> str:
    """'a burst on 19–20 Feb 2026', 'a January burst leaving its window', 'stars removed on …'."""
    when = days_text(e.first, e.last)
    if e.kind == "removal":
        return f"stars removed on {when}"
    if e.window == "before":
        return f"a {e.first:%B} burst leaving its window"
    if e.release is not None:
        return f"a burst after release {e.release[0]}"
    return f"a spike on {when}" if e.days == 1 else f"a burst on {when}"


def _name(story: Story) -> str:
    return story.repo.split("/")[-1]


def _names(stories: list[Story], limit: int = 2) -> str:
    return and_more([_name(s) for s in stories], limit)


def _verb(stories: list[Story], verb: str) -> str:
    return verb if len(stories) > 1 else verb + "s"


def _artefact_phrase(story: Story) -> str:
    e = story.primary
    assert e is not None
    name = _name(story)
    move = "drop" if (story.acceleration_28d or e.effect) < 0 else "rise"
    when = days_text(e.first, e.last)
    if story.kind == "burst_left":
        month = f"{e.first:%B}"
        article = "an" if month[0] in "AEIOU" else "a"
        mostly = "mostly " if story.mostly else ""
        return f"{name}'s {move} is {mostly}{article} {month} burst leaving its 28-day window"
    mostly = "mostly " if story.mostly else ""
    if story.kind == "release" and e.release:
        return f"{name}'s {move} {mostly}follows release {e.release[0]}"
    if story.kind == "spike":
        return f"{name}'s {move} is {mostly}a one-day spike on {when}"
    if story.kind == "burst":
        return f"{name}'s {move} is {mostly}a {e.days}-day burst on {when}"
    return f"{name} lost {abs(e.stars):,.0f} stars on {when}"
