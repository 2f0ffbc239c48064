"""tools/probe_mistakes.py: course_lib answers realistic mistakes clearly (the issue's measure:
at least 98 % clear, none silent), and the probe's classifier judges answers as it says."""

import re
import warnings

import pytest

from mistake_cases import MODULES, Case, all_cases, case
from probe_mistakes import TARGET, clear_share, judge, looks_internal, probe, run_case, summary


def _fake(code: str, keywords=("width", "8"), expect: str = "error") -> Case:
    return case("fake.case", "a made-up slip", code, keywords, expect)


def test_a_clear_message_is_clear():
    outcome = run_case(_fake("raise ValueError('x must have width 8, got 6: project it first')"))
    assert outcome.result == "clear", outcome


def test_a_message_missing_a_keyword_is_confusing():
    outcome = run_case(_fake("raise ValueError('x has the wrong shape')"))
    assert outcome.result == "confusing", outcome


def test_an_internal_message_is_confusing_even_with_the_keywords():
    code = "raise RuntimeError('mat1 and mat2 shapes cannot be multiplied (width 8 and 6)')"
    assert run_case(_fake(code)).result == "confusing"
    code = "raise AttributeError(\"'NoneType' object has no attribute 'width' (8)\")"
    assert run_case(_fake(code)).result == "confusing"


def test_an_internal_error_a_self_check_quotes_is_the_students():
    message = "general_scores raised RuntimeError: mat1 and mat2 ... Hint: the weight is transposed"
    assert not looks_internal(message)
    assert looks_internal("RuntimeError: mat1 and mat2 shapes cannot be multiplied")
    assert judge("pass the function itself, got NoneType", ("function",)) == "clear"


def test_a_real_torch_error_is_confusing():
    outcome = run_case(_fake("torch.nn.Linear(8, 2)(torch.randn(3, 6))"))
    assert outcome.result == "confusing"
    assert "mat1 and mat2" in outcome.message


def test_doing_nothing_is_silent():
    assert run_case(_fake("y = x + 1")).result == "silent"


def test_a_warning_counts_only_where_one_is_expected():
    code = "import warnings\nwarnings.warn('width 8 expected, got 6')"
    assert run_case(_fake(code, expect="warn")).result == "clear"
    assert run_case(_fake(code, expect="error")).result == "confusing"
    code = "import warnings\nwarnings.warn('something else')"
    assert run_case(_fake(code, expect="warn")).result == "confusing"


def test_a_case_runs_in_a_fresh_namespace_and_leaves_no_trace():
    import os

    run_case(_fake("os.environ['PROBE_LEFTOVER'] = '1'\nx.add_(1)\nraise ValueError('width 8')"))
    assert "PROBE_LEFTOVER" not in os.environ
    first = run_case(_fake("raise ValueError(f'width 8 {x.sum().item()}')"))
    second = run_case(_fake("raise ValueError(f'width 8 {x.sum().item()}')"))
    assert first.message == second.message  # the same seed, the same ready-made objects


def test_cases_are_well_formed():
    with pytest.raises(ValueError, match="lowercase"):
        case("fake.upper", "slip", "pass", ["Width"])
    with pytest.raises(ValueError, match="expect"):
        case("fake.expect", "slip", "pass", ["width"], expect="raise")


def test_the_catalogue_is_large_compiles_and_covers_every_module():
    cases = all_cases()
    assert len(cases) >= 150
    assert len({c.id for c in cases}) == len(cases)
    for c in cases:
        compile(c.code, c.id, "exec")
        assert c.slip and all(re.compile(k) for k in c.keywords)
    covered = {c.module for c in cases}
    for name in MODULES:
        assert name.split(".")[0] in covered, f"no mistake with course_lib.{name}"
    assert {"grading", "checks"} <= covered


def test_course_lib_answers_mistakes_clearly():
    """The issue's measure; the summary lists what to fix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = probe()
    silent = [o.case.id for o in outcomes if o.result == "silent"]
    share = clear_share(outcomes)
    assert not silent and share >= TARGET, summary(outcomes)
