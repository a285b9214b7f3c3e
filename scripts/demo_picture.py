"""Write docs/demo.svg, the README's picture, from `mergedrv demo`'s merges (`--check`: exit 1 when stale)."""

from generated import write_or_check

from mergedrv.commands.demo import picture

if __name__ == "__main__":
    write_or_check("demo.svg", picture(), "demo_picture.py")
