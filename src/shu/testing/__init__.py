"""Test and demo support shipped with the package: a local GitHub API server and its datasets.

`shu.testing.github_server` serves in-memory repositories (`shu.testing.github_records`) in
GitHub's JSON shapes with fault injection, for `shu demo`, the example builder, and users testing
their own flows offline; `shu.testing.datasets` builds those repositories (a small synthetic set,
or the real histories under ../shared/data). Nothing here is used by the production pipeline
itself. Helpers only shu's own tests and benchmarks use (the fault harness, the browser driver,
GH Archive file generation) live in the repository's `tests/support/`, not in the package.
"""
