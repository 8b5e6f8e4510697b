"""Read an LMS's zip of submissions safely: what each entry is, and its bytes within limits.

``make collect`` never extracts a zip into a folder. It lists each zip's entries and reads the
bytes of the notebooks it takes straight into the student's folder, so no entry's path is ever
a path on disk. An entry is refused, with the reason, when it is

- a path that leaves the zip (``../x``, ``/etc/x``, ``C:\\x``) or a name with a NUL character;
- a symbolic link (links are never followed nor created), a device, a FIFO or a socket;
- inside a path the zip also holds as a link or as a file (a link used as a folder);
- encrypted, larger than :data:`MAX_ENTRY_BYTES`, or more than the run may read in total
  (:data:`MAX_TOTAL_BYTES`: a zip bomb stops there);
- unreadable: a corrupt member (bad CRC, truncated data, an unknown compression) is found
  while reading it, and only that entry is lost.

Folder entries are structure, not uploads: they are listed as such and never reported.

>>> import io, zipfile
>>> data = io.BytesIO()
>>> with zipfile.ZipFile(data, "w") as z:
...     z.writestr("subs/alice_ex1.ipynb", "{}")
...     z.writestr("../evil.ipynb", "{}")
>>> archive = Archive(Path("lms.zip"), zipfile.ZipFile(data), order=0)
>>> [(e.path, e.problem) for e in archive.entries()]
[('subs/alice_ex1.ipynb', None), ('../evil.ipynb', 'its path leaves the zip (..)')]
>>> archive.read(archive.entries()[0], Budget()).read()
b'{}'
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from roofline_grading.autograde.precheck import MAX_BYTES
from roofline_grading.autograde.results import clean

__all__ = [
    "MAX_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_TOTAL_BYTES",
    "Archive",
    "ArchiveError",
    "Budget",
    "Entry",
    "EntryError",
    "open_archives",
    "shown",
]

MAX_ENTRY_BYTES = MAX_BYTES
"""An entry larger than this is not read: the grading driver would not read such a notebook."""
MAX_TOTAL_BYTES = 2 * 2**30
"""What one collect reads from all its zips together, at most."""
MAX_ENTRIES = 100_000
"""A zip listing more entries than this is not read at all (a class's submissions are far fewer)."""
CHUNK = 2**16


class ArchiveError(RuntimeError):
    """A zip that cannot be read at all (the message names it and says why)."""


class EntryError(RuntimeError):
    """One entry that cannot be read (the message says why); the others still can."""


def shown(text: str) -> str:
    r"""A name from a zip as it may be printed: one line, no terminal escapes.

    >>> shown("a\x1b[2Jb\nc.ipynb")
    'a [2Jb c.ipynb'
    """
    return clean(text, limit=200)


@dataclass(frozen=True)
class Entry:
    """One member of a zip: its cleaned path, or why it cannot be taken."""

    archive: str
    """The zip's file name, as reports show it."""
    raw: str
    """The name exactly as the zip lists it."""
    path: str
    """The name with ``\\`` as ``/`` and empty or ``.`` parts dropped (as listed when refused)."""
    order: tuple[int, int]
    """(the zip's place among the zips named, the entry's place in its zip): later is larger."""
    date_time: tuple[int, int, int, int, int, int]
    """The date the zip gives the entry (local time of whoever made the zip, no time zone)."""
    size: int
    kind: str
    """``file``, ``folder``, ``link`` or ``special`` (a device, FIFO or socket)."""
    problem: str | None = None

    @property
    def label(self) -> str:
        """``zip:path``, printable."""
        return shown(f"{self.archive}:{self.raw}")

    @property
    def name(self) -> str:
        """The last part of the path (the file's own name)."""
        return self.path.rsplit("/", 1)[-1]


@dataclass
class Budget:
    """Bytes a run may still read from its zips (:data:`MAX_TOTAL_BYTES` to start with)."""

    left: int = MAX_TOTAL_BYTES
    entry_limit: int = MAX_ENTRY_BYTES


def _kind(info: zipfile.ZipInfo) -> str:
    """What the zip says the entry is: Unix modes where the zip has them, else DOS attributes."""
    mode = info.external_attr >> 16
    if info.create_system == 3 and stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # made on Unix
        return "link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else "special"
    if info.filename.endswith(("/", "\\")) or info.external_attr & 0x10:
        return "folder"
    return "file"


_DRIVE = re.compile(r"^[A-Za-z]:")


def clean_path(raw: str) -> tuple[str, str | None]:
    """The entry's path with ``/`` between parts, and why it cannot be taken (None if it can).

    >>> clean_path("subs\\\\./alice.ipynb")
    ('subs/alice.ipynb', None)
    >>> clean_path("/etc/passwd")[1], clean_path("C:/x")[1], clean_path("a/../../x")[1]
    ('an absolute path', 'an absolute path', 'its path leaves the zip (..)')
    """
    name = raw.replace("\\", "/")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    path = "/".join(parts)
    if "\0" in name:
        return path, "a NUL character in its name"
    if name.startswith("/") or _DRIVE.match(name):
        return path, "an absolute path"
    if ".." in parts:
        return path, "its path leaves the zip (..)"
    if not parts:
        return path, "an empty name"
    return path, None


class Archive:
    """One zip named on the command line, open for reading."""

    def __init__(self, path: Path, archive: zipfile.ZipFile, order: int) -> None:
        self.path = path
        self.name = path.name
        self._zip = archive
        self._order = order
        self._entries: list[Entry] | None = None

    def close(self) -> None:
        self._zip.close()

    def entries(self) -> list[Entry]:
        """Every entry, in the zip's order, each with its problem (None: it may be read)."""
        if self._entries is None:
            self._entries = self._list()
        return self._entries

    def _list(self) -> list[Entry]:
        infos = self._zip.infolist()
        listed: list[tuple[zipfile.ZipInfo, str, str, str | None]] = []
        links: set[str] = set()
        files: set[str] = set()
        for info in infos:
            path, problem = clean_path(info.filename)
            kind = _kind(info)
            listed.append((info, path, kind, problem))
            if problem is None and kind == "link":
                links.add(path)
            elif problem is None and kind != "folder":
                files.add(path)
        entries = []
        for index, (info, path, kind, problem) in enumerate(listed):
            problem = problem or _kind_problem(info, kind) or _inside(path, links, files)
            entries.append(
                Entry(
                    archive=self.name,
                    raw=info.filename,
                    path=path,
                    order=(self._order, index),
                    date_time=info.date_time,
                    size=info.file_size,
                    kind=kind,
                    problem=problem,
                )
            )
        return entries

    @contextmanager
    def _member(self, entry: Entry) -> Iterator[IO[bytes]]:
        info = self._zip.infolist()[entry.order[1]]
        try:
            with self._zip.open(info) as member:
                yield member
        except EntryError:
            raise
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            NotImplementedError,
            RuntimeError,
            OSError,
        ) as error:
            raise EntryError(f"cannot be read ({_reason(error)})") from None

    def read(self, entry: Entry, budget: Budget) -> IO[bytes]:
        """The entry's bytes (its CRC checked), within ``budget``; :class:`EntryError` says why not."""
        if entry.problem is not None:
            raise EntryError(entry.problem)
        if entry.size > budget.entry_limit:
            raise EntryError(f"larger than {budget.entry_limit // 2**20} MiB ({entry.size} bytes)")
        if entry.size > budget.left:
            raise EntryError(f"the zips hold more than {MAX_TOTAL_BYTES // 2**30} GiB of notebooks: not read")
        data = bytearray()
        with self._member(entry) as member:
            while chunk := _chunk(member):
                data += chunk
                if len(data) > min(entry.size, budget.left):  # more than the zip declared
                    raise EntryError("holds more bytes than the zip declares: not read")
        budget.left -= len(data)
        return io.BytesIO(bytes(data))


def _chunk(member: IO[bytes]) -> bytes:
    try:
        return member.read(CHUNK)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError) as error:
        raise EntryError(f"cannot be read ({_reason(error)})") from None


def _reason(error: BaseException) -> str:
    return shown(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)


def _kind_problem(info: zipfile.ZipInfo, kind: str) -> str | None:
    if kind == "link":
        return "a symbolic link (links are never followed nor created)"
    if kind == "special":
        return "not a regular file (a device, FIFO or socket)"
    if kind == "file" and info.flag_bits & 0x1:
        return "encrypted"
    return None


def _inside(path: str, links: set[str], files: set[str]) -> str | None:
    """Why ``path`` cannot be taken because a folder above it is a link or a file in the zip."""
    parts = path.split("/")
    for end in range(1, len(parts)):
        above = "/".join(parts[:end])
        if above in links:
            return f"inside {shown(above)}, which the zip also holds as a symbolic link"
        if above in files:
            return f"inside {shown(above)}, which the zip also holds as a file"
    return None


def open_archives(paths: list[Path]) -> list[Archive]:
    """Open every zip named, or raise :class:`ArchiveError` naming the first that cannot be read
    (then none is left open)."""
    opened: list[Archive] = []
    try:
        for order, path in enumerate(paths):
            opened.append(Archive(path, _open(path), order))
    except ArchiveError:
        for archive in opened:
            archive.close()
        raise
    return opened


def _open(path: Path) -> zipfile.ZipFile:
    if not path.exists():
        raise ArchiveError(f"{path}: no such file")
    if not path.is_file():
        raise ArchiveError(f"{path}: not a file")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as error:
        raise ArchiveError(f"{path}: not a zip file that can be read ({_reason(error)})") from None
    count = len(archive.infolist())
    if count > MAX_ENTRIES:
        archive.close()
        raise ArchiveError(f"{path}: lists {count} entries, more than the {MAX_ENTRIES} read at most")
    return archive
