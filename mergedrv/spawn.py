"""One child process with its output captured, as `subprocess.run(argv,
cwd=cwd, capture_output=True, input=input, env=env)` gives it, made with
os.posix_spawnp and one poll loop: importing subprocess (threading,
selectors, signal, locale) costs each hook ~4 ms, once per process, and a
hook runs a handful of git commands.  The one process runner: git access
(`git.run`) and the merge's `git merge-file` start their processes here.
`started` runs one in the background, its output kept in unnamed files
(`mergedrv init` reads history while it parses).
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
    argv = _at(cwd, argv)
    fds = [*os.pipe(), *os.pipe(), *(os.pipe() if input is not None else (-1, -1))]
    out_r, out_w, err_r, err_w, in_r, in_w = fds
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if in_r >= 0:
        actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
    pid = _spawn(argv, os.environ if env is None else env, actions, fds)
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


class Started:
    """A child process `started` in the background, its stdout and stderr
    kept in unnamed files (a pipe would stop it once full): ``result()``
    waits for it and gives what `captured` gives."""

    __slots__ = ("pid", "out", "err", "done")

    def __init__(self, pid: int, out: int, err: int) -> None:
        self.pid, self.out, self.err = pid, out, err
        self.done: tuple[int, bytes, bytes] | None = None

    def result(self) -> tuple[int, bytes, bytes]:
        """(exit status, stdout, stderr), once it has ended."""
        if self.done is None:
            _, status = os.waitpid(self.pid, 0)
            try:
                self.done = (os.waitstatus_to_exitcode(status), _read_whole(self.out), _read_whole(self.err))
            finally:
                os.close(self.out)
                os.close(self.err)
        return self.done


def started(cwd: str | os.PathLike, argv: list[str], input: bytes | None = None) -> Started | None:
    """``argv`` started in ``cwd`` as `captured` starts it, not waited for;
    None where os.posix_spawnp or unnamed files are missing (then run it with
    `captured`); OSError when it cannot start."""
    if not hasattr(os, "posix_spawnp") or not hasattr(os, "memfd_create"):
        return None
    argv = _at(cwd, argv)
    fds: list[int] = []
    try:
        for name in ("out", "err", "in"):
            fds.append(os.memfd_create(name) if name != "in" or input is not None else -1)
    except OSError:  # (no unnamed files here after all: run it with `captured`)
        _close(fds)
        return None
    out, err, stdin = fds
    actions = [(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, err, 2)]
    if stdin >= 0:
        try:
            view = memoryview(input or b"")
            while view:
                view = view[os.write(stdin, view):]
            os.lseek(stdin, 0, os.SEEK_SET)
        except BaseException:
            _close(fds)
            raise
        actions.append((os.POSIX_SPAWN_DUP2, stdin, 0))
    pid = _spawn(argv, os.environ, actions, fds)
    if stdin >= 0:
        os.close(stdin)
    return Started(pid, out, err)


def _at(cwd: str | os.PathLike, argv: list[str]) -> list[str]:
    """``argv`` to run as if started in ``cwd`` (git: ``-C cwd``, when that is not the current folder)."""
    if not os.path.isdir(cwd):
        raise FileNotFoundError(2, "No such file or directory", os.fspath(cwd))  # as subprocess's chdir fails
    if os.path.realpath(cwd) != os.path.realpath("."):
        return [argv[0], "-C", os.fspath(cwd), *argv[1:]]
    return argv


def _spawn(argv: list[str], env, actions: list, fds: list[int]) -> int:
    """The child's pid; ``fds`` closed when it cannot start."""
    import signal

    try:
        # the child gets the default SIGPIPE and SIGXFSZ, as subprocess gives it
        return os.posix_spawnp(argv[0], argv, env, file_actions=actions,
                               setsigdef=(signal.SIGPIPE, getattr(signal, "SIGXFSZ", signal.SIGPIPE)))
    except BaseException:
        _close(fds)
        raise


def _close(fds: list[int]) -> None:
    for fd in fds:
        if fd >= 0:
            os.close(fd)


def _read_whole(fd: int) -> bytes:
    chunks: list[bytes] = []
    pos = 0
    while True:
        block = os.pread(fd, 1 << 20, pos)
        if not block:
            return b"".join(chunks)
        chunks.append(block)
        pos += len(block)
