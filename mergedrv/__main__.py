"""`python -m mergedrv`, and the merge driver's start (`python -I .../mergedrv/__main__.py
merge ...`, as `mergedrv install` writes it): hence the absolute import."""

import sys

if __name__ == "__main__":
    try:
        from mergedrv.entry import main
    except Exception as exc:  # noqa: BLE001 - the package gone from this interpreter (uninstalled, a rebuilt venv)
        if sys.argv[1:2] != ["merge"]:
            raise
        print(f"mergedrv: cannot load the package ({type(exc).__name__}: {exc})", file=sys.stderr)
        sys.exit(127)  # "cannot run": the driver line then runs git's text merge, with its markers
    code = main()
    if sys.argv[1:2] == ["merge"]:
        # The driver's result is written and closed: what is left is freeing
        # every object of three parsed versions one by one (~2 ms of a 250 KB
        # merge).  The driver registers no exit handler; the streams are
        # flushed first.
        import os

        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code)
