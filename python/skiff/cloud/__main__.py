"""``python -m skiff.cloud VERB ...``: the same as ``skiff cloud VERB ...`` (cli.py)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
