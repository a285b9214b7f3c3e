"""What `mergedrv init` proposes, measured from the tree and its history:
`keys` (key columns and patterns), `history` (one read of the log for every
file), `derived` (rollups, counts, references), `render` (the commented TOML)."""
