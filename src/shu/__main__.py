"""`python -m shu` runs the CLI."""

from shu.cli import main

main()
