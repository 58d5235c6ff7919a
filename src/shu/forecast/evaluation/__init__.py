"""How well the forecasts do: the walk-forward backtest (star and ROCm templates), its scores
(Brier, skill, ECE, bands; intervals; precision@k), its blocks and predictions, the skill gate
and the model card."""
