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

from course_lib._name_tables import explain_names
from course_lib._validate import (
    MaskWarning,
    check_mask,
    check_positive_int,
    nested,
    shape_str,
    warn_user,
)

__all__ = [
    "MaskWarning",
    "masked_softmax",
    "padding_mask",
    "causal_mask",
    "sliding_window_mask",
    "merge_masks",
]


def _lengths_mask(valid_lens: Tensor, scores: Tensor) -> Tensor:
    """Boolean mask (True = blocked) from the number of keys each row may use."""
    S = scores.shape[-1]
    lens = torch.as_tensor(valid_lens, device=scores.device)
    if torch.is_floating_point(lens) or lens.dtype == torch.bool:
        raise TypeError(f"valid_lens must hold integers, got {lens.dtype}")
    if lens.numel() and (lens.min() < 0 or lens.max() > S):
        raise ValueError(
            f"valid_lens holds how many keys each row may use: non-negative and at most "
            f"S={S}, got {lens.tolist()}"
        )
    batch = tuple(scores.shape[: lens.ndim])
    if lens.ndim in (scores.ndim - 2, scores.ndim - 1) and tuple(lens.shape) != batch:
        raise ValueError(
            f"valid_lens of shape {shape_str(lens)} does not fit scores {shape_str(scores)}: "
            f"one length per sequence (B,) = ({batch[0]},) or per query (B, T); lengths of "
            "another batch?"
        )
    positions = torch.arange(S, device=scores.device)  # (S,)
    if lens.ndim == scores.ndim - 2:  # one length per sequence: (B,) for (B, T, S)
        return (positions >= lens[..., None])[..., None, :]  # (..., 1, S)
    if lens.ndim == scores.ndim - 1:  # one length per query: (B, T)
        return positions >= lens[..., None]  # (..., T, S)
    raise ValueError(
        f"valid_lens of shape {shape_str(lens)} does not fit scores {shape_str(scores)}: "
        "use (B,) or (B, T)"
    )


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
    if not isinstance(scores, Tensor) or scores.ndim < 1:
        got = shape_str(scores) if isinstance(scores, Tensor) else type(scores).__name__
        raise TypeError(f"scores must be a tensor (..., T, S), got {got}")
    if not torch.is_floating_point(scores):
        swapped = (
            " It looks like a mask: the order is masked_softmax(scores, mask)."
            if scores.dtype == torch.bool
            else ""
        )
        raise TypeError(
            f"scores is {scores.dtype}, but a softmax needs floating-point scores: "
            f"convert them with scores.float().{swapped}"
        )
    if mask is not None and valid_lens is not None:
        raise ValueError("give either mask or valid_lens, not both")
    if valid_lens is not None:
        if scores.ndim < 2:
            raise ValueError(
                f"scores must be (..., T, S) to use valid_lens, got {shape_str(scores)}"
            )
        mask = _lengths_mask(valid_lens, scores)
    if mask is not None:
        lengths_like = isinstance(mask, Tensor) and not mask.is_floating_point()
        if lengths_like and mask.dtype != torch.bool and mask.ndim == scores.ndim - 2:
            raise TypeError(
                f"mask of shape {shape_str(mask)} holds {mask.dtype} values, one per "
                "sequence: lengths, not a mask. Pass them as valid_lens=, "
                "masked_softmax(scores, valid_lens=lengths)"
            )
        if not nested():
            check_mask(mask, scores.shape)
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(mask, float("-inf"))  # a new tensor: input untouched
        else:
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
    if not isinstance(x, Tensor):
        raise TypeError(
            f"padding_mask takes a tensor of token ids (B, S) or of lengths (B,), got "
            f"{type(x).__name__}: padding_mask(torch.tensor(lengths), total_length=S)"
        )
    if pad_id is not None and total_length is not None:
        raise ValueError(
            "give pad_id (tokens (B, S) -> their mask) or total_length (lengths (B,) -> a "
            "mask of that many columns), not both: padding_mask(tokens, pad_id=PAD) or "
            "padding_mask(lengths, total_length=S)"
        )
    if isinstance(x, Tensor) and x.dtype == torch.bool:
        raise TypeError(
            f"padding_mask takes token ids (with pad_id=) or lengths (with total_length=), got "
            f"a bool tensor {shape_str(x)}: that is already a mask. Pass it on as "
            f"key_padding_mask (True = blocked), or build it from the tokens: "
            f"padding_mask(tokens, pad_id=PAD)"
        )
    if pad_id is not None:
        if isinstance(pad_id, bool) or not isinstance(pad_id, int):
            raise TypeError(
                f"pad_id must be the integer id of <pad> (course_lib.vocab.PAD = 0), got "
                f"{pad_id!r}: pass pad_id=PAD (from course_lib.vocab import PAD)"
            )
        if x.ndim != 2:
            hint = (
                ": these look like lengths (B,); for lengths use "
                "padding_mask(lengths, total_length=S) instead of pad_id"
                if x.ndim == 1
                else ""
            )
            raise ValueError(
                f"tokens must be (B, S) to build a padding mask, got {shape_str(x)}{hint}"
            )
        return x == pad_id
    if x.ndim != 1:
        raise ValueError(f"lengths must be (B,), got {shape_str(x)}; for token ids pass pad_id=...")
    if torch.is_floating_point(x):
        raise TypeError("lengths must be integers")
    longest = int(x.max()) if len(x) else 0
    total_length = longest if total_length is None else total_length
    if (x < 0).any() or longest > total_length:
        raise ValueError(f"lengths must lie in [0, total_length={total_length}], got {x.tolist()}")
    return torch.arange(total_length, device=x.device) >= x[:, None]  # (B, S)


def causal_mask(size: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` mask, True above the diagonal: query ``t`` may not see keys after ``t``."""
    check_positive_int(size, "size")
    _check_device(device, f"causal_mask({size})")
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)


def _check_device(device: object, call: str) -> None:
    """An integer device is a second size, as in ``torch.ones(T, T)``: say the mask is
    square and how to name a device."""
    if isinstance(device, int):
        raise TypeError(
            f"device={device!r}: the mask is square, (size, size), so it takes one size, "
            f"{call}; the argument after it is the device, by name, e.g. device='cpu' or "
            f"device=f'cuda:{{index}}'"
        )


def sliding_window_mask(size: int, window: int, device: torch.device | str | None = None) -> Tensor:
    """``(T, T)`` causal mask that also blocks keys more than ``window - 1`` steps back:
    query ``t`` sees keys ``t - window + 1 .. t`` (Mistral-style local attention; with a
    key/value cache only the last ``window`` positions need to be kept).

    Warns:
        MaskWarning: a ``window`` longer than ``size``: the mask is :func:`causal_mask`'s
            (the two arguments swapped?).
    """
    check_positive_int(size, "size")
    check_positive_int(window, "window")
    _check_device(device, f"sliding_window_mask({size}, {window})")
    if window > size:
        warn_user(
            f"sliding_window_mask({size}, {window}): the window, {window} keys, is longer "
            f"than the sequence, size={size}, so the mask blocks nothing a causal_mask({size}) "
            f"would not. The order is sliding_window_mask(size, window): for a window of "
            f"{size} over {window} positions, sliding_window_mask({window}, {size})"
        )
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
    for name, m in (("first mask", a), ("second mask", b)):
        if m is not None and m.dtype != torch.bool and not torch.is_floating_point(m):
            raise TypeError(
                f"the {name} is {m.dtype}: masks are boolean (True = blocked) or float "
                "(added to the scores); for 0/1 masks use mask.bool()"
            )
    if a is None or b is None:
        return b if a is None else a
    try:
        torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError as err:
        raise ValueError(
            f"masks of shapes {shape_str(a)} and {shape_str(b)} do not broadcast together"
        ) from err
    if a.dtype == torch.bool and b.dtype == torch.bool:
        return a | b
    floats = [m.dtype for m in (a, b) if m.dtype != torch.bool]
    dtype = torch.promote_types(floats[0], floats[-1])
    return _as_additive(a, dtype) + _as_additive(b, dtype)


def merge_masks(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> Tensor | None:
    """One mask from an ``attn_mask`` ``(T, S)``/``(B, T, S)`` and a ``key_padding_mask``
    ``(B, S)``, broadcastable to ``(B, T, S)``. Booleans stay boolean (True = blocked);
    if either is float, the result is a float mask to add to the scores."""
    if key_padding_mask is None:
        return combine_masks(attn_mask, None)
    if key_padding_mask.ndim != 2:
        raise ValueError(f"key_padding_mask must be (B, S), got {shape_str(key_padding_mask)}")
    if isinstance(attn_mask, Tensor) and attn_mask.shape[-1] != key_padding_mask.shape[-1]:
        raise ValueError(
            f"key_padding_mask covers {key_padding_mask.shape[-1]} keys but attn_mask "
            f"{attn_mask.shape[-1]} (its last axis): both masks describe the same keys S; "
            f"attn_mask {shape_str(attn_mask)}, key_padding_mask {shape_str(key_padding_mask)}"
        )
    kpm = key_padding_mask[:, None, :]  # (B, S) -> (B, 1, S): the same for every query
    return combine_masks(attn_mask, kpm)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
