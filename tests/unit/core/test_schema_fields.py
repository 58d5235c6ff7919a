"""The field registry: one type and unit per column name, a field for every column, exceptions
declared; and that its check catches each breach on declarations built here."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shu.schema import ALL_FIELDS, ALL_TABLES, HOMONYMS, MEANING_EXCEPTIONS
from shu.schema.base import Column, Field, FieldSet, Table
from shu.schema.registry import collect_fields, field_problems

SHARED = FieldSet((Field("repo", "VARCHAR", "Repository."), Field("day", "DATE", "Day.")))


def _table(name: str, columns: tuple[Column, ...]) -> Table:
    return Table(name=name, description="test", columns=columns)


def test_every_column_of_every_table_holds_its_one_field():
    assert field_problems(ALL_TABLES, ALL_FIELDS, HOMONYMS, MEANING_EXCEPTIONS) == []


def test_recurring_column_names_are_declared_once():
    holders: dict[str, set[str]] = {}
    for t in ALL_TABLES:
        for c in t.columns:
            holders.setdefault(c.name, set()).add(t.name)
    recurring = {name for name, tables in holders.items() if len(tables) > 1}
    assert len(recurring) > 40  # repo, day, origin, velocity_28d, …
    assert all(len(ALL_FIELDS[name]) == 1 for name in recurring - set(HOMONYMS))


def test_commit_and_star_velocities_have_their_own_names_and_units():
    assert ALL_FIELDS["velocity_28d"][0].unit == "stars/day"
    assert ALL_FIELDS["commit_velocity_28d"][0].unit == "commits/day"
    commit_columns = {c.name for t in ALL_TABLES if t.name == "commit_signals" for c in t.columns}
    assert "velocity_28d" not in commit_columns and "commit_acceleration_28d" in commit_columns


def test_a_name_declared_with_two_units_is_reported():
    stars = SHARED.extend(Field("velocity_28d", "DOUBLE", "Stars per day.", "stars/day"))
    commits = SHARED.extend(Field("velocity_28d", "DOUBLE", "Commits per day.", "commits/day"))
    tables = [
        _table("a", stars.hold("repo", "velocity_28d")),
        _table("b", commits.hold("repo", "velocity_28d")),
    ]
    problems = field_problems(tables, collect_fields([stars, commits]), {})
    assert problems == [
        "field 'velocity_28d' is declared with two types or units: "
        "DOUBLE in commits/day, DOUBLE in stars/day"
    ]
    # the same two declarations pass only as a declared homonym, with its reason
    assert field_problems(tables, collect_fields([stars, commits]), {"velocity_28d": "why"}) == []


def test_a_name_declared_with_two_types_is_reported():
    a = SHARED.extend(Field("origin", "DATE", "Issue day."))
    b = SHARED.extend(Field("origin", "VARCHAR", "Where it came from."))
    problems = field_problems([], collect_fields([a, b]), {})
    assert problems == [
        "field 'origin' is declared with two types or units: DATE in no unit, VARCHAR in no unit"
    ]


def test_a_column_without_a_field_is_reported():
    inline = Column("stars_gained", "BIGINT", "Declared inline, not in the registry.", "stars")
    tables = [_table("t", (*SHARED.hold("repo", "day"), inline))]
    assert field_problems(tables, collect_fields([SHARED]), {}) == [
        "t.stars_gained (BIGINT, stars) has no field: declare it in its module's FIELDS "
        "(or shu.schema.fields) and hold it by name"
    ]


def test_a_column_from_a_field_set_the_registry_does_not_hold_is_reported():
    unregistered = SHARED.extend(Field("forks", "BIGINT", "Forks.", "forks"))
    tables = [_table("t", unregistered.hold("repo", "forks"))]
    assert field_problems(tables, collect_fields([SHARED]), {}) == [
        "t.forks (BIGINT, forks) has no field: declare it in its module's FIELDS "
        "(or shu.schema.fields) and hold it by name"
    ]


def test_a_column_with_its_fields_name_but_another_unit_is_reported():
    wrong = Column("day", "DATE", "Day.", "days")
    problems = field_problems([_table("t", (wrong,))], collect_fields([SHARED]), {})
    assert problems and problems[0].startswith("t.day (DATE, days) has no field")


def test_a_table_describes_a_field_in_its_own_words_only_explicitly():
    described = SHARED.hold("repo", "day", described={"day": "Release day (UTC)."})
    assert described[1].description == "Release day (UTC)." and described[1].specific
    assert field_problems([_table("t", described)], collect_fields([SHARED]), {}) == []
    silent = replace(SHARED["day"].column(), description="Release day (UTC).")
    assert field_problems([_table("t", (silent,))], collect_fields([SHARED]), {}) == [
        "t.day is described unlike its field without saying so (FieldSet.hold(described=...))"
    ]
    with pytest.raises(ValueError, match="described fields not held"):
        SHARED.hold("repo", described={"day": "not held"})


def test_a_module_cannot_declare_a_shared_name_again_unless_it_is_a_homonym():
    with pytest.raises(ValueError, match="field 'repo' declared twice"):
        SHARED.extend(Field("repo", "BIGINT", "A count."))
    with_homonym = FieldSet(SHARED.own.values(), homonyms={"repo": "two meanings, because"})
    assert with_homonym.extend(Field("repo", "BIGINT", "A count."))["repo"].type == "BIGINT"
    with pytest.raises(KeyError, match="no field 'nope'"):
        SHARED.hold("nope")


def test_stale_exceptions_are_reported():
    problems = field_problems([], collect_fields([SHARED]), {"repo": "x"}, {("t", "c"): "y"})
    assert problems == [
        "homonym 'repo' is declared once only: drop it from HOMONYMS",
        "meaning exception t.c names no column",
    ]
