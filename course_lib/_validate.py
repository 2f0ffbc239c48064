"""Input checks shared by the library's modules: clear messages instead of deep stack traces.

Every message says what was wrong *and* what to do about it. The checks live in three
package-private modules, by what they check:

* ``_validate_basics`` -- how a message names what the user passed, types, integers, seeds,
  the device, the warnings shown at the user's line, the checks run once per public call;
* ``_validate_attention`` -- attention's queries, keys, values and masks;
* ``_validate`` (this one) -- sequences and token ids, the models' inputs.

The names of the other two are re-exported here, so ``from course_lib._validate import ...``
finds every check.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib._validate_attention import (
    AttentionWeights,
    check_attention_inputs,
    check_attn_mask,
    check_floating,
    check_key_padding_mask,
    check_mask,
    check_mask_values,
    check_width,
)
from course_lib._validate_basics import (
    MaskWarning,
    check_course_device,
    check_dropout,
    check_non_negative_int,
    check_positive_int,
    check_seed,
    check_type,
    checked,
    nested,
    shape_str,
    type_name,
    warn_user,
)

__all__ = [
    # sequences and token ids (here)
    "check_sequence",
    "check_hidden",
    "check_vocab_size",
    "check_tokens",
    "check_source",
    "check_target",
    "check_decoding_step",
    # attention's inputs and masks (_validate_attention)
    "AttentionWeights",
    "check_attention_inputs",
    "check_attn_mask",
    "check_floating",
    "check_key_padding_mask",
    "check_mask",
    "check_mask_values",
    "check_width",
    # the basics (_validate_basics)
    "MaskWarning",
    "check_course_device",
    "check_dropout",
    "check_non_negative_int",
    "check_positive_int",
    "check_seed",
    "check_type",
    "checked",
    "nested",
    "shape_str",
    "type_name",
    "warn_user",
]


def check_sequence(x: Tensor, name: str, n_features: int | None = None, *, of: str = "") -> None:
    """``x`` must be a batch-first float tensor ``(B, T, F)`` with ``F == n_features``: the
    model's ``n_features``, or (``of="source"``) the features of that other input."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim != 3:
        hint = " Add a batch dimension with x.unsqueeze(0)." if x.ndim == 2 else ""
        raise ValueError(
            f"{name} must be batch-first with shape (B, T, F), got {shape_str(x)}.{hint}"
        )
    if x.shape[1] == 0:
        raise ValueError(f"{name} is an empty sequence (T = 0): give it at least one step")
    if n_features is not None and x.shape[-1] != n_features and of:
        raise ValueError(
            f"{name} has {x.shape[-1]} features per step but the {of} has {n_features}: "
            f"shape (B, T, F) = {shape_str(x)}; give both the same features"
        )
    if n_features is not None and x.shape[-1] != n_features:
        raise ValueError(
            f"{name} has {x.shape[-1]} features per step but the model was built for "
            f"n_features={n_features}: shape (B, T, F) = {shape_str(x)}. Build it with "
            f"n_features={x.shape[-1]}, the features of the data. n_features is the configs' "
            f"first field (Seq2SeqConfig({n_features}) sets n_features={n_features}): give "
            f"other sizes by name, e.g. Seq2SeqConfig(hidden_dim={n_features})"
        )
    if not torch.is_floating_point(x):
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}; use x.float()")


def check_hidden(hidden: Tensor, batch_size: int, hidden_dim: int, name: str = "hidden") -> None:
    """A GRU state ``(1, B, H)``: layers first, even for batch-first GRUs."""
    expected = (1, batch_size, hidden_dim)
    if not isinstance(hidden, Tensor) or tuple(hidden.shape) != expected:
        got = shape_str(hidden) if isinstance(hidden, Tensor) else type(hidden).__name__
        hint = ""
        if isinstance(hidden, Tensor) and tuple(hidden.shape) == (batch_size, 1, hidden_dim):
            hint = (
                " It looks batch-first (B, 1, H): a GRU state is (layers, B, H), "
                "so use hidden.transpose(0, 1)."
            )
        elif isinstance(hidden, Tensor) and tuple(hidden.shape[::2]) == (1, hidden_dim):
            hint = (
                f" It is the state of {hidden.shape[1]} sequence(s), and x holds "
                f"{batch_size}: decode the batch that was encoded (the encoder's final state "
                "of the same rows)."
            )
        raise ValueError(f"{name} must have shape (1, B, H) = {expected}, got {got}.{hint}")


#: The special tokens every course_lib.vocab.Vocab holds first (its ids 0 to 3).
_SPECIAL_TOKENS = ("<pad>", "<sos>", "<eos>", "<unk>")


def check_vocab_size(value: object, name: str) -> int:
    """A model's vocabulary size (``src_vocab``, ``tgt_vocab``): a positive int that holds at
    least the special tokens of every :class:`~course_lib.vocab.Vocab` -- a smaller one is
    a length of something else (``len(vocabs)`` of a tuple of two vocabularies)."""
    size = check_positive_int(value, name)
    if size < len(_SPECIAL_TOKENS):
        raise ValueError(
            f"{name}={size} is smaller than the {len(_SPECIAL_TOKENS)} special tokens "
            f"({', '.join(_SPECIAL_TOKENS)}) every Vocab holds, so it cannot be a "
            f"vocabulary's size: pass the size of the vocabulary itself, {name}=len({name}) "
            "(one Vocab, not a tuple or list of them: len of a pair is 2)"
        )
    return size


def check_tokens(tokens: object, name: str, vocab_size: int, *, values: bool = True) -> None:
    """A ``(B, length)`` long tensor of token ids, not empty, with ids in
    ``[0, vocab_size)`` (``values=False`` skips that scan: it reads the whole tensor, a device
    sync on a GPU, so decoding steps fed the model's own argmax skip it)."""
    if not isinstance(tokens, Tensor) or tokens.dtype != torch.long or tokens.ndim != 2:
        got = shape_str(tokens) if isinstance(tokens, Tensor) else type(tokens).__name__
        dtype = f" {tokens.dtype}" if isinstance(tokens, Tensor) else ""
        hint = (
            f": one sentence needs a batch axis, {name}[None]"
            if isinstance(tokens, Tensor) and tokens.ndim == 1
            else ""
        )
        raise TypeError(
            f"{name} must be a (B, length) long tensor of token ids, got {got}{dtype}{hint}"
        )
    if tokens.shape[1] == 0:
        raise ValueError(f"{name} is empty: every sentence needs at least one token")
    if values and tokens.numel() and (tokens.min() < 0 or tokens.max() >= vocab_size):
        raise ValueError(f"{name} holds ids outside the vocabulary [0, {vocab_size})")


def check_source(
    src: object,
    vocab_size: int,
    *,
    pad_id: int,
    max_len: int | None = None,
    max_name: str = "max_len",
    right_padded: bool = False,
) -> None:
    """A translator's source ``(B, S)``: token ids in the vocabulary, at most ``max_len``
    tokens, and no sentence that is all ``<pad>`` (every translator refuses one: it has
    nothing to translate, and the recurrent encoder cannot even read it)."""
    check_tokens(src, "src", vocab_size)
    S = src.shape[1]
    if max_len is not None and S > max_len:
        raise ValueError(
            f"src has {S} tokens, more than {max_name}={max_len}: filter long sentences "
            f"(Chapter 5 keeps pairs under 10 words) or build the model with a larger {max_name}"
        )
    empty = (src == pad_id).all(dim=1)  # (B,): rows without a real token
    if bool(empty.any()):
        rows = empty.nonzero().flatten().tolist()
        raise ValueError(
            f"src row {rows[0] if len(rows) == 1 else rows} is all <pad> (id {pad_id}): every "
            "sentence needs a real token. Drop empty sentences before batching, and check "
            "that the rows were padded with <pad>, not filled with it."
        )
    if right_padded:
        pads = src == pad_id  # (B, S)
        lengths = (~pads).sum(dim=1, keepdim=True)  # (B, 1)
        tails = torch.arange(S, device=src.device)[None, :] >= lengths  # (B, S)
        if not torch.equal(tails, pads):
            raise ValueError(
                "src must be right-padded, <pad> after each sentence's last token (as "
                "course_lib.vocab.pad makes it): a row holds <pad> before or inside its "
                "sentence (left padding?). Build the batch with pad([...])"
            )


def check_target(
    tgt_in: object, src: Tensor, vocab_size: int, *, max_len: int, sos_id: int | None = None
) -> None:
    """A translator's teacher-forcing input ``(B, T)``: token ids, one target per source
    sentence, at most ``max_len`` tokens (the positions decoding may use: a model trained
    on longer targets would be cut short when it translates)."""
    check_tokens(tgt_in, "tgt_in", vocab_size)
    if tgt_in.shape[0] != src.shape[0]:
        major = (
            f". Both have {src.shape[1]} columns: are they time-major, (S, B) and (T, B), "
            "the layout of nn.Transformer's default batch_first=False? course_lib is batch "
            "first, src (B, S) and tgt_in (B, T): transpose them back, src.T and tgt_in.T"
            if tgt_in.shape[1] == src.shape[1]
            else ""
        )
        raise ValueError(
            f"src has {src.shape[0]} sentences but tgt_in {tgt_in.shape[0]}: give one "
            f"target per source sentence (the same batch, in the same order){major}"
        )
    if tgt_in.shape[1] > max_len:
        raise ValueError(
            f"tgt_in has {tgt_in.shape[1]} tokens, more than max_len={max_len}, the target "
            "positions this model decodes: filter long pairs (Chapter 5 keeps pairs under "
            "10 words) or build the model with a larger max_len"
        )
    if sos_id is not None:
        _warn_teacher_forcing(src, tgt_in, sos_id)


def _warn_teacher_forcing(src: Tensor, tgt_in: Tensor, sos_id: int) -> None:
    """Teacher forcing feeds ``<sos> y1 ... y_{T-1}``, and a source never holds ``<sos>``:
    a target without it, or a source with it, is the wrong tensor in the wrong place."""
    target_ok = bool((tgt_in[:, 0] == sos_id).all())
    source_has_sos = bool((src[:, 0] == sos_id).any())
    if source_has_sos and not target_ok:
        warn_user(
            "src starts with <sos> and tgt_in does not: src and tgt_in look swapped. The "
            "order is model(src, tgt_in): the source sentences first, then the target that "
            "starts with <sos> (batch.src, batch.tgt_in)",
            UserWarning,
        )
    elif not target_ok:
        warn_user(
            "tgt_in does not start with <sos> in every row: teacher forcing feeds "
            "<sos> y1 ... y_{T-1} and scores y1 ... y_T. Pass batch.tgt_in, not batch.tgt_out",
            UserWarning,
        )
    elif source_has_sos:
        warn_user(
            "src starts with <sos>, which a source sentence never holds: is it a target "
            "(tgt_in)? The order is model(src, tgt_in)",
            UserWarning,
        )


def check_decoding_step(tokens: object, cache: object, cache_type: type, vocab_size: int) -> None:
    """A decoding step's inputs: token ids (their values unchecked: decoding feeds the
    model's own argmax), the cache type ``init_cache`` returns, and one batch for both."""
    check_tokens(tokens, "tokens", vocab_size, values=False)
    if not isinstance(cache, cache_type):
        raise TypeError(
            f"cache must be the {cache_type.__name__} from init_cache(), got {type(cache).__name__}"
        )
    rows = cache.src_key_padding_mask.shape[0]
    if tokens.shape[0] != rows:
        raise ValueError(
            f"tokens hold {tokens.shape[0]} sentences but the cache {rows}: decode the batch "
            "that was encoded"
        )
