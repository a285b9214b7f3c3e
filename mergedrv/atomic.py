"""The atomic write: a file replaced whole, so that no reader ever sees a partial
one, and the clean-up of the temporary files of writes that were killed; and
the user's cache folder, read only as regular files.

Only mergedrv's own temporary files are ever removed.  Each write first
records, in a journal entry ``writes/PID-TOKEN`` in the user's cache folder
(a folder this user owns, mode 0700: no one else can write an entry), the
path of the temporary file ``.mergedrv-PID-TOKEN.tmp`` it is about to create
next to its target (TOKEN: 64 random bits), then creates it and adds its
device and inode to the entry; the entry goes once the file is renamed into
place.  A later write removes a temporary file only through such an entry
whose process is gone, and only if the file there is still that very file: a
regular file this user owns, the name the entry gives, and the device and
inode it recorded (or, killed before it recorded them, still empty).  A file
merely named like a temporary file (a tracked one, another user's) has no
entry and is never touched; without a usable cache folder nothing is
recorded and nothing of another process is removed.
"""

from __future__ import annotations

import os


def atomic_write(path: str, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that no reader sees a partial file.

    The file keeps its permissions (a new one gets the umask's), unless
    ``mode`` sets them (an executable hook).
    """
    folder = os.path.dirname(os.path.abspath(path))
    journal = journal_folder()
    if journal is not None:
        clean_stale(journal)
    token = f"{os.getpid()}-{os.urandom(8).hex()}"
    tmp = os.path.join(folder, f".mergedrv-{token}.tmp")
    claim = _claim(journal, token, tmp) if journal is not None else None
    entry = claim[0] if claim is not None else None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except BaseException:
        if claim is not None:
            _identify(claim[1], None)
        _unlink(entry)
        raise
    try:
        if claim is not None:
            _identify(claim[1], os.fstat(fd))
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
        try:
            os.chmod(tmp, mode if mode is not None else os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    finally:
        _unlink(entry)


def _unlink(path: str | None) -> None:
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def journal_folder() -> str | None:
    """The cache folder's ``writes`` journal, made if need be; None unless
    it and the cache folder are folders of this user that no one else can
    write to (then nothing is recorded, and nothing of others is cleaned)."""
    import stat

    base = cache_dir()
    if base is None:
        return None
    folder = os.path.join(base, "writes")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for where in (base, folder):
            st = os.lstat(where)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None
        if os.lstat(folder).st_mode & 0o077:
            return None
    except OSError:
        return None
    return folder


def _claim(journal: str, token: str, tmp: str) -> tuple[str, int] | None:
    """The journal entry naming the temporary file ``tmp`` about to be
    created, and its descriptor, left open for `_identify` (None if it
    cannot be written: that write is then never cleaned by another process)."""
    entry = os.path.join(journal, token)
    try:
        fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None
    try:
        os.write(fd, os.fsencode(tmp) + b"\n")
    except OSError:
        pass  # an entry that does not parse is dropped by the next clean-up
    return entry, fd


def _identify(fd: int, st: os.stat_result | None) -> None:
    """Add the created file's device and inode to its entry, and close it."""
    try:
        if st is not None:
            os.write(fd, b"%d %d\n" % (st.st_dev, st.st_ino))
    except OSError:
        pass
    finally:
        os.close(fd)


def clean_stale(journal: str) -> None:
    """Remove the temporary files of writes whose process is gone (SIGKILL
    leaves them), through their journal entries; see the module's text.
    Any problem just leaves a file."""
    try:
        names = os.listdir(journal)
    except OSError:
        return
    for name in names:
        pid, _, token = name.partition("-")
        if not (pid.isascii() and pid.isdigit() and len(token) == 16) or int(pid) == os.getpid() or _alive(int(pid)):
            continue
        entry = os.path.join(journal, name)
        try:
            _remove_recorded(entry, name)
        except (OSError, ValueError):
            pass
        try:
            os.unlink(entry)
        except OSError:
            pass


def _remove_recorded(entry: str, name: str) -> None:
    """Unlink the temporary file ``entry`` records if it is still that very file of ours."""
    import stat

    fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
            return
        raw = os.read(fd, 8192)
    finally:
        os.close(fd)
    path, newline, ids = raw.partition(b"\n")
    tmp = os.fsdecode(path)
    if not newline or not os.path.isabs(tmp) or os.path.basename(tmp) != f".mergedrv-{name}.tmp":
        return
    found = os.lstat(tmp)
    if not stat.S_ISREG(found.st_mode) or found.st_uid != os.getuid():
        return
    same = (found.st_dev, found.st_ino) == tuple(int(x) for x in ids.split()) if ids.endswith(b"\n") else found.st_size == 0
    if same:
        os.unlink(tmp)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def cache_dir() -> str | None:
    """``$XDG_CACHE_HOME/mergedrv`` or ``~/.cache/mergedrv``; None where
    neither is an absolute path (a relative XDG_CACHE_HOME is ignored, as
    the XDG spec says; no home: no cache, never a folder in the work tree)."""
    root = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(root):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        root = os.path.join(home, ".cache")
    return os.path.join(root, "mergedrv")


def read_regular(path: str) -> bytes | None:
    """A cache file's bytes, or None: only a regular file is read (a FIFO
    or device there must not block or flood a merge)."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)
