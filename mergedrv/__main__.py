"""`python -m mergedrv`."""

import sys

from .cli import main

sys.exit(main())
