"""Input checks shared by the library's modules: clear messages instead of deep stack traces.

Every message says what was wrong *and* what to do about it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import warnings
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from torch import Tensor


def shape_str(x: Tensor | tuple[int, ...] | torch.Size) -> str:
    """``"(2, 3)"`` for a tensor or a shape, as the error messages print shapes."""
    shape = x.shape if isinstance(x, Tensor) else x
    return "(" + ", ".join(str(s) for s in shape) + ")"


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


def type_name(value: object) -> str:
    """How a message names what the user passed: ``"str 'je suis'"``, ``"list of 3 tuple"``,
    ``"the class CrossEntropyLoss"`` (not an instance), ``"Trainer"``."""
    if isinstance(value, type):
        return f"the class {value.__name__} (not an instance of it)"
    name = type(value).__name__
    if isinstance(value, str):
        short = value if len(value) <= 30 else value[:27] + "..."
        return f"str {short!r}"
    if isinstance(value, (list, tuple)) and value:
        return f"{name} of {len(value)} {type(value[0]).__name__}"
    if isinstance(value, Tensor):
        return f"Tensor {shape_str(value)} {value.dtype}"
    return name


def check_type(
    value: object, name: str, expected: type | tuple[type, ...], what: str, fix: str = ""
) -> None:
    """Raise ``TypeError("name must be <what>, got <type_name(value)>. <fix>")`` unless
    ``value`` is an instance of ``expected``: the wrong kind of object, named in the user's
    words (``what``: ``"a torch.optim optimizer"``), with the likely fix."""
    if not isinstance(value, expected):
        raise TypeError(
            f"{name} must be {what}, got {type_name(value)}." + (f" {fix}" if fix else "")
        )


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


class AttentionWeights(dict):
    """The ``{"encoder": [...], "self": [...], "cross": [...]}`` attention weights a model
    returns with ``need_weights=True``: a dict whose missing key says which keys there are
    (``weights["decoder"]``: the decoder has two kinds, ``"self"`` and ``"cross"``)."""

    _MEANING = {
        "encoder": "the encoder's self-attention",
        "self": "the decoder's self-attention over the target",
        "cross": "the decoder's cross-attention to the source, the alignment",
    }

    def __missing__(self, key: object):
        there = ", ".join(
            f"{k!r} ({self._MEANING[k]})" if k in self._MEANING else repr(k) for k in self
        )
        hint = ""
        if isinstance(key, str) and "cross" in self:
            if key.lower() in ("decoder", "dec", "cross_attention", "alignment", "attention"):
                hint = (
                    "; the decoder's weights are two kinds: for the alignment of target "
                    "and source words use weights['cross'], for the decoder's look at the "
                    "target so far weights['self']"
                )
        raise KeyError(f"the attention weights have no {key!r}: the keys are {there}{hint}")


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` as a Python int, or a clear error (``torch.manual_seed(1.5)`` silently uses 1).

    Raises:
        TypeError: a float, string or bool seed.
        ValueError: a negative seed.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r} ({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"{name} must be non-negative, got {seed}")
    return int(seed)


def _check_int(value: object, name: str, least: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return int(value)


def check_positive_int(value: object, name: str) -> int:
    """``value`` as a Python int ``>= 1`` (a size, a count), or a ValueError naming it.

    ``True``, ``2.0`` and ``"2"`` are refused, NumPy integers accepted.
    """
    return _check_int(value, name, 1, "a positive integer")


def check_non_negative_int(value: object, name: str) -> int:
    """``value`` as a Python int ``>= 0`` (a position, an offset), or a ValueError naming it."""
    return _check_int(value, name, 0, "a non-negative integer")


def check_floating(**tensors: Tensor) -> None:
    """Attention needs floating-point inputs: token ids must be embedded first."""
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a tensor, got {type(t).__name__}")
        if not torch.is_floating_point(t):
            raise TypeError(
                f"{name} is {t.dtype}, but attention needs floating-point vectors: embed "
                "token ids first (nn.Embedding), or convert with .float()"
            )


def check_dropout(p: float, name: str = "dropout") -> None:
    if not 0.0 <= p < 1.0:
        raise ValueError(f"{name} is a probability in [0, 1), got {p}")


def check_width(
    x: Tensor, width: int, name: str, *, label: str = "", leading: str = "B", hint: str = ""
) -> None:
    """``x`` must be ``(B, length, width)``; with ``leading="..."``, ``(..., length, width)``.

    Args:
        x: the tensor to check.
        width: the features per step the module was built for.
        name: the argument's name, for the message.
        label: the width's name in the message (``"d_model"`` gives ``d_model=8``).
        leading: ``"B"`` (exactly one batch dimension) or ``"..."`` (any number).
        hint: what to do about it, appended to the message.
    """
    ndim_ok = x.ndim == 3 if leading == "B" else x.ndim >= 2
    if not ndim_ok or x.shape[-1] != width:
        form = f"({leading}, length, {f'{label}={width}' if label else width})"
        form = "batch-first " + form if leading == "B" else form
        raise ValueError(f"{name} must be {form}, got {shape_str(x)}{hint}")


def check_mask(
    mask: Tensor, scores_shape: torch.Size | tuple[int, ...], name: str = "mask"
) -> None:
    """Raise a clear error unless ``mask`` is boolean or float and broadcasts to the scores.

    Args:
        mask: the mask to check (True = blocked, or float, added to the scores).
        scores_shape: shape of the attention scores ``(..., T, S)``.
        name: the argument's name, for the message.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name} must be a tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} must be boolean (True = blocked) or float (added to the scores), "
            f"got {mask.dtype}; for 0/1 masks use mask.bool()"
        )
    try:
        shape = torch.broadcast_shapes(mask.shape, tuple(scores_shape))
    except RuntimeError:
        shape = None
    if shape != tuple(scores_shape):
        raise ValueError(
            f"{name} of shape {shape_str(mask)} does not fit the attention scores of shape "
            f"(..., T, S) = {tuple(scores_shape)}: it must broadcast to them, e.g. (T, S), "
            f"(B, T, S) or (B, 1, S)"
        )
    if mask.dtype != torch.bool:  # a row that blocks everything is legal here: zero weights
        check_mask_values(mask, name)
    else:
        _warn_inverted_causal(mask, name)


def _warn_inverted_causal(mask: Tensor, name: str) -> None:
    """A boolean ``(..., T, T)`` mask that is True on and below the diagonal: ``~causal_mask(T)``
    or ``torch.tril(...).bool()``, the polarity of ``F.scaled_dot_product_attention`` (True =
    may attend). In course_lib it blocks each query's own position and its past, and the
    last query sees nothing: warn (it reads the mask: once per public call)."""
    T = mask.shape[-1]
    if mask.ndim < 2 or mask.shape[-2] != T or T < 2 or mask.numel() == 0:
        return
    lower = torch.ones(T, T, dtype=torch.bool, device=mask.device).tril()
    if bool((mask == lower).all()):
        warn_user(
            f"{name} is True on and below the diagonal (~causal_mask({T}), or "
            f"torch.tril(...).bool()): in course_lib True = blocked, so it blocks each "
            f"query's own position and its past and leaves it only the future -- the last "
            f"query sees nothing. F.scaled_dot_product_attention's polarity is the opposite "
            f"(True = may attend); here pass {name}=causal_mask({T}) (that is, invert it: "
            f"~{name})."
        )


def check_attention_inputs(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    *,
    query_dim: int | None = None,
    key_dim: int | None = None,
    value_dim: int | None = None,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
) -> None:
    """Queries ``(..., T, Eq)``, keys ``(..., S, Ek)`` and values ``(..., S, Ev)`` that
    attention can combine: floating point, batch dimensions ``...`` that broadcast, one
    value per key.

    A module that projects its inputs passes the widths it was built for (``query_dim``,
    ``key_dim``, ``value_dim``); without them -- dot products of the inputs themselves --
    queries and keys must have the same width ``E``. ``attn_mask`` must fit the scores
    ``(..., T, S)``.
    """
    check_floating(query=query, key=key, value=value)
    check_dropout(dropout_p, "dropout_p")
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be (..., length, features), got {shape_str(t)}")
    if (query_dim is not None or key_dim is not None) and query.ndim != key.ndim:
        one = (
            " (one query per sequence is (B, 1, Eq): query.unsqueeze(1))"
            if query.ndim < key.ndim
            else ""
        )
        raise ValueError(
            f"query and key must be batches of the same rank, query (B, T, Eq) and key "
            f"(B, S, Ek): got query {shape_str(query)} and key {shape_str(key)}{one}"
        )
    try:
        batch = torch.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except RuntimeError as err:
        raise ValueError(
            f"query, key and value must share their batch dimensions (...): query "
            f"{shape_str(query)}, key {shape_str(key)}, value {shape_str(value)}"
        ) from err
    if query_dim is None and key_dim is None and query.shape[-1] != key.shape[-1]:
        raise ValueError(
            f"query and key must have the same width E to take dot products: query "
            f"{shape_str(query)}, key {shape_str(key)}; project them first, or use AdditiveAttention"
        )
    for t, width, name in (
        (query, query_dim, "query"),
        (key, key_dim, "key"),
        (value, value_dim, "value"),
    ):
        if width is not None:
            check_width(t, width, name, leading="...")
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key and value must have the same length S (one value per key): key "
            f"{shape_str(key)}, value {shape_str(value)}"
        )
    if attn_mask is not None:
        check_mask(attn_mask, (*batch, query.shape[-2], key.shape[-2]), "attn_mask")


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


def check_course_device(value: str, name: str = "COURSE_DEVICE") -> torch.device:
    """The device named by the environment variable ``COURSE_DEVICE``: ``cpu``, ``cuda`` or
    ``cuda:N`` (case and surrounding spaces ignored), checked against this machine.

    Apple's MPS is refused on purpose: the book's outputs and claims are verified on the CPU
    and on CUDA GPUs only, and MPS has no float64 and lacks some kernels the chapters use.

    Args:
        value: the variable's value, as set.
        name: the variable's name, for the message.

    Returns:
        The device.

    Raises:
        ValueError: a value torch cannot parse, ``mps`` or another device type, ``cuda``
            where no CUDA device is available, or ``cuda:N`` with no GPU number ``N``.
    """
    fix = f"Set {name}=cpu, {name}=cuda or {name}=cuda:N, or unset it"
    try:
        device = torch.device(value.strip().lower())
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"{name}={value!r} is not a device name. {fix}.") from err
    if device.type == "mps":
        raise ValueError(
            f"{name}={value!r} asks for Apple's GPU (MPS), which the course does not support: "
            "its outputs and claims are verified on the CPU and on CUDA GPUs only, and MPS "
            "has no float64 and lacks some kernels the chapters use. On a Mac, set "
            f"{name}=cpu or unset it: the chapters then run on the CPU, and nothing else "
            "changes."
        )
    if device.type == "cpu":
        return device
    if device.type != "cuda":
        raise ValueError(
            f"{name}={value!r} names a {device.type!r} device; the course runs on the CPU "
            f"or a CUDA GPU only. {fix}."
        )
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        built = f"built with CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU build"
        raise ValueError(
            f"{name}={value!r} asks for a CUDA GPU, but none is available here (torch "
            f"{torch.__version__}, {built}). Set {name}=cpu or unset it."
        )
    if device.index is not None and device.index >= count:
        raise ValueError(
            f"{name}={value!r} asks for GPU number {device.index}, but this machine has "
            f"{count} (cuda:0 to cuda:{count - 1}). {fix} with N < {count}."
        )
    return device


# -- checked once, at the outermost public call --------------------------------------------
#
# A layer checks its inputs in the user's words (``tgt_mask``, ``memory``), then calls
# multi-head attention, which calls ``scaled_dot_product_attention``: inside the outer call
# the inner ones skip their checks, so a message never names an argument the user did not
# pass, and a value scan (which synchronises a GPU) runs once per call, never per layer or
# per decoded token.

_NESTED: contextvars.ContextVar[bool] = contextvars.ContextVar("course_lib_nested", default=False)


def nested() -> bool:
    """True inside a library call that has checked its inputs: skip the checks."""
    return _NESTED.get()


@contextlib.contextmanager
def checked() -> Iterator[None]:
    """The block of a public call whose inputs are checked: inner calls skip their checks."""
    token = _NESTED.set(True)
    try:
        yield
    finally:
        _NESTED.reset(token)


class MaskWarning(UserWarning):
    """A mask that attention accepts but that is probably not what was meant."""


_LIBRARY = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside course_lib and
    torch: the user's line, so that Python shows it once per line of the user's code. The
    ``__init__`` that ``@dataclass`` generates for a course_lib config (its file is
    ``<string>``) counts as the library's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        frame.f_code.co_filename.startswith((_LIBRARY, _TORCH))
        or (
            frame.f_code.co_filename == "<string>"
            and str(frame.f_globals.get("__name__", "")).startswith("course_lib.")
        )
    ):
        frame, level = frame.f_back, level + 1
    return level


def warn_user(message: str, category: type[Warning] = MaskWarning) -> None:
    """A warning (a :class:`MaskWarning` unless ``category`` says otherwise) shown at the
    user's line (once per line, Python's default)."""
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def _blocked(mask: Tensor) -> Tensor:
    """Where a boolean or float mask blocks (True / -inf)."""
    return mask if mask.dtype == torch.bool else torch.isneginf(mask)


def check_mask_values(mask: Tensor, name: str, *, padding: bool = False) -> None:
    """What a mask's values cannot or probably do not mean (it reads the mask: call once per
    public call, not per decoded token).

    * A float mask of only 0s and 1s (``torch.tril(torch.ones(T, T))``, as tutorials build
      it) is *added* to the scores: it blocks nothing. Warn, saying what was probably meant.
    * A key padding mask (``padding=True``) with a row that blocks every key is a sentence
      without a single token: almost always the opposite polarity (True = real token).
      Raise, asking "polarity?".
    * An attention mask with a row that blocks every key gives that query a zero context:
      legal, but the mark of an inverted mask. Warn.
    """
    if mask.numel() == 0:
        return
    if mask.dtype != torch.bool:
        ones = mask == 1
        if bool(((mask == 0) | ones).all()) and bool(ones.any()):
            warn_user(
                f"{name} is a float mask of 0s and 1s, and a float mask is added to the "
                "scores: its 1s add 1 and block nothing. If 1 marks what may be attended to "
                f"(torch.tril(torch.ones(T, T)) for causal attention), pass {name}={name} == 0 "
                "(a boolean mask, True = blocked) -- or causal_mask(T); if 1 marks what is "
                f"blocked, pass {name}.bool()."
            )
        return
    full = _blocked(mask).all(dim=-1)  # (...): rows that block every key
    if not bool(full.any()):
        return
    row = tuple(int(i) for i in full.nonzero()[0])
    where = f"row {row[0]}" if len(row) == 1 else f"row {row}"
    if padding:
        raise ValueError(
            f"{name} blocks every key of {where} (all True), a sentence without a single "
            f"token: in course_lib True = padding (blocked). Polarity? If your mask is True "
            f"at the real tokens, pass ~{name}; padding_mask(tokens, pad_id=PAD) builds it "
            "from the token ids. An empty sentence has nothing to attend to: drop it."
        )
    warn_user(
        f"{name} blocks every key of {where}: that query gets all-zero weights and a zero "
        f"context. Polarity? In course_lib True = blocked; if your mask is True where "
        f"attention is allowed (torch.tril(...).bool(), or F.scaled_dot_product_attention's "
        f"convention), pass ~{name}."
    )


def _mask_dtype(mask: object, name: str, form: str) -> None:
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{name} must be a tensor {form}, got {type_name(mask)}; build it with "
            "torch.tensor(...) or the helpers of course_lib.masking"
        )
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name} is {mask.dtype}, but a mask is boolean (True = blocked) or float (added "
            f"to the scores). For a 0/1 mask where 1 marks what is blocked use {name}.bool(); "
            f"where 1 marks what may be attended to, use {name} == 0."
        )


def check_key_padding_mask(
    mask: object, name: str, batch: int, length: int, *, values: bool = True
) -> None:
    """A key padding mask ``(B, S)``: boolean (True = padding) or float (added).

    Args:
        mask: what the user passed (``None`` passes).
        name: its argument name (``src_key_padding_mask``).
        batch: ``B``, the sequences of the batch.
        length: ``S``, the keys of each sequence.
        values: also check the values (:func:`check_mask_values`); False where the check
            would run once per decoded token.
    """
    if mask is None:
        return
    form = f"(B, S) = ({batch}, {length})"
    if isinstance(mask, Tensor) and mask.ndim == 1 and mask.shape[0] == batch:
        raise ValueError(
            f"{name} must be {form}, got {shape_str(mask)}: it looks like one length per "
            f"sequence; build the mask with padding_mask(lengths, total_length={length})"
        )
    _mask_dtype(mask, name, form)
    if tuple(mask.shape) != (batch, length):
        hint = ""
        if tuple(mask.shape) == (length, batch):  # two causes fit: say both, pick neither
            hint = (
                ": the expected shape reversed -- a mask built (S, B), or queries and keys "
                "given sequence-first (L, B, D) where (B, L, D) is expected"
            )
        elif mask.ndim == 2 and mask.shape[1] == length and mask.shape[0] != batch:
            hint = f": one row per sequence of the batch, and the batch has {batch}"
        elif mask.ndim == 2 and mask.shape[0] == batch:
            hint = f": one column per key, and there are {length} keys"
        raise ValueError(f"{name} must be {form}, got {shape_str(mask)}{hint}")
    if values:
        check_mask_values(mask, name, padding=True)


def _fits(shape: tuple[int, ...], pattern: Sequence[int | tuple[int, ...]]) -> bool:
    """``shape`` matches ``pattern``, whose entries are sizes or tuples of allowed sizes."""
    return len(shape) == len(pattern) and all(
        size in (want if isinstance(want, tuple) else (want,))
        for size, want in zip(shape, pattern, strict=True)
    )


def check_attn_mask(
    mask: object,
    name: str,
    shapes: Sequence[Sequence[int | tuple[int, ...]]],
    forms: str,
    *,
    values: bool = True,
) -> None:
    """An attention mask: boolean (True = blocked) or float (added to the scores) of one of
    ``shapes`` (each a pattern whose entries are sizes, or tuples of allowed sizes such as
    ``(B, 1)`` for a dimension that broadcasts), which ``forms`` names for the message, e.g.
    ``"(T, S) = (4, 4) or (B * num_heads, T, S) = (6, 4, 4)"``."""
    if mask is None:
        return
    _mask_dtype(mask, name, forms)
    if not any(_fits(tuple(mask.shape), pattern) for pattern in shapes):
        hint = ""
        T, S = shapes[0][-2:]
        if mask.ndim >= 2 and tuple(mask.shape[-2:]) == (S, T) and T != S:
            hint = f": it looks transposed (queries are rows, keys columns), use {name}.mT"
        elif mask.ndim == 3 and mask.shape[0] == 1 and tuple(mask.shape[1:]) == (T, S):
            lecture = (
                mask.dtype == torch.bool
                and T == S
                and torch.equal(mask[0].cpu(), torch.ones(T, T, dtype=torch.bool).tril())
            )
            hint = (
                f": it looks like the lecture's subsequent_mask({T}), (1, T, T) with True = "
                f"may look, the opposite polarity of course_lib's masks (True = blocked). "
                f"Pass causal_mask({T}) instead (the same as ~{name}[0])"
                if lecture
                else f": drop its leading axis of 1, {name}[0]"
            )
        raise ValueError(f"{name} must be {forms}, got {shape_str(mask)}{hint}")
    if values:
        check_mask_values(mask, name)
