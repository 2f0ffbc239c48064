"""The input checks of :mod:`course_lib.seq2seq` and :mod:`course_lib.seq2seq_attention`
(package-private): each constructor and ``forward`` there calls one ``check_...`` of this
module, so that its own body is the recurrence.

Every message says what was wrong *and* what to do about it.
"""

from __future__ import annotations

import weakref

from torch import Tensor, nn

from course_lib._attention_checks import check_sizes
from course_lib._validate import (
    check_hidden,
    check_key_padding_mask,
    check_positive_int,
    check_sequence,
    check_type,
    nested,
    shape_str,
    type_name,
    warn_user,
)

#: The models already told that they ran free for want of a target: once per model.
_RAN_FREE: weakref.WeakSet[nn.Module] = weakref.WeakSet()


def check_seq2seq_config(config) -> None:
    """A :class:`~course_lib.seq2seq.Seq2SeqConfig`'s fields: positive sizes, a probability."""
    check_sizes(
        n_features=config.n_features, hidden_dim=config.hidden_dim, target_len=config.target_len
    )
    p = config.teacher_forcing_prob
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"teacher_forcing_prob is a probability in [0, 1], got {p!r}")


def check_encoder_source(encoder, source: Tensor) -> None:
    """An :class:`~course_lib.seq2seq.Encoder`'s source: ``(B, S, F)`` of its features and
    of its weights' dtype."""
    check_sequence(source, "source", encoder.n_features)
    weight = encoder.gru.weight_ih_l0
    if source.dtype != weight.dtype:
        raise TypeError(
            f"source is {source.dtype} but the encoder's weights are {weight.dtype}: "
            f"convert the data with source.to({weight.dtype}) (or the model with "
            f"encoder.to({source.dtype}))"
        )


def check_decoder_step(decoder, x, hidden, memory, memory_key_padding_mask=None) -> None:
    """The shapes of a decoder step's arguments (cheap: checked at every step) and,
    outside a library call that checked them already, the padding mask's values."""
    check_sequence(x, "decoder input x", decoder.n_features)
    check_hidden(hidden, x.shape[0], decoder.hidden_dim)
    if not decoder.needs_memory:
        return
    if memory is None:
        raise ValueError(
            "an attention decoder needs the encoder states: call decoder(x, hidden, "
            "memory) with memory = encoder(source)[0]"
        )
    B, H = x.shape[0], decoder.hidden_dim
    if not isinstance(memory, Tensor) or memory.ndim != 3:
        got = shape_str(memory) if isinstance(memory, Tensor) else type(memory).__name__
        raise ValueError(
            f"memory must be the encoder states (B, S, H) = ({B}, S, {H}), "
            f"got {got}: pass encoder(source)[0]"
        )
    if memory.shape[0] == 1 and memory.shape[1] == B and B > 1:
        raise ValueError(
            f"memory {shape_str(memory)} looks like the encoder's final state (1, B, H): "
            "memory is every encoder state (B, S, H), the first thing the encoder "
            "returns: memory, hidden = encoder(source)"
        )
    if memory.shape[0] != B:
        raise ValueError(
            f"memory holds {memory.shape[0]} sequences but x {B}: decode the batch that "
            "was encoded (the same rows, in the same order)"
        )
    if memory.shape[-1] != H:
        raise ValueError(
            f"memory must be the encoder states (B, S, H) = ({B}, S, {H}), "
            f"got {shape_str(memory)}: encoder and decoder need the same hidden_dim"
        )
    check_key_padding_mask(
        memory_key_padding_mask, "memory_key_padding_mask", B, memory.shape[1], values=not nested()
    )


def check_attn_dim(attn_dim: int | None) -> None:
    """:class:`~course_lib.seq2seq_attention.BahdanauDecoder`'s ``attn_dim``: ``None`` (the
    hidden size) or a positive integer."""
    if attn_dim is not None:
        check_positive_int(attn_dim, "attn_dim")


def check_encoder_decoder(encoder, decoder, target_len, teacher_forcing_prob) -> None:
    """An :class:`~course_lib.seq2seq.EncoderDecoder`'s parts: module instances, in the
    order (encoder, decoder) -- an ``Encoder`` as the decoder or a ``DecoderStep`` as the
    encoder is a swap -- of one hidden size; a positive length, a probability."""
    from course_lib.seq2seq import DecoderStep, Encoder  # the module that imports this one

    check_positive_int(target_len, "target_len")
    if not 0.0 <= teacher_forcing_prob <= 1.0:
        raise ValueError(f"teacher_forcing_prob is a probability, got {teacher_forcing_prob}")
    for name, part in (("encoder", encoder), ("decoder", decoder)):
        if not isinstance(part, nn.Module):
            fix = f"build one: {part.__name__}(...)" if isinstance(part, type) else ""
            check_type(part, name, nn.Module, "a module (an instance)", fix)
    if isinstance(encoder, DecoderStep) or isinstance(decoder, Encoder):
        raise TypeError(
            f"EncoderDecoder got a {type(encoder).__name__} as its encoder and a "
            f"{type(decoder).__name__} as its decoder: swapped? Call "
            "EncoderDecoder(encoder, decoder, target_len)"
        )
    sizes = [getattr(part, "hidden_dim", None) for part in (encoder, decoder)]
    if None not in sizes and sizes[0] != sizes[1]:
        raise ValueError(
            f"the encoder's hidden_dim={sizes[0]} differs from the decoder's "
            f"hidden_dim={sizes[1]}: the decoder starts from the encoder's state, so "
            "build both with the same hidden_dim"
        )


def check_config_type(config, config_type: type) -> None:
    """``EncoderDecoder.from_config``'s argument: a ``config_type`` instance."""
    check_type(
        config,
        "config",
        config_type,
        "a Seq2SeqConfig",
        "Build it with Seq2SeqConfig(n_features=..., hidden_dim=..., target_len=...).",
    )


def check_encoder_decoder_inputs(model, source, target, src_key_padding_mask) -> None:
    """An :class:`~course_lib.seq2seq.EncoderDecoder`'s inputs: a source ``(B, S, F)``; in
    training mode a target ``(B, T, F)`` of its batch, features and ``target_len`` -- or,
    without a target where teacher forcing was asked for, a warning (once per model) that
    the model ran free; a key padding mask ``(B, S)``."""
    check_sequence(source, "source")
    if model.training and target is not None:
        check_sequence(target, "target", source.shape[-1], of="source")
        expected = (source.shape[0], model.target_len, source.shape[-1])
        if tuple(target.shape) != expected:
            raise ValueError(
                f"target must have shape (B, T, F) = {expected} to match the source and "
                f"target_len={model.target_len}, got {shape_str(target)}"
            )
    B, S = source.shape[:2]
    check_key_padding_mask(src_key_padding_mask, "src_key_padding_mask", B, S)
    if model.training and target is None and model.teacher_forcing_prob > 0:
        warn_ran_free(model)


def warn_ran_free(model) -> None:
    """Once per model: in training mode, with ``teacher_forcing_prob > 0``, it got no
    target, so it fed back its own predictions at every step."""
    if model in _RAN_FREE:
        return
    _RAN_FREE.add(model)
    p = model.teacher_forcing_prob
    warn_user(
        f"EncoderDecoder is in training mode with teacher_forcing_prob={p:g}, but got no "
        "target: teacher forcing needs the target, so the model ran free (it fed back its "
        "own predictions at every step). Pass the target, model(source, target) (with the "
        "Trainer, training items (source, target, target)); or, to train without teacher "
        "forcing, set teacher_forcing_prob=0; or, to predict, call model.eval() first. "
        "(Said once per model.)",
        UserWarning,
    )


def check_decoder_result(decoder, result) -> tuple:
    """What a decoder step returned: the triple ``(out, hidden, weights)``, returned as it is."""
    if not (isinstance(result, tuple) and len(result) == 3):
        got = f"a tuple of {len(result)}" if isinstance(result, tuple) else type_name(result)
        raise TypeError(
            f"the decoder must return (out, hidden, weights) -- weights None without "
            f"attention -- as the library's decoders do; {type(decoder).__name__} "
            f"returned {got}: end its forward with return out, hidden, None"
        )
    return result
