"""What a model sees of a (repository, origin) pair: features computed from data on or before the
origin, the historical questions with their outcomes that models learn from, and the words
readers see for each feature.

- `star`: the star features (from `star_signals`, `commit_signals`, releases, categories);
- `rocm`: the ROCm adoption features (from commits and releases alone);
- `regime`: the state of the whole store on an origin (how many repositories lose stars at once,
  against its own history), read by the star features and the regime guard;
- `examples`: historical questions of a template with their features and resolved outcomes;
- `words`: the one driver vocabulary (every feature in words, for cards and the radar).
"""

from __future__ import annotations

from shu.forecast.features.rocm import FEATURES as ROCM_FEATURES
from shu.forecast.features.star import BASE_FEATURES, FEATURE_SETS
from shu.forecast.questions.registry import template


def feature_names(name: str) -> list[str]:
    """Model input columns of template `name`, in order: its family's base features (only those
    its record's `base_features` names, where it names some), the star feature sets its record's
    `feature_sets` names (`star.FEATURE_SETS`), then its threshold features."""
    spec = template(name)
    base: tuple[str, ...] = ROCM_FEATURES if spec.family == "rocm" else BASE_FEATURES
    if spec.base_features is not None:
        base = tuple(f for f in base if f in spec.base_features)
    extra = [f for s in spec.feature_sets for f in FEATURE_SETS[s]]
    return list(base) + extra + list(spec.threshold_features)
