"""A collected notebook filed in the student's folder (roofline_grading.collect.filing): it replaces
only the student's file of the same name, and the line says what happened."""

from __future__ import annotations

from pathlib import Path

from roofline_grading.collect.filing import describe, file_notebook, kept_files


def test_a_notebook_is_collected_then_unchanged_then_replaced(tmp_path: Path) -> None:
    said = [file_notebook(tmp_path, "ex1.ipynb", data) for data in (b"one", b"one", b"two")]
    assert said == ["collected", "unchanged", "replaced"]
    assert (tmp_path / "ex1.ipynb").read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["ex1.ipynb"]  # no partial file left


def test_a_link_where_the_notebook_goes_is_replaced_by_the_file_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "ex1.ipynb").symlink_to(outside)
    assert file_notebook(folder, "ex1.ipynb", b"notebook") == "replaced"
    assert outside.read_text() == "keep me" and not (folder / "ex1.ipynb").is_symlink()


def test_the_other_files_from_before_are_kept_and_counted(tmp_path: Path) -> None:
    for name in ("ex1.ipynb", "ex2.ipynb", "timestamp.txt"):
        (tmp_path / name).write_text("before")
    kept = kept_files(tmp_path, {"ex1.ipynb"})
    assert kept == ["ex2.ipynb"]
    assert describe({"ex1.ipynb": "replaced"}, kept) == "ex1.ipynb replaced; 1 file kept from before"
