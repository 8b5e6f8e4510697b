"""The answer key and the judge, without nbgrader.

Every answer goes the way it goes when graded: the recorder (:mod:`roofline_recorder`) calls the
answer at the issued cases and keeps plain values, the record is encoded and decoded, and the
judge (:mod:`roofline_grading.judge`) decides with the answer key. The answer key must accept
every reference, reject every known mistake and name its misconception, and a number copied
from the book must earn nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure  # figures made without pyplot need no backend

from roofline_grading import answer_key as key
from roofline_grading import misconceptions as shared
from roofline_grading.exercises.ex1_int8_matmul import answers as ex1
from roofline_grading.exercises.ex1_int8_matmul import key as ex1_key
from roofline_grading.exercises.ex2_int8_weights import answers as ex2
from roofline_grading.exercises.ex3_roofline_plot import answers as ex3
from roofline_grading.exercises.ex3_roofline_plot import key as ex3_key
from roofline_grading.exercises.ex4_batched_matmul import answers as ex4
from roofline_grading.exercises.ex4_batched_matmul import given as ex4_given
from roofline_grading.exercises.ex4_batched_matmul import key as ex4_key
from roofline_grading.exercises.ex5_h100_threshold import answers as ex5
from roofline_grading.exercises.ex5_h100_threshold import given as ex5_given
from roofline_grading.exercises.ex6_ring_threshold import answers as ex6
from roofline_grading.exercises.ex6_ring_threshold import given as ex6_given
from roofline_grading.exercises.ex7_serving_decisions import answers as ex7
from roofline_grading.exercises.ex7_serving_decisions import key as ex7_key
from roofline_grading.exercises.ex8_measured_kernel import answers as ex8
from roofline_grading.exercises.ex9_memory_hierarchy import answers as ex9
from roofline_grading.exercises.ex9_memory_hierarchy import given as ex9_given
from roofline_grading.exercises.ex10_speculative import given as ex10_given
from roofline_grading.judge import Verdict, assess, judge
from roofline_grading.questions import (
    FigureQuestion,
    FunctionQuestion,
    Misconception,
    Mistake,
    Question,
    Tolerance,
    draw_cases,
    public_cases,
    rng_for,
    separates,
)
from roofline_grading.session import answered, issue_one
from rooflinekit import exercises
from rooflinekit.analysis import analyze
from rooflinekit.costs import matmul_cost
from rooflinekit.hierarchy import smallest_compute_bound_tiles
from rooflinekit.network import network_critical_d
from rooflinekit.transformer.speculative import expected_tokens

QUESTIONS: dict[str, Question] = {q.id: q for e in key.EXERCISES.values() for q in e.questions}
FUNCTIONS = {qid: q for qid, q in QUESTIONS.items() if isinstance(q, FunctionQuestion)}
FIGURES = {qid: q for qid, q in QUESTIONS.items() if isinstance(q, FigureQuestion)}


def verdict(
    question: Question, answer: Any, seed: str | None = "5eed", *, private: bool = False
) -> str | None:
    """What grading says of ``answer``: recorded at the public and the hidden cases, encoded,
    decoded and judged (``private``: as a student reads it, the hidden cases not shown)."""
    issued = issue_one(question, seed)
    message = judge(
        question, issued.cases, answered(issued, answer), public=len(issued.public) if private else None
    )
    return None if message is None else " ".join(message.split())


# --- The answer key accepts the references and names every known mistake ----------------


@pytest.mark.parametrize("qid", FUNCTIONS)
@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_function_question_accepts_its_reference(qid: str, seed: str) -> None:
    assert verdict(FUNCTIONS[qid], FUNCTIONS[qid].reference, seed) is None


@pytest.mark.parametrize("qid", FUNCTIONS)
@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_function_question_names_each_mistake_at_random_inputs(qid: str, seed: str) -> None:
    """Every mistake that gives a wrong answer somewhere is named (a mistake that gives the right
    word at every input, as a slightly wrong bandwidth may for limited_by, is simply right)."""
    question = FUNCTIONS[qid]
    named = 0
    for mistake in question.mistakes:
        message = verdict(question, mistake.answer, seed)
        if message is None and question.returns == "word":
            continue
        assert message is not None and mistake.misconception.message in message, (mistake, message)
        named += 1
    assert named or not question.mistakes, f"{qid}: no mistake is ever caught"


def test_every_misconception_an_exercise_exists_for_is_caught_in_it() -> None:
    for notebook, exercise in key.EXERCISES.items():
        caught = {
            m.misconception
            for q in exercise.questions
            for m in (
                [m for c in q.curves for m in c.mistakes] if isinstance(q, FigureQuestion) else q.mistakes
            )
        }
        assert set(exercise.misconceptions) <= caught, notebook


def test_every_question_is_asked_at_the_exercises_own_figures_and_at_others() -> None:
    for qid, question in FUNCTIONS.items():
        cases = draw_cases(question, rng_for(question, "7"))
        assert question.random_case is not None and question.random_count >= 3, qid
        assert len({repr(c) for c in cases}) >= len(question.cases) + 3, f"{qid}: random cases repeat"


def test_the_same_seed_draws_the_same_cases_and_another_seed_others() -> None:
    question = key.EXERCISES["ex5_h100_threshold"].question("critical_batch")
    assert isinstance(question, FunctionQuestion)
    first, again = (
        draw_cases(question, rng_for(question, "aa")),
        draw_cases(question, rng_for(question, "aa")),
    )
    other = draw_cases(question, rng_for(question, "ab"))
    assert first == again and first[len(question.cases) :] != other[len(question.cases) :]


# --- A number printed in the book earns nothing ---------------------------------------

FLOPS, MOVED, MICROSECONDS, DATASHEET_FLOPS, TERABYTES = ex8.figures("prefill")


def at_its_figures(qid: str) -> float:
    """A question's answer at its exercise's own figures (its first case)."""
    question = FUNCTIONS[qid]
    return float(question.reference(*question.cases[0]))


def printed_figures() -> dict[str, float]:
    """The scalar answers the book and the source print, as the library computes them."""
    attention = (ex9_given.SEQ, ex9_given.HEAD_DIM, ex9_given.BLOCK)
    return {
        "ex1.critical_batch": ex1.critical_batch(),
        "ex2.critical_batch": ex2.critical_batch(),
        "ex2.compute_peak": exercises.EX2_CHIP.peak("bf16"),
        "ex3.crossover": ex3.crossover(exercises.EX3_SIZES[0]),
        "ex4.critical_batch": ex4.critical_batch(*ex4_given.D_F),
        "ex5.dense_peak": ex5.dense_peak(ex5_given.DATASHEET_BF16),
        "ex5.hbm_bandwidth": ex5_given.CHIP.hbm_bandwidth,
        "ex5.critical_batch": ex5.critical_batch(),
        "ex5.global_batch": ex5.global_batch(),
        "ex6.link_bandwidth": ex6_given.CHIP.link_bandwidth,
        "ex6.nic_bandwidth": float(ex6_given.CHIP.dcn_bandwidth or 0),
        "ex6.all_reduce_bytes": ex6.all_reduce_bytes(2.0 * 8192 * 8192, ex6_given.GPUS),
        "ex6.two_chip_critical_d": network_critical_d(ex6_given.CHIP),  # chapter 8's table
        "ex6.critical_d": ex6.critical_d(),
        "ex6.nodes_critical_d": ex6.nodes_critical_d(),
        # exercise 7's at its figures: what a student computes once and could paste
        "ex7.kv_bytes_per_token": ex7_key.KV,
        "ex7.largest_batch": ex7.largest_batch(),
        "ex7.decode_step": at_its_figures("ex7.decode_step"),
        "ex7.ttft": at_its_figures("ex7.ttft"),
        "ex7.plateau_batch": ex7.plateau_batch(ex7_key.PEAK, ex7_key.BANDWIDTH),
        # exercise 8's at its prefill matmul: what a student computes once and could paste
        "ex8.achieved_flops": ex8.achieved_flops(FLOPS, MICROSECONDS),
        "ex8.achieved_bandwidth": ex8.achieved_bandwidth(MOVED, MICROSECONDS),
        "ex8.mfu": ex8.mfu(FLOPS, MICROSECONDS, DATASHEET_FLOPS),
        "ex8.mbu": ex8.mbu(MOVED, MICROSECONDS, TERABYTES),
        "ex9.tiled_bytes": ex9.tiled_bytes(*ex9_given.SHAPE, *ex9_given.TILE),
        "ex9.tiled_intensity": ex9.tiled_intensity(*ex9_given.SHAPE, *ex9_given.TILE),
        "ex9.smallest_tile": smallest_compute_bound_tiles(ex9_given.CHIP)[0].tile,  # chapter 12's table
        "ex9.unfused_attention_bytes": ex9.unfused_attention_bytes(*attention[:2]),
        "ex9.fused_attention_bytes": ex9.fused_attention_bytes(*attention),
        "ex9.fusion_ratio": ex9.fusion_ratio(*attention),
        # exercise 10's at its figures; chapter 13's expected tokens
        "ex10.expected_tokens": expected_tokens(ex10_given.K, ex10_given.ALPHA),
        "ex10.verify_time": at_its_figures("ex10.verify_time"),
        "ex10.speedup": at_its_figures("ex10.speedup"),
        "ex10.best_draft_length": at_its_figures("ex10.best_draft_length"),
        "ex10.stops_paying": at_its_figures("ex10.stops_paying"),
    }


@pytest.mark.parametrize(("qid", "number"), printed_figures().items())
def test_a_copied_number_earns_nothing_and_is_told_to_use_the_arguments(qid: str, number: float) -> None:
    message = verdict(FUNCTIONS[qid], lambda *arguments: number)
    assert message is not None and "whatever its arguments" in message, message


def test_the_function_forms_give_the_published_figures_at_the_exercises_own_figures() -> None:
    for qid, number in printed_figures().items():
        question = FUNCTIONS[qid]
        assert question.reference(*question.cases[0]) == pytest.approx(number), qid


# --- Tolerances -----------------------------------------------------------------------


def test_token_tolerance_keeps_every_mistake_at_least_a_token_away_at_the_exercises_figures() -> None:
    for qid, question in FUNCTIONS.items():
        if question.tolerance not in WHOLE:
            continue
        case = question.cases[0]
        right = float(question.reference(*case))
        for mistake in question.mistakes:
            wrong = float(mistake.answer(*case))
            if math.isinf(right) or math.isinf(wrong):
                assert math.isinf(right) != math.isinf(wrong), qid
                continue
            assert abs(wrong - right) > question.tolerance.atol, (qid, mistake.misconception.name)


WHOLE = (key.TOKENS, key.TILE, key.WIDTH)
"""The tolerances of whole numbers (tokens, rows, elements): 1 either way."""


@pytest.mark.parametrize("qid", [q for q, v in FUNCTIONS.items() if v.tolerance in WHOLE])
def test_a_batch_rounded_to_a_whole_token_is_right(qid: str) -> None:
    question = FUNCTIONS[qid]
    for rounding in (math.floor, round, math.ceil):

        def rounded(*arguments: Any, rounding: Any = rounding) -> float:
            value = question.reference(*arguments)
            return value if math.isinf(value) else float(rounding(value))

        assert verdict(question, rounded) is None, rounding


def test_exercise_4_accepts_infinity_and_one_token_and_names_the_2b_rule() -> None:
    question = key.question("ex4.critical_batch")
    assert question.reference(*question.cases[0]) == math.inf and question.reference(*question.cases[1]) == 1
    assert ex4_key.SHARED_WEIGHTS.message in (verdict(question, lambda D, F, peak, bw: peak / bw / 2) or "")


def test_exercise_1_bounds_name_min_and_sum_mixups() -> None:
    def lower_as_min(B: int, D: int, F: int) -> float:
        r = ex1.roofline(B, D, F)
        return min(r.t_math, r.t_comms)

    assert ex1_key.LOWER_BOUND_IS_MIN.message in (verdict(key.question("ex1.t_lower"), lower_as_min) or "")
    upper_as_max = lambda B, D, F: ex1.roofline(B, D, F).t_lower  # noqa: E731
    assert ex1_key.UPPER_BOUND_IS_MAX.message in (verdict(key.question("ex1.t_upper"), upper_as_max) or "")


# --- The judge decides on plain values ------------------------------------------------

DOUBLE = FunctionQuestion(
    "ex0.double",
    "(n)",
    reference=lambda n: 2.0 * n,
    tolerance=Tolerance(rtol=1e-9),
    cases=((1,), (5,)),
    random_case=lambda rng: (int(rng.integers(10, 1000)),),
    mistakes=(
        Mistake(Misconception("square", "You squared it."), lambda n: float(n * n)),
        Mistake(Misconception("triple", "You tripled it."), lambda n: 3.0 * n),
        Mistake(Misconception("also-triple", "Or you counted three bytes."), lambda n: 3.0 * n),
    ),
)


def test_a_function_right_at_the_fixed_inputs_only_fails_at_random_ones() -> None:
    message = verdict(DOUBLE, lambda n: {1: 2.0, 5: 10.0}.get(n, 0.0))
    assert message is not None and message.startswith("double(") and "squared" not in message


def test_a_mistake_is_named_only_if_it_fits_every_case_and_two_that_fit_are_both_named() -> None:
    assert "You squared it." not in (verdict(DOUBLE, lambda n: float(n * n) if n < 10 else 2.0 * n) or "")
    assert "You squared it." in (verdict(DOUBLE, lambda n: float(n * n)) or "")
    both = verdict(DOUBLE, lambda n: 3.0 * n) or ""
    assert "More than one known mistake" in both and "tripled" in both and "three bytes" in both


def test_of_two_mistakes_that_fit_the_feedback_names_the_one_an_earlier_part_shows() -> None:
    """Only the bytes constant wrong (int8 as 2 bytes): exercise 1's critical batch fits both that
    and one operation per multiply-add; with the bytes read naming the first and the operations
    right, the feedback names the bytes, as the part that shows it, and not the factor of two.
    With no earlier part to tell, both are named, as alternatives."""
    question = key.question("ex1.critical_batch")
    two_bytes = next(m for m in question.mistakes if m.misconception == shared.INT8_TWO_BYTES)
    issued = issue_one(question, "5eed")
    recorded = answered(issued, two_bytes.answer)
    bytes_read = key.question("ex1.bytes_read")
    wrong_bytes = judge_verdict(bytes_read, next(m for m in bytes_read.mistakes).answer)
    assert wrong_bytes is not None and wrong_bytes.feedback_misconceptions == ("int8-two-bytes",)
    earlier = [(bytes_read, wrong_bytes), (key.question("ex1.ops"), None)]
    said = " ".join((judge(question, issued.cases, recorded, earlier=earlier) or "").split())
    assert "It is the known mistake your bytes_read makes." in said, said
    assert shared.INT8_TWO_BYTES.message in said and shared.NO_FACTOR_TWO.message not in said
    verdict_said = assess(question, issued.cases, recorded, earlier=earlier)
    assert verdict_said is not None and verdict_said.feedback_misconceptions == ("int8-two-bytes",)
    alone = " ".join((judge(question, issued.cases, recorded) or "").split())
    assert "More than one known mistake" in alone
    assert shared.INT8_TWO_BYTES.message in alone and shared.NO_FACTOR_TWO.message in alone
    # In Korean, the same.
    korean = judge(question, issued.cases, recorded, "ko", earlier=earlier) or ""
    assert shared.INT8_TWO_BYTES.text("ko") in " ".join(korean.split())
    assert shared.NO_FACTOR_TWO.text("ko") not in " ".join(korean.split())


def judge_verdict(question: Question, answer: Any) -> Verdict | None:
    issued = issue_one(question, "5eed")
    return assess(question, issued.cases, answered(issued, answer))


def test_an_unknown_mistake_reports_the_ratio_to_the_model() -> None:
    assert "5 times the model's value" in (verdict(DOUBLE, lambda n: 10.0 * n) or "")


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (lambda n: "2", "should return a number"),
        (lambda n: None, "should return a number"),
        (lambda n: float("nan"), "NaN"),
        (lambda n: np.zeros(10**6), "far more values"),
        (2.0, "should be a function"),
        (lambda n: 1 / 0, "double(1) raised ZeroDivisionError: division by zero"),
        (lambda: 2.0, "raised TypeError"),
    ],
)
def test_an_answer_of_the_wrong_kind_gets_a_plain_message(answer: Any, says: str) -> None:
    assert says in (verdict(DOUBLE, answer) or "")


def test_an_object_that_says_it_equals_everything_is_judged_by_its_value() -> None:
    class Agreeable(float):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = float.__hash__

    assert "is not right" in (verdict(DOUBLE, lambda n: Agreeable(7.0 * n)) or "")


def test_a_right_function_that_prints_and_warns_passes() -> None:
    def noisy(n: int) -> float:
        print("working on", n)
        np.float64(1.0) / np.float64(0.0)  # a RuntimeWarning, which pytest turns into an error if it leaks
        return 2.0 * n

    assert verdict(DOUBLE, noisy) is None


def test_an_array_answer_with_the_wrong_shape_says_so() -> None:
    def first_only(B: Any, D: int) -> Any:
        return ex3.attainable(np.atleast_1d(B)[:1], D)

    assert "shape" in (verdict(key.question("ex3.attainable"), first_only) or "")


def test_a_word_answer_reads_the_first_word_in_any_case() -> None:
    question = key.question("ex1.limited_by")
    assert isinstance(question, FunctionQuestion)
    assert verdict(question, lambda B, D, F: f"{question.reference(B, D, F).capitalize()}-bound") is None
    assert "should return a string" in (verdict(question, lambda B, D, F: 1) or "")
    assert "'compute' or 'memory'" in (verdict(question, lambda B, D, F: "network") or "")


# --- Figures --------------------------------------------------------------------------


def figure(
    curve: Any = ex3.attainable,
    *,
    scale: float = 1.0,
    labels: bool = True,
    legend: bool = True,
    axis_labels: tuple[str, str] = ("batch B", "attainable FLOP/s"),
) -> Figure:
    fig = Figure()
    ax = fig.subplots()
    for size in exercises.EX3_SIZES:
        label = f"D = F = {size}" if labels else None
        ax.plot(exercises.EX3_BATCHES, curve(exercises.EX3_BATCHES, size) * scale, label=label)
    ax.set_xlabel(axis_labels[0])
    ax.set_ylabel(axis_labels[1])
    if legend:
        ax.legend()
    return fig


def test_the_model_figure_passes_every_figure_check_in_any_flops_unit() -> None:
    for scale, unit in ((1.0, "FLOP/s"), (1e-12, "TFLOP/s")):
        fig = figure(scale=scale, axis_labels=("batch size B (tokens)", f"attainable {unit}"))
        for question in FIGURES.values():
            assert verdict(question, fig) is None, question.id


def test_a_figure_with_approximate_bytes_names_the_misconception() -> None:
    message = verdict(key.question("ex3.fig_curves"), figure(ex3_key.approximate_attainable))
    assert ex3_key.APPROXIMATE_BYTES.message in (message or "")


def test_a_figure_without_labels_legend_or_axis_labels_fails_only_those_checks() -> None:
    unlabelled = figure(labels=False, legend=False)
    assert verdict(key.question("ex3.fig_curves"), unlabelled) is None
    assert "labelled" in (verdict(key.question("ex3.fig_curve_labels"), unlabelled) or "")
    assert "legend" in (verdict(key.question("ex3.fig_curve_labels"), figure(legend=False)) or "")
    axis = key.question("ex3.fig_axis_labels")
    assert "x axis label" in (verdict(axis, figure(axis_labels=("", "FLOP/s"))) or "")
    assert "y axis label" in (verdict(axis, figure(axis_labels=("B", "speed"))) or "")


def test_figure_checks_want_a_figure_with_lines() -> None:
    assert "matplotlib Figure" in (verdict(key.question("ex3.fig_curves"), "a plot") or "")
    empty = Figure()
    empty.subplots()
    assert "no lines" in (verdict(key.question("ex3.fig_curves"), empty) or "")


# --- Fairness: a known mistake fails at every draw ------------------------------------------

seeds = st.text(alphabet="0123456789abcdef", min_size=1, max_size=32)


def _ex1_with_two_byte_elements(field: str) -> Any:
    """An exercise 1 answer built on a bytes function that counts 2 bytes per int8 element: what a
    student's later functions inherit from a wrong ``bytes_read``."""

    def answer(B: int, D: int, F: int) -> Any:
        roofline = analyze(
            matmul_cost(B, D, F, x="bf16", w="bf16", out="bf16"), exercises.EX1_CHIP, compute="int8"
        )
        return getattr(roofline, field) if field != "bound" else str(roofline.bound)

    return answer


INHERITED = {
    "ex1.limited_by": _ex1_with_two_byte_elements("bound"),
    "ex1.t_lower": _ex1_with_two_byte_elements("t_lower"),
    "ex1.t_upper": _ex1_with_two_byte_elements("t_upper"),
}
"""Answers that inherit a known mistake from an earlier part, by the question they answer."""


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=seeds)
def test_every_known_mistake_fails_its_part_at_every_draw(seed: str) -> None:
    """The public cases separate every known mistake from the right answer, so the points of an
    answer holding one never depend on the hidden inputs drawn."""
    for qid, question in FUNCTIONS.items():
        for mistake in question.mistakes:
            assert verdict(question, mistake.answer, seed) is not None, (qid, mistake.misconception.name)
        assert verdict(question, question.reference, seed) is None, qid
    for qid, answer in INHERITED.items():
        assert verdict(FUNCTIONS[qid], answer, seed) is not None, qid


def test_every_known_mistake_is_separated_at_a_public_case() -> None:
    for qid, question in FUNCTIONS.items():
        for mistake in question.mistakes:
            assert any(separates(question, mistake, case) for case in public_cases(question)), (
                qid,
                mistake.misconception.name,
            )


def test_the_public_cases_are_the_same_for_every_seed_and_the_hidden_ones_are_not() -> None:
    question = FUNCTIONS["ex1.limited_by"]
    first, other = issue_one(question, "aa"), issue_one(question, "ab")
    assert first.public == other.public and len(first.public) > len(question.cases)
    assert first.hidden != other.hidden and first.hidden == issue_one(question, "aa").hidden


# --- Privacy: the feedback never shows a hidden input -----------------------------------------


def _shown(value: Any) -> list[str]:
    """The ways a hidden input could be written in a message."""
    if isinstance(value, np.ndarray):
        return [w for v in value.flat for w in _shown(v)]
    number = float(value)
    return [repr(value), str(value), f"{number:g}", f"{number:.6g}", f"{number:.4g}"]


LEAKY_ANSWERS: dict[str, Callable[..., Any]] = {
    "raises with its arguments": lambda *a: (_ for _ in ()).throw(ValueError(f"hidden input {a}")),
    "raises a class named after them": lambda *a: (_ for _ in ()).throw(
        type(f"Leak_{'_'.join(str(x) for x in a)}", (Exception,), {})()
    ),
    "returns them as text": lambda *a: f"{a}",
    "returns an array shaped by them": lambda *a: np.zeros(
        int(abs(float(np.ravel(a[-1])[0]))) % 997 + 200_000
    ),
    "returns a wrong number": lambda *a: 12345.0,
}


@pytest.mark.parametrize("qid", ["ex1.bytes_read", "ex5.critical_batch", "ex1.limited_by"])
@pytest.mark.parametrize("kind", LEAKY_ANSWERS)
def test_feedback_never_shows_a_hidden_input(qid: str, kind: str) -> None:
    """An answer right at every public case, and at the hidden ones wrong in a way that could
    carry them into the feedback: the feedback says that it failed there, never at what or how."""
    question = FUNCTIONS[qid]
    issued = issue_one(question, "feed")
    public = {repr(case) for case in issued.public}

    def answer(*arguments: Any) -> Any:
        if repr(tuple(arguments)) in public:
            return question.reference(*arguments)
        return LEAKY_ANSWERS[kind](*arguments)

    message = judge(question, issued.cases, answered(issued, answer), public=len(issued.public))
    assert message is not None
    public_words = {w for case in issued.public for value in case for w in _shown(value)}
    for case in issued.hidden:
        for value in case:
            for written in _shown(value):
                if written not in public_words and len(written) > 2:
                    assert written not in message, (kind, written, message)
    assert message.startswith(  # the one sentence for any failure at hidden inputs
        f"{question.name} is right at the {len(issued.public)} inputs every notebook is checked at, but not "
        "at every input chosen at grading time (they are not shown)."
    ), message
