"""Holm's step-down adjustment: a hand-computed family, its order, the step-down procedure it
summarises, statsmodels' implementation where it is installed, and the refused inputs."""

import math
import random

import numpy as np
import pytest

from course_lib.multiple_comparisons import holm, significant


def test_a_family_computed_by_hand():
    # sorted: 0.005 * 4 = 0.02, 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, max(0.06, 0.04 * 1) = 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.3, 0.6]) == pytest.approx([0.6, 0.6])  # capped by the running maximum
    assert holm([0.7, 0.2, 0.9]) == pytest.approx([1.0, 0.6, 1.0])  # and by 1


def test_one_comparison_is_left_alone():
    for p in (0.0, 0.03, 1.0):
        assert holm([p]) == [p]


def test_ties_get_one_value_and_order_is_kept():
    assert holm([0.02, 0.01, 0.02, 0.01]) == pytest.approx([0.04, 0.04, 0.04, 0.04])
    rng = random.Random(0)
    for _ in range(50):
        p = [rng.random() ** 3 for _ in range(rng.randint(2, 12))]
        adjusted = holm(p)
        assert all(a >= q for a, q in zip(adjusted, p, strict=True))  # never below p
        assert all(a <= 1 for a in adjusted)
        by_p = [a for _, a in sorted(zip(p, adjusted, strict=True))]
        assert by_p == sorted(by_p)  # a smaller p never gets a larger adjusted value


def test_adjusted_p_values_summarise_the_step_down_procedure():
    # Holm at level alpha: sort, reject while p_(j) <= alpha / (m - j + 1), stop at the first
    # that is not. The adjusted p-value is the smallest alpha at which H_i is rejected.
    rng = random.Random(1)
    for _ in range(200):
        p = [rng.random() ** 2 for _ in range(rng.randint(1, 8))]
        alpha = rng.uniform(0.001, 0.5)
        m, rejected = len(p), set()
        for j, i in enumerate(sorted(range(m), key=p.__getitem__)):
            if p[i] > alpha / (m - j):
                break
            rejected.add(i)
        assert significant(holm(p), alpha=alpha) == [i in rejected for i in range(m)]


def test_the_kind_that_came_in_goes_out():
    p = {"no attention": 0.01, "no positions": 0.04, "one head": 0.03, "no residual": 0.005}
    adjusted = holm(p)
    assert list(adjusted) == list(p)  # same keys, same order
    assert adjusted == pytest.approx(
        {"no attention": 0.03, "no positions": 0.06, "one head": 0.06, "no residual": 0.02}
    )
    assert significant(adjusted) == {
        "no attention": True,
        "no positions": False,
        "one head": False,
        "no residual": True,
    }
    assert isinstance(holm((0.01, 0.2)), tuple)
    array = holm(np.array([0.01, 0.2]))
    assert isinstance(array, np.ndarray) and array.tolist() == pytest.approx([0.02, 0.2])


# statsmodels 0.15.0's multipletests(p, method="holm")[1] for p = uniform(size=m) ** 3 from
# np.random.default_rng(0), m = 1, 2, 5, 20 in turn: recorded once, so that the parity check
# runs everywhere without statsmodels (a test that skipped without it never ran in CI).
STATSMODELS_HOLM = [
    ([0.25842821751324435], [0.25842821751324435]),
    ([0.01963639113818083, 6.878756741245099e-05], [0.01963639113818083, 0.00013757513482490197]),
    (
        [
            4.5147341432926465e-06,
            0.5379038343399106,
            0.7604374310074548,
            0.22324619036117754,
            0.388212706974867,
        ],
        [2.2573670716463233e-05, 1.0, 1.0, 0.8929847614447102, 1.0],
    ),
    (
        [
            0.1606564778806426,
            0.8175903337707651,
            0.5430460128970758,
            2.0537062119642044e-08,
            0.6303139748755728,
            3.788422226120843e-05,
            0.3884664221572333,
            0.005419836089817616,
            0.6431354973467296,
            0.1587457375605297,
            0.026922285127534976,
            0.07551919552143314,
            2.271248313107286e-05,
            0.0019197208524575477,
            0.30160468319772366,
            0.271078086468872,
            0.2330456250606317,
            0.05648058406508041,
            0.9916531390233955,
            0.9436008301701269,
        ],
        [
            1.0,
            1.0,
            1.0,
            4.107412423928409e-07,
            1.0,
            0.0006819160007017518,
            1.0,
            0.08671737743708186,
            1.0,
            1.0,
            0.40383427691302465,
            0.9817495417786308,
            0.0004315371794903843,
            0.03263525449177831,
            1.0,
            1.0,
            1.0,
            0.7907281769111257,
            1.0,
            1.0,
        ],
    ),
]


def test_parity_with_statsmodels():
    for p, expected in STATSMODELS_HOLM:
        np.testing.assert_allclose(holm(np.array(p)), expected, rtol=1e-12)
    # the inputs are the ones described above
    rng = np.random.default_rng(0)
    for p, _ in STATSMODELS_HOLM:
        np.testing.assert_array_equal(rng.uniform(size=len(p)) ** 3, p)


@pytest.mark.parametrize(
    "p_values, error, match",
    [
        ([0.01, math.nan], ValueError, r"p_values\[1\] = nan"),
        ([0.01, 1.5], ValueError, r"p_values\[1\] = 1.5 is not a p-value"),
        ({"a": -0.1}, ValueError, r"p_values\['a'\]"),
        ([0.01, "0.2"], TypeError, "must be a number"),
        ([True], TypeError, "must be a number"),
        ([], ValueError, "empty"),
        ("0.01", TypeError, "string"),
        (np.zeros((2, 2)), TypeError, r"shape \(2, 2\)"),
        (0.01, TypeError, "float"),
    ],
)
def test_what_is_not_a_family_of_p_values_is_refused(p_values, error, match):
    with pytest.raises(error, match=match):
        holm(p_values)


@pytest.mark.parametrize("alpha", [0, 1, 5, True, "0.05"])
def test_significant_needs_a_level(alpha):
    with pytest.raises(ValueError, match="alpha"):
        significant([0.01], alpha=alpha)


def test_comparisons_in_place_of_their_p_values_get_the_fix():
    from course_lib.metrics import PairedComparison

    comparison = PairedComparison("BLEU", 30.0, 28.0, 2.0, 0.5, 3.5, 0.01)
    with pytest.raises(TypeError, match=r"holm\(\[c.p_value for c in comparisons\]\)"):
        holm([comparison, comparison])
    with pytest.raises(TypeError, match=r"one PairedComparison\. Pass the p-values of all"):
        holm(comparison)
    with pytest.raises(TypeError, match=r"c.p_value for name, c in comparisons.items"):
        significant({"a": comparison})


def test_significant_of_one_comparison_says_to_adjust_with_holm_or_read_it():
    from course_lib.metrics import PairedComparison

    comparison = PairedComparison("BLEU", 30.0, 28.0, 2.0, 0.5, 3.5, 0.01)
    with pytest.raises(TypeError, match=r"adjusted must be the adjusted p-values") as info:
        significant(comparison)
    message = str(info.value)
    assert "significant(holm([c.p_value for c in comparisons]))" in message
    assert "comparison.significant" in message
    with pytest.raises(TypeError, match=r"got one float: wrap the family in a list"):
        significant(0.01)


def test_a_tensor_p_value_gets_item():
    import torch

    with pytest.raises(TypeError, match=r"must be a number.*p.item\(\)"):
        holm([torch.tensor(0.01), 0.2])


def test_alpha_is_named_where_it_goes():
    from course_lib.multiple_comparisons import holm, significant

    with pytest.raises(TypeError, match=r"holm\(\).*'alpha'.*significant\(holm\(p\), alpha=0.05\)"):
        holm([0.01, 0.04], alpha=0.05)
    with pytest.raises(TypeError, match=r"keyword-only.*alpha=0.05"):
        significant([0.01, 0.04], 0.05)


def test_a_confidence_level_as_alpha_warns():
    with pytest.warns(UserWarning, match=r"alpha=0.95.*not a confidence level.*alpha=0.05"):
        assert significant([0.01, 0.04, 0.3], alpha=0.95) == [True, True, True]
