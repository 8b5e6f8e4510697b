"""An LMS's zip read safely (roofline_grading.collect.archives): nothing extracted, no link followed,
sizes bounded; an entry that cannot be taken is named with why, and the others still read."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from roofline_grading.collect.archives import Archive, ArchiveError, Budget, EntryError, open_archives


def archive(*entries: tuple[str, bytes, int]) -> Archive:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as made:
        for name, content, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            made.writestr(info, content)
    return Archive(Path("lms.zip"), zipfile.ZipFile(data), order=0)


def test_links_paths_out_of_the_zip_and_entries_under_a_link_are_refused_and_named() -> None:
    read = archive(
        ("subs/alice_ex1.ipynb", b"{}", stat.S_IFREG | 0o644),
        ("subs/link", b"/etc", stat.S_IFLNK | 0o777),
        ("subs/link/bob_ex1.ipynb", b"{}", stat.S_IFREG | 0o644),
        ("/abs/carol_ex1.ipynb", b"{}", stat.S_IFREG | 0o644),
    )
    problems = {e.path: e.problem for e in read.entries() if e.kind != "folder"}
    assert problems["subs/alice_ex1.ipynb"] is None
    assert all(problems[p] for p in problems if p != "subs/alice_ex1.ipynb"), problems


def test_a_read_stops_at_the_runs_budget_and_names_why() -> None:
    read = archive(("a.ipynb", b"x" * 1000, stat.S_IFREG | 0o644))
    (entry,) = read.entries()
    with pytest.raises(EntryError):
        read.read(entry, Budget(left=10)).read()


def test_a_file_that_is_not_a_zip_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "notes.zip").write_text("not a zip")
    with pytest.raises(ArchiveError, match=r"notes\.zip"):
        open_archives([tmp_path / "notes.zip"])
