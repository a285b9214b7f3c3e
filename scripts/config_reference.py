"""Write docs/configuration.md from the schema (`--check`: exit 1 when it is stale)."""

from generated import write_or_check

from mergedrv.config.reference import reference

if __name__ == "__main__":
    write_or_check("configuration.md", reference(), "config_reference.py")
