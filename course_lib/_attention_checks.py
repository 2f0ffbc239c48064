"""The input checks of :mod:`course_lib.attention`, :mod:`course_lib.masking` and
:mod:`course_lib.multihead` (package-private): each public function or ``forward`` there
calls one ``check_...`` of this module, so that its own body is the arithmetic.

Every check leaves its inputs unchanged and says what was wrong *and* what to do about it;
a check that reads tensor values (a GPU synchronisation) runs once per public call, never
inside a library call that checked them already (:func:`~course_lib._validate.nested`).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from course_lib._validate import (
    check_attention_inputs,
    check_attn_mask,
    check_dropout,
    check_floating,
    check_key_padding_mask,
    check_mask,
    check_mask_values,
    check_positive_int,
    check_type,
    check_width,
    nested,
    shape_str,
    warn_user,
)

# -- sizes ------------------------------------------------------------------------------------


def check_sizes(**sizes: object) -> tuple[int, ...]:
    """Each size a positive integer, checked in the order given: the sizes as Python ints."""
    return tuple(check_positive_int(size, name) for name, size in sizes.items())


# -- course_lib.attention -----------------------------------------------------------------------


def check_sdpa_inputs(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    scale: float | None,
) -> None:
    """The functional attention's inputs, outside a library call that checked them: shapes,
    the mask (a float mask of 0s and 1s warns), a boolean mask that leaves a query no key
    (the question "polarity?", as :class:`~course_lib.multihead.MultiHeadAttention` asks it
    of its ``attn_mask``) and a ``scale`` of ``sqrt(E)``."""
    if nested():
        return
    check_attention_inputs(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p)
    if isinstance(attn_mask, Tensor) and attn_mask.dtype == torch.bool:
        check_boolean_mask_rows(attn_mask, "attn_mask")
    E = query.shape[-1]
    if scale is not None and E > 1 and abs(scale - math.sqrt(E)) < 1e-6 * math.sqrt(E):
        warn_user(
            f"scale={scale:g} is sqrt(E) for E={E}: the scores are multiplied by scale, "
            f"and the standard scaling divides by sqrt(E), scale=1 / sqrt(E) = "
            f"{1 / math.sqrt(E):.4g} (the default, scale=None)",
            UserWarning,
        )


def check_boolean_mask_rows(mask: Tensor, name: str) -> None:
    """A boolean mask with a row that blocks every key: the warning "Polarity?" that
    :meth:`~course_lib.multihead.MultiHeadAttention.check_masks` gives an ``attn_mask`` (the
    same rule, the same words). ``~causal_mask(T)`` is left to the warning of its own, which
    :func:`~course_lib._validate.check_mask` gives already (True on and below the diagonal)."""
    T = mask.shape[-1]
    if mask.ndim >= 2 and mask.shape[-2] == T and T >= 2 and mask.numel():
        lower = torch.ones(T, T, dtype=torch.bool, device=mask.device).tril()
        if bool((mask == lower).all()):
            return
    check_mask_values(mask, name)


def check_single_head_masks(query: Tensor, key: Tensor, attn_mask, key_padding_mask) -> None:
    """The single-head modules' masks, in the user's words: ``attn_mask`` ``(T, S)`` or
    ``(B, T, S)``, ``key_padding_mask`` ``(B, S)``."""
    B, T, S = key.shape[0], query.shape[-2], key.shape[-2]
    forms = f"(T, S) = ({T}, {S}) or (B, T, S) = ({B}, {T}, {S})"
    check_attn_mask(attn_mask, "attn_mask", [(T, S), ((B, 1), T, S)], forms)
    check_key_padding_mask(key_padding_mask, "key_padding_mask", B, S)


def check_additive_inputs(module, query, key, value, attn_mask, key_padding_mask) -> None:
    """:class:`~course_lib.attention.AdditiveAttention`'s inputs: the widths it was built
    for, then the masks."""
    if nested():
        return
    check_attention_inputs(
        query, key, value, query_dim=module.w_q.in_features, key_dim=module.w_k.in_features
    )
    check_single_head_masks(query, key, attn_mask, key_padding_mask)


def check_attention_module_inputs(module, query, key, value, attn_mask, key_padding_mask):
    """:class:`~course_lib.attention.Attention`'s inputs: queries and keys of the width it
    was built for (always: the message names ``input_dim``), then, outside a library call,
    the shapes and the masks."""
    input_dim = module.q_proj.in_features
    for name, t in (("query", query), ("key", key)):
        if isinstance(t, Tensor) and t.ndim >= 2 and t.shape[-1] != input_dim:
            default = " (input_dim defaults to proj_dim)" if input_dim == module.proj_dim else ""
            raise ValueError(
                f"{name} has {t.shape[-1]} features per step, but this Attention was "
                f"built for input_dim={input_dim}{default}: give it inputs of that width, "
                f"or build it as Attention({module.proj_dim}, input_dim={t.shape[-1]})"
            )
    if nested():
        return
    value_dim = input_dim if module.v_proj is not None else None
    check_attention_inputs(
        query, key, value, query_dim=input_dim, key_dim=input_dim, value_dim=value_dim
    )
    check_single_head_masks(query, key, attn_mask, key_padding_mask)


# -- course_lib.masking -------------------------------------------------------------------------


def check_valid_lens(valid_lens: Tensor, scores: Tensor) -> None:
    """The number of keys each row may use: integers in ``[0, S]``, one per sequence
    ``(B,)`` or one per query ``(B, T)``."""
    if scores.ndim < 2:
        raise ValueError(f"scores must be (..., T, S) to use valid_lens, got {shape_str(scores)}")
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
    if lens.ndim not in (scores.ndim - 2, scores.ndim - 1):
        raise ValueError(
            f"valid_lens of shape {shape_str(lens)} does not fit scores {shape_str(scores)}: "
            "use (B,) or (B, T)"
        )


def check_softmax_inputs(scores: Tensor, mask, valid_lens) -> None:
    """:func:`~course_lib.masking.masked_softmax`'s inputs: floating-point scores, a mask
    or lengths (not both), lengths that fit, a mask that fits (lengths passed as a mask are
    named)."""
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
        check_valid_lens(valid_lens, scores)
    if mask is None:
        return
    lengths_like = isinstance(mask, Tensor) and not mask.is_floating_point()
    if lengths_like and mask.dtype != torch.bool and mask.ndim == scores.ndim - 2:
        raise TypeError(
            f"mask of shape {shape_str(mask)} holds {mask.dtype} values, one per "
            "sequence: lengths, not a mask. Pass them as valid_lens=, "
            "masked_softmax(scores, valid_lens=lengths)"
        )
    if not nested():
        check_mask(mask, scores.shape)


def check_padding_mask_args(x, pad_id, total_length) -> None:
    """:func:`~course_lib.masking.padding_mask`'s arguments: token ids ``(B, S)`` with an
    integer ``pad_id``, or integer lengths ``(B,)`` that fit ``total_length``."""
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
    if x.dtype == torch.bool:
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
        return
    if x.ndim != 1:
        raise ValueError(f"lengths must be (B,), got {shape_str(x)}; for token ids pass pad_id=...")
    if torch.is_floating_point(x):
        raise TypeError("lengths must be integers")
    longest = int(x.max()) if len(x) else 0
    total_length = longest if total_length is None else total_length
    if (x < 0).any() or longest > total_length:
        raise ValueError(f"lengths must lie in [0, total_length={total_length}], got {x.tolist()}")


def check_device(device: object, call: str) -> None:
    """An integer device is a second size, as in ``torch.ones(T, T)``: say the mask is
    square and how to name a device."""
    if isinstance(device, int):
        raise TypeError(
            f"device={device!r}: the mask is square, (size, size), so it takes one size, "
            f"{call}; the argument after it is the device, by name, e.g. device='cpu' or "
            f"device=f'cuda:{{index}}'"
        )


def check_causal_mask_args(size: int, device: object) -> None:
    """:func:`~course_lib.masking.causal_mask`'s size and device."""
    check_positive_int(size, "size")
    check_device(device, f"causal_mask({size})")


def check_sliding_window_args(size: int, window: int, device: object) -> None:
    """:func:`~course_lib.masking.sliding_window_mask`'s sizes and device; a window longer
    than the sequence warns (the two arguments swapped?)."""
    check_positive_int(size, "size")
    check_positive_int(window, "window")
    check_device(device, f"sliding_window_mask({size}, {window})")
    if window > size:
        warn_user(
            f"sliding_window_mask({size}, {window}): the window, {window} keys, is longer "
            f"than the sequence, size={size}, so the mask blocks nothing a causal_mask({size}) "
            f"would not. The order is sliding_window_mask(size, window): for a window of "
            f"{size} over {window} positions, sliding_window_mask({window}, {size})"
        )


def check_combinable_masks(a: Tensor | None, b: Tensor | None) -> None:
    """Two masks :func:`~course_lib.masking.combine_masks` can combine: boolean or float,
    of shapes that broadcast together."""
    for name, m in (("first mask", a), ("second mask", b)):
        if m is not None and m.dtype != torch.bool and not torch.is_floating_point(m):
            raise TypeError(
                f"the {name} is {m.dtype}: masks are boolean (True = blocked) or float "
                "(added to the scores); for 0/1 masks use mask.bool()"
            )
    if a is None or b is None:
        return
    try:
        torch.broadcast_shapes(a.shape, b.shape)
    except RuntimeError as err:
        raise ValueError(
            f"masks of shapes {shape_str(a)} and {shape_str(b)} do not broadcast together"
        ) from err


def check_merge_masks_args(attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> None:
    """:func:`~course_lib.masking.merge_masks`'s key padding mask: ``(B, S)``, with as many
    keys as ``attn_mask``."""
    if key_padding_mask is None:
        return
    if key_padding_mask.ndim != 2:
        raise ValueError(f"key_padding_mask must be (B, S), got {shape_str(key_padding_mask)}")
    if isinstance(attn_mask, Tensor) and attn_mask.shape[-1] != key_padding_mask.shape[-1]:
        raise ValueError(
            f"key_padding_mask covers {key_padding_mask.shape[-1]} keys but attn_mask "
            f"{attn_mask.shape[-1]} (its last axis): both masks describe the same keys S; "
            f"attn_mask {shape_str(attn_mask)}, key_padding_mask {shape_str(key_padding_mask)}"
        )


# -- course_lib.multihead -----------------------------------------------------------------------


def check_mha_sizes(d_model, num_heads, num_kv_heads, dropout) -> None:
    """:class:`~course_lib.multihead.MultiHeadAttention`'s sizes: positive integers, heads
    that divide the width, key/value heads that divide the heads, a dropout probability."""
    check_sizes(d_model=d_model, num_heads=num_heads, num_kv_heads=num_kv_heads)
    if num_heads % num_kv_heads != 0:
        raise ValueError(
            f"num_kv_heads={num_kv_heads} must divide num_heads={num_heads}: each key/value "
            "head serves a group of num_heads / num_kv_heads query heads"
        )
    if d_model % num_heads != 0:
        swapped = (
            f" Swapped? The order is MultiHeadAttention(d_model, num_heads): "
            f"MultiHeadAttention({num_heads}, {d_model})."
            if num_heads % d_model == 0
            else ""
        )
        raise ValueError(
            f"d_model={d_model} must be divisible by num_heads={num_heads}: each head gets "
            f"d_model / num_heads features. Try num_heads in "
            f"{[n for n in range(1, d_model + 1) if d_model % n == 0]}.{swapped}"
        )
    check_dropout(dropout)


def check_mha_inputs(mha, cache=None, cache_name: str = "cache", **tensors: Tensor) -> None:
    """The checks of the four entry points: floating-point ``(B, length, D)`` tensors of
    one batch size ``B`` (the ``cache``'s too), and one value per key."""
    check_floating(**tensors)
    weight = mha.q_proj.weight
    for name, t in tensors.items():
        check_width(t, mha.d_model, name, label="d_model")
        if t.dtype != weight.dtype:
            raise TypeError(
                f"{name} is {t.dtype} but the module's weights are {weight.dtype}: convert "
                f"the input with {name}.to({weight.dtype}), or the module with "
                f".to({t.dtype})"
            )
    shapes = ", ".join(f"{name} {shape_str(t)}" for name, t in tensors.items())
    B = next(iter(tensors.values())).shape[0]
    if any(t.shape[0] != B for t in tensors.values()):
        raise ValueError(f"{', '.join(tensors)} must share the batch size: {shapes}")
    if "value" in tensors and tensors["value"].shape[1] != tensors["key"].shape[1]:
        raise ValueError(f"key and value must have the same length S: {shapes}")
    if cache is not None and cache.key.shape[0] != B:
        raise ValueError(
            f"{cache_name} holds {cache.key.shape[0]} sequences but {shapes}: use the "
            "keys and values of the same batch (or select its rows with .select(index))"
        )


def check_mha_masks(mha, B, T, S, attn_mask, key_padding_mask, names, values) -> None:
    """The masks :class:`~course_lib.multihead.MultiHeadAttention` accepts for ``B``
    sequences of ``T`` queries and ``S`` keys, in the user's ``names`` for them."""
    Nh = mha.num_heads
    forms = (
        f"(T, S) = ({T}, {S}), (B * num_heads, T, S) = ({B * Nh}, {T}, {S}) or "
        f"(B, num_heads, T, S) = ({B}, {Nh}, {T}, {S}) (1 broadcasts in the first two)"
    )
    patterns = [(T, S), (B * Nh, T, S), ((B, 1), (Nh, 1), T, S)]
    mask = attn_mask
    if isinstance(mask, Tensor) and mask.ndim == 3 and tuple(mask.shape) == (B, T, S):
        if Nh > 1:
            raise ValueError(
                f"{names[0]} of shape {shape_str(mask)} is one mask per sequence, but a "
                "3-D mask must be (B * num_heads, T, S), as in nn.MultiheadAttention: pass "
                f"{names[0]}[:, None] ({B}, 1, {T}, {S}), the same for every head"
            )
    check_attn_mask(attn_mask, names[0], patterns, forms, values=values)
    check_key_padding_mask(key_padding_mask, names[1], B, S, values=values)


def check_heads_mask(attn_mask, key_padding_mask, B: int, Nh: int, T: int, S: int) -> None:
    """The masks the heads' scores ``(B, Nh, T, S)`` can take: ``attn_mask`` ``(T, S)``,
    ``(B * Nh, T, S)`` or ``(B, Nh, T, S)``, ``key_padding_mask`` ``(B, S)``."""
    if attn_mask is not None:
        shape = tuple(attn_mask.shape)
        if len(shape) == 3 and shape[0] != B * Nh:
            raise ValueError(
                f"a 3-D attn_mask must be (B * num_heads, T, S) = ({B * Nh}, {T}, {S}) "
                f"as in nn.MultiheadAttention, got {shape_str(attn_mask)}"
            )
        shape = {2: (1, 1, *shape), 3: (B, Nh, *shape[1:])}.get(len(shape), shape)
        if len(shape) != 4 or shape[-2:] != (T, S):
            raise ValueError(
                f"attn_mask must be (T, S) = ({T}, {S}), (B * Nh, T, S) or (B, Nh, T, S), "
                f"got {shape_str(shape)}"
            )
    if key_padding_mask is not None and tuple(key_padding_mask.shape) != (B, S):
        raise ValueError(
            f"key_padding_mask must be (B, S) = ({B}, {S}), got {shape_str(key_padding_mask)}"
        )


def check_mha_forward(mha, query, key, value, attn_mask, key_padding_mask, positions) -> None:
    """``MultiHeadAttention.forward``'s inputs: outside a library call the tensors and the
    masks; always, ``positions`` only with rotary embedding, and rotary only in
    self-attention."""
    if not nested():
        check_mha_inputs(mha, query=query, key=key, value=value)
        B, T, S = query.shape[0], query.shape[1], key.shape[1]
        mha.check_masks(B, T, S, attn_mask=attn_mask, key_padding_mask=key_padding_mask)
    if positions is not None and not mha.rotary:
        raise ValueError(
            "positions= is only read by rotary embedding, and this module was built "
            "without it: build it with MultiHeadAttention(..., rotary=True), or drop "
            "positions= (add positional encodings to the inputs instead)"
        )
    if mha.rotary and not (query is key and key is value):
        raise ValueError(
            "rotary embedding rotates a sequence's queries and keys by their positions in "
            "that sequence: call it for self-attention, mha(x, x, x)"
        )


def check_project_kv(mha, key: Tensor, value: Tensor) -> None:
    """``MultiHeadAttention.project_kv``'s keys and values, outside a library call."""
    if not nested():
        check_mha_inputs(mha, key=key, value=value)


def check_attend(mha, query, kv, attn_mask, key_padding_mask, kv_type: type) -> None:
    """``MultiHeadAttention.attend``'s inputs, outside a library call: a ``kv_type`` (the
    :class:`~course_lib.multihead.KeyValue` of ``project_kv``) of the query's batch, and
    the masks."""
    if nested():
        return
    check_type(kv, "kv", kv_type, "the KeyValue of project_kv(key, value)")
    check_mha_inputs(mha, kv, "kv", query=query)
    B, T, S = query.shape[0], query.shape[1], kv.key.shape[2]
    mha.check_masks(B, T, S, attn_mask=attn_mask, key_padding_mask=key_padding_mask)


def check_self_attention_step(mha, x, cache, key_padding_mask) -> None:
    """``MultiHeadAttention.self_attention_step``'s inputs, outside a library call: shapes
    only, for a step runs once per decoded token."""
    if nested():
        return
    if isinstance(x, Tensor) and x.ndim == 2 and x.shape[-1] == mha.d_model:
        raise ValueError(
            f"x must be (B, t, d_model) with a time axis, got {shape_str(x)}: for the "
            "newest position keep the axis, x[:, -1:] rather than x[:, -1]"
        )
    check_mha_inputs(mha, cache, x=x)
    past = 0 if cache is None else cache.key.shape[2]
    B, t = x.shape[0], x.shape[1]
    mha.check_masks(B, t, past + t, key_padding_mask=key_padding_mask, values=False)
