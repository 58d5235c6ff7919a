"""Calibration after the fit, while a model serves between refits: the store's regime on an
origin, the regime guard it turns on, the online conformal levels of the interval template and
the state each day's forecasts were issued with (stored)."""
