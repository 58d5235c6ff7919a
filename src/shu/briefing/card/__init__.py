"""The parts of a forecast card (the "Forecasts" section, `shu.briefing.sections.cards`): the
interval it leads with, why the prediction, why the confidence level, its topic evidence and the
context questions shu asks itself."""
