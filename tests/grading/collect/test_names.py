"""An entry's student and notebook (roofline_grading.collect.names), through the configured plugin."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from traitlets.config import Config

from roofline_grading.collect.names import Names, PatternError, Upload

GUIDE = Path(__file__).resolve().parents[3] / "book" / "instructor-guide.md"
LOG = logging.getLogger("test_names")
RELEASED = ["ex1_int8_matmul.ipynb", "ex2_int8_weights.ipynb"]


def names(config: Config, root: Path = Path("/course")) -> Names:
    return Names(config, root, "roofline", RELEASED, LOG)


def configured(plugin: str) -> Config:
    config = Config()
    config.ZipCollectApp.collector_plugin = plugin
    return config


def test_a_new_lms_is_one_class_in_the_course_and_one_line_of_configuration(tmp_path: Path) -> None:
    """The guide's recipe: a module beside nbgrader_config.py, named by collector_plugin."""
    guide = GUIDE.read_text()
    recipe = guide[guide.index("**Another LMS is one class and one line.**") :]
    code = re.search(r"```python\n(.*?)```", recipe, re.DOTALL)
    line = re.search(r'`c\.ZipCollectApp\.collector_plugin = "(school_lms\.School)"`', recipe)
    assert code is not None and line is not None
    (tmp_path / "school_lms.py").write_text(code.group(1))
    read = names(configured(line.group(1)), tmp_path).read("z.zip", "ex2_int8_weights__kim__LATE.ipynb")
    assert read == Upload("kim", "ex2_int8_weights.ipynb", None, True, 0, None, spelling="kim")


def test_an_entry_no_plugin_reads_is_named_with_where_the_naming_is_set() -> None:
    why = names(configured("roofline_grading.collect.lms.Moodle")).read(
        "z.zip", "alice_ex1_int8_matmul.ipynb"
    )
    assert why == (
        "its name is not one Moodle gives (c.ZipCollectApp.collector_plugin, c.Moodle.named_regexp)"
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("__MACOSX/._alice_ex1_int8_matmul.ipynb", "macOS metadata (__MACOSX, ._ files), not a submission"),
        ("inner.zip", "a zip inside the zip: extract it and name it on the command line"),
        ("alice_ex1_int8_matmul.py", "not a notebook (.ipynb)"),
        ("alice_ex9_other.ipynb", "ex9_other.ipynb is not a notebook of roofline"),
    ],
)
def test_what_is_no_upload_is_named_for_what_it_is(path: str, why: str) -> None:
    assert names(configured("roofline_grading.collect.lms.Canvas")).read("z.zip", path) == why


def test_the_id_is_filed_normalised_and_keeps_the_lms_spelling() -> None:
    found = names(configured("roofline_grading.collect.lms.Canvas")).read(
        "z.zip", "ALICE_ex1_int8_matmul.ipynb"
    )
    assert isinstance(found, Upload) and (found.student, found.spelling) == ("alice", "ALICE")


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"ZipCollectApp": {"collector_plugin": "nowhere.Blackboard"}}, "cannot be imported"),
        ({"ZipCollectApp": {"collector_plugin": "logging.Logger"}}, "is not nbgrader's kind of plugin"),
        ({"Canvas": {"named_regexp": "(unclosed"}}, "c.Canvas.named_regexp is not a regular expression"),
        ({"Canvas": {"named_regexp": "(?P<student_id>x)"}}, "has no group file_id"),
        (
            {"ZipCollectApp": {"collector_plugin": "nbgrader.plugins.zipcollect.FileNameCollectorPlugin"}},
            "FileNameCollectorPlugin has no pattern",
        ),
    ],
)
def test_a_plugin_or_pattern_that_cannot_be_used_is_one_line_saying_what_to_change(
    setting: dict[str, dict[str, str]], said: str
) -> None:
    config = configured("roofline_grading.collect.lms.Canvas")
    config.merge(Config(setting))
    with pytest.raises(PatternError, match=said):
        names(config)
