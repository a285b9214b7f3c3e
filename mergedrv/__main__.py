"""`python -m mergedrv`, and the merge driver's start (`python -I .../mergedrv/__main__.py
merge ...`, as `mergedrv install` writes it): hence the absolute import."""

import sys

from mergedrv.entry import main

if __name__ == "__main__":
    sys.exit(main())
