"""Entry point: the daily flow (code in `shu.flows.daily`); `python flows/daily.py` runs it once."""

from shu.flows.daily import daily_flow

__all__ = ["daily_flow"]

if __name__ == "__main__":
    daily_flow()
