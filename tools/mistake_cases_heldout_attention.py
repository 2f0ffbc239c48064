"""Held-out mistakes with the attention core: masks, attention, heads, rotary, blocks, positions,
Transformer layers (see ``tools/probe_heldout.py``).

Written from the chapters, ``api.md`` and the public docstrings only, with the keywords fixed
before any of them ran; none repeats a case of the development probe
(``tools/mistake_cases_*.py``) or a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``scores`` ``(2, 3, 5)``; ``q, k, v``
``(2, 3, 4)``, ``(2, 5, 4)``, ``(2, 5, 6)``; ``x`` ``(2, 5, 8)``; ``mha =
MultiHeadAttention(8, 2)``; ``lengths = torch.tensor([2, 4])``; ``batch`` (token ids).
"""

from __future__ import annotations

from mistake_cases import NON_NEGATIVE, POSITIVE, case

CASES = [
    # -- masking ------------------------------------------------------------------------------
    case(
        "masking.valid_lens_negative",
        "masked_softmax with a negative valid length (a length minus an offset gone wrong)",
        "masked_softmax(scores, valid_lens=torch.tensor([-1, 2]))",
        ["valid_lens", NON_NEGATIVE],
    ),
    case(
        "masking.valid_lens_other_batch",
        "masked_softmax with three valid lengths for a batch of two (lengths of another batch)",
        "masked_softmax(scores, valid_lens=torch.tensor([2, 3, 4]))",
        ["valid_lens", r"batch|sequences|rows|\(2,\)"],
    ),
    case(
        "masking.lengths_as_mask",
        "masked_softmax(scores, lengths): d2l's positional valid_lens passed as the mask",
        "masked_softmax(scores, lengths)",
        ["valid_lens"],
    ),
    case(
        "masking.pad_id_token_string",
        "padding_mask(tokens, pad_id='<pad>'): the pad token's string, not its id",
        "padding_mask(batch.src, pad_id='<pad>')",
        ["pad_id", "int|integer|id"],
    ),
    case(
        "masking.lengths_column",
        "padding_mask given lengths as a column (B, 1) instead of (B,)",
        "padding_mask(torch.tensor([[2], [4]]), total_length=4)",
        ["lengths", r"\(b,\)|1-d|one-dimensional|one length per"],
    ),
    case(
        "masking.window_float",
        "sliding_window_mask with a fractional window",
        "sliding_window_mask(5, 2.5)",
        ["window", "int"],
    ),
    case(
        "masking.merge_swapped",
        "merge_masks(key_padding_mask, attn_mask): the two masks in the wrong order",
        "merge_masks(padding_mask(lengths, total_length=5), causal_mask(5))",
        ["attn_mask|key_padding_mask", r"swap|order|\(b, s\)|\(t, s\)"],
        expect="warn",
    ),
    case(
        "masking.padding_mask_as_float",
        "a boolean padding mask turned into a float 0/1 mask (.float()) and added to the scores",
        "masked_softmax(scores, padding_mask(lengths, total_length=5)[:, None, :].float())",
        ["mask", "bool|boolean|-inf"],
        expect="warn",
    ),
    # -- attention ----------------------------------------------------------------------------
    case(
        "attention.attention_input_dim_missing",
        "Attention(4) (input_dim left at proj_dim) called with 2-wide inputs",
        "Attention(4)(torch.randn(2, 1, 2), torch.randn(2, 3, 2))",
        ["input_dim", "2"],
    ),
    case(
        "attention.attention_kpm_length",
        "Attention given a key_padding_mask one key longer than the keys",
        """
        Attention(2)(torch.randn(2, 1, 2), torch.randn(2, 3, 2),
                     key_padding_mask=torch.zeros(2, 4, dtype=torch.bool))
        """,
        ["key_padding_mask", "3"],
    ),
    case(
        "attention.additive_value_batch",
        "AdditiveAttention given values of another batch than the keys",
        """
        additive = AdditiveAttention(2, 2, 4)
        additive(torch.randn(2, 1, 2), torch.randn(2, 6, 2), torch.randn(3, 6, 2))
        """,
        ["value", "batch|3"],
    ),
    case(
        "attention.sdpa_numpy",
        "scaled_dot_product_attention on NumPy arrays (Chapter 2's toy data kept in NumPy)",
        """
        a = np.random.default_rng(0).normal(size=(2, 3, 4))
        scaled_dot_product_attention(a, a, a)
        """,
        ["query|tensor", "numpy|ndarray"],
    ),
    case(
        "attention.sdpa_padding_mask_as_attn_mask",
        "a (B, S) padding mask passed as attn_mask, without its query axis",
        "scaled_dot_product_attention(q, k, v, attn_mask=padding_mask(lengths, total_length=5))",
        ["attn_mask", r"\[:, ?none|\(b, 1, s\)|unsqueeze|padding|\(2, 5\)"],
    ),
    # -- multihead ----------------------------------------------------------------------------
    case(
        "multihead.args_lecture_order",
        "MultiHeadAttention(2, 8): the lecture's (n_heads, d_model) order",
        "MultiHeadAttention(2, 8)",
        ["d_model", "num_heads", "swap|order"],
    ),
    case(
        "multihead.kpm_lengths",
        "the lengths (B,) passed as key_padding_mask",
        "mha(x, x, x, key_padding_mask=lengths)",
        ["key_padding_mask", r"\(b, s\)|\(2, 5\)|padding_mask"],
    ),
    case(
        "multihead.attn_mask_4d_heads",
        "a (B, Nh, T, S) attn_mask built for 3 heads, for a 2-head module",
        "mha(x, x, x, attn_mask=torch.zeros(2, 3, 5, 5, dtype=torch.bool))",
        ["attn_mask", "head"],
    ),
    case(
        "multihead.positions_without_rotary",
        "positions= given to a module built without rotary=True (they would be ignored)",
        "mha(x, x, x, positions=torch.arange(5).expand(2, 5))",
        ["positions", "rotary"],
        expect="warn",
    ),
    case(
        "multihead.kv_heads_zero",
        "MultiHeadAttention(num_kv_heads=0)",
        "MultiHeadAttention(8, 2, num_kv_heads=0)",
        ["num_kv_heads", POSITIVE],
    ),
    case(
        "multihead.class_called_on_tensors",
        "MultiHeadAttention(x, x, x): the class called on the inputs, never instantiated",
        "MultiHeadAttention(x, x, x)",
        ["d_model", "int"],
    ),
    # -- rotary -------------------------------------------------------------------------------
    case(
        "rotary.start_and_positions",
        "apply_rotary given both start and positions",
        """
        apply_rotary(torch.randn(1, 2, 3, 4), start=2,
                     positions=torch.zeros(1, 3, dtype=torch.long))
        """,
        ["start", "positions"],
    ),
    case(
        "rotary.base_one",
        "rotary_angles(base=1): every pair turns at the same speed",
        "rotary_angles(4, 8, base=1.0)",
        ["base", "1"],
    ),
    case(
        "rotary.no_positions",
        "rotary_angles(0, 8) for an empty sequence",
        "rotary_angles(0, 8)",
        ["num_positions", POSITIVE],
    ),
    # -- modern_block -------------------------------------------------------------------------
    case(
        "modern_block.rmsnorm_eps_negative",
        "RMSNorm(eps=-1e-6): a sign slip",
        "RMSNorm(8, eps=-1e-6)",
        ["eps", NON_NEGATIVE],
    ),
    case(
        "modern_block.rmsnorm_long_input",
        "RMSNorm applied to integer token ids",
        "RMSNorm(8)(torch.ones(2, 8, dtype=torch.long))",
        ["x|input", "float"],
    ),
    case(
        "modern_block.rmsnorm_shape_tuple",
        "RMSNorm((8,)): torch.nn.RMSNorm's normalized_shape tuple",
        "RMSNorm((8,))",
        ["d_model", "int"],
    ),
    # -- positional ---------------------------------------------------------------------------
    case(
        "positional.args_swapped",
        "PositionalEncoding(d_model, max_len): the two sizes swapped",
        "PositionalEncoding(8, 100)(torch.randn(2, 5, 8))",
        ["d_model", "100"],
    ),
    case(
        "positional.channels_first",
        "PositionalEncoding given (B, D, T) features (a Conv1d layout)",
        "PositionalEncoding(10, 8)(torch.randn(2, 8, 5))",
        [r"d_model|\(b, t", "5"],
    ),
    case(
        "positional.start_at_max_len",
        "a decoding step at start=max_len, one past the table",
        "PositionalEncoding(10, 8)(torch.randn(2, 1, 8), start=10)",
        ["max_len|10", "start|position"],
    ),
    # -- transformer --------------------------------------------------------------------------
    case(
        "transformer.tgt_mask_source_length",
        "TransformerDecoder given a causal mask of the source's length as tgt_mask",
        """
        TransformerDecoder(8, 2, 16, 1)(torch.randn(2, 3, 8), torch.randn(2, 5, 8),
                                        tgt_mask=causal_mask(5))
        """,
        ["tgt_mask", "3"],
    ),
    case(
        "transformer.memory_kpm_target_length",
        "memory_key_padding_mask built from the target (B, T), not the memory (B, S)",
        """
        TransformerDecoder(8, 2, 16, 1)(
            torch.randn(2, 3, 8), torch.randn(2, 5, 8),
            memory_key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
        """,
        ["memory_key_padding_mask", "5"],
    ),
    case(
        "transformer.kpm_transposed",
        "TransformerEncoder given a (S, B) src_key_padding_mask (time-major code)",
        "TransformerEncoder(8, 2, 16, 1)(x, src_key_padding_mask=torch.zeros(5, 2, dtype=torch.bool))",
        ["src_key_padding_mask", r"\(2, 5\)|\(b, s\)"],
    ),
    case(
        "transformer.add_norm_true",
        "EncoderLayer(add_norm=True): a flag where 'post' or 'pre' is expected",
        "EncoderLayer(8, 2, 16, add_norm=True)",
        ["add_norm", "post|pre"],
    ),
    case(
        "transformer.layer_output_tuple",
        "an EncoderLayer's (output, weights) pair fed to the next layer",
        """
        layer = EncoderLayer(8, 2, 16)
        layer(layer(x))
        """,
        ["tuple|pair", "tensor"],
    ),
    case(
        "transformer.init_cache_token_ids",
        "TransformerDecoder.init_cache given the source token ids, not the encoder's memory",
        "TransformerDecoder(8, 2, 16, 1).init_cache(batch.src)",
        ["memory", r"float|embed|\(b, s, d\)"],
    ),
    case(
        "transformer.num_layers_float",
        "TransformerEncoder with num_layers a float (depth / 2)",
        "TransformerEncoder(8, 2, 16, 4 / 2)",
        ["num_layers", "int"],
    ),
]
