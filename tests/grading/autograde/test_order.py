"""The order students are handed to the workers (roofline_grading.autograde.order): largest first."""

from __future__ import annotations

from pathlib import Path

from roofline_grading.autograde.order import longest_first

NOTEBOOKS = ["ex1", "ex2", "ex3"]


def submit(root: Path, student: str, sizes: dict[str, int]) -> None:
    folder = root / student / "roofline"
    folder.mkdir(parents=True)
    for name, size in sizes.items():
        (folder / f"{name}.ipynb").write_bytes(b"x" * size)


def test_a_class_whose_long_submissions_sort_last_by_name_is_handed_out_long_first(tmp_path: Path) -> None:
    answered = {name: 900 for name in NOTEBOOKS}
    blank = {name: 600 for name in NOTEBOOKS}
    for student in ("blank0", "blank1", "blank2"):
        submit(tmp_path, student, blank)
    for student in ("model0", "model1"):
        submit(tmp_path, student, answered)
    submit(tmp_path, "one-notebook", {"ex1": 5000})
    students = sorted(p.name for p in tmp_path.iterdir())
    ordered = longest_first(students, lambda s: tmp_path / s / "roofline", NOTEBOOKS)
    # every notebook a kernel: the count comes before the bytes; equal estimates keep their order
    assert ordered == ["model0", "model1", "blank0", "blank1", "blank2", "one-notebook"]


def test_a_link_in_place_of_a_notebook_counts_as_nothing_to_grade(tmp_path: Path) -> None:
    submit(tmp_path, "linked", {"ex1": 10})
    (tmp_path / "linked" / "roofline" / "ex2.ipynb").symlink_to("/etc/passwd")
    submit(tmp_path, "two", {"ex1": 10, "ex2": 10})
    ordered = longest_first(["linked", "two"], lambda s: tmp_path / s / "roofline", NOTEBOOKS)
    assert ordered == ["two", "linked"]
