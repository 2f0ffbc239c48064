"""An interactive view of attention masks: what each query may see under each family's mask.

    mask_view({"causal": causal_mask(T), "sliding window": {w: sliding_window_mask(T, w)
               for w in range(1, T + 1)}}, tokens)

Pick a family; where a family comes as ``{value: mask}`` a slider picks the value (a window's
width). Hover over a query (or click it, or tab to it): its row is outlined and the keys it
may attend to are read out. Masks follow the library's polarity: True = blocked.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from course_lib._foreign_names import explains_bad_calls
from course_lib._validate_basics import type_name
from course_lib.views import _static
from course_lib.views._html import HtmlView, build_view
from course_lib.views.attention import token_list

__all__ = ["mask_view"]


def _mask_bits(mask: object, where: str, size: int | None) -> tuple[str, int]:
    """A (T, T) boolean mask as a string of 0/1 (1 = blocked), row by row, and T."""
    if isinstance(mask, torch.Tensor):
        if mask.dtype != torch.bool:
            raise TypeError(
                f"{where} must be a boolean mask (True = blocked), got a {mask.dtype} tensor: "
                "build it with course_lib.masking (causal_mask, sliding_window_mask, ...)"
            )
        array = mask.detach().cpu().numpy()
    else:
        array = np.asarray(mask)
        if array.dtype != np.bool_:
            raise TypeError(
                f"{where} must be a boolean mask (True = blocked), got {type_name(mask)} of "
                f"{array.dtype}"
            )
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{where} must be a square (T, T) mask, got shape {array.shape}")
    if size is not None and array.shape[0] != size:
        raise ValueError(
            f"{where} is ({array.shape[0]}, {array.shape[0]}) but the tokens (or the first "
            f"mask) make T = {size}: every mask must have one row and column per token"
        )
    return "".join("1" if b else "0" for b in array.reshape(-1)), array.shape[0]


@explains_bad_calls()
def mask_view(
    masks: Mapping,
    tokens=None,
    *,
    title: str | None = None,
    parameter: str = "window",
    link: str | None = None,
) -> HtmlView:
    """An interactive view of masks, one family at a time.

    Args:
        masks: ``{name: mask}``, each mask ``(T, T)`` boolean with True = blocked (the
            library's polarity); or ``{name: {value: mask}}`` for a family with a parameter,
            shown with a slider over the values (in their order, starting at the first).
        tokens: the ``T`` tokens labelling rows and columns; by default ``0 .. T-1``.
        title: a line above the view.
        parameter: the slider's label (``"window"``).
        link: the address of the book's page that shows the view
            (:func:`~course_lib.views.book_page`), named under the picture shown where
            scripts do not run.

    Returns:
        An :class:`~course_lib.views.HtmlView`.

    Raises:
        TypeError: masks that are not a mapping, or a mask that is not boolean.
        ValueError: masks of different sizes, or a size that does not match ``tokens``.
    """
    if not isinstance(masks, Mapping) or not masks:
        raise TypeError(
            f"masks must be a non-empty dict {{name: (T, T) mask}}, got {type_name(masks)}: "
            "e.g. mask_view({'causal': causal_mask(T)})"
        )
    words = None if tokens is None else token_list(tokens, "tokens")
    size = None if words is None else len(words)
    families = []
    for name, value in masks.items():
        if isinstance(value, Mapping):
            if not value:
                raise ValueError(f"masks[{name!r}] is an empty dict: give {{value: mask}}")
            values, bits = [], []
            for key, mask in value.items():
                text, size = _mask_bits(mask, f"masks[{name!r}][{key!r}]", size)
                values.append(str(key))
                bits.append(text)
        else:
            text, size = _mask_bits(value, f"masks[{name!r}]", size)
            values, bits = [""], [text]
        families.append(
            {"name": str(name), "parameter": parameter, "values": values, "masks": bits, "start": 0}
        )
    words = words or [str(i) for i in range(size)]
    data = {"title": title or "", "tokens": words, "families": families}
    label = title or "Attention masks: what each query sees"
    first = families[0]
    bits = np.array([b == "1" for b in first["masks"][0]]).reshape(len(words), len(words))
    heading = first["name"] + (f", {parameter} {first['values'][0]}" if first["values"][0] else "")
    picture = _static.heatmap(
        np.where(bits, 0.0, 0.85),
        words,
        words,
        heading=heading,
        blocked=bits,
        label=f"{label}: {heading}, queries by keys",
        value_label=None,
    )
    return build_view("masks", data, "masks.js", label, picture=picture, link=link)
