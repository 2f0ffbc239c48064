"""Masks and the masked softmax: which keys each query may attend to.

Batch first. Letters: ``...`` leading batch dimensions, ``T`` queries, ``S`` keys.

**Mask polarity -- one convention everywhere in course_lib:** a boolean mask is ``True``
where attention is **blocked** (the key may not be attended to), as in
``nn.MultiheadAttention`` and ``nn.Transformer``. ``F.scaled_dot_product_attention`` uses
the *opposite* polarity (``True`` = takes part): pass it ``~mask``. A float mask is added
to the scores (``-inf`` blocks).

**Fully masked rows:** a query whose every key is blocked gets all-zero weights (and so a
zero context vector) instead of the NaNs a plain softmax gives; its gradients are zero too.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib._validate import shape_str

__all__ = ["masked_softmax", "padding_mask", "causal_mask", "merge_masks", "combine_masks", "as_additive"]


def _check_mask(mask: Tensor, scores_shape: torch.Size, name: str) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} must be boolean (True = blocked) or float (added to the scores), "
            f"got {mask.dtype}; use mask.bool()"
        )
    try:
        shape = torch.broadcast_shapes(mask.shape, scores_shape)
    except RuntimeError:
        shape = None
    if shape != scores_shape:
        raise ValueError(
            f"{name} of shape {shape_str(mask)} does not fit the attention scores of shape "
            f"(..., T, S) = {tuple(scores_shape)}: it must broadcast to them, e.g. (T, S), "
            f"(B, T, S) or (B, 1, S)"
        )


def _apply_mask(scores: Tensor, mask: Tensor | None) -> Tensor:
    if mask is None:
        return scores
    if mask.dtype == torch.bool:
        return scores.masked_fill(mask, float("-inf"))  # a new tensor: the input is untouched
    return scores + mask


def _softmax_with_empty_rows(scores: Tensor, dim: int = -1) -> Tensor:
    """Softmax where a row of only ``-inf`` gives zeros (and zero gradients), not NaN."""
    empty = torch.isneginf(scores).all(dim=dim, keepdim=True)
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=dim)
    return weights.masked_fill(empty, 0.0)


def masked_softmax(
    scores: Tensor,
    mask: Tensor | None = None,
    valid_lens: Tensor | None = None,
    dim: int = -1,
) -> Tensor:
    """Softmax over the last axis that gives blocked positions exactly zero weight.

    Give either a boolean ``mask`` (True = blocked) or ``valid_lens`` (the number of keys
    each row may use: the first ``valid_lens`` positions), not both. ``scores`` is never
    modified. A row with no allowed position gives all zeros.

    Args:
        scores: attention scores ``(..., T, S)``.
        mask: boolean, broadcastable to ``scores``.
        valid_lens: ``(B,)`` (one length per sequence) or ``(B, T)`` (one per query).
        dim: must be the last axis (-1); kept for readability at call sites.

    Returns:
        weights of the same shape as ``scores``; every row sums to 1 or is all zeros.
    """
    if dim not in (-1, scores.ndim - 1):
        raise ValueError("masked_softmax works over the last axis (dim=-1)")
    if mask is not None and valid_lens is not None:
        raise ValueError("give either mask or valid_lens, not both")
    if valid_lens is not None:
        if scores.ndim < 2:
            raise ValueError(f"scores must be (..., T, S) to use valid_lens, got {shape_str(scores)}")
        lens = torch.as_tensor(valid_lens, device=scores.device)
        positions = torch.arange(scores.shape[-1], device=scores.device)  # (S,)
        if lens.ndim == scores.ndim - 2:  # one length per sequence: (B,) for (B, T, S)
            mask = (positions >= lens[..., None])[..., None, :]  # (..., 1, S)
        elif lens.ndim == scores.ndim - 1:  # one length per query: (B, T)
            mask = positions >= lens[..., None]  # (..., T, S)
        else:
            raise ValueError(
                f"valid_lens of shape {shape_str(lens)} does not fit scores {shape_str(scores)}: "
                "use (B,) or (B, T)"
            )
    if mask is not None:
        _check_mask(mask, scores.shape, "mask")
        if mask.dtype != torch.bool:
            raise TypeError("masked_softmax takes a boolean mask (True = blocked)")
    return _softmax_with_empty_rows(_apply_mask(scores, mask))


def padding_mask(x: Tensor, pad_id: int | None = None, max_len: int | None = None) -> Tensor:
    """Key padding mask ``(B, S)``, True at padding positions.

    Two forms:

    * ``padding_mask(tokens, pad_id=0)``: ``tokens`` ``(B, S)`` holds token ids;
    * ``padding_mask(lengths, max_len=S)``: ``lengths`` ``(B,)`` holds sequence lengths
      (``max_len`` defaults to the longest).
    """
    if pad_id is not None:
        if x.ndim != 2:
            raise ValueError(f"tokens must be (B, S) to build a padding mask, got {shape_str(x)}")
        return x == pad_id
    if x.ndim != 1:
        raise ValueError(
            f"lengths must be (B,), got {shape_str(x)}; for token ids pass pad_id=..."
        )
    if torch.is_floating_point(x):
        raise TypeError("lengths must be integers")
    longest = int(x.max()) if len(x) else 0
    max_len = longest if max_len is None else max_len
    if (x < 0).any() or longest > max_len:
        raise ValueError(f"lengths must lie in [0, max_len={max_len}], got {x.tolist()}")
    return torch.arange(max_len, device=x.device) >= x[:, None]  # (B, S)


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` mask, True above the diagonal: query ``t`` may not see keys after ``t``."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)


def as_additive(mask: Tensor, dtype: torch.dtype = torch.float32) -> Tensor:
    """A float mask to add to the scores: ``-inf`` where a boolean mask is True."""
    if mask.dtype != torch.bool:
        return mask
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))


def combine_masks(a: Tensor | None, b: Tensor | None) -> Tensor | None:
    """Block what either mask blocks. Two booleans give a boolean (True = blocked);
    otherwise a float mask to add to the scores. Shapes must broadcast together."""
    if a is None or b is None:
        return b if a is None else a
    if a.dtype == torch.bool and b.dtype == torch.bool:
        return a | b
    return as_additive(a) + as_additive(b)


def merge_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor | None:
    """One mask from an ``attn_mask`` ``(T, S)``/``(B, T, S)`` and a ``key_padding_mask``
    ``(B, S)``, broadcastable to ``(B, T, S)``. Booleans stay boolean (True = blocked);
    if either is float, the result is a float mask to add to the scores."""
    if key_padding_mask is None:
        return attn_mask
    if key_padding_mask.ndim != 2:
        raise ValueError(f"key_padding_mask must be (B, S), got {shape_str(key_padding_mask)}")
    kpm = key_padding_mask[:, None, :]  # (B, S) -> (B, 1, S): the same for every query
    return combine_masks(attn_mask, kpm)
