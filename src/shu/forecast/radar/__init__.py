"""The breakout radar: the newest breakout forecasts over every repository, ranked, with their
drivers in words and receipts (`entries`, `statements`), and the radar's own record."""
