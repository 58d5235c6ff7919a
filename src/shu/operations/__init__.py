"""One use-case function per operation, which the `shu` command, the Prefect flows, the notebook
API and the briefing all call, so that no entry point assembles an operation itself: the
breakout radar (`radar.radar_view`), the walk-forward backtest (`backtest.backtest`) and
today's forecasts (`forecast.issue`). The briefing itself is `briefing.compose.compose_briefing`,
which sits in the layer below this one (it reads these operations' results)."""
