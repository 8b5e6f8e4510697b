"""The grading helper and the answer key, without nbgrader.

The answer key must accept every right answer, reject every known mistake and name its
misconception; the helper must judge plain values only, never trusting the student's objects.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import fields
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure  # figures made without pyplot need no backend

from rooflinekit import answer_key as key
from rooflinekit import reference
from rooflinekit.grading import (
    AnswerError,
    ChoiceQuestion,
    FigureQuestion,
    FunctionQuestion,
    Misconception,
    Mistake,
    Tolerance,
    ValueQuestion,
    as_number,
    assert_axis_labels,
    assert_choice,
    assert_curve_labels,
    assert_curves,
    assert_function,
    assert_value,
)

Question = ValueQuestion | FunctionQuestion | ChoiceQuestion | FigureQuestion


def questions() -> Iterator[tuple[str, Question]]:
    for notebook, exercise in key.EXERCISES.items():
        for part in fields(exercise):
            value = getattr(exercise, part.name)
            if isinstance(value, ValueQuestion | FunctionQuestion | ChoiceQuestion | FigureQuestion):
                yield f"{notebook}.{part.name}", value


QUESTIONS = dict(questions())
VALUES = {name: q for name, q in QUESTIONS.items() if isinstance(q, ValueQuestion)}
FUNCTIONS = {name: q for name, q in QUESTIONS.items() if isinstance(q, FunctionQuestion)}
CHOICES = {name: q for name, q in QUESTIONS.items() if isinstance(q, ChoiceQuestion)}


def raised(check: Any, *args: Any) -> str:
    with pytest.raises(AnswerError) as info:
        check(*args)
    return " ".join(str(info.value).split())  # messages are wrapped to fit the feedback page


# --- The answer key accepts the references and names every known mistake ----------------


@pytest.mark.parametrize("name", VALUES)
def test_value_question_accepts_each_accepted_answer(name: str) -> None:
    question = VALUES[name]
    for accepted in question.accepted:
        assert_value(accepted(), question)


@pytest.mark.parametrize("name", VALUES)
def test_value_question_names_each_mistake(name: str) -> None:
    question = VALUES[name]
    for mistake in question.mistakes:
        assert mistake.misconception.message in raised(assert_value, mistake.answer(), question)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_question_accepts_its_reference(name: str) -> None:
    question = FUNCTIONS[name]
    assert_function(question.reference, question, np.random.default_rng(0))


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_function_question_names_each_mistake_at_random_sizes(name: str, seed: int) -> None:
    question = FUNCTIONS[name]
    for mistake in question.mistakes:
        message = raised(assert_function, mistake.answer, question, np.random.default_rng(seed))
        assert mistake.misconception.message in message


@pytest.mark.parametrize("name", CHOICES)
def test_choice_question_accepts_its_answer_and_names_each_mistake_that_differs(name: str) -> None:
    question = CHOICES[name]
    assert_choice(question.accepted(), question)
    differing = [m for m in question.mistakes if m.answer() != question.accepted()]
    assert differing, "a choice question whose mistakes all give the right word catches nothing"
    for mistake in differing:
        assert mistake.misconception.message in raised(assert_choice, mistake.answer(), question)


def test_every_misconception_the_spec_names_is_caught_somewhere_in_its_exercise() -> None:
    for notebook, exercise in key.EXERCISES.items():
        caught = {
            m.misconception
            for name, q in QUESTIONS.items()
            if name.startswith(notebook)
            for m in (
                [m for curve in q.curves for m in curve.mistakes]
                if isinstance(q, FigureQuestion)
                else q.mistakes
            )
        }
        assert set(exercise.misconceptions) <= caught, notebook


def test_token_tolerance_keeps_every_mistake_at_least_a_token_away() -> None:
    for name, question in VALUES.items():
        for mistake in question.mistakes:
            for accepted in question.accepted:
                right, wrong = float(accepted()), float(mistake.answer())
                if math.isinf(right):
                    assert math.isfinite(wrong), name
                    continue
                assert abs(wrong - right) > question.tolerance.atol + question.tolerance.rtol * abs(right), (
                    name
                )


def test_exercise_5_accepts_both_published_answers_rounded_to_whole_tokens() -> None:
    for published in reference.ex5_accepted_critical_batches():
        for answer in (math.floor(published), round(published), math.ceil(published)):
            assert_value(answer, key.EX5.critical_batch)


def test_exercise_4_accepts_infinity_and_names_the_2b_rule() -> None:
    assert_value(math.inf, key.EX4.critical_batch)
    assert key.SHARED_WEIGHTS.message in raised(
        assert_value, reference.ex1_critical_batch(), key.EX4.critical_batch
    )


def test_exercise_1_bounds_name_min_and_sum_mixups() -> None:
    def lower_as_min(B: int, D: int, F: int) -> float:
        r = reference.ex1_roofline(B, D, F)
        return min(r.t_math, r.t_comms)

    assert key.LOWER_BOUND_IS_MIN.message in raised(assert_function, lower_as_min, key.EX1.t_lower)

    def upper_as_max(B: int, D: int, F: int) -> float:
        return reference.ex1_roofline(B, D, F).t_lower

    assert key.UPPER_BOUND_IS_MAX.message in raised(assert_function, upper_as_max, key.EX1.t_upper)


# --- The helper judges plain values -------------------------------------------------------


SIMPLE = ValueQuestion(
    "answer",
    accepted=(lambda: 100.0,),
    tolerance=Tolerance(atol=1.0),
    mistakes=(
        Mistake(Misconception("double", "You doubled it."), lambda: 200.0),
        Mistake(Misconception("also-double", "Or you halved the bandwidth."), lambda: 200.0),
        Mistake(
            Misconception("right-anyway", "Never shown: this mistake gives a right answer."), lambda: 100.5
        ),
    ),
)


@pytest.mark.parametrize("answer", [100, 100.0, 99.2, np.float32(100.9), np.int64(100), np.array(100.0)])
def test_value_within_tolerance_passes(answer: Any) -> None:
    assert_value(answer, SIMPLE)


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ("100", "should be a number"),
        (True, "should be a number"),
        (None, "should be a number"),
        ([100.0], "single number"),
        (float("nan"), "finite"),
        (math.inf, "finite"),
        (object(), "should be a number"),
    ],
)
def test_value_of_the_wrong_kind_says_what_is_expected(answer: Any, says: str) -> None:
    assert says in raised(assert_value, answer, SIMPLE)


def test_value_matching_two_mistakes_names_both_and_never_a_harmless_one() -> None:
    message = raised(assert_value, 200.0, SIMPLE)
    assert "More than one known mistake" in message
    assert "You doubled it." in message and "Or you halved the bandwidth." in message
    assert "Never shown" not in message


def test_unknown_mistake_reports_the_ratio_to_the_model() -> None:
    assert "3 times the model's value" in raised(assert_value, 300.0, SIMPLE)


def test_a_float_whose_equality_always_holds_is_judged_by_its_value() -> None:
    class Agreeable(float):
        def __eq__(self, other: object) -> bool:
            return True

        def __ne__(self, other: object) -> bool:
            return False

        __hash__ = float.__hash__

    assert "is not right" in raised(assert_value, Agreeable(7.0), SIMPLE)


LINEAR = FunctionQuestion(
    "double",
    "(n)",
    reference=lambda n: 2.0 * n,
    tolerance=Tolerance(rtol=1e-9),
    cases=((1,), (5,)),
    random_case=lambda rng: (int(rng.integers(10, 1000)),),
    mistakes=(Mistake(Misconception("square", "You squared it."), lambda n: float(n * n)),),
)


def test_function_right_at_the_fixed_sizes_only_fails_at_random_ones() -> None:
    def memorised(n: int) -> float:
        return {1: 2.0, 5: 10.0}.get(n, 0.0)

    message = raised(assert_function, memorised, LINEAR, np.random.default_rng(0))
    assert message.startswith("double(") and "You squared it." not in message


def test_a_mistake_is_named_only_if_it_fits_every_case() -> None:
    def squares_small_numbers(n: int) -> float:
        return float(n * n) if n < 10 else 2.0 * n

    assert "You squared it." not in raised(assert_function, squares_small_numbers, LINEAR)
    assert "You squared it." in raised(assert_function, lambda n: float(n * n), LINEAR)


def test_function_that_raises_or_is_not_a_function_gets_a_plain_message() -> None:
    def broken(n: int) -> float:
        raise ZeroDivisionError("oops")

    assert "double(1) raised ZeroDivisionError: oops" in raised(assert_function, broken, LINEAR)
    assert "should be a function" in raised(assert_function, 2.0, LINEAR)
    assert "should be numbers" in raised(assert_function, lambda n: "2", LINEAR)


def test_a_right_function_that_warns_passes_without_leaking_the_warning() -> None:
    def noisy(n: int) -> float:
        np.float64(1.0) / np.float64(0.0)  # a RuntimeWarning, which pytest turns into an error if it leaks
        return 2.0 * n

    assert_function(noisy, LINEAR)


def test_array_function_with_the_wrong_shape_says_so() -> None:
    def first_only(B: Any, D: int) -> Any:
        return reference.ex3_attainable(np.atleast_1d(B)[:1], D)

    assert "shape" in raised(assert_function, first_only, key.EX3.attainable)


def test_choice_reads_the_first_word_in_any_case() -> None:
    question = key.EX1.limited_by
    right = question.accepted()
    assert_choice(f"{right.capitalize()}-bound", question)
    assert "should be a string" in raised(assert_choice, 1, question)
    assert "should be 'compute' or 'memory'" in raised(assert_choice, "network", question)


def test_as_number_turns_numpy_scalars_into_floats() -> None:
    assert type(as_number(np.float32(1.5), "x")) is float


# --- Figures -------------------------------------------------------------------------------


def figure(
    curve: Any = reference.ex3_attainable,
    *,
    scale: float = 1.0,
    labels: bool = True,
    legend: bool = True,
    axis_labels: tuple[str, str] = ("batch B", "attainable FLOP/s"),
) -> Figure:
    fig = Figure()
    ax = fig.subplots()
    for size in reference.EX3_SIZES:
        label = f"D = F = {size}" if labels else None
        ax.plot(reference.EX3_BATCHES, curve(reference.EX3_BATCHES, size) * scale, label=label)
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    if legend:
        ax.legend()
    return fig


def test_model_figure_passes_every_figure_check_in_any_flops_unit() -> None:
    for scale, unit in ((1.0, "FLOP/s"), (1e-12, "TFLOP/s")):
        fig = figure(scale=scale, axis_labels=("batch size B (tokens)", f"attainable {unit}"))
        assert_curves(fig, key.EX3.figure)
        assert_curve_labels(fig, key.EX3.figure)
        assert_axis_labels(fig, key.EX3.figure)


def test_figure_with_approximate_bytes_names_the_misconception() -> None:
    fig = figure(key.ex3_approximate_attainable)
    assert key.APPROXIMATE_BYTES.message in raised(assert_curves, fig, key.EX3.figure)


def test_figure_without_labels_legend_or_axis_labels_fails_only_those_checks() -> None:
    unlabelled = figure(labels=False, legend=False)
    assert_curves(unlabelled, key.EX3.figure)
    assert "labelled" in raised(assert_curve_labels, unlabelled, key.EX3.figure)
    assert "legend" in raised(assert_curve_labels, figure(legend=False), key.EX3.figure)
    assert "x axis label" in raised(assert_axis_labels, figure(axis_labels=("", "FLOP/s")), key.EX3.figure)
    assert "y axis label" in raised(assert_axis_labels, figure(axis_labels=("B", "speed")), key.EX3.figure)


def test_figure_checks_want_a_figure_with_lines() -> None:
    assert "matplotlib Figure" in raised(assert_curves, "a plot", key.EX3.figure)
    empty = Figure()
    empty.subplots()
    assert "no lines" in raised(assert_curves, empty, key.EX3.figure)
