"""Entry point: the probe flow (code in `shu.flows.probe`); `python flows/probe.py` runs it."""

from shu.flows.probe import probe_flow

__all__ = ["probe_flow"]

if __name__ == "__main__":
    probe_flow()
