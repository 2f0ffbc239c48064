"""The tables of other libraries' names, one place for the teaching modules.

Students copy keywords and attributes from PyTorch, Hugging Face, D2L or the lecture's own
classes (``is_causal=True``, ``nhead=``, ``model.alphas``); :mod:`course_lib._foreign_names`
answers those in the course's words. The teaching modules keep their code free of those
tables: each ends with one line, ``explain_names(__name__)``, which applies the module's
table below to its functions, methods and classes.

A table maps the qualified name of what it explains (``"masked_softmax"``,
``"Attention.forward"``, ``"EncoderDecoder"``) to the decorator it gets -- exactly the one
that would otherwise sit on top of it: :func:`~course_lib._foreign_names.explains_bad_calls`
with hints for a function's or method's keywords,
:func:`~course_lib._foreign_names.explains_class` (bare, or with hints for attributes) for a
class, :func:`~course_lib._foreign_names.explain_config` for a dataclass config. See
:func:`~course_lib._foreign_names.apply_name_tables` for the order they are applied in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from course_lib._foreign_names import (
    apply_name_tables,
    explain_config,
    explains_bad_calls,
    explains_class,
)

__all__ = ["TABLES", "explain_names"]

#: Hints that several tables give, in one place.
_ADDITIVE_WEIGHTS_RETURNED = "course_lib's AdditiveAttention returns its weights instead of storing them: context, weights = additive(queries, keys, values)"
_ATTENTION_WEIGHTS_RETURNED = "course_lib's Attention returns its weights instead of storing them: context, weights = attention(query, keys)"
_D2L_ADDITIVE_SIZES = "course_lib names D2L's sizes by what they are, queries first: AdditiveAttention(query_dim=query_size, key_dim=key_size, attn_dim=num_hiddens)"
_DECODE_WITH_FUNCTIONS = "course_lib decodes with the functions of course_lib.decoding, not a method: greedy_decode(model, src, max_new_tokens=10), beam_search(model, src, beam_size=4), or translate(model, sentences, src_vocab, tgt_vocab) for sentences"
_D_FF = "course_lib calls it d_ff"
_GRU_SIZES = "course_lib's Encoder calls nn.GRU's input_size n_features= and its hidden_size hidden_dim=: Encoder(n_features=..., hidden_dim=...)"
_IS_CAUSAL = "course_lib writes attn_mask=causal_mask(T) (True = blocked)"
_LAST_AXIS = "masked_softmax always normalises over the last axis (the keys, S): to normalise over another axis, move it last first (scores.transpose(...)), then back"
_MASK = "course_lib names a mask by what it blocks: key_padding_mask= for padded keys (B, S), attn_mask= for a (T, S) pattern such as causal_mask(T) (True = blocked)"
_MAX_NEW_TOKENS = "course_lib calls it max_new_tokens="
_MERGE_KEY_PADDING = (
    "merge_masks calls it key_padding_mask=: merge_masks(attn_mask, key_padding_mask=padding)"
)
_NEED_WEIGHTS_LOGITS = (
    "course_lib says need_weights=True: logits, weights = model(src, tgt_in, need_weights=True)"
)
_NUM_HEADS = "course_lib calls it num_heads"
_ONE_CONFIG = "SelfAttentionEncoderDecoder is built from one SelfAttentionConfig: SelfAttentionEncoderDecoder(SelfAttentionConfig(target_len=2, ...)), not from the lecture model's (encoder, decoder, input_len, target_len)"
_PADDING_MASK_POSITIONAL = "padding_mask takes the lengths (or the token ids) as its first argument, x, positionally: padding_mask(lengths, total_length=S) or padding_mask(tokens, pad_id=PAD)"
_SOURCE_LENGTH_FROM_SOURCE = (
    "the model reads the source length from the source; only target_len= is set"
)
_TOTAL_LENGTH = "course_lib calls it total_length= (pad_packed_sequence's name): padding_mask(lengths, total_length=S)"

#: nn.TransformerEncoderLayer's (and nn.Transformer's) names, in the course's words.
_PYTORCH_LAYER_NAMES = {
    "norm_first": "course_lib writes add_norm='pre' (norm_first=True) or add_norm='post' (the default)",
    "nhead": _NUM_HEADS,
    "dim_feedforward": _D_FF,
    "batch_first": "course_lib's layers are always batch-first: inputs are (B, T, D), so leave batch_first out",
    "activation": "course_lib's layers have one feed-forward block, FeedForward (Linear, ReLU, Linear): there is no activation switch (a SwiGLU block is DecoderOnlyConfig(feed_forward='swiglu')'s)",
}

#: module name -> qualified name -> the decorator it gets.
TABLES: dict[str, dict[str, Callable]] = {
    "course_lib.attention": {
        "scaled_dot_product_attention": explains_bad_calls(
            is_causal=_IS_CAUSAL,
            mask=_MASK,
        ),
        "AdditiveAttention": explains_class(
            alphas=_ADDITIVE_WEIGHTS_RETURNED,
            attention_weights=_ADDITIVE_WEIGHTS_RETURNED,
        ),
        "AdditiveAttention.__init__": explains_bad_calls(
            key_size=_D2L_ADDITIVE_SIZES,
            query_size=_D2L_ADDITIVE_SIZES,
            num_hiddens=_D2L_ADDITIVE_SIZES,
            dropout="AdditiveAttention has no dropout on its weights (D2L's has one): leave dropout out",
        ),
        "AdditiveAttention.forward": explains_bad_calls(
            valid_lens="course_lib takes a key padding mask (True = blocked) instead of D2L's lengths: additive(queries, keys, values, key_padding_mask=padding_mask(valid_lens, total_length=keys.shape[1]))",
            is_causal=_IS_CAUSAL,
            mask=_MASK,
        ),
        "Attention": explains_class(
            alphas=_ATTENTION_WEIGHTS_RETURNED,
            attention_weights=_ATTENTION_WEIGHTS_RETURNED,
            init_keys=(
                "course_lib's Attention keeps no keys between calls: pass them as an argument of "
                "each call, attention(query, keys) or attention(query, keys, values)"
            ),
        ),
        "Attention.__init__": explains_bad_calls(
            hidden_dim="course_lib's Attention calls the lecture's hidden_dim proj_dim: Attention(proj_dim=...), with input_dim= for inputs of another width"
        ),
        "Attention.forward": explains_bad_calls(
            is_causal=_IS_CAUSAL,
            mask=_MASK,
            valid_lens="course_lib takes a key padding mask (True = blocked) instead of D2L's lengths: attention(query, keys, key_padding_mask=padding_mask(valid_lens, total_length=keys.shape[1]))",
        ),
    },
    "course_lib.masking": {
        "masked_softmax": explains_bad_calls(
            dim=_LAST_AXIS,
            axis=_LAST_AXIS,
        ),
        "padding_mask": explains_bad_calls(
            lengths=_PADDING_MASK_POSITIONAL,
            valid_lens=_PADDING_MASK_POSITIONAL,
            tokens=_PADDING_MASK_POSITIONAL,
            max_len=_TOTAL_LENGTH,
            maxlen=_TOTAL_LENGTH,
        ),
        "causal_mask": explains_bad_calls(),
        "sliding_window_mask": explains_bad_calls(),
        "merge_masks": explains_bad_calls(
            padding_mask=_MERGE_KEY_PADDING,
            src_key_padding_mask=_MERGE_KEY_PADDING,
        ),
    },
    "course_lib.multihead": {
        "KeyValue": explains_class,
        "MultiHeadAttention": explains_class(
            in_proj_weight="course_lib keeps one projection per role, q_proj, k_proj and v_proj (nn.Linear each); torch.cat([m.q_proj.weight, m.k_proj.weight, m.v_proj.weight]) is nn.MultiheadAttention's in_proj_weight",
            in_proj_bias="course_lib keeps one projection per role, q_proj, k_proj and v_proj (nn.Linear each); torch.cat([m.q_proj.bias, m.k_proj.bias, m.v_proj.bias]) is nn.MultiheadAttention's in_proj_bias",
            embed_dim="course_lib calls the model width d_model: m.d_model",
            batch_first="course_lib is always batch-first: query (B, T, D)",
        ),
        "MultiHeadAttention.__init__": explains_bad_calls(
            batch_first="course_lib's attention is always batch-first: inputs are (B, T, D), so leave batch_first out",
            embed_dim="course_lib calls the width d_model: MultiHeadAttention(d_model, num_heads)",
            nhead=_NUM_HEADS,
        ),
        "MultiHeadAttention.forward": explains_bad_calls(
            is_causal=_IS_CAUSAL,
            mask=_MASK,
        ),
    },
    "course_lib.transformer": {
        "FeedForward": explains_class,
        "_Layer.__init__": explains_bad_calls(
            **_PYTORCH_LAYER_NAMES,
        ),
        "EncoderLayer": explains_class,
        "EncoderLayer.forward": explains_bad_calls(
            positional="masks are keyword-only: layer(x, src_mask=mask) or layer(x, src_key_padding_mask=padding)",
            is_causal="course_lib's layers take a mask, not a flag: layer(x, src_mask=causal_mask(T)) (True = blocked)",
        ),
        "DecoderLayer": explains_class,
        "DecoderLayer.forward": explains_bad_calls(
            positional="masks are keyword-only: layer(x, memory, tgt_mask=causal_mask(T), memory_key_padding_mask=padding)",
            tgt_is_causal="course_lib's layers take a mask, not a flag: layer(x, memory, tgt_mask=causal_mask(T)) (True = blocked)",
        ),
        "_Stack.__init__": explains_bad_calls(
            **_PYTORCH_LAYER_NAMES,
            missing="it builds its own layers from these sizes; it takes no EncoderLayer or DecoderLayer, unlike nn.TransformerEncoder(encoder_layer, num_layers)",
        ),
        "TransformerEncoder": explains_class,
        "TransformerEncoder.forward": explains_bad_calls(
            positional="masks are keyword-only: encoder(x, src_mask=mask) or encoder(x, src_key_padding_mask=padding)",
            is_causal="course_lib's stacks take a mask, not a flag: encoder(x, mask=causal_mask(S)) (True = blocked)",
        ),
        "DecoderCache": explains_class,
        "TransformerDecoder": explains_class,
        "TransformerDecoder.forward": explains_bad_calls(
            positional="masks are keyword-only: decoder(x, memory, tgt_mask=causal_mask(T), memory_key_padding_mask=padding)",
            tgt_is_causal="course_lib's stacks take a mask, not a flag: decoder(x, memory, tgt_mask=causal_mask(T)) (True = blocked)",
        ),
    },
    "course_lib.seq2seq": {
        "Seq2SeqConfig": explain_config(input_len=_SOURCE_LENGTH_FROM_SOURCE),
        "Encoder": explains_class,
        "Encoder.__init__": explains_bad_calls(
            input_size=_GRU_SIZES,
            hidden_size=_GRU_SIZES,
            batch_first="course_lib's Encoder is always batch-first: source (B, S, F), so leave batch_first out",
        ),
        "DecoderStep": explains_class(
            init_hidden=(
                "course_lib's decoders keep no state: pass the hidden state to each step, "
                "decoder(x, hidden) with states, hidden = encoder(source), and keep the hidden "
                "state the step returns"
            ),
            init_keys=(
                "course_lib's decoders keep no keys: pass the encoder's states to each step, "
                "decoder(x, hidden, memory)"
            ),
        ),
        "Decoder": explains_class,
        "EncoderDecoder": explains_class(
            alphas=(
                "course_lib's models return their attention weights instead of keeping them: "
                "predictions, weights = model(source, need_weights=True)"
            ),
            attention_weights=(
                "course_lib's models return their attention weights instead of keeping them: "
                "predictions, weights = model(source, need_weights=True)"
            ),
        ),
        "EncoderDecoder.__init__": explains_bad_calls(
            input_len="the library's EncoderDecoder reads the source length from the source itself: EncoderDecoder(encoder, decoder, target_len=...)",
            missing="to build one from a Seq2SeqConfig, use EncoderDecoder.from_config(config)",
        ),
        "EncoderDecoder.forward": explains_bad_calls(
            teacher_forcing_ratio="course_lib sets teacher forcing on the model, not per call: EncoderDecoder(encoder, decoder, target_len, teacher_forcing_prob=0.5), or model.teacher_forcing_prob = 0.5; it applies in training mode when target is given",
            output_attentions="course_lib says need_weights=True: predictions, weights = model(source, need_weights=True)",
        ),
    },
    "course_lib.seq2seq_attention": {
        "AttentionDecoder": explains_class,
        "BahdanauDecoder": explains_class,
    },
    "course_lib.positional": {
        "sinusoidal_encoding": explains_bad_calls(),
        "PositionalEncoding": explains_class,
        "PositionalEncoding.__init__": explains_bad_calls(
            dropout="course_lib's PositionalEncoding(max_len, d_model) adds no dropout, unlike the PyTorch tutorial's (d_model, dropout, max_len): follow it with nn.Dropout(p) if you want one"
        ),
        "PositionalEncoding.forward": explains_bad_calls(),
    },
    "course_lib.rotary": {
        "rotary_angles": explains_bad_calls(),
        "apply_rotary": explains_bad_calls(),
    },
    "course_lib.modern_block": {
        "RMSNorm": explains_class,
        "SwiGLU": explains_class,
        "SwiGLU.__init__": explains_bad_calls(
            bias="SwiGLU has no bias: its three projections (gate, up, down) are bias-free, as in LLaMA, so leave bias out"
        ),
    },
    "course_lib.decoder_only": {
        "DecoderOnlyConfig": explain_config(
            num_encoder_layers="the decoder-only model has one stack: num_layers= (num_encoder_layers is TranslationConfig's)",
            num_decoder_layers="the decoder-only model has one stack: num_layers= (num_decoder_layers is TranslationConfig's)",
            nhead=_NUM_HEADS,
            dim_feedforward=_D_FF,
        ),
        "DecoderOnlyCache": explains_class,
        "DecoderOnlyTranslator": explains_class(generate=_DECODE_WITH_FUNCTIONS),
        "DecoderOnlyTranslator.forward": explains_bad_calls(
            output_attentions="course_lib says need_weights=True, model(src, tgt_in, need_weights=True); this model keeps no attention weights, so they come back as None"
        ),
    },
    "course_lib.translation": {
        "TranslationConfig": explain_config(
            num_layers="the encoder-decoder has two stacks: num_encoder_layers= and num_decoder_layers= (num_layers is DecoderOnlyConfig's)",
            src_vocab_size="course_lib calls it src_vocab: TranslationConfig(src_vocab=len(src_vocab), tgt_vocab=len(tgt_vocab), ...)",
            tgt_vocab_size="course_lib calls it tgt_vocab: TranslationConfig(src_vocab=len(src_vocab), tgt_vocab=len(tgt_vocab), ...)",
            nhead=_NUM_HEADS,
            dim_feedforward=_D_FF,
        ),
        "TranslationCache": explains_class,
        "TranslationTransformer": explains_class(generate=_DECODE_WITH_FUNCTIONS),
        "TranslationTransformer.encode": explains_bad_calls(
            src_key_padding_mask="the model derives the source padding mask itself from the <pad> tokens (src == PAD): call transformer.encode(src), which returns memory, src_key_padding_mask, weights",
            src_mask="the encoder attends both ways with no pattern mask; the model derives the padding mask itself from the <pad> tokens: call transformer.encode(src)",
        ),
        "TranslationTransformer.forward": explains_bad_calls(
            output_attentions=_NEED_WEIGHTS_LOGITS,
            **dict.fromkeys(
                (
                    "src_key_padding_mask",
                    "tgt_key_padding_mask",
                    "memory_key_padding_mask",
                    "tgt_mask",
                    "src_mask",
                ),
                "the model derives its masks itself: the padding masks from the <pad> tokens (PAD) "
                "of src and tgt_in, the causal mask from the target length; call model(src, tgt_in)",
            ),
        ),
        "translation_loss": explains_bad_calls(
            ignore_index="translation_loss always ignores <pad> (PAD) already: translation_loss(logits, tgt_out)"
        ),
    },
    "course_lib.decoding": {
        "greedy_decode": explains_bad_calls(max_len=_MAX_NEW_TOKENS),
        "beam_search": explains_bad_calls(max_len=_MAX_NEW_TOKENS),
        "translate": explains_bad_calls(),
    },
    "course_lib.recurrent_translation": {
        "RecurrentConfig": explain_config(
            d_model="the GRU translator has two widths: embed_dim= (the embeddings) and hidden_dim= (the GRU's state)",
            num_layers="the GRU translator has one GRU layer each side; it takes no num_layers",
        ),
        "RecurrentState": explains_class,
        "RecurrentTranslator": explains_class(generate=_DECODE_WITH_FUNCTIONS),
        "RecurrentTranslator.forward": explains_bad_calls(output_attentions=_NEED_WEIGHTS_LOGITS),
    },
    "course_lib.points_transformer": {
        "SelfAttentionConfig": explain_config(input_len=_SOURCE_LENGTH_FROM_SOURCE),
        "SelfAttentionEncoderDecoder": explains_class,
        "SelfAttentionEncoderDecoder.__init__": explains_bad_calls(
            input_len=_ONE_CONFIG,
            target_len=_ONE_CONFIG,
            positional=_ONE_CONFIG,
        ),
    },
    "course_lib.ensemble": {
        "UnrolledGRU": explains_class,
        "vmappable": explains_bad_calls(),
        "EnsembleTrainer": explains_class,
        "EnsembleTrainer.__init__": explains_bad_calls(
            max_grad_norm="course_lib calls it clip_grad_norm=: EnsembleTrainer(models, loss_fn, optimizer, clip_grad_norm=1.0)",
            lr_scheduler="course_lib calls it scheduler=, a function that builds the scheduler from an optimizer: scheduler=lambda opt: OneCycleLR(opt, ...)",
            epochs="the number of epochs goes to fit, not to the EnsembleTrainer: ensemble.fit(train_loader, val_loader, epochs=10)",
        ),
        "EnsembleTrainer.fit": explains_bad_calls(
            num_epochs="course_lib calls it epochs=",
            verbose="course_lib writes progress=False to hide the progress bar",
        ),
    },
}


def explain_names(module_name: str) -> None:
    """Apply the table of ``module_name`` to that module's objects: the last line of each
    teaching module, ``explain_names(__name__)`` (the module is complete by then, and already
    in :data:`sys.modules`)."""
    apply_name_tables(sys.modules[module_name], TABLES[module_name])
