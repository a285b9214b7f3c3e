"""The subcommands, one module each (merge: the git driver; check, fix, install,
init, resolve, demo, anchors, update-branch, doctor, review, mergetool); each
runs from a typed request built in cli.py."""
