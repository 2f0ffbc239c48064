"""Mistakes with the attention core: masks, attention, heads, positions, Transformer layers.

Ready-made (see ``mistake_cases.namespace``): ``scores`` ``(2, 3, 5)``; ``q, k, v``
``(2, 3, 4)``, ``(2, 5, 4)``, ``(2, 5, 6)``; ``x`` ``(2, 5, 8)``; ``mha =
MultiHeadAttention(8, 2)``; ``lengths = torch.tensor([2, 4])``; ``batch`` (token ids).
"""

from __future__ import annotations

from mistake_cases import NON_NEGATIVE, POSITIVE, PROBABILITY, case

CASES = [
    # -- masking ------------------------------------------------------------------------------
    case(
        "masking.lengths_float",
        "padding_mask from lengths computed as a mean (floats)",
        "padding_mask(torch.tensor([2.0, 3.0]), total_length=4)",
        ["lengths", "integer|int|long"],
    ),
    case(
        "masking.tokens_without_pad_id",
        "padding_mask given a (B, S) batch of token ids but no pad_id",
        "padding_mask(batch.src)",
        ["pad_id"],
    ),
    case(
        "masking.total_length_too_short",
        "padding_mask with total_length shorter than the longest sequence",
        "padding_mask(torch.tensor([2, 5]), total_length=4)",
        ["total_length", "5|longest|exceed|lie"],
    ),
    case(
        "masking.tokens_1d",
        "padding_mask(tokens, pad_id=0) for one sentence without its batch dimension",
        "padding_mask(torch.tensor([5, 6, 0]), pad_id=0)",
        ["tokens", r"\(b, s\)|batch"],
    ),
    case(
        "masking.causal_tensor",
        "causal_mask given the input tensor instead of its length",
        "causal_mask(x)",
        ["size", "int"],
    ),
    case(
        "masking.causal_shape",
        "causal_mask given x.shape instead of x.shape[1]",
        "causal_mask(x.shape)",
        ["size", "int"],
    ),
    case(
        "masking.causal_zero",
        "causal_mask(0) for an empty target",
        "causal_mask(0)",
        ["size", POSITIVE],
    ),
    case(
        "masking.window_zero",
        "sliding_window_mask with a window of 0",
        "sliding_window_mask(5, 0)",
        ["window", POSITIVE],
    ),
    case(
        "masking.mask_and_lengths",
        "masked_softmax given both a mask and valid_lens",
        "masked_softmax(scores, torch.zeros(2, 3, 5, dtype=torch.bool), valid_lens=lengths)",
        ["mask", "valid_lens"],
    ),
    case(
        "masking.valid_lens_too_long",
        "masked_softmax with a valid length longer than the keys",
        "masked_softmax(scores, valid_lens=torch.tensor([6, 2]))",
        ["valid_lens", "5"],
    ),
    case(
        "masking.mask_transposed",
        "masked_softmax given an (S, T) mask for (B, T, S) scores",
        "masked_softmax(scores, torch.zeros(5, 3, dtype=torch.bool))",
        ["mask", r"\(5, 3\)", r"\(2, 3, 5\)|t, s"],
    ),
    case(
        "masking.scores_list",
        "masked_softmax given a nested list of scores",
        "masked_softmax([[1.0, 2.0, 3.0]])",
        ["scores", "tensor"],
    ),
    case(
        "masking.scores_long",
        "masked_softmax given integer scores (torch.tensor of ints)",
        "masked_softmax(torch.tensor([[1, 2, 3]]))",
        ["scores", "float"],
    ),
    case(
        "masking.kpm_already_unsqueezed",
        "merge_masks given a key padding mask already shaped (B, 1, S)",
        "merge_masks(causal_mask(4), padding_mask(lengths, total_length=4)[:, None, :])",
        ["key_padding_mask", r"\(b, s\)"],
    ),
    # -- attention ----------------------------------------------------------------------------
    case(
        "attention.token_ids",
        "scaled_dot_product_attention on token ids, not embeddings",
        "scaled_dot_product_attention(batch.src[..., None], batch.src[..., None], "
        "batch.src[..., None])",
        ["query", "float|embed"],
    ),
    case(
        "attention.value_length",
        "values of another length than the keys",
        "scaled_dot_product_attention(q, k, v[:, :4])",
        ["key", "value", "length"],
    ),
    case(
        "attention.width_mismatch",
        "queries and keys of different widths in dot-product attention",
        "scaled_dot_product_attention(q, k[..., :3], v)",
        ["query", "key", "width"],
    ),
    case(
        "attention.dropout_percent",
        "dropout_p given as a percentage",
        "scaled_dot_product_attention(q, k, v, dropout_p=10)",
        ["dropout_p", PROBABILITY],
    ),
    case(
        "attention.batch_mismatch",
        "keys of another batch than the queries",
        "scaled_dot_product_attention(q, torch.randn(3, 5, 4), torch.randn(3, 5, 6))",
        ["batch"],
    ),
    case(
        "attention.mask_positional",
        "the mask passed positionally, as the fourth argument",
        "scaled_dot_product_attention(q, k, v, torch.zeros(3, 5, dtype=torch.bool))",
        ["attn_mask"],
    ),
    case(
        "attention.additive_query_width",
        "AdditiveAttention(query_dim=20, key_dim=2) called with 2-wide queries",
        """
        additive = AdditiveAttention(query_dim=20, key_dim=2, attn_dim=8)
        additive(torch.randn(2, 1, 2), torch.randn(2, 6, 2), torch.randn(2, 6, 2))
        """,
        ["query", "20"],
    ),
    case(
        "attention.additive_kpm_long",
        "AdditiveAttention given a 0/1 long key_padding_mask (lengths compared, then .long())",
        """
        additive = AdditiveAttention(2, 2, 4)
        kpm = (torch.arange(6) >= lengths[:, None]).long()
        additive(torch.randn(2, 1, 2), torch.randn(2, 6, 2), torch.randn(2, 6, 2),
                 key_padding_mask=kpm)
        """,
        ["key_padding_mask", "bool"],
    ),
    case(
        "attention.proj_values_width",
        "Attention(4, proj_values=True) given values of another width",
        "Attention(4, proj_values=True)(torch.randn(2, 1, 4), torch.randn(2, 3, 4), "
        "torch.randn(2, 3, 3))",
        ["value", "4"],
    ),
    case(
        "attention.attention_value_length",
        "Attention given values with one step more than the keys",
        "Attention(2)(torch.randn(2, 1, 2), torch.randn(2, 3, 2), torch.randn(2, 4, 2))",
        ["key", "value", "length"],
    ),
    # -- multihead ----------------------------------------------------------------------------
    case(
        "multihead.not_divisible",
        "MultiHeadAttention(10, 3): d_model not divisible by num_heads",
        "MultiHeadAttention(10, 3)",
        ["d_model", "num_heads", "divis|divide"],
    ),
    case(
        "multihead.zero_heads",
        "MultiHeadAttention with num_heads=0",
        "MultiHeadAttention(8, 0)",
        ["num_heads", POSITIVE],
    ),
    case(
        "multihead.dropout_ten",
        "MultiHeadAttention(dropout=10), a percentage",
        "MultiHeadAttention(8, 2, dropout=10)",
        ["dropout", PROBABILITY],
    ),
    case(
        "multihead.heads_float",
        "num_heads computed as d_model / head_dim (a float)",
        "MultiHeadAttention(8, 8 / 4)",
        ["num_heads", "int"],
    ),
    case(
        "multihead.no_batch",
        "one sequence (T, D) without its batch dimension",
        "mha(x[0], x[0], x[0])",
        ["query", "batch"],
    ),
    case(
        "multihead.wrong_width",
        "inputs of width 6 into a d_model=8 attention",
        "y = torch.randn(2, 5, 6)\nmha(y, y, y)",
        ["query", "8"],
    ),
    case(
        "multihead.kpm_query_length",
        "cross-attention key_padding_mask built from the queries' lengths (B, T), not the keys'",
        "mha(x[:, :3], x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))",
        ["key_padding_mask", r"\(2, 5\)|\(b, s\)"],
    ),
    case(
        "multihead.mask_3d_per_batch",
        "a (B, T, S) attn_mask, where the 3-D form is (B * num_heads, T, S)",
        "mha(x, x, x, attn_mask=torch.zeros(2, 5, 5, dtype=torch.bool))",
        ["attn_mask", r"num_heads|b \* nh"],
    ),
    case(
        "multihead.rotary_cross",
        "a rotary MultiHeadAttention used for cross-attention",
        "MultiHeadAttention(8, 2, rotary=True)(x[:, :2], x, x)",
        ["rotary", "self-attention|self attention"],
    ),
    case(
        "multihead.kv_heads_not_dividing",
        "num_kv_heads that does not divide num_heads",
        "MultiHeadAttention(12, 4, num_kv_heads=3)",
        ["num_kv_heads", "num_heads", "divide"],
    ),
    case(
        "multihead.float64_input",
        "float64 inputs (from NumPy) into a float32 module",
        "y = torch.from_numpy(np.random.default_rng(0).normal(size=(2, 5, 8)))\nmha(y, y, y)",
        ["float64|double", r"float32|\.float\(\)"],
    ),
    case(
        "multihead.step_other_batch",
        "self_attention_step with a cache left from a batch of another size",
        """
        _, _, cache = mha.self_attention_step(torch.randn(3, 1, 8), None)
        mha.self_attention_step(torch.randn(2, 1, 8), cache)
        """,
        ["cache", "3", "2"],
    ),
    case(
        "multihead.attend_other_batch",
        "attend() with keys and values projected for another batch",
        """
        kv = mha.project_kv(torch.randn(3, 5, 8), torch.randn(3, 5, 8))
        mha.attend(torch.randn(2, 1, 8), kv)
        """,
        ["kv|key/value|project_kv", "3", "2"],
    ),
    # -- rotary -------------------------------------------------------------------------------
    case(
        "rotary.odd_head_dim",
        "apply_rotary on heads of odd width",
        "apply_rotary(torch.randn(1, 2, 3, 5))",
        ["5|head_dim", "even"],
    ),
    case(
        "rotary.int_input",
        "apply_rotary on integer positions instead of queries",
        "apply_rotary(torch.arange(8).view(1, 1, 2, 4))",
        ["x", "float"],
    ),
    case(
        "rotary.negative_start",
        "apply_rotary with start=-1",
        "apply_rotary(torch.randn(1, 2, 3, 4), start=-1)",
        ["start", NON_NEGATIVE],
    ),
    case(
        "rotary.positions_shape",
        "positions given per head (B, Nh, L) instead of (B, L)",
        "apply_rotary(torch.randn(1, 2, 3, 4), positions=torch.zeros(1, 2, 3, dtype=torch.long))",
        ["positions", r"\(b, l\)"],
    ),
    case(
        "rotary.numpy_input",
        "apply_rotary given a NumPy array",
        "apply_rotary(np.zeros((1, 2, 3, 4)))",
        [r"\bx\b", "tensor"],
    ),
    case(
        "rotary.angles_float_dim",
        "rotary_angles with head_dim computed as d_model / num_heads (a float)",
        "rotary_angles(4, 16 / 2)",
        ["head_dim", "int"],
    ),
    # -- modern_block -------------------------------------------------------------------------
    case(
        "modern_block.rmsnorm_width",
        "RMSNorm(8) applied to 6-wide vectors",
        "RMSNorm(8)(torch.randn(2, 3, 6))",
        ["8", "6"],
    ),
    case(
        "modern_block.rmsnorm_zero",
        "RMSNorm(0)",
        "RMSNorm(0)",
        ["d_model", POSITIVE],
    ),
    case(
        "modern_block.swiglu_dropout",
        "SwiGLU(dropout=1.5)",
        "SwiGLU(8, 16, dropout=1.5)",
        ["dropout", PROBABILITY],
    ),
    case(
        "modern_block.swiglu_float_hidden",
        "SwiGLU with the hidden width 2/3 * 4 * d_model left a float",
        "SwiGLU(8, 2 / 3 * 4 * 8)",
        ["d_ff", "int"],
    ),
    # -- positional ---------------------------------------------------------------------------
    case(
        "positional.wrong_width",
        "PositionalEncoding(d_model=6) on 8-wide inputs",
        "PositionalEncoding(10, 6)(torch.randn(2, 4, 8))",
        ["d_model", "6"],
    ),
    case(
        "positional.too_long",
        "PositionalEncoding(max_len=4) on a sequence of 6 steps",
        "PositionalEncoding(4, 8)(torch.randn(2, 6, 8))",
        ["max_len", "4"],
    ),
    case(
        "positional.token_ids",
        "PositionalEncoding applied to token ids before the embedding",
        "PositionalEncoding(10, 8)(batch.src)",
        ["embed"],
    ),
    case(
        "positional.float_width",
        "PositionalEncoding(max_len, d_model) with d_model a float",
        "PositionalEncoding(10, 6.0)",
        ["d_model", "int"],
    ),
    case(
        "positional.zero_len",
        "sinusoidal_encoding(0, 8)",
        "sinusoidal_encoding(0, 8)",
        ["max_len", POSITIVE],
    ),
    case(
        "positional.negative_start",
        "PositionalEncoding called with start=-1",
        "PositionalEncoding(10, 8)(torch.randn(2, 1, 8), start=-1)",
        ["start", NON_NEGATIVE],
    ),
    # -- transformer --------------------------------------------------------------------------
    case(
        "transformer.add_norm_case",
        "EncoderLayer(add_norm='Post'), capitalised",
        "EncoderLayer(8, 2, 16, add_norm='Post')",
        ["add_norm", "'post'"],
    ),
    case(
        "transformer.layer_not_divisible",
        "EncoderLayer(d_model=6, num_heads=4)",
        "EncoderLayer(6, 4, 16)",
        ["d_model", "num_heads"],
    ),
    case(
        "transformer.layer_token_ids",
        "EncoderLayer given token ids (B, T) instead of embeddings",
        "EncoderLayer(8, 2, 16)(batch.src)",
        ["embed"],
    ),
    case(
        "transformer.step_without_cache",
        "TransformerDecoder.step called before init_cache (cache None)",
        """
        dec = TransformerDecoder(8, 2, 16, 1)
        dec.step(torch.randn(2, 1, 8), None)
        """,
        ["cache", "init_cache"],
    ),
    case(
        "transformer.init_cache_width",
        "TransformerDecoder.init_cache given a memory of another width",
        "TransformerDecoder(8, 2, 16, 1).init_cache(torch.randn(2, 5, 6))",
        ["memory", "8"],
    ),
    case(
        "transformer.zero_layers",
        "TransformerEncoder with num_layers=0",
        "TransformerEncoder(8, 2, 16, 0)",
        ["num_layers", POSITIVE],
    ),
    case(
        "transformer.feedforward_dropout",
        "FeedForward(dropout=2)",
        "FeedForward(8, 16, dropout=2)",
        ["dropout", PROBABILITY],
    ),
    case(
        "transformer.memory_batch",
        "TransformerDecoder given a memory of another batch than its input",
        "TransformerDecoder(8, 2, 16, 1)(torch.randn(2, 3, 8), torch.randn(3, 5, 8))",
        ["memory", "batch|sentences|sequences"],
    ),
    case(
        "transformer.encoder_src_mask_name",
        "TransformerEncoder called with src_mask= (its layers' name) instead of mask=",
        "TransformerEncoder(8, 2, 16, 1)(x, src_mask=causal_mask(5))",
        ["src_mask", "mask="],
    ),
]
