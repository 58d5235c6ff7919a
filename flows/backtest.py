"""Entry point: the backtest flow (code in `shu.flows.backtest`)."""

from shu.flows.backtest import backtest_flow

__all__ = ["backtest_flow"]
