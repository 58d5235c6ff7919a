"""Prefect flows over the library: `daily` (the whole chain), `backtest`, `probe`, and `deploy`.

The flow code lives in the package (so `shu daily` / `shu serve` import it wherever shu is
installed); the top-level `flows/*.py` files are thin entry points that re-export these flows
for `prefect` and `python flows/daily.py`. Importing this package does not import Prefect; it
turns Prefect's analytics off for this process and those it starts unless the `prefect_analytics`
setting is on, and gives the ephemeral server a start-up timeout fit for a busy machine
(`shu.flows.prefect_env`).
"""

from shu.flows.prefect_env import analytics_off, startup_timeout

analytics_off()
startup_timeout()
