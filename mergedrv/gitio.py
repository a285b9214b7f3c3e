"""The old name of mergedrv.git, kept only so that branches written before the
move still import; new code imports mergedrv.git.  Remove once they are merged."""

from .git import *  # noqa: F401,F403
from .git import GitError, core, git, git_or_none, repository, toplevel  # noqa: F401
