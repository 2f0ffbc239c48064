"""The input checks of the Transformer modules -- :mod:`course_lib.transformer`,
:mod:`course_lib.modern_block`, :mod:`course_lib.decoder_only` and
:mod:`course_lib.points_transformer` -- kept here so that each of their public functions and
``forward`` methods reads like the lecture: one line that checks, then the arithmetic
(package-private).

Each ``check_...`` raises the error a mistake deserves, named in the user's words, or returns
``None``. Those that guard a call made once per batch or per decoded token skip their work
inside a library call that checked its inputs already (:func:`~course_lib._validate.nested`).
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib._validate import (
    check_decoding_step,
    check_dropout,
    check_positive_int,
    check_sequence,
    check_source,
    check_target,
    check_type,
    check_vocab_size,
    check_width,
    nested,
    shape_str,
    type_name,
)
from course_lib.multihead import KeyValue
from course_lib.vocab import PAD, SOS

# -- shared ------------------------------------------------------------------------------------


def check_config(config: object, expected: type) -> None:
    """A model is built from its own config class (``TranslationConfig`` for the
    Transformer), not from another model's or from loose sizes."""
    if not isinstance(config, expected):
        name = expected.__name__
        raise TypeError(f"config must be a {name}, got {type(config).__name__}")


def check_choice(value: object, name: str, choices: tuple) -> None:
    """One of a config's named options."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


def check_heads_divide(d_model: int, num_heads: int) -> None:
    """Each head gets ``d_model / num_heads`` features."""
    if d_model % num_heads:
        raise ValueError(
            f"d_model={d_model} is not divisible by num_heads={num_heads}: "
            "each head gets d_model / num_heads features; pick sizes that divide"
        )


# -- transformer.py ----------------------------------------------------------------------------


def check_known_keywords(unknown: dict, module: str, renamed: dict[str, str]) -> None:
    """A TypeError for keyword arguments ``module.forward`` does not take, naming the right
    one where the user wrote another module's name for it."""
    if not unknown:
        return
    name = next(iter(unknown))
    right = renamed.get(name)
    fix = f": this module calls it {right}=" if right else ""
    raise TypeError(f"{module} got an unexpected keyword argument {name!r}{fix}")


def check_feed_forward(ffn, x: Tensor) -> None:
    """``x`` ``(..., length, d_model)`` for a :class:`~course_lib.transformer.FeedForward`."""
    if not nested():
        d_model = ffn.net[0].in_features
        check_width(x, d_model, "x", label="d_model", leading="...")


def check_layer_args(add_norm: object, choices: tuple, dropout: float) -> None:
    """A layer's ``add_norm`` (``"post"``, ``"pre"`` or None) and its dropout."""
    if add_norm not in choices:
        raise ValueError(f"add_norm must be 'post', 'pre' or None, got {add_norm!r}")
    check_dropout(dropout)


def check_layer_inputs(layer, **tensors: Tensor) -> None:
    """Floating-point ``(B, length, d_model)`` tensors of one batch size ``B``."""
    for name, t in tensors.items():
        check_type(t, name, Tensor, f"a (B, length, d_model={layer.d_model}) tensor")
        hint = ": embed the input to the layer's width first"
        check_width(t, layer.d_model, name, label="d_model", hint=hint)
        if not t.is_floating_point():
            raise TypeError(
                f"{name} is {t.dtype}, but a layer needs floating-point vectors: embed "
                "token ids first (nn.Embedding), or convert with .float()"
            )
    (first, a), *others = tensors.items()
    for name, t in others:
        if t.shape[0] != a.shape[0]:
            raise ValueError(
                f"{first} holds {a.shape[0]} sequences but {name} {t.shape[0]}: "
                f"{first} {shape_str(a)}, {name} {shape_str(t)}; give them the same "
                "batch, in the same order"
            )


def check_encoder_layer(
    layer,
    x: Tensor,
    mask,
    key_padding_mask,
    unknown: dict,
    *,
    module: str = "EncoderLayer",
    renamed: dict[str, str] | None = None,
    mask_name: str = "src_mask",
) -> None:
    """An encoder layer's (or, with the stack's names, a stack's) call: no keyword it does
    not take, then ``x`` ``(B, S, D)`` and its masks under the user's names for them."""
    check_known_keywords(unknown, module, {"mask": "src_mask"} if renamed is None else renamed)
    if nested():
        return
    check_layer_inputs(layer, x=x)
    B, S = x.shape[:2]
    names = (mask_name, "src_key_padding_mask")
    layer.self_attn.check_masks(
        B, S, S, attn_mask=mask, key_padding_mask=key_padding_mask, names=names
    )


def check_encoder_stack(stack, x: Tensor, mask, key_padding_mask, unknown: dict) -> None:
    """:func:`check_encoder_layer` under the stack's names (nn.TransformerEncoder's name is
    ``mask``, its layers' ``src_mask``)."""
    check_encoder_layer(
        stack.layers[0],
        x,
        mask,
        key_padding_mask,
        unknown,
        module="TransformerEncoder",
        renamed={"src_mask": "mask"},
        mask_name="mask",
    )


def check_decoder_layer(layer, x: Tensor, memory: Tensor, self_masks: dict, cross_masks: dict):
    """``x`` ``(B, T, D)``, ``memory`` ``(B, S, D)`` and the four masks, by name
    (``self_masks`` and ``cross_masks`` hold ``attn_mask`` and ``key_padding_mask``)."""
    if nested():
        return
    check_layer_inputs(layer, x=x, memory=memory)
    B, T, S = x.shape[0], x.shape[1], memory.shape[1]
    layer.self_attn.check_masks(B, T, T, **self_masks, names=("tgt_mask", "tgt_key_padding_mask"))
    layer.cross_attn.check_masks(
        B, T, S, **cross_masks, names=("memory_mask", "memory_key_padding_mask")
    )


def check_decoder_stack(stack, x: Tensor, memory: Tensor, masks: dict) -> None:
    """:func:`check_decoder_layer` for a stack's call, with its four masks by name."""
    self_masks = {"attn_mask": masks["tgt_mask"], "key_padding_mask": masks["tgt_key_padding_mask"]}
    cross_masks = {
        "attn_mask": masks["memory_mask"],
        "key_padding_mask": masks["memory_key_padding_mask"],
    }
    check_decoder_layer(stack.layers[0], x, memory, self_masks, cross_masks)


def check_memory(stack, memory: Tensor) -> None:
    """The encoder's output ``(B, S, D)`` that ``init_cache`` projects."""
    if not nested():
        check_layer_inputs(stack.layers[0], memory=memory)


def _causal(mask: Tensor) -> bool:
    """``mask`` ``(L, L)`` blocks exactly the future: ``causal_mask(L)``, as bool (True =
    blocked) or float (-inf), or its opposite polarity (True or 1 = may attend)."""
    if not (mask.dtype == torch.bool or mask.is_floating_point()):
        return False
    L = mask.shape[0]
    future = torch.ones(L, L, dtype=torch.bool, device=mask.device).triu(1)
    if mask.dtype == torch.bool:
        return torch.equal(mask, future) or torch.equal(mask, ~future)
    return torch.equal(torch.isneginf(mask), future) or torch.equal(mask, (~future).to(mask.dtype))


def check_step_mask(mask: object, name: str, batch: int, sources: int, new: int, past: int):
    """A causal mask given where a step takes the source's padding ``(B, S)``.

    A causal mask ``(T, T)`` for the whole target, given with one new query and ``T - 1``
    cached positions, is named as such: a step masks nothing of the past. A causal mask of
    any other size, or with more new queries, fits no single cause: the message says what
    was expected and what came. Other masks are left to the shape checks."""
    square = isinstance(mask, Tensor) and mask.ndim == 2 and mask.shape[0] == mask.shape[1]
    if not square or tuple(mask.shape) == (batch, sources) or not _causal(mask):
        return
    expected = f"(B, S) = ({batch}, {sources}), the source's padding (True = <pad>), or None"
    if new == 1 and past > 0 and mask.shape[0] == past + 1:
        raise ValueError(
            f"{name} is a causal mask {shape_str(mask)}, given with one new query and a cache "
            f"of {past} positions: the causal mask is for the whole sequence; with a cache the "
            f"single new query may see every cached key: pass no mask. {name} must be "
            f"{expected}"
        )
    queries = "one new query" if new == 1 else f"{new} new queries"
    raise ValueError(
        f"{name} must be {expected}; got {shape_str(mask)}, at a step of {queries} with "
        f"{past} cached positions"
    )


def check_decoder_step(layer, x: Tensor, memory_kv, cache, memory_key_padding_mask) -> None:
    """A decoder layer's step: ``x`` ``(B, t, D)``, the projected memory and the cache of one
    batch, the source's padding (shapes only: a step runs once per decoded token)."""
    if nested():
        return
    check_layer_inputs(layer, x=x)
    check_type(memory_kv, "memory_kv", KeyValue, "the KeyValue of cross_attn.project_kv")
    B, S = memory_kv.key.shape[0], memory_kv.key.shape[2]
    for name, kv in (("memory_kv", memory_kv), ("cache", cache)):
        if kv is not None and kv.key.shape[0] != x.shape[0]:
            raise ValueError(
                f"x holds {x.shape[0]} sequences but {name} {kv.key.shape[0]}: decode "
                "the batch that was encoded (or select its rows with .select(index))"
            )
    past = 0 if cache is None else cache.key.shape[2]
    name = "memory_key_padding_mask"
    check_step_mask(memory_key_padding_mask, name, B, S, x.shape[1], past)
    layer.cross_attn.check_masks(
        B,
        x.shape[1],
        S,
        key_padding_mask=memory_key_padding_mask,
        names=("memory_mask", name),
        values=False,
    )


def check_stack_step(stack, x: Tensor, cache, cache_type: type, memory_key_padding_mask) -> None:
    """A decoder stack's step: the ``cache_type`` (``DecoderCache``) of ``init_cache``, then
    :func:`check_decoder_step` for its first layer."""
    if nested():
        return
    check_type(cache, "cache", cache_type, "the DecoderCache of init_cache(memory)")
    layer_cache = cache.memory[0], cache.self_attn[0]
    check_decoder_step(stack.layers[0], x, *layer_cache, memory_key_padding_mask)


# -- modern_block.py ---------------------------------------------------------------------------


def check_block_input(x: object, d_model: int, layer: str) -> None:
    """``x`` must be a floating-point tensor ``(..., d_model)``: the message names the
    layer and its width instead of torch's "mat1 and mat2 shapes cannot be multiplied"."""
    fix = "Convert it: torch.as_tensor(x, dtype=torch.float32)."
    check_type(x, "x", Tensor, f"a tensor (..., d_model={d_model})", fix)
    if not torch.is_floating_point(x):
        raise TypeError(f"x must be floating point, got {x.dtype}; use x.float()")
    if x.ndim == 0 or x.shape[-1] != d_model:
        raise ValueError(
            f"x must be (..., d_model={d_model}), the width this {layer} was built for, got "
            f"{shape_str(x)}: build it with {layer}({x.shape[-1] if x.ndim else '?'}, ...) "
            "or project x to the model's width first"
        )


def check_rms_norm(d_model: object, eps: object) -> None:
    """An :class:`~course_lib.modern_block.RMSNorm`'s width and ``eps``."""
    check_positive_int(d_model, "d_model")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0:
        raise ValueError(f"eps must be a small number >= 0 (1e-6), got {eps!r}")


def check_swiglu(d_model: object, d_ff: object, dropout: float) -> None:
    """A :class:`~course_lib.modern_block.SwiGLU`'s sizes and dropout."""
    check_positive_int(d_model, "d_model")
    check_positive_int(d_ff, "d_ff")
    check_dropout(dropout)


# -- decoder_only.py ---------------------------------------------------------------------------


def check_decoder_only_config(c, positions: tuple, norms: tuple, feed_forwards: tuple) -> None:
    """A :class:`~course_lib.decoder_only.DecoderOnlyConfig`'s sizes and options."""
    for name in ("src_vocab", "tgt_vocab"):
        check_vocab_size(getattr(c, name), name)
    for name in ("d_model", "num_heads", "d_ff", "num_layers"):
        check_positive_int(getattr(c, name), name)
    check_positive_int(c.max_len, "max_len")
    check_positive_int(c.max_src_len, "max_src_len")
    check_heads_divide(c.d_model, c.num_heads)
    if c.positions == "rotary" and (c.d_model // c.num_heads) % 2:
        raise ValueError(
            f"positions='rotary' rotates pairs of features, so each head's width "
            f"d_model / num_heads = {c.d_model}/{c.num_heads} = "
            f"{c.d_model // c.num_heads} must be even: change d_model or num_heads"
        )
    check_choice(c.positions, "positions", positions)
    check_choice(c.norm, "norm", norms)
    check_choice(c.feed_forward, "feed_forward", feed_forwards)
    check_dropout(c.dropout)
    for name in ("prefix_mask", "tie_embeddings"):
        if not isinstance(getattr(c, name), bool):
            raise TypeError(f"{name} must be True or False, got {getattr(c, name)!r}")


def check_prefix(config, src: Tensor) -> None:
    """The source of a decoder-only model: token ids, right-padded, at most
    ``max_src_len``, no all-``<pad>`` row."""
    if nested():
        return
    check_source(
        src,
        config.src_vocab,
        pad_id=PAD,
        max_len=config.max_src_len,
        max_name="max_src_len",
        right_padded=True,
    )


def check_decoder_only_input(config, src: Tensor, tgt_in: Tensor) -> None:
    """Teacher forcing's source and target, for a decoder-only model."""
    if nested():
        return
    check_prefix(config, src)
    check_target(tgt_in, src, config.tgt_vocab, max_len=config.max_len, sos_id=SOS)


def check_decoder_only_step(config, tokens: Tensor, cache, cache_type: type) -> None:
    """A decoder-only step: the tokens and cache of one batch (outside a library call), and
    positions that fit the model's (always: no device sync)."""
    if not nested():
        check_decoding_step(tokens, cache, cache_type, config.tgt_vocab)
    t = tokens.shape[1]
    if cache.length + t > config.max_src_len + config.max_len:
        raise ValueError(
            f"{cache.length + t} positions, more than max_src_len + max_len = "
            f"{config.max_src_len + config.max_len}: generate fewer tokens"
        )


# -- points_transformer.py ---------------------------------------------------------------------


def check_points_config(c) -> None:
    """A string ``positional`` would read as True: the table, silently."""
    if not isinstance(c.positional, bool):
        raise TypeError(
            f"positional must be True or False (add sinusoidal positions or not), got "
            f"{c.positional!r}: SelfAttentionConfig(positional=False) for none"
        )


def check_points_model(config: object, config_type: type) -> None:
    """A :class:`~course_lib.points_transformer.SelfAttentionEncoderDecoder`'s config."""
    check_type(
        config,
        "config",
        config_type,
        "a SelfAttentionConfig instance",
        "Build one: SelfAttentionEncoderDecoder(SelfAttentionConfig(d_model=8, ...)).",
    )
    c = config
    if c.start not in ("last", "origin"):
        raise ValueError(f"start must be 'last' or 'origin', got {c.start!r}")
    for name in ("n_features", "target_len", "max_len"):
        check_positive_int(getattr(c, name), name)
    if c.positional and c.target_len > c.max_len:
        raise ValueError(
            f"target_len={c.target_len} positions do not fit max_len={c.max_len}: the "
            "decoder encodes one position per target point; raise max_len"
        )


def check_points(config, x: Tensor, name: str) -> None:
    """``x`` must be a float tensor ``(B, length, n_features)`` that fits ``max_len``."""
    fix = f"Convert it: torch.as_tensor({name}, dtype=torch.float32)."
    check_type(x, name, torch.Tensor, "a torch.Tensor (B, length, n_features)", fix)
    check_sequence(x, name, config.n_features)
    if config.positional and x.shape[1] > config.max_len:
        raise ValueError(
            f"{name} has {x.shape[1]} points, more than the max_len={config.max_len} "
            f"positions the model encodes: build it with SelfAttentionConfig(max_len="
            f"{x.shape[1]}) or more, or shorten {name}"
        )


def check_points_decode(config, inputs: Tensor, memory: Tensor) -> None:
    """The decoder's inputs ``(B, T, F)`` and ``memory``, the encoder's output
    ``(B, S, d_model)`` -- not ``encode``'s pair."""
    check_points(config, inputs, "inputs")
    d = config.d_model
    what = f"the encoder's output, a torch.Tensor (B, S, d_model={d})"
    if isinstance(memory, tuple) and len(memory) == 2 and isinstance(memory[0], Tensor):
        second = "None" if memory[1] is None else type_name(memory[1])
        raise TypeError(
            f"memory must be {what}, got a tuple of 2 (a tensor {tuple(memory[0].shape)} and "
            f"{second}): the (memory, weights) pair that encode returns. "
            "Unpack it first: memory, _ = model.encode(source)."
        )
    check_type(memory, "memory", Tensor, what, "Pass memory, _ = model.encode(source).")
    hint = ": pass the output of encode(source)"
    check_width(memory, d, "memory", label="d_model", hint=hint)


def check_points_target(config, target: object, source: Tensor) -> None:
    """A training target ``(B, target_len, n_features)``."""
    check_type(target, "target", torch.Tensor, "a torch.Tensor (B, T, n_features)")
    check_sequence(target, "target", config.n_features)
    if target.shape[:2] != (source.shape[0], config.target_len):
        raise ValueError(f"target must be (B, T={config.target_len}, F), got {tuple(target.shape)}")
