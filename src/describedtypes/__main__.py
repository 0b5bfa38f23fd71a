"""Entry point of ``python -m describedtypes``."""

from __future__ import annotations

import sys

from ._cli.main import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m describedtypes"))
