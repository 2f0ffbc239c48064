"""Conventions every model of the library keeps (notation.md, "Names in code").

A model's ``forward`` returns its prediction; with ``need_weights=True`` it returns the pair
``(prediction, weights)`` -- ``weights`` may be ``None`` where the model has no attention.
(Attention modules, like ``nn.MultiheadAttention``, always return a pair.) Its last layer is
called ``output``.
"""

import pytest
import torch
from torch import Tensor

from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.recurrent_translation import RecurrentConfig, RecurrentTranslator
from course_lib.seq2seq import Encoder, EncoderDecoder, Seq2SeqConfig
from course_lib.seq2seq_attention import AttentionDecoder
from course_lib.translation import TranslationConfig, TranslationTransformer
from course_lib.vocab import SOS


def squares():
    return (torch.randn(3, 4, 2),)


def tokens():
    return torch.randint(4, 12, (3, 5)), torch.full((3, 2), SOS)


MODELS = {
    "EncoderDecoder": (lambda: EncoderDecoder.from_config(Seq2SeqConfig()), squares),
    "EncoderDecoder + attention": (
        lambda: EncoderDecoder(Encoder(2, 4), AttentionDecoder(2, 4), target_len=2),
        squares,
    ),
    "SelfAttentionEncoderDecoder": (
        lambda: SelfAttentionEncoderDecoder(SelfAttentionConfig()),
        squares,
    ),
    "TranslationTransformer": (
        lambda: TranslationTransformer(TranslationConfig(12, 12, d_model=8, num_heads=2)),
        tokens,
    ),
    "DecoderOnlyTranslator": (
        lambda: DecoderOnlyTranslator(DecoderOnlyConfig(12, 12, d_model=8, num_heads=2)),
        tokens,
    ),
    "RecurrentTranslator": (
        lambda: RecurrentTranslator(RecurrentConfig(12, 12, embed_dim=8, hidden_dim=8)),
        tokens,
    ),
}


@pytest.mark.parametrize("name", MODELS)
def test_a_model_returns_its_prediction_or_the_pair_with_weights(name):
    build, inputs = MODELS[name]
    torch.manual_seed(0)
    model = build().eval()
    args = inputs()
    with torch.no_grad():
        plain = model(*args)
        pair = model(*args, need_weights=True)
    assert isinstance(plain, Tensor)
    assert isinstance(pair, tuple) and len(pair) == 2 and torch.equal(pair[0], plain)
    assert pair[1] is None or isinstance(pair[1], (Tensor, dict))
    assert isinstance(
        model.output if hasattr(model, "output") else model.decoder.output, torch.nn.Linear
    )
