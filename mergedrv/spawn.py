"""One child process with its output captured, as `subprocess.run(argv,
cwd=cwd, capture_output=True, input=input, env=env)` gives it, made with
os.posix_spawnp and one poll loop: importing subprocess (threading,
selectors, signal, locale) costs each hook ~4 ms, once per process, and a
hook runs a handful of git commands.  The one process runner: git access
(`git.run`) and the merge's `git merge-file` start their processes here.
Ground floor: imports nothing of mergedrv.
"""

from __future__ import annotations

import os


def captured(cwd: str | os.PathLike, argv: list[str], input: bytes | None = None,
             env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of ``argv`` run in ``cwd`` (git: ``-C cwd``
    when that is not the current folder); OSError when it cannot start.
    Where os.posix_spawnp is missing, subprocess runs it (in ``cwd``)."""
    if not hasattr(os, "posix_spawnp"):
        import subprocess

        proc = subprocess.run(argv, cwd=cwd, capture_output=True, input=input, env=env)
        return proc.returncode, proc.stdout, proc.stderr
    import signal

    if not os.path.isdir(cwd):
        raise FileNotFoundError(2, "No such file or directory", os.fspath(cwd))  # as subprocess's chdir fails
    if os.path.realpath(cwd) != os.path.realpath("."):
        argv = [argv[0], "-C", os.fspath(cwd), *argv[1:]]  # git: as if started there
    fds = [*os.pipe(), *os.pipe(), *(os.pipe() if input is not None else (-1, -1))]
    out_r, out_w, err_r, err_w, in_r, in_w = fds
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if in_r >= 0:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    try:
        # the child gets the default SIGPIPE and SIGXFSZ, as subprocess gives it
        pid = os.posix_spawnp(argv[0], argv, os.environ if env is None else env, file_actions=actions,
                              setsigdef=(signal.SIGPIPE, getattr(signal, "SIGXFSZ", signal.SIGPIPE)))
    except BaseException:
        for fd in fds:
            if fd >= 0:
                os.close(fd)
        raise
    for fd in (out_w, err_w, in_r):
        if fd >= 0:
            os.close(fd)
    try:
        out, err = _communicate(out_r, err_r, in_w, input or b"")
    finally:
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


def _communicate(out_r: int, err_r: int, in_w: int, data: bytes) -> tuple[bytes, bytes]:
    """Write ``data`` to ``in_w`` (then close it) while reading ``out_r`` and
    ``err_r`` to their ends; closes every descriptor it is given."""
    import select

    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    view = memoryview(data)
    if in_w >= 0 and not view:
        os.close(in_w)
        in_w = -1
    elif in_w >= 0:
        os.set_blocking(in_w, False)
        poller.register(in_w, select.POLLOUT)
    try:
        left = len(chunks) + (in_w >= 0)
        while left:
            for fd, _ in poller.poll():
                if fd != in_w:
                    block = os.read(fd, 65536)
                    if block:
                        chunks[fd].append(block)
                    else:
                        poller.unregister(fd)
                        left -= 1
                    continue
                try:
                    view = view[os.write(in_w, view[:65536]):]
                except BlockingIOError:
                    continue
                except BrokenPipeError:  # the child stopped reading: as subprocess, ignore it
                    view = view[:0]
                if not view:
                    poller.unregister(in_w)
                    os.close(in_w)
                    in_w = -1
                    left -= 1
    finally:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])
