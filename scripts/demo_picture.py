"""Write docs/demo.svg, the README's picture, from `mergedrv demo`'s merges (`--check`: exit 1 when stale)."""

import sys
from pathlib import Path

from mergedrv.commands.demo import picture

PAGE = Path(__file__).resolve().parent.parent / "docs" / "demo.svg"

if __name__ == "__main__":
    text = picture()
    if "--check" in sys.argv[1:]:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != text:
            sys.exit(f"{PAGE}: stale; run: python scripts/demo_picture.py")
        sys.exit(0)
    PAGE.write_text(text, encoding="utf-8")
