"""Final-probe mistakes with the attention core: masks, attention, heads, rotary positions,
positional encodings and the Transformer layers (see ``tools/probe_final.py``).

Written, with their expected answers and keywords, by going through the chapters' and the
exercises' cells in order and noting the slips each cell invites, from the notebooks,
``api.md`` and the public signatures and docstrings alone, before any of them ran; none
repeats a case of the three earlier catalogues, nor a mistake the issue names. Each slip
names the chapter and the cell it comes from (``[Ch. 3, cell 11]``).

Ready-made (see ``mistake_cases.namespace``): ``scores`` ``(2, 3, 5)``; ``q`` ``(2, 3, 4)``,
``k`` ``(2, 5, 4)``, ``v`` ``(2, 5, 6)``; ``x`` ``(2, 5, 8)``; ``mha`` (``d_model=8``, 2 heads);
``lengths`` ``[2, 4]``; ``batch`` (a ``PairBatch`` of 2).
"""

from __future__ import annotations

from mistake_cases import PROBABILITY, case

CASES = [
    # -- masking ------------------------------------------------------------------------------
    case(
        "masking.causal_two_sizes",
        "[Ch. 3, cell 24-26] causal_mask(5, 5): both sizes given, as for torch.ones(T, T) in the "
        "lecture's subsequent_mask (the second lands in device)",
        "causal_mask(5, 5)",
        ["device", r"size|square"],
    ),
    case(
        "masking.padding_mask_of_mask",
        "[Ch. 5, cell 26] padding_mask(batch.src == PAD): the boolean mask the chapter builds by "
        "hand, passed to padding_mask as if it were token ids",
        "padding_mask(batch.src == PAD, pad_id=PAD)",
        [r"bool|already a mask|already"],
    ),
    # -- attention ----------------------------------------------------------------------------
    case(
        "attention.sdpa_is_causal",
        "[Ch. 7, cell 45] scaled_dot_product_attention(q, k, v, is_causal=True): the flag of "
        "F.scaled_dot_product_attention on the course's function",
        "scaled_dot_product_attention(q, k, v, is_causal=True)",
        ["is_causal", r"causal_mask|attn_mask"],
    ),
    case(
        "attention.attention_mask_kwarg",
        "[Ch. 2c, cell 30-32] Attention called with mask= (the lecture's keyword) instead of "
        "key_padding_mask=",
        """
        attention = Attention(proj_dim=2)
        query_1 = torch.tensor([[-1.0, 1.0]]).view(1, 1, 2)
        keys_padded = torch.tensor([[-0.38, 0.44], [0.85, -0.05]]).view(1, 2, 2)
        attention(query_1, keys_padded, mask=padding_mask(torch.tensor([1]), total_length=2))
        """,
        [r"\bmask\b", r"key_padding_mask|attn_mask"],
    ),
    case(
        "attention.init_keys_lecture_api",
        "[Ch. 2c, cell 30-32] attention.init_keys(keys) on the library's Attention, as on the "
        "lecture's LectureAttention",
        """
        attention = Attention(proj_dim=2)
        attention.init_keys(torch.tensor([[-0.38, 0.44], [0.85, -0.05]]).view(1, 2, 2))
        """,
        ["init_keys", r"pass|argument"],
    ),
    case(
        "attention.additive_query_without_time_axis",
        "[Ch. 2b, cell 17] AdditiveAttention given one query per sequence as (B, Eq), without "
        "its query axis (B, 1, Eq)",
        """
        additive = AdditiveAttention(query_dim=20, key_dim=2, attn_dim=8)
        queries = torch.randn(2, 20)
        keys = torch.randn(2, 10, 2)
        values = torch.arange(40.0).reshape(1, 10, 4).repeat(2, 1, 1)
        additive(queries, keys, values)
        """,
        ["query", r"\(b, ?t|3-d|3 dim|three dim|\(2, 1, 20\)"],
    ),
    # -- multihead ----------------------------------------------------------------------------
    case(
        "multihead.batch_first_kwarg",
        "[Ch. 3, cell 11] MultiHeadAttention(8, 2, batch_first=True): nn.MultiheadAttention's "
        "switch, copied from the reference beside it",
        "MultiHeadAttention(8, 2, batch_first=True)",
        ["batch_first", r"batch[ -]first|always|\(b, ?t, ?d\)|already"],
    ),
    case(
        "multihead.embed_dim_kwarg",
        "[Ch. 3, cell 11] MultiHeadAttention(embed_dim=8, num_heads=2): nn.MultiheadAttention's "
        "name for d_model",
        "MultiHeadAttention(embed_dim=8, num_heads=2)",
        ["embed_dim", "d_model"],
    ),
    case(
        "multihead.is_causal_kwarg",
        "[Ch. 7, cell 35/45] mha(x, x, x, is_causal=True): PyTorch's causal flag where the course "
        "takes attn_mask=causal_mask(T)",
        "mha(x, x, x, is_causal=True)",
        ["is_causal", r"causal_mask|attn_mask"],
    ),
    case(
        "multihead.kv_heads_positional",
        "[Ch. 7, cell 33] MultiHeadAttention(128, 4, 2): the key/value heads passed positionally, "
        "where the third argument is dropout",
        "MultiHeadAttention(128, 4, 2)",
        ["dropout", PROBABILITY + "|num_kv_heads"],
    ),
    case(
        "multihead.in_proj_weight_attribute",
        "[Ch. 3, cell 11 / exercise 1] ours.in_proj_weight: nn.MultiheadAttention's stacked "
        "projection read from the course's module",
        """
        ours = MultiHeadAttention(d_model=8, num_heads=4)
        ours.in_proj_weight.shape
        """,
        ["in_proj_weight", r"q_proj|k_proj|v_proj"],
    ),
    # -- rotary -------------------------------------------------------------------------------
    case(
        "rotary.start_positional",
        "[Ch. 7, cell 27] apply_rotary(q[None], 3): the start position passed positionally",
        "apply_rotary(torch.tensor([1.0, 0.0])[None], 3)",
        ["start"],
    ),
    # -- positional ---------------------------------------------------------------------------
    case(
        "positional.pe_attribute",
        "[Ch. 4, cell 47/50] lib_posenc.pe: the lecture module's table attribute read from the "
        "library's PositionalEncoding",
        """
        lib_posenc = PositionalEncoding(max_len=2, d_model=2)
        source_seq = torch.tensor([[-1.0, -1.0], [-1.0, 1.0]]).view(1, 2, 2)
        source_seq + lib_posenc.pe
        """,
        [r"\bpe\b", r"sinusoidal_encoding|buffer|encoding|attribute"],
    ),
    case(
        "positional.tutorial_signature",
        "[Ch. 4, cell 50] PositionalEncoding(d_model=8, dropout=0.1): the PyTorch tutorial's "
        "signature (d_model, dropout, max_len)",
        "PositionalEncoding(d_model=8, dropout=0.1)",
        ["dropout", "max_len"],
    ),
    # -- transformer --------------------------------------------------------------------------
    case(
        "transformer.layer_mask_positional",
        "[Ch. 3, cell 55] layer(x, causal_mask(5)): the mask passed positionally, as to "
        "nn.TransformerEncoderLayer(src, src_mask)",
        """
        layer = EncoderLayer(d_model=8, num_heads=2, d_ff=16)
        layer(x, causal_mask(5))
        """,
        ["src_mask", r"keyword|src_mask="],
    ),
    case(
        "transformer.norm_first_kwarg",
        "[Ch. 3, exercise 2] EncoderLayer(..., norm_first=True): nn.TransformerEncoderLayer's "
        "switch where the course says add_norm='pre'",
        "EncoderLayer(d_model=8, num_heads=2, d_ff=16, norm_first=True)",
        ["norm_first", "add_norm"],
    ),
    case(
        "transformer.pytorch_names",
        "[Ch. 3, cell 55] EncoderLayer(d_model=6, nhead=3, dim_feedforward=10): PyTorch's "
        "argument names",
        "EncoderLayer(d_model=6, nhead=3, dim_feedforward=10)",
        [r"nhead|dim_feedforward", r"num_heads|d_ff"],
    ),
    case(
        "transformer.encoder_of_layer",
        "[Ch. 3, cell 68] TransformerEncoder(layer, num_layers=2): nn.TransformerEncoder's "
        "(encoder_layer, num_layers) form",
        """
        layer = EncoderLayer(d_model=8, num_heads=2, d_ff=16)
        TransformerEncoder(layer, num_layers=2)
        """,
        ["d_model", r"encoderlayer|int|integer|number"],
    ),
]
