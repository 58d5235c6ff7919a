"""Calibration after the fit, while a model serves between refits: the regime guard the store's
regime on an origin turns on (`features.regime`), the online conformal levels of the interval
template and the state each day's forecasts were issued with (stored)."""
