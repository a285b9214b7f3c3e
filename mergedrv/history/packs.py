"""Prefix proofs from a pack's deltas (`chains` tries them before hashing).

A packed blob is often stored as a delta against another blob: a list of
copies from that base and inserted bytes.  When its base's bytes are known
(the base is proven a prefix of a version read whole), the delta tells
whether the blob is a prefix of that version too (`rebuilds`: each copy and
insert compared where it lands; a copy to its own offset of that very
version needs no compare), and what its bytes are (`apply_delta`): no byte
of it is hashed.  The object ids come from the pack's index, which git
verified object by object when it wrote or received the pack (`git
index-pack`), as it does for every read from a pack.  Anything else (a
loose object, a base outside the versions, a delta that does not fit) is
left to the SHA-1 of `chains._prefix`.
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from bisect import bisect_left

_OFS_DELTA, _REF_DELTA = 6, 7


def _objects_dir(repo) -> str | None:
    git_dir = getattr(repo, "path", None)
    if not git_dir:
        return None
    common = os.path.join(git_dir, "commondir")
    if os.path.exists(common):  # a linked worktree's git dir
        with open(common, encoding="utf-8") as f:
            git_dir = os.path.join(git_dir, f.read().strip())
    return os.path.join(git_dir, "objects")


class _Pack:
    """One pack and its index (version 2), mapped, never read whole."""

    def __init__(self, idx_path: str) -> None:
        with open(idx_path, "rb") as f:
            self.idx = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        with open(idx_path[:-4] + ".pack", "rb") as f:
            self.pack = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        idx = self.idx
        if idx[:8] != b"\377tOc\0\0\0\2" or self.pack[:4] != b"PACK":
            raise ValueError("not a version 2 pack index")
        self.fanout = struct.unpack(">256I", idx[8 : 8 + 1024])
        self.count = self.fanout[255]

    def close(self) -> None:
        self.idx.close()
        self.pack.close()

    def _id(self, i: int) -> bytes:
        at = 1032 + 20 * i
        return self.idx[at : at + 20]

    def offset(self, oid: bytes) -> int | None:
        lo = self.fanout[oid[0] - 1] if oid[0] else 0
        hi = self.fanout[oid[0]]
        while lo < hi:
            mid = (lo + hi) // 2
            found = self._id(mid)
            if found < oid:
                lo = mid + 1
            elif found > oid:
                hi = mid
            else:
                base = 1032 + 24 * self.count
                (off,) = struct.unpack(">I", self.idx[base + 4 * mid : base + 4 * mid + 4])
                if off & 0x80000000:
                    big = base + 4 * self.count + 8 * (off & 0x7FFFFFFF)
                    (off,) = struct.unpack(">Q", self.idx[big : big + 8])
                return off
        return None

    def whole(self, offset: int) -> bytes | None:
        """The body of the blob stored whole at ``offset`` (None: not a blob, or a delta)."""
        kind, size, at = self._header(offset)
        if kind != 3:
            return None
        z = zlib.decompressobj()
        out = z.decompress(self.pack[at : at + size + size // 64 + 64], size + 1)
        return out if len(out) == size and z.eof else None

    def _header(self, offset: int) -> tuple[int, int, int]:
        """(type, size, offset of what follows) of the object at ``offset``."""
        pack = self.pack
        byte = pack[offset]
        kind = (byte >> 4) & 7
        size, shift, at = byte & 15, 4, offset + 1
        while byte & 0x80:
            byte = pack[at]
            at += 1
            size |= (byte & 0x7F) << shift
            shift += 7
        return kind, size, at

    def base(self, offset: int) -> tuple[int | bytes, int, int] | None:
        """(base offset or base id, where the delta's zlib stream starts, its
        size) of the delta at ``offset``; None if it is stored whole."""
        pack = self.pack
        kind, size, at = self._header(offset)
        if kind == _OFS_DELTA:
            byte = pack[at]
            at += 1
            back = byte & 0x7F
            while byte & 0x80:
                byte = pack[at]
                at += 1
                back = ((back + 1) << 7) | (byte & 0x7F)
            return offset - back, at, size
        if kind == _REF_DELTA:
            return pack[at : at + 20], at + 20, size
        return None

    def inflate(self, at: int, size: int) -> bytes | None:
        z = zlib.decompressobj()
        out = z.decompress(self.pack[at : at + size + size // 64 + 64], size + 1)  # zlib never grows data by more
        return out if len(out) == size and z.eof else None

    def delta(self, offset: int) -> tuple[int | bytes, bytes] | None:
        """(base offset or base id, delta bytes) of the object at ``offset``;
        None if it is stored whole."""
        found = self.base(offset)
        if found is None:
            return None
        base, at, size = found
        out = self.inflate(at, size)
        return (base, out) if out is not None else None


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _ops(delta: bytes, at: int):
    """git's delta instructions from ``at``: (offset, size) of a copy from the
    base, or (None, start) of ``size`` bytes inserted from the delta itself;
    (None, -1) for the reserved opcode 0."""
    end = len(delta)
    while at < end:
        op = delta[at]
        at += 1
        if op & 0x80:
            off = n = 0
            for i in range(4):
                if op & (1 << i):
                    off |= delta[at] << (8 * i)
                    at += 1
            for i in range(3):
                if op & (16 << i):
                    n |= delta[at] << (8 * i)
                    at += 1
            yield off, n or 0x10000
        elif op:
            yield None, at, op
            at += op
            continue
        else:
            yield None, -1, 0
            return


def rebuilds(delta: bytes, base: bytes, base_size: int, target: bytes, size: int) -> bool | None:
    """Whether the delta, applied to ``base[:base_size]``, gives ``target[:size]``:
    its copies and inserts compared with ``target``'s bytes where they land (a
    copy from ``target`` itself to its own offset needs no compare).  None when
    the delta does not fit the base (its sizes, a copy past the base's end, the
    reserved opcode, pieces that do not add up): nothing is known."""
    src, at = _varint(delta, 0)
    dst, at = _varint(delta, at)
    if src != base_size or dst != size or base_size > len(base):
        return None
    ops, total = [], 0
    for op in _ops(delta, at):  # (a delta is a few dozen pieces: checked whole before any byte is compared)
        if op[0] is None and op[1] < 0 or op[0] is not None and op[0] + op[1] > base_size:
            return None
        total += op[1] if op[0] is not None else op[2]
        ops.append(op)
    if total != size:
        return None
    if size > len(target):
        return False
    pos, same, view, inserts = 0, base is target, memoryview(base), memoryview(delta)
    for op in ops:
        if op[0] is not None:
            off, n = op
            if not (same and off == pos) and not target.startswith(view[off : off + n], pos):
                return False
        else:
            _, start, n = op
            if not target.startswith(inserts[start : start + n], pos):
                return False
        pos += n
    return True


def proven(repo, longest: bytes, longest_hex: str, sized: list, hashed, deltas: dict | None = None) -> dict[str, bool]:
    """Hex id -> whether the version is a prefix of ``longest`` (whose id is
    ``longest_hex``), for the versions (size, hex id, oid) of ``sized`` found
    in a pack: by their deltas onto a base proven a prefix (`rebuilds`), or
    ``hashed([(size, hex id)])`` (their SHA-1s: the hex ids proven) for the
    versions stored whole, as deltas of something else, or as deltas that do
    not fit.  With ``deltas``, it is given hex id -> (base hex id, delta) of
    each version stored as a delta of another, and a version whose base is
    no prefix is left out (its caller decides it from that base's bytes)."""
    objects = _objects_dir(repo)
    pack_dir = os.path.join(objects, "pack") if objects else ""
    try:
        names = sorted(n for n in os.listdir(pack_dir) if n.endswith(".idx")) if pack_dir else []
    except OSError:  # loose objects only: nothing is proven here, the caller hashes them
        return {}
    size_of = {h: size for size, h, _ in sized}
    size_of[longest_hex] = len(longest)
    out: dict[str, bool] = {}
    for name in names:
        try:
            pack = _Pack(os.path.join(pack_dir, name))
        except (OSError, ValueError, struct.error):  # a junk or truncated index git only warns about
            continue
        found: dict = {}
        left: set[str] = set()
        try:
            out.update(_proven_in(pack, longest, longest_hex, size_of, hashed, found, left if deltas is not None else None))
        except (IndexError, ValueError, zlib.error, struct.error):
            found, left = {}, set()
        finally:
            pack.close()
        if deltas is not None:
            deltas.update(found)
        if len(out) + len(left - out.keys()) >= len(sized):
            break
    out.pop(longest_hex, None)
    return out


def _versions_in(pack: _Pack, size_of: dict[str, int]) -> tuple[dict[int, str], dict[bytes, int]]:
    """(offset -> hex id, id -> offset) of the versions stored in ``pack``."""
    at: dict[int, str] = {}
    by_id: dict[bytes, int] = {}
    for h in size_of:
        off = pack.offset(bytes.fromhex(h))
        if off is not None:
            at[off] = h
            by_id[bytes.fromhex(h)] = off
    return at, by_id


def _proven_in(pack: _Pack, longest: bytes, longest_hex: str, size_of: dict[str, int], hashed, deltas: dict,
               left: set[str] | None) -> dict[str, bool]:
    """`proven` in one pack: ``deltas`` filled as it says; ``left``: where to
    put the versions resting on a base that is no prefix (None: hash them)."""
    at, by_id = _versions_in(pack, size_of)
    root = by_id.get(bytes.fromhex(longest_hex))
    if root is None:
        return {}
    known: dict[int, bool] = {root: True}
    chains: dict[int, tuple] = {}  # offset -> (base offset or None, delta), read once
    deferred: set[int] = set()  # versions resting on a base that is no prefix (left to the caller)

    def prove(offset: int, need: set[int]) -> None:
        """Decide ``offset`` from its deltas down to a decided base; a version
        stored whole, a delta of another blob or one that does not fit goes
        to ``need`` (to be hashed), and what rests on it waits."""
        chain = []
        while offset not in known and offset not in deferred:
            if offset not in chains:
                found = pack.base(offset)  # the delta is inflated only when its base is a version
                base = found[0] if found is not None else None
                base = by_id.get(base, -1) if isinstance(base, bytes) else base
                delta = pack.inflate(found[1], found[2]) if found is not None and base in at else None
                chains[offset] = (base if delta is not None else None, delta)
                if delta is not None and base is not None:
                    deltas[at[offset]] = (at[base], delta)
            base, delta = chains[offset]
            if base is None or offset in need:
                need.add(offset)
                return
            chain.append((offset, base, delta))
            offset = base
        for off, base, delta in reversed(chain):
            if base in deferred or not known[base]:
                if left is None:
                    need.add(off)
                    return
                deferred.add(off)  # (its base's bytes are not the longest's: the caller compares them)
                continue
            size = size_of[at[off]]
            ok = rebuilds(delta, longest, size_of[at[base]], longest, size)
            if ok is None:
                need.add(off)
                return
            known[off] = ok and (not size or longest[size - 1] == 0x0A)

    while True:  # the hashes of each round on two threads (`hashed`), then what rests on them
        need: set[int] = set()
        for off in at:
            if off not in known and off not in deferred:
                prove(off, need)
        if not need:
            break
        yes = hashed([(size_of[at[off]], at[off]) for off in need])
        for off in need:
            known[off] = at[off] in yes
    if left is not None:
        left.update(at[off] for off in deferred)
    return {at[off]: ok for off, ok in known.items()}


def apply_delta(base: bytes, delta: bytes) -> bytes | None:
    """git's delta ``delta`` applied to ``base`` (None if it does not fit)."""
    src, at = _varint(delta, 0)
    dst, at = _varint(delta, at)
    if src != len(base):
        return None
    parts, size = [], 0
    for op in _ops(delta, at):
        if op[0] is not None:
            off, n = op
            if off + n > src:
                return None
            parts.append(base[off : off + n])
        else:
            _, start, n = op
            if start < 0:
                return None
            parts.append(delta[start : start + n])
        size += len(parts[-1])
    return b"".join(parts) if size == dst else None


class Blobs:
    """Blobs read from the packs by their deltas onto versions read before
    (a range reads a record's versions one after another: each is a few
    copies from another).  Every blob read is checked against its id (one
    SHA-1), so a wrong answer is impossible: it is None, and the caller
    reads it through libgit2."""

    DEPTH = 12  # deltas followed from a blob towards a base held or stored whole
    HELD = 16 << 20  # bytes of bodies kept, by pack and offset, the least recently used dropped first

    def __init__(self, repo) -> None:
        self.repo = repo
        self._packs: list[_Pack] | None = None
        self._held: dict = {}
        self._held_bytes = 0

    def packs(self) -> list[_Pack]:
        if self._packs is None:
            self._packs = []
            objects = _objects_dir(self.repo)
            pack_dir = os.path.join(objects, "pack") if objects else ""
            try:
                names = sorted(n for n in os.listdir(pack_dir) if n.endswith(".idx")) if pack_dir else []
            except OSError:
                names = []
            for name in names:
                try:
                    self._packs.append(_Pack(os.path.join(pack_dir, name)))
                except (OSError, ValueError, struct.error):
                    pass
        return self._packs

    def read(self, hexid: str) -> bytes | None:
        """The blob's bytes, or None (not packed, stored otherwise, or not proven)."""
        if len(hexid) != 40:
            return None
        oid = bytes.fromhex(hexid)
        for pack in self.packs():
            try:
                offset = pack.offset(oid)
                if offset is None:
                    continue
                data = self._body(pack, offset, self.DEPTH)
            except (IndexError, ValueError, zlib.error, struct.error):
                return None
            if data is None:
                return None
            import hashlib

            h = hashlib.sha1(b"blob %d\0" % len(data))
            h.update(data)  # (no copy of the blob)
            if h.digest() != oid:
                return None
            return data
        return None

    def _body(self, pack: _Pack, offset: int, depth: int) -> bytes | None:
        k = (id(pack), offset)
        held = self._held.pop(k, None)
        if held is not None:
            self._held[k] = held  # now the most recently used
            return held
        found = pack.delta(offset)
        if found is None:
            data = pack.whole(offset)
        elif depth <= 0:
            return None
        else:
            base, delta = found
            if isinstance(base, bytes):
                base = pack.offset(base)
                if base is None:
                    return None
            body = self._body(pack, base, depth - 1)
            data = apply_delta(body, delta) if body is not None else None
        if data is not None:
            self._held[k] = data
            self._held_bytes += len(data)
            while self._held_bytes > self.HELD and len(self._held) > 1:
                self._held_bytes -= len(self._held.pop(next(iter(self._held))))
        return data
