"""Masks and the masked softmax: which keys each query may attend to.

Batch first. Letters: ``...`` leading batch dimensions, ``T`` queries, ``S`` keys.

**Mask polarity -- one convention everywhere in course_lib:** a boolean mask is ``True``
where attention is **blocked** (the key may not be attended to), as in
``nn.MultiheadAttention`` and ``nn.Transformer``. ``F.scaled_dot_product_attention`` uses
the *opposite* polarity (``True`` = takes part): pass it ``~mask``. A float mask is added
to the scores (``-inf`` blocks).

**Masks that cannot be meant** are caught where the user passes them (the attention
modules, layers and models check them once, in the argument's own name): a float mask of
only 0s and 1s -- ``torch.tril(torch.ones(T, T))``, which adds 1 to the scores and blocks
nothing -- gives a :class:`MaskWarning` saying what was probably meant; a key padding mask
with a row that blocks every key (a sentence without a token: the opposite polarity, True =
real token) is refused, asking "polarity?"; an attention mask with such a row warns.
Silence the warnings with ``warnings.filterwarnings("ignore", category=MaskWarning)``.

**Fully masked rows:** a query whose every key is blocked gets all-zero weights (and so a
zero context vector) instead of the NaNs a plain softmax gives; its gradients are zero too.

**NaN at a blocked key:** a blocked key gets weight exactly 0, but ``0 * NaN`` is NaN, so a
NaN *value* at a padded position still poisons the context. Padding must hold finite
numbers (zeros, or the embedding of a padding token); the library never produces NaN there.

Every function here checks its inputs and leaves them unchanged.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib._attention_checks import (
    check_causal_mask_args,
    check_combinable_masks,
    check_merge_masks_args,
    check_padding_mask_args,
    check_sliding_window_args,
    check_softmax_inputs,
)
from course_lib._name_tables import explain_names
from course_lib._validate import MaskWarning

__all__ = [
    "MaskWarning",
    "masked_softmax",
    "padding_mask",
    "causal_mask",
    "sliding_window_mask",
    "merge_masks",
]


def _lengths_mask(valid_lens: Tensor, scores: Tensor) -> Tensor:
    """Boolean mask (True = blocked) from the number of keys each row may use (checked by
    :func:`masked_softmax`: one length per sequence or per query, each in ``[0, S]``)."""
    lens = torch.as_tensor(valid_lens, device=scores.device)
    positions = torch.arange(scores.shape[-1], device=scores.device)  # (S,)
    if lens.ndim == scores.ndim - 2:  # one length per sequence: (B,) for (B, T, S)
        return (positions >= lens[..., None])[..., None, :]  # (..., 1, S)
    return positions >= lens[..., None]  # one length per query, (B, T): (..., T, S)


def masked_softmax(
    scores: Tensor, mask: Tensor | None = None, *, valid_lens: Tensor | None = None
) -> Tensor:
    """Softmax over the last axis that gives blocked positions exactly zero weight.

    Give a ``mask`` -- boolean (True = blocked) or float (added to the scores, ``-inf``
    blocks) -- or ``valid_lens`` (each row may use its first ``valid_lens`` keys), not both.
    ``scores`` is never modified. A row with no allowed position gives all zeros.

    Args:
        scores: attention scores ``(..., T, S)``.
        mask: broadcastable to ``scores``.
        valid_lens: ``(B,)`` (one length per sequence) or ``(B, T)`` (one per query), each
            in ``[0, S]``.

    Returns:
        weights of the same shape as ``scores``; every row sums to 1 or is all zeros.
    """
    check_softmax_inputs(scores, mask, valid_lens)
    if valid_lens is not None:
        mask = _lengths_mask(valid_lens, scores)  # (..., 1, S) or (..., T, S)
    if mask is not None and mask.dtype == torch.bool:
        scores = scores.masked_fill(mask, float("-inf"))  # a new tensor: input untouched
    elif mask is not None:
        scores = scores + mask
    empty = torch.isneginf(scores).all(dim=-1, keepdim=True)  # rows with nothing allowed
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1)
    return weights.masked_fill(empty, 0.0)


def padding_mask(x: Tensor, pad_id: int | None = None, total_length: int | None = None) -> Tensor:
    """Key padding mask ``(B, S)``, True at padding positions.

    Two forms:

    * ``padding_mask(tokens, pad_id=0)``: ``tokens`` ``(B, S)`` holds token ids;
    * ``padding_mask(lengths, total_length=S)``: ``lengths`` ``(B,)`` holds sequence
      lengths; ``S``, the padded length, defaults to the longest (the name is
      ``pad_packed_sequence``'s).
    """
    check_padding_mask_args(x, pad_id, total_length)
    if pad_id is not None:
        return x == pad_id  # tokens (B, S) -> (B, S)
    longest = int(x.max()) if len(x) else 0
    total_length = longest if total_length is None else total_length
    return torch.arange(total_length, device=x.device) >= x[:, None]  # (B, S)


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` mask, True above the diagonal: query ``t`` may not see keys after ``t``."""
    check_causal_mask_args(size, device)
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)


def sliding_window_mask(size: int, window: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` causal mask that also blocks keys more than ``window - 1`` steps back:
    query ``t`` sees keys ``t - window + 1 .. t`` (Mistral-style local attention; with a
    key/value cache only the last ``window`` positions need to be kept).

    Warns:
        MaskWarning: a ``window`` longer than ``size``: the mask is :func:`causal_mask`'s
            (the two arguments swapped?).
    """
    check_sliding_window_args(size, window, device)
    future = torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)
    past = torch.ones(size, size, dtype=torch.bool, device=device).tril(diagonal=-window)
    return future | past  # (T, T), True = blocked


def _as_additive(mask: Tensor, dtype: torch.dtype) -> Tensor:
    """A float mask of ``dtype`` to add to the scores: ``-inf`` where a boolean mask is True."""
    if mask.dtype != torch.bool:
        return mask.to(dtype)
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))


def combine_masks(a: Tensor | None, b: Tensor | None) -> Tensor | None:
    """Block what either mask blocks; ``None`` stands for no mask. (Not in ``__all__``: the
    building block of :func:`merge_masks` and of ``MultiHeadAttention``'s per-head masks.)

    Two booleans give a boolean (True = blocked); otherwise a float mask (of the float
    masks' promoted dtype) to add to the scores. Shapes must broadcast together.
    """
    check_combinable_masks(a, b)
    if a is None or b is None:
        return b if a is None else a
    if a.dtype == torch.bool and b.dtype == torch.bool:
        return a | b
    floats = [m.dtype for m in (a, b) if m.dtype != torch.bool]
    dtype = torch.promote_types(floats[0], floats[-1])
    return _as_additive(a, dtype) + _as_additive(b, dtype)


def merge_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor | None:
    """One mask from an ``attn_mask`` ``(T, S)``/``(B, T, S)`` and a ``key_padding_mask``
    ``(B, S)``, broadcastable to ``(B, T, S)``. Booleans stay boolean (True = blocked);
    if either is float, the result is a float mask to add to the scores."""
    check_merge_masks_args(attn_mask, key_padding_mask)
    if key_padding_mask is None:
        return combine_masks(attn_mask, None)
    kpm = key_padding_mask[:, None, :]  # (B, S) -> (B, 1, S): the same for every query
    return combine_masks(attn_mask, kpm)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
