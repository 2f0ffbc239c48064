"""Several comparisons at once: Holm's step-down adjustment of their p-values.

A chapter that compares one model with three ablations runs three tests; at a 5 % level
each, the chance that *at least one* of them finds a difference that is not there grows
with their number. The **family-wise error rate** is that chance: the probability of one or
more false positives among all the comparisons made together. Holm's method (Holm, 1979)
keeps it below ``alpha`` for any dependence between the tests, and rejects at least as much
as Bonferroni's ``m * p`` does.

:func:`holm` adjusts the p-values, e.g. those of :func:`course_lib.metrics.paired_bootstrap`;
compare the adjusted values with ``alpha`` directly (:func:`significant`). A bootstrap
p-value is never below ``2 / (n_samples + 1)``, so ``m`` comparisons need
``n_samples`` well above ``2 * m / alpha`` for any of them to survive the adjustment, and
far above it for the adjusted p-values to say more than that floor: with 1,000 resamples
the smallest adjusted p of 16 comparisons is 0.032 whatever the data, with 10,000 it is
0.0032 (10,000 is the course's choice for a family of several comparisons).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from numbers import Real

import numpy as np

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import warn_user

__all__ = ["holm", "significant"]

#: A family of p-values: a sequence (list, tuple, 1-D array) or a dict name -> p.
PValues = Sequence[float] | Mapping[Hashable, float] | np.ndarray


def _values(p_values, name: str) -> tuple[list, list[float]]:
    """The keys (dict) or positions (sequence) of ``p_values`` and their values as floats."""
    if isinstance(p_values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of p-values or a dict name -> p, got a string")
    if hasattr(p_values, "p_value"):  # one PairedComparison from paired_bootstrap
        raise TypeError(_one_comparison(p_values, name))
    if isinstance(p_values, Real):
        raise TypeError(
            f"{name} must be a family of p-values (a list, or a dict name -> p), got one "
            f"{type(p_values).__name__}: wrap the family in a list, e.g. [p_1, p_2, p_3] (one "
            "comparison alone needs no adjustment)"
        )
    if isinstance(p_values, Mapping):
        keys = list(p_values)
        values = list(p_values.values())
    elif (isinstance(p_values, np.ndarray) and p_values.ndim == 1) or isinstance(
        p_values, Sequence
    ):
        keys = list(range(len(p_values)))
        values = list(p_values)
    else:
        raise TypeError(
            f"{name} must be a sequence of p-values (list, tuple, 1-D array) or a dict "
            f"name -> p, got {type(p_values).__name__}"
            + (f" of shape {p_values.shape}" if isinstance(p_values, np.ndarray) else "")
        )
    if not values:
        raise ValueError(f"{name} is empty: pass one p-value per comparison")
    for key, p in zip(keys, values, strict=True):
        where = f"{name}[{key!r}]"
        if isinstance(p, bool) or not isinstance(p, Real):
            raise TypeError(f"{where} must be a number, got {p!r} ({type(p).__name__}){_fix(p)}")
        if math.isnan(p) or not 0.0 <= p <= 1.0:
            raise ValueError(
                f"{where} = {p!r} is not a p-value: p-values lie in [0, 1]; a NaN usually "
                "comes from a test that could not run, so fix or drop that comparison"
            )
    return keys, [float(p) for p in values]


def _one_comparison(comparison: object, name: str) -> str:
    """The message for one comparison (not a family) passed as ``name``."""
    got = f"got one {type(comparison).__name__}"
    alone = (
        "one comparison alone needs no adjustment: comparison.significant says whether its "
        "95 % interval excludes 0, and comparison.p_value is its p-value"
    )
    if name == "adjusted":
        return (
            f"adjusted must be the adjusted p-values of a family of comparisons (what holm "
            f"returns: a list, or a dict name -> p), {got}. Adjust the family's p-values "
            f"first, significant(holm([c.p_value for c in comparisons])); {alone}"
        )
    return (
        f"{name} must be a family of p-values (a list, or a dict name -> p), {got}. Pass "
        f"the p-values of all the comparisons, holm([c.p_value for c in comparisons]); {alone}"
    )


def _fix(p: object) -> str:
    """The likely fix for something in a family of p-values that is not a number."""
    if hasattr(p, "p_value"):  # a PairedComparison from paired_bootstrap
        return (
            ": pass the comparisons' p-values, holm([c.p_value for c in comparisons]) (or "
            "{name: c.p_value for name, c in comparisons.items()})"
        )
    if callable(getattr(p, "item", None)):  # a one-element tensor
        return ": convert it to a number, p.item()"
    return ""


def _like(template, keys: list, values: list):
    """``values`` in the container kind of ``template``: dict, array, tuple or list."""
    if isinstance(template, Mapping):
        return dict(zip(keys, values, strict=True))
    if isinstance(template, np.ndarray):
        return np.array(values)
    return tuple(values) if isinstance(template, tuple) else list(values)


@explains_bad_calls(
    alpha="holm only adjusts the p-values; alpha goes to significant: significant(holm(p), alpha=0.05)"
)
def holm(p_values: PValues) -> PValues:
    """Holm's step-down adjusted p-values, in the order (or with the keys) they came in.

    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``, the ``i``-th adjusted value is
    ``max over j <= i of min(1, (m - j + 1) * p_(j))``: the smallest ``p_(j)`` is multiplied by
    ``m``, the next by ``m - 1``, and so on, and the running maximum keeps the order. Equal
    p-values get equal adjusted values.

    Args:
        p_values: the p-values of one family of comparisons, a sequence or a dict
            name -> p, each in ``[0, 1]``.

    Returns:
        The adjusted p-values, as a dict with the same keys for a dict, a NumPy array for
        an array, a tuple for a tuple and a list otherwise. Reject where ``<= alpha``.

    Raises:
        TypeError: one number, a string, a 2-D array, or items that are not numbers (e.g.
            the comparisons themselves: pass their ``p_value``).
        ValueError: no p-values, or one outside ``[0, 1]`` or NaN.

    Example::

        >>> holm([0.01, 0.04, 0.03, 0.005])
        [0.03, 0.06, 0.06, 0.02]
    """
    keys, values = _values(p_values, "p_values")
    m = len(values)
    order = sorted(range(m), key=values.__getitem__)  # stable: ties keep their order
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):  # rank j - 1 = 0, 1, ...
        running = max(running, min(1.0, (m - rank) * values[i]))
        adjusted[i] = running
    return _like(p_values, keys, adjusted)


@explains_bad_calls()
def significant(adjusted: PValues, *, alpha: float = 0.05) -> PValues:
    """Which comparisons are significant at family-wise level ``alpha``: ``adjusted <= alpha``.

    Args:
        adjusted: adjusted p-values from :func:`holm` (a sequence or a dict).
        alpha: the family-wise error rate to keep, in ``(0, 1)``.

    Returns:
        Booleans in the kind :func:`holm` returns (a dict for a dict).

    Raises:
        ValueError: ``alpha`` outside ``(0, 1)``; ``adjusted`` as in :func:`holm`.

    Warns:
        UserWarning: ``alpha >= 0.5``, a confidence level (0.95) where the error rate goes.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be a level in (0, 1), e.g. 0.05, got {alpha!r}")
    keys, values = _values(adjusted, "adjusted")
    if alpha >= 0.5:
        warn_user(
            f"significant(alpha={alpha:g}): alpha is the family-wise error rate, the chance "
            f"allowed of a false 'significant', not a confidence level: alpha={alpha:g} calls "
            f"nearly everything significant. For {alpha:.0%} confidence pass "
            f"alpha={1 - alpha:.2g} (1 - {alpha:g}), e.g. the usual alpha=0.05",
            UserWarning,
        )
    return _like(adjusted, keys, [p <= alpha for p in values])
