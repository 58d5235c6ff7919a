"""The confidence band of a yes/no forecast: a word for how sure it is, from fixed edges.

A forecast's band is read on max(p, 1 - p): low < `MEDIUM_FROM` (0.65) <= medium < `HIGH_FROM`
(0.80) <= high. The edges are declared here once; the Python forms (`confidence_band`,
`confidence_bands`), the edges shown to readers (`BAND_EDGES`) and the SQL form (`band_sql`, for
queries over stored forecasts that briefings cite) are all read from them, so a band can never
mean two things.
"""

from __future__ import annotations

import numpy as np

MEDIUM_FROM = 0.65
HIGH_FROM = 0.80
BANDS = ("low", "medium", "high")
# Each band's edges on max(p, 1 - p): lower edge included, upper excluded (high includes 1).
BAND_EDGES = {
    "low": (0.5, MEDIUM_FROM),
    "medium": (MEDIUM_FROM, HIGH_FROM),
    "high": (HIGH_FROM, 1.0),
}


def confidence_band(probability: float) -> str:
    """'low', 'medium' or 'high' from max(p, 1 - p) and the edges `MEDIUM_FROM`, `HIGH_FROM`."""
    sure = max(probability, 1.0 - probability)
    if sure >= HIGH_FROM:
        return "high"
    if sure >= MEDIUM_FROM:
        return "medium"
    return "low"


def confidence_bands(probabilities: np.ndarray) -> np.ndarray:
    """`confidence_band` of each probability."""
    sure = np.maximum(probabilities, 1.0 - probabilities)
    return np.where(sure >= HIGH_FROM, "high", np.where(sure >= MEDIUM_FROM, "medium", "low"))


def band_sql(probability: str) -> str:
    """`confidence_band` as a SQL expression over the column or expression `probability`."""
    sure = f"greatest({probability}, 1 - {probability})"
    return (
        f"CASE WHEN {sure} >= {HIGH_FROM:.2f} THEN 'high' "
        f"WHEN {sure} >= {MEDIUM_FROM:.2f} THEN 'medium' "
        "ELSE 'low' END"
    )
