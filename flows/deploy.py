"""Entry point: serve the deployments (code in `shu.flows.deploy`); same as `shu serve`."""

from shu.flows.deploy import deployments, serve_all
from shu.settings import get_settings

__all__ = ["deployments", "serve_all"]

if __name__ == "__main__":
    serve_all(get_settings())
