"""shu: signals, calibrated forecasts, a GPU probe and a daily briefing with receipts."""

__version__ = "0.1.0"
