"""``roofline-grading check EXERCISE``: one line per problem, and a clear refusal of a name that is
no exercise. The key's checks are shown to catch what they are for on a copy of exercise 9's key
with one thing broken; the whole command runs on exercise 9 itself (grading tier)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_grading import check
from roofline_grading.answer_key import EXERCISES
from roofline_grading.authoring import Exercise
from roofline_grading.questions import FunctionQuestion, Mistake, Reading

ROOT = Path(__file__).resolve().parents[2]
EX9 = EXERCISES["ex9_memory_hierarchy"]
DRAWS = 3


def broken(qid: str, **changes: object) -> Exercise:
    """Exercise 9 with its one question ``qid`` changed."""
    questions = tuple(dataclasses.replace(q, **changes) if q.id == qid else q for q in EX9.questions)
    return dataclasses.replace(EX9, questions=questions)


def held() -> FunctionQuestion:
    question = EX9.question("held_bytes")
    assert isinstance(question, FunctionQuestion)
    return question


def test_an_unknown_exercise_is_one_line_naming_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert check.main(["ex99_nothing"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("check: no exercise 'ex99_nothing'") and "\n" not in said
    assert all(name in said for name in EXERCISES)


@pytest.mark.slow  # each judges answers at many inputs (seconds)
def test_a_known_mistake_that_gives_the_right_answer_is_a_problem() -> None:
    question = held()
    same = Mistake(question.mistakes[0].misconception, question.reference)
    lines = list(check.mistakes_caught(broken(question.id, mistakes=(same,)), DRAWS))
    assert lines == [
        "ex9.held_bytes: the known mistake no-output is right at every public case",
        f"ex9.held_bytes: the known mistake no-output is given the point at {DRAWS} of {DRAWS} draws",
    ]


@pytest.mark.slow  # each judges answers at many inputs (seconds)
def test_a_reading_said_to_earn_the_point_that_does_not_is_a_problem() -> None:
    question = held()
    doubled = Reading("doubled", "twice the bytes", lambda *a: 2 * question.reference(*a), True)
    lines = list(check.readings_handled(broken(question.id, readings=(doubled,)), DRAWS, ROOT))
    refused = f"refused it at {DRAWS} of {DRAWS} draws"
    assert lines == [f"ex9.held_bytes: the reading doubled earns the point, but is {refused}"]


@pytest.mark.slow  # each judges answers at many inputs (seconds)
def test_a_reading_ruled_out_by_words_the_statement_lacks_is_a_problem() -> None:
    question = held()
    ruled = Reading("r", "a reading", lambda *a: 2 * question.reference(*a), False, "words nowhere")
    lines = list(check.readings_handled(broken(question.id, readings=(ruled,)), DRAWS, ROOT))
    assert "ex9.held_bytes: the reading r: the en statement does not say 'words nowhere'" in lines[0]


@pytest.mark.slow  # each judges answers at many inputs (seconds)
def test_exercise_9s_key_is_sound() -> None:
    assert list(check.answers_right(EX9, DRAWS)) == []
    assert list(check.mistakes_caught(EX9, DRAWS)) == []
    assert list(check.readings_handled(EX9, DRAWS, ROOT)) == []


@pytest.mark.grading  # runs the instructor's and the released notebooks in kernels, builds the translations
def test_the_command_finds_no_problem_in_exercise_9() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("roofline-grading")), "check", "ex9", "--draws", "5"],
        capture_output=True, text=True, check=False, timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        "ex9_memory_hierarchy: 0 problem(s); checked the release, the model answers, the known mistakes, the "
        "readings, the statement's figures, the notebooks run, the translated releases, the public edition "
        "(5 draws)"
    ]
