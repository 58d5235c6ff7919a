"""`python -m shu` runs the CLI (guarded: a spawned worker process imports this module too)."""

from shu.cli import main

if __name__ == "__main__":
    main()
