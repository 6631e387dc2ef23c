"""The round end's durable step: one memory copy into a preallocated, memory-mapped file.

A completed round must be durable before `round_ended` reaches any client, and that step sits
on the move path. An INSERT into the SQLite outbox costs 16 system calls and 100-300 µs on a
cold cache; this journal costs none: the encoded record is copied into a shared mapping of a
file whose blocks were allocated and whose pages were touched in advance, off the event loop.
The bytes are then in the OS page cache, which is exactly as durable as the outbox's WAL write
with synchronous=NORMAL: they survive the process dying (kill -9, OOM), not the OS crashing.
Right behind the move, the recorder moves each journaled round into the SQLite outbox (a worker
thread, one transaction) and then releases it here.

Layout: a directory next to the outbox; each process writes its own segments
(`<owner>-<n>.seg`, fixed size, held under an exclusive flock while open). An entry is an
8-byte header (payload length, CRC-32 of the payload) and the payload; the payload is written
before the header, so an entry cut short by a crash reads as the end of the segment (length 0,
or a CRC that does not match). When the active segment is full the spare one, prepared in the
background, takes over; a segment is deleted once every entry in it has reached the outbox.

Recovery: segments whose flock can be taken belong to no live process (a process that died, or
one that closed before it could hand everything to the outbox); `recover` reads their entries
and `discard` deletes them once the outbox holds those rounds. Replaying an entry twice is
harmless: the outbox and the database are both idempotent on (match_id, number).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import mmap
import os
import struct
import uuid
import zlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

log = logging.getLogger(__name__)

SEGMENT_BYTES: Final = 2 << 20  # ~600 rounds of a 3-player match per segment
_HEADER = struct.Struct("<II")  # payload length, CRC-32 of the payload
_SUFFIX: Final = ".seg"


class Ticket(NamedTuple):
    """Where an entry ends: entries are released in the order they were written."""

    segment: int
    end: int


@dataclass
class _Segment:
    index: int
    path: Path
    fd: int
    map: mmap.mmap
    pos: int = 0  # where the next entry goes
    retired: bool = False

    def close(self, *, delete: bool) -> None:
        with contextlib.suppress(BufferError, ValueError):
            self.map.close()
        if delete:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        os.close(self.fd)  # releases the flock: a segment left on disk is now an orphan


@dataclass
class Orphan:
    """A segment no live process holds, with the entries it still had (oldest first)."""

    path: Path
    payloads: list[bytes] = field(default_factory=list)


class Journal:
    """Append from the event loop only; everything else is async and runs in a worker thread."""

    def __init__(self, directory: Path, segment_bytes: int = SEGMENT_BYTES) -> None:
        self.directory = directory
        self.segment_bytes = segment_bytes
        self.owner = uuid.uuid4().hex[:16]
        self._active: _Segment | None = None
        self._spare: _Segment | None = None
        self._retired: deque[_Segment] = deque()
        self._next_index = 0
        self._refill: asyncio.Task[None] | None = None

    # --- the move path ---

    def append(self, payload: bytes) -> Ticket | None:
        """Copy one entry into the active segment. None when it cannot take it now (no room
        and no spare segment ready yet, or the journal is closed): use the outbox then."""
        seg = self._active
        size = _HEADER.size + len(payload)
        if seg is None or size > self.segment_bytes:
            return None
        if seg.pos + size > self.segment_bytes:
            seg = self._rotate()
            if seg is None:
                return None
        start = seg.pos
        body = start + _HEADER.size
        seg.map[body : body + len(payload)] = payload
        _HEADER.pack_into(seg.map, start, len(payload), zlib.crc32(payload))  # last: see doc
        seg.pos = body + len(payload)
        return Ticket(seg.index, seg.pos)

    def _rotate(self) -> _Segment | None:
        spare = self._spare
        if spare is None:
            self._start_refill()
            return None
        assert self._active is not None
        self._active.retired = True
        self._retired.append(self._active)
        self._active, self._spare = spare, None
        self._start_refill()
        return spare

    def _start_refill(self) -> None:
        if self._refill is None or self._refill.done():
            self._refill = asyncio.get_running_loop().create_task(
                self._prepare_spare(), name="journal-spare"
            )

    async def _prepare_spare(self) -> None:
        if self._spare is not None or self._active is None:
            return
        try:
            self._spare = await asyncio.to_thread(self._new_segment, self._take_index())
        except OSError as exc:  # the outbox takes the rounds meanwhile; tried again at rotation
            log.warning("journal: no spare segment (%s)", type(exc).__name__)

    # --- lifecycle ---

    async def open(self) -> None:
        await asyncio.to_thread(self.directory.mkdir, parents=True, exist_ok=True)
        self._active = await asyncio.to_thread(self._new_segment, self._take_index())
        self._spare = await asyncio.to_thread(self._new_segment, self._take_index())

    async def close(self, *, released: bool) -> None:
        """Unmap and unlock every segment. `released`: everything written has reached the
        outbox, so the files go too; otherwise they stay for `recover` (here or elsewhere)."""
        if self._refill is not None:
            with contextlib.suppress(BaseException):
                await self._refill
        segments = [*self._retired, *(s for s in (self._active, self._spare) if s is not None)]
        self._active = self._spare = None
        self._retired.clear()
        for seg in segments:
            await asyncio.to_thread(seg.close, delete=released or seg.pos == 0)

    async def release(self, ticket: Ticket) -> None:
        """Every entry up to `ticket` has reached the outbox: delete the segments now spent."""
        spent: list[_Segment] = []
        while self._retired:
            seg = self._retired[0]
            if seg.index < ticket.segment or (
                seg.index == ticket.segment and ticket.end >= seg.pos
            ):
                spent.append(self._retired.popleft())
            else:
                break
        for seg in spent:
            await asyncio.to_thread(seg.close, delete=True)

    # --- recovery ---

    async def recover(self) -> list[Orphan]:
        """Segments of processes that are gone, with their entries, oldest first."""
        return await asyncio.to_thread(self._recover)

    async def discard(self, orphans: list[Orphan]) -> None:
        """The orphans' entries are in the outbox now: delete the files."""
        for orphan in orphans:
            with contextlib.suppress(FileNotFoundError):
                await asyncio.to_thread(orphan.path.unlink)

    def _recover(self) -> list[Orphan]:
        if not self.directory.is_dir():
            return []
        orphans: list[Orphan] = []
        for making in self.directory.glob(f"*{_SUFFIX}.new"):
            _remove_if_unlocked(making)  # a process died making it: it never held an entry
        paths = sorted(self.directory.glob(f"*{_SUFFIX}"), key=_segment_order)
        for path in paths:
            if path.name.startswith(self.owner + "-"):
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue  # taken by another process meanwhile
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)  # a live process writes it
                continue
            try:
                with open(fd, "rb", closefd=False) as f:
                    orphans.append(Orphan(path, read_entries(f.read())))
            finally:
                os.close(fd)
        return orphans

    # --- segments ---

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def _new_segment(self, index: int) -> _Segment:
        path = self.directory / f"{self.owner}-{index:08d}{_SUFFIX}"
        # Made under another name and renamed once locked: a recovering process must never
        # see a segment of ours that it can lock (it would delete it under us).
        making = path.with_name(path.name + ".new")
        fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Real blocks now: a write into a sparse mapping on a full disk would be SIGBUS.
            os.posix_fallocate(fd, 0, self.segment_bytes)
            mapping = mmap.mmap(fd, self.segment_bytes)
            os.rename(making, path)
        except BaseException:
            os.close(fd)
            making.unlink(missing_ok=True)
            raise
        for page in range(0, self.segment_bytes, mmap.PAGESIZE):
            mapping[page] = 0  # fault every page in now, off the loop, not on a round end
        return _Segment(index, path, fd, mapping)


def read_entries(data: bytes) -> list[bytes]:
    """The complete entries of a segment, in order; stops at the first empty or torn one."""
    entries: list[bytes] = []
    pos = 0
    while pos + _HEADER.size <= len(data):
        length, crc = _HEADER.unpack_from(data, pos)
        body = pos + _HEADER.size
        if length == 0 or body + length > len(data):
            break
        payload = data[body : body + length]
        if zlib.crc32(payload) != crc:
            break
        entries.append(payload)
        pos = body + length
    return entries


def _remove_if_unlocked(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        path.unlink(missing_ok=True)
    except BlockingIOError:
        pass  # being made right now
    finally:
        os.close(fd)


def _segment_order(path: Path) -> tuple[float, str]:
    with contextlib.suppress(OSError):
        return (path.stat().st_mtime, path.name)
    return (0.0, path.name)
