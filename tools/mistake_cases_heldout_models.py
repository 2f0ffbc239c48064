"""Held-out mistakes with the squares task and its models: GRU encoder-decoders, attention
decoders, the self-attention model for points, the squares data and the lecture's helpers (see
``tools/probe_heldout.py``).

Ready-made (see ``mistake_cases.namespace``): ``points`` ``(16, 4, 2)`` float64 and
``directions``; ``source``, ``target`` ``(16, 2, 2)`` float32; ``encoder, decoder =
Encoder(2, 4), Decoder(2, 4)``; ``attn_decoder = AttentionDecoder(2, 4)``; ``seq2seq``
(``target_len=2``); ``sa_model`` (the default ``SelfAttentionConfig``); ``optimizer`` (Adam
on ``seq2seq``).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- seq2seq ------------------------------------------------------------------------------
    case(
        "seq2seq.decoder_input_without_time_axis",
        "the decoder given the last source point as (B, F), source[:, -1] not source[:, -1:]",
        """
        _, final = encoder(source)
        decoder(source[:, -1], final)
        """,
        ["x", r"\(b, 1, f\)|\(b, t, f\)|time|step|\[:, ?-1:\]"],
    ),
    case(
        "seq2seq.classes_not_instances",
        "EncoderDecoder(Encoder, Decoder, ...): the classes, not built modules",
        "EncoderDecoder(Encoder, Decoder, target_len=2)",
        ["encoder", r"class|instance|encoder\("],
    ),
    case(
        "seq2seq.target_numpy",
        "training with a NumPy target (the points' last two corners, not converted)",
        "seq2seq.train()(source, points[:, 2:])",
        ["target", "numpy|tensor"],
    ),
    case(
        "seq2seq.target_other_batch",
        "training with a target of another batch than the source",
        "seq2seq.train()(source, target[:8])",
        ["target", "16"],
    ),
    case(
        "seq2seq.kpm_other_length",
        "src_key_padding_mask of three steps for a two-step source",
        "seq2seq(source, src_key_padding_mask=torch.zeros(16, 3, dtype=torch.bool))",
        ["src_key_padding_mask", r"\(16, 2\)|\(b, s\)"],
    ),
    # -- seq2seq_attention --------------------------------------------------------------------
    case(
        "seq2seq_attention.memory_width",
        "an AttentionDecoder(hidden_dim=4) given 3-wide encoder states (another encoder's)",
        """
        _, final = encoder(source)
        attn_decoder(source[:, -1:], final, torch.randn(16, 2, 3))
        """,
        ["memory", "4"],
    ),
    case(
        "seq2seq_attention.kpm_other_length",
        "memory_key_padding_mask of three keys for two encoder states",
        """
        states, final = encoder(source)
        attn_decoder(source[:, -1:], final, states,
                     memory_key_padding_mask=torch.zeros(16, 3, dtype=torch.bool))
        """,
        ["memory_key_padding_mask", r"\(16, 2\)|\(b, s\)"],
    ),
    case(
        "seq2seq_attention.bahdanau_attn_dim_zero",
        "BahdanauDecoder(attn_dim=0)",
        "BahdanauDecoder(2, 4, attn_dim=0)",
        ["attn_dim", POSITIVE],
    ),
    # -- points_transformer -------------------------------------------------------------------
    case(
        "points_transformer.config_class",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig): the class, without ()",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig)",
        ["config", r"instance|selfattentionconfig\(\)"],
    ),
    case(
        "points_transformer.decode_source_as_memory",
        "decode given the source points as memory instead of encode(source)'s output",
        "sa_model.decode(source[:, -1:], source)",
        ["memory", "6|d_model|encode"],
    ),
    case(
        "points_transformer.decode_encode_pair",
        "decode given encode()'s (memory, weights) pair as memory",
        """
        memory = sa_model.encode(source)
        sa_model.decode(source[:, -1:], memory)
        """,
        ["memory", "tuple|pair"],
    ),
    case(
        "points_transformer.target_len_beyond_max_len",
        "SelfAttentionConfig(target_len=5, max_len=3)",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(target_len=5, max_len=3))",
        ["target_len", "max_len"],
    ),
    case(
        "points_transformer.kpm_other_length",
        "src_key_padding_mask of four steps for a two-step source",
        "sa_model(source, src_key_padding_mask=torch.zeros(16, 4, dtype=torch.bool))",
        ["src_key_padding_mask", r"\(16, 2\)|\(b, s\)"],
    ),
    # -- squares ------------------------------------------------------------------------------
    case(
        "squares.split_of_pair",
        "split_source_target(make_squares(8)): the (points, directions) pair",
        "split_source_target(make_squares(8))",
        ["points", "directions|pair|tuple"],
    ),
    case(
        "squares.plot_swapped",
        "plot_squares(directions, points): the two arguments swapped",
        "plot_squares(directions, points)",
        ["points", r"\(n, l, 2\)|directions|swap"],
    ),
    case(
        "squares.plot_n_cols_zero",
        "plot_squares(n_cols=0)",
        "plot_squares(points, directions, n_cols=0)",
        ["n_cols", POSITIVE],
    ),
    case(
        "squares.plot_empty",
        "plot_squares of an empty selection (a filter that kept nothing)",
        "plot_squares(points[:0], directions[:0])",
        ["points", "empty|no sequence|0 sequences"],
    ),
    case(
        "squares.plot_fewer_predictions",
        "plot_squares with predictions for the first 4 sequences only",
        "plot_squares(points, directions, predicted=seq2seq.eval()(source)[:4])",
        ["predicted", "16"],
    ),
    # -- lecture ------------------------------------------------------------------------------
    case(
        "lecture.loaders_batch_zero",
        "lecture_loaders(batch_size=0)",
        "lecture_loaders(points, points, batch_size=0)",
        ["batch_size", POSITIVE],
    ),
    case(
        "lecture.train_library_model",
        "lecture_train with the library's EncoderDecoder, which reads the whole training "
        "sequence (source and target) as its source",
        """
        train, val = lecture_loaders(points, points)
        lecture_train(seq2seq, optimizer, train, val, 1)
        """,
        ["sequence", "trainer|lecture|source"],
        expect="warn",
    ),
]
