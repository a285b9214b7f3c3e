"""Upstream citations: find them in the records (citations), read the upstream
at a revision (upstream, definitions), classify them (check) and report (report).
The `mergedrv anchors` command around them is mergedrv.commands.anchors."""
