"""Declared questions (`[[questions]]`): the one check of whether each can be issued."""

from __future__ import annotations

import pytest

from shu.errors import ConfigError
from shu.forecast.questions.registry import check_declared_questions
from shu.settings import load_settings, source_of


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (
            'template = "star_gain"\nthreshold = 100\nhorizon = 31',
            "horizon 31 days: star_gain is asked at 7, 30, 90 days only",
        ),
        (
            'template = "star_gian"\nthreshold = 100\nhorizon = 30',
            "unknown template 'star_gian'; choose from star_accel_reach, ",
        ),
        (
            'template = "star_velocity_interval"\nthreshold = 1\nhorizon = 30',
            "template 'star_velocity_interval' is not a yes/no question; choose from ",
        ),
        (
            'template = "rocm_share_reach"\nthreshold = 5\nhorizon = 30',
            "threshold 5: rocm_share_reach asks about a share of commits between 0 and 1",
        ),
        (
            'template = "star_gain"\nthreshold = nan\nhorizon = 30',
            "threshold nan: star_gain asks about stars, 0 or more",
        ),
    ],
)
def test_a_declared_question_that_cannot_be_issued_is_refused(
    question, message, tmp_path, monkeypatch
):
    """[[questions]] are checked by one check (`declared_problem`), which every command runs
    after the settings load (tests/unit/core/test_cli_settings_checked.py), `shu forecast` and
    `shu radar` alike; the line names the file."""
    path = tmp_path / "shu.toml"
    path.write_text(f'[[questions]]\nrepo = "pytorch/pytorch"\n{question}\n', encoding="utf-8")
    monkeypatch.setenv("SHU_CONFIG", str(path))
    with pytest.raises(ConfigError) as refused:
        check_declared_questions(load_settings().questions, source_of("questions"))
    text = str(refused.value)
    assert text.startswith(f"{path.resolve()}: questions[0]: pytorch/pytorch: {message}"), text
    assert "\n" not in text


def test_a_declared_acceleration_may_be_negative(tmp_path, monkeypatch):
    path = tmp_path / "shu.toml"
    path.write_text(
        '[[questions]]\nrepo = "pytorch/pytorch"\ntemplate = "star_accel_fall"\n'
        "threshold = -2.0\nhorizon = 30\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SHU_CONFIG", str(path))
    check_declared_questions(load_settings().questions, source_of("questions"))
