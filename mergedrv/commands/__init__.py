"""mergedrv subcommands, one module each."""
