"""The one driver vocabulary serves every model: each feature of each template has words, and
each feature the radar groups into a statement is one of the radar's features with a wording."""

from __future__ import annotations

from shu.forecast.features import feature_names
from shu.forecast.features.words import RADAR_STATEMENTS, ROCM_WORDS, WORDS, statement
from shu.forecast.questions.registry import RANKED_TEMPLATES, ROCM_TEMPLATES, TEMPLATES
from shu.forecast.radar.statements import _WORDING


def test_every_model_feature_has_words():
    missing = [
        (template, name)
        for template in TEMPLATES
        for name in feature_names(template)
        if statement(name, 1.0, template) is None
        or (name not in WORDS and not (template in ROCM_TEMPLATES and name in ROCM_WORDS))
    ]
    assert missing == []


def test_the_radar_words_its_own_features_from_the_same_vocabulary():
    radar_features = {name for t in RANKED_TEMPLATES for name in feature_names(t)}
    assert set(RADAR_STATEMENTS) <= radar_features
    assert set(RADAR_STATEMENTS) <= set(WORDS)  # cards word the same features too
    assert set(RADAR_STATEMENTS.values()) == set(_WORDING)
