"""The forecast layer: questions with fixed resolution rules, the features and models that answer
them with calibrated probabilities and intervals, their evaluation, and what the daily run
issues, resolves and replays.

Stages, each importing only those before it (docs/design.md, "The forecast layer"):
`base_rates` and `confidence` (the base rates and the confidence band, each defined once),
`questions` (the template registry and rules), `features`, `models`, `calibration` (after the
fit), `evaluation`, `live`, `radar`.
"""
