"""Test and demo support shipped with the package: a local GitHub API server and its datasets.

`shu.testing.github_server` serves in-memory repositories in GitHub's JSON shapes with fault
injection; `shu.testing.datasets` builds those repositories (a small synthetic set, or the real
histories under ../shared/data). Nothing here is used by the production pipeline itself.
"""
