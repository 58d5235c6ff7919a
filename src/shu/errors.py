"""The exception tree every shu module raises; the CLI turns these into one-line errors.

ShuError                  anything shu reports to a user as one line
├── InputError            bad input: a file, a row, an argument (names what and where)
├── StoreError            the DuckDB store cannot be opened, migrated or written
├── ConfigError           settings or shu.toml are invalid
└── SourceError           an outside source failed
    └── GitHubError       the GitHub API failed after retries
        └── RateLimited   the rate limit outlasted the allowed wait (says when to retry)
"""

from __future__ import annotations


class ShuError(Exception):
    """Base of every error shu reports to a user as a single line."""


class InputError(ShuError):
    """Bad input; the message names the file (and line) or the argument at fault."""


class StoreError(ShuError):
    """The store could not be opened, migrated or written."""


class ConfigError(ShuError):
    """A setting or the shu.toml file is invalid."""


class SourceError(ShuError):
    """An outside data source failed."""


class GitHubError(SourceError):
    """The GitHub API failed (after any retries).

    Attributes:
        status: the HTTP status of the final response, when there was one.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(GitHubError):
    """The rate limit would need a longer wait than allowed.

    Attributes:
        retry_at: epoch seconds when the API will accept requests again.
    """

    def __init__(self, message: str, retry_at: float | None = None) -> None:
        super().__init__(message)
        self.retry_at = retry_at
