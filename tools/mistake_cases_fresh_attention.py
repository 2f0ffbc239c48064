"""Fresh mistakes with the attention core: masks, attention, heads, rotary positions, the
modern block, positional encodings and the Transformer layers (see ``tools/probe_fresh.py``).

Written, with their expected answers and keywords, from the chapters, ``api.md`` and the
public docstrings before any of them ran; none repeats a case of the development or the
held-out catalogue, nor a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``scores`` ``(2, 3, 5)``; ``q`` ``(2, 3, 4)``,
``k`` ``(2, 5, 4)``, ``v`` ``(2, 5, 6)``; ``x`` ``(2, 5, 8)``; ``mha`` (``d_model=8``, 2 heads);
``lengths`` ``[2, 4]``; ``batch`` (a ``PairBatch`` of 2).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- masking ------------------------------------------------------------------------------
    case(
        "masking.causal_device_gpu",
        "causal_mask(5, device='gpu'): 'gpu' where PyTorch says 'cuda'",
        "causal_mask(5, device='gpu')",
        ["device", "cuda|cpu"],
    ),
    case(
        "masking.lengths_with_pad_id",
        "padding_mask(lengths, pad_id=0): the lengths form given the token form's pad_id",
        "padding_mask(lengths, pad_id=0)",
        ["pad_id", "total_length"],
    ),
    case(
        "masking.both_forms",
        "padding_mask(tokens, pad_id=PAD, total_length=8): both forms at once",
        "padding_mask(batch.src, pad_id=PAD, total_length=8)",
        ["pad_id", "total_length"],
    ),
    case(
        "masking.mask_other_batch",
        "masked_softmax with a (3, 1, 5) mask left from a batch of three, for (2, 3, 5) scores",
        "masked_softmax(scores, torch.zeros(3, 1, 5, dtype=torch.bool))",
        ["mask", r"\(2, 3, 5\)|\(3, 1, 5\)"],
    ),
    case(
        "masking.merge_kpm_other_length",
        "merge_masks of a causal mask over 5 keys and a key padding mask over 6",
        "merge_masks(causal_mask(5), padding_mask(lengths, total_length=6))",
        ["key_padding_mask|attn_mask", r"\b5\b", r"\b6\b"],
    ),
    case(
        "masking.softmax_arguments_swapped",
        "masked_softmax(mask, scores): the boolean mask where the scores go",
        "masked_softmax(causal_mask(5), torch.randn(5, 5))",
        ["scores", "mask", "swap|order|float|bool"],
    ),
    case(
        "masking.valid_lens_per_query_wrong_t",
        "masked_softmax with per-query valid_lens (B, 2) for scores with 3 queries",
        "masked_softmax(scores, valid_lens=torch.tensor([[1, 2], [3, 4]]))",
        ["valid_lens", r"\(2, 3\)|\b3\b"],
    ),
    # -- attention ----------------------------------------------------------------------------
    case(
        "attention.scale_sqrt_not_inverse",
        "scaled_dot_product_attention(scale=math.sqrt(E)): sqrt(E) where 1 / sqrt(E) is meant",
        "scaled_dot_product_attention(q, k, v, scale=math.sqrt(q.shape[-1]))",
        ["scale", r"1 ?/ ?sqrt|1/√|inverse|divid|reciprocal"],
        expect="warn",
    ),
    case(
        "attention.key_pretransposed",
        "scaled_dot_product_attention given the keys already transposed, (B, E, S)",
        "scaled_dot_product_attention(q, k.transpose(-2, -1), v)",
        ["key", r"transpos|\(2, 4, 5\)"],
    ),
    case(
        "attention.additive_attn_dim_zero",
        "AdditiveAttention(4, 4, 0): no hidden width for the scoring network",
        "AdditiveAttention(4, 4, 0)",
        ["attn_dim", POSITIVE],
    ),
    case(
        "attention.proj_dim_float",
        "Attention(8 / 2): proj_dim computed with / (a float)",
        "Attention(8 / 2)",
        ["proj_dim", "int|whole"],
    ),
    case(
        "attention.causal_mask_for_cross",
        "a (5, 5) causal mask for 3 queries attending to 5 keys (cross-attention)",
        "scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(5))",
        ["attn_mask", r"\(3, 5\)|3 quer|\(\.\.\., ?3, ?5\)|\(2, 3, 5\)"],
    ),
    # -- multihead ----------------------------------------------------------------------------
    case(
        "multihead.key_value_lengths_differ",
        "multi-head attention with 5 keys but 4 values",
        "mha(x, x, x[:, :4])",
        ["value", "key", r"\b5\b", r"\b4\b"],
    ),
    case(
        "multihead.time_major_inputs",
        "(T, B, D) inputs (nn.MultiheadAttention's default layout) with a (B, S) padding mask",
        """
        xt = x.transpose(0, 1)
        mha(xt, xt, xt, key_padding_mask=padding_mask(lengths, total_length=5))
        """,
        ["key_padding_mask", r"\(5, 2\)|\(2, 5\)"],
    ),
    case(
        "multihead.step_without_time_axis",
        "self_attention_step given the newest position as (B, D), x[:, -1] not x[:, -1:]",
        "mha.self_attention_step(x[:, -1], None)",
        ["x", r"\(b, ?t, ?d\)|\(2, 1, 8\)|-1:|time|step axis"],
    ),
    case(
        "multihead.kv_heads_swapped",
        "MultiHeadAttention(8, 2, num_kv_heads=4): the query and key/value head counts swapped",
        "MultiHeadAttention(8, 2, num_kv_heads=4)",
        ["num_kv_heads", "num_heads"],
    ),
    # -- rotary -------------------------------------------------------------------------------
    case(
        "rotary.positions_other_length",
        "apply_rotary with positions for 6 steps on queries of 5",
        "apply_rotary(torch.randn(2, 2, 5, 4), positions=torch.arange(6).expand(2, 6))",
        ["positions", r"\b5\b", r"\b6\b"],
    ),
    case(
        "rotary.one_vector",
        "apply_rotary of one query vector (Dh,), without the q[None] of Chapter 7",
        "apply_rotary(torch.randn(8))",
        ["x", r"\(\.\.\., ?l, ?dh\)|\[none\]|position"],
    ),
    # -- modern_block -------------------------------------------------------------------------
    case(
        "modern_block.swiglu_numpy",
        "SwiGLU applied to a NumPy array",
        "SwiGLU(8, 16)(np.zeros((2, 5, 8), dtype=np.float32))",
        ["numpy|ndarray|array", "tensor"],
    ),
    # -- positional ---------------------------------------------------------------------------
    case(
        "positional.max_len_scientific",
        "PositionalEncoding(1e4, 8): max_len written as 1e4, a float",
        "PositionalEncoding(1e4, 8)",
        ["max_len", "int|whole"],
    ),
    # -- transformer --------------------------------------------------------------------------
    case(
        "transformer.layer_mask_name",
        "EncoderLayer called with mask= (TransformerEncoder's name) instead of src_mask=",
        "EncoderLayer(8, 2, 16)(x, mask=causal_mask(5))",
        ["src_mask"],
    ),
    case(
        "transformer.memory_mask_transposed",
        "DecoderLayer given memory_mask (S, T) = (4, 5) for 5 targets and 4 memory steps",
        """
        DecoderLayer(8, 2, 16)(
            x, torch.randn(2, 4, 8), memory_mask=torch.zeros(4, 5, dtype=torch.bool)
        )
        """,
        ["memory_mask", r"\(5, 4\)"],
    ),
    case(
        "transformer.tgt_kpm_source_length",
        "TransformerDecoder given a tgt_key_padding_mask built from the source lengths (B, S)",
        """
        TransformerDecoder(8, 2, 16, 1)(
            x, torch.randn(2, 4, 8), tgt_key_padding_mask=padding_mask(torch.tensor([3, 4]))
        )
        """,
        ["tgt_key_padding_mask", r"\(2, 5\)|\b5\b"],
    ),
]
