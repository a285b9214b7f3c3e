"""`python -m mergedrv`, and the merge driver's start (`python -I .../mergedrv/__main__.py
merge ...`, as `mergedrv install` writes it): hence the absolute import."""

import sys

from mergedrv.entry import main

if __name__ == "__main__":
    code = main()
    if sys.argv[1:2] == ["merge"]:
        # The driver's result is written and closed: what is left is freeing
        # every object of three parsed versions one by one (~2 ms of a 250 KB
        # merge).  Exit handlers and the streams are run and flushed first.
        import atexit
        import os

        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
