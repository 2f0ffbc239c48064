"""``SelfAttentionEncoderDecoder``: a Transformer encoder-decoder for sequences of points (the
squares, GPS trajectories).

Batch first. Letters: ``B`` batch, ``S`` source length, ``T`` target length, ``F`` features
per point, ``D`` model width. Masks: True = blocked.

Points are embedded by a linear layer (``src_embed``, ``tgt_embed``: ``F -> D``),
position-encoded (scaled by ``sqrt(D)`` first, see
:class:`~course_lib.positional.PositionalEncoding`), passed through the stacks of
:mod:`course_lib.transformer`, and mapped back to points by the linear layer ``output``
(``D -> F``). The names are those of :mod:`course_lib.translation`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib._name_tables import explain_names
from course_lib._transformer_checks import (
    check_points,
    check_points_config,
    check_points_decode,
    check_points_model,
    check_points_target,
)
from course_lib._validate import AttentionWeights
from course_lib.masking import causal_mask
from course_lib.positional import PositionalEncoding
from course_lib.transformer import TransformerDecoder, TransformerEncoder

__all__ = ["SelfAttentionConfig", "SelfAttentionEncoderDecoder"]


@dataclass(frozen=True)
class SelfAttentionConfig:
    """Sizes of the self-attention encoder-decoder (default sizes: the lecture's squares
    model; Add & Norm on, ``add_norm="post"``).

    ``add_norm`` defaults to ``"post"``: every sublayer is wrapped in a residual connection
    and a LayerNorm, as in the 2017 Transformer, so the default model is one that trains.
    The lecture's first teaching model has neither; ask for it by name with
    ``add_norm=None`` (Chapters 3 and 4 do, where they rebuild the lecture). Without Add &
    Norm a deeper stack hardly trains, and on the GPS data of Chapter 6 the model
    collapses to one predicted point for all future steps.
    """

    n_features: int = 2
    d_model: int = 6
    num_heads: int = 3
    d_ff: int = 10
    target_len: int = 2
    num_layers: int = 1
    positional: bool = True
    max_len: int = 100
    add_norm: str | None = "post"  # "pre", or None: the lecture's model without Add & Norm
    dropout: float = 0.0
    start: str = "last"  # first decoder input: "last" source point, or "origin" (0, ..., 0)

    def __post_init__(self) -> None:  # a string here would read as True: the table, silently
        check_points_config(self)


class SelfAttentionEncoderDecoder(nn.Module):
    """Encoder-decoder made of attention layers only, for sequences of points.

    * **Training** (``model.train()`` and a ``target``): the decoder reads the *shifted*
      target -- the start point followed by every target point but the last -- in one
      parallel pass, with a causal mask so step ``t`` cannot see steps after ``t``.
    * **Evaluation** (or no target): it generates one point at a time, feeding each
      prediction back and re-running the decoder on the growing input under a growing mask.

    Shape:
        source ``(B, S, F)``, target ``(B, T, F)`` -> predictions ``(B, T, F)``; with
        ``need_weights=True`` also a dict of per-layer weight lists, keyed as in
        :class:`~course_lib.translation.TranslationTransformer`: ``"encoder"``
        ``(B, Nh, S, S)``, ``"self"`` (the decoder's self-attention) ``(B, Nh, T, T)`` and
        ``"cross"`` ``(B, Nh, T, S)``.

    Raises:
        TypeError: ``config`` that is not a :class:`SelfAttentionConfig` instance; a
            ``source`` or ``target`` that is not a float tensor (NumPy arrays: convert them).
        ValueError: sizes that are not positive integers, a ``target_len`` beyond
            ``max_len``; a ``source`` or ``target`` that is not ``(B, length, n_features)``,
            a source longer than ``max_len``, a target of another length than
            ``target_len`` (training).
    """

    def __init__(self, config: SelfAttentionConfig = SelfAttentionConfig()) -> None:
        super().__init__()
        check_points_model(config, SelfAttentionConfig)
        c = self.config = config
        stack_args = (c.d_model, c.num_heads, c.d_ff, c.num_layers, c.dropout, c.add_norm)
        self.src_embed = nn.Linear(c.n_features, c.d_model)
        self.tgt_embed = nn.Linear(c.n_features, c.d_model)
        self.positional = PositionalEncoding(c.max_len, c.d_model) if c.positional else None
        self.encoder = TransformerEncoder(*stack_args)
        self.decoder = TransformerDecoder(*stack_args)
        self.output = nn.Linear(c.d_model, c.n_features)

    def _embed(self, x: Tensor, embed: nn.Linear) -> Tensor:
        h = embed(x)  # (B, L, F) -> (B, L, D)
        return self.positional(h) if self.positional is not None else h

    def encode(
        self,
        source: Tensor,
        *,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, list | None]:
        """The encoder's output ``(B, S, D)`` and its weights per layer."""
        check_points(self.config, source, "source")
        return self.encoder(
            self._embed(source, self.src_embed),
            src_key_padding_mask=src_key_padding_mask,
            need_weights=need_weights,
        )

    def decode(
        self,
        inputs: Tensor,
        memory: Tensor,
        *,
        memory_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[Tensor, dict | None]:
        """Predicted points ``(B, T, F)`` for decoder inputs ``(B, T, F)``, under a causal mask."""
        check_points_decode(self.config, inputs, memory)
        h = self._embed(inputs, self.tgt_embed)
        mask = causal_mask(inputs.shape[1], device=inputs.device)  # (T, T), True above the diagonal
        h, weights = self.decoder(
            h,
            memory,
            tgt_mask=mask,
            memory_key_padding_mask=memory_key_padding_mask,
            need_weights=need_weights,
        )
        return self.output(h), weights  # (B, T, D) -> (B, T, F)

    def _start(self, source: Tensor) -> Tensor:
        """The first decoder input ``(B, 1, F)``: the last source point, or the origin."""
        if self.config.start == "last":
            return source[:, -1:]
        return torch.zeros_like(source[:, :1])

    def forward(
        self,
        source: Tensor,
        target: Tensor | None = None,
        *,
        src_key_padding_mask: Tensor | None = None,
        need_weights: bool = False,
    ):
        c = self.config
        memory, enc_weights = self.encode(
            source, src_key_padding_mask=src_key_padding_mask, need_weights=need_weights
        )
        kwargs = {"memory_key_padding_mask": src_key_padding_mask, "need_weights": need_weights}
        if self.training and target is not None:
            check_points_target(c, target, source)
            shifted = torch.cat([self._start(source), target[:, :-1]], dim=1)  # (B, T, F)
            predictions, dec_weights = self.decode(shifted, memory, **kwargs)
        else:
            inputs = self._start(source)  # (B, 1, F)
            for _ in range(c.target_len):
                out, dec_weights = self.decode(inputs, memory, **kwargs)
                inputs = torch.cat([inputs, out[:, -1:]], dim=1)  # append the newest point
            predictions = inputs[:, 1:]  # drop the start point: (B, T, F)
        if not need_weights:
            return predictions
        return predictions, AttentionWeights(encoder=enc_weights, **dec_weights)


# Calls and attributes in other libraries' words: their tables are in _name_tables.py.
explain_names(__name__)
