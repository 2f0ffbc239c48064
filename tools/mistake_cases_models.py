"""Mistakes with the recurrent models, their attention decoders, the self-attention model for
points and the squares data.

Ready-made (see ``mistake_cases.namespace``): ``points, directions`` (16 squares);
``source, target`` ``(16, 2, 2)``; ``encoder, decoder`` (``Encoder(2, 4)``, ``Decoder(2,
4)``); ``attn_decoder``; ``seq2seq`` (an ``EncoderDecoder``); ``sa_model``; ``train_set,
val_set``; ``train_loader, val_loader``; ``optimizer`` and ``trainer`` for ``seq2seq``.
"""

from __future__ import annotations

from mistake_cases import POSITIVE, PROBABILITY, case

CASES = [
    # -- seq2seq ------------------------------------------------------------------------------
    case(
        "seq2seq.no_batch",
        "one sequence (S, F) given to the encoder without its batch dimension",
        "encoder(source[0])",
        ["source", "batch|unsqueeze"],
    ),
    case(
        "seq2seq.float64_source",
        "the encoder given float64 points straight from NumPy",
        "encoder(torch.from_numpy(points[:, :2]))",
        ["float64|double", r"float32|\.float\(\)"],
    ),
    case(
        "seq2seq.features",
        "the encoder given 3 features per step, built for 2",
        "encoder(torch.randn(4, 2, 3))",
        ["source", "2", "3"],
    ),
    case(
        "seq2seq.int_source",
        "integer corners (torch.tensor of ints) into the encoder",
        "encoder(torch.tensor([[[-1, -1], [-1, 1]]]))",
        ["source", r"float|\.float\(\)"],
    ),
    case(
        "seq2seq.numpy_source",
        "a NumPy array into the encoder",
        "encoder(points[:, :2])",
        ["source", "tensor"],
    ),
    case(
        "seq2seq.hidden_batch_first",
        "the decoder's state given batch-first (B, 1, H)",
        """
        states, final = encoder(source)
        decoder(source[:, -1:], final.transpose(0, 1))
        """,
        ["hidden", r"\(1, b, h\)"],
    ),
    case(
        "seq2seq.hidden_all_states",
        "the decoder given every encoder state instead of the final one",
        """
        states, final = encoder(source)
        decoder(source[:, -1:], states)
        """,
        ["hidden", r"\(1, b, h\)|final"],
    ),
    case(
        "seq2seq.hidden_tuple",
        "the decoder given the encoder's whole (states, final) pair as its state",
        "decoder(source[:, -1:], encoder(source))",
        ["hidden", "tuple|final"],
    ),
    case(
        "seq2seq.target_len_zero",
        "EncoderDecoder(target_len=0)",
        "EncoderDecoder(encoder, decoder, target_len=0)",
        ["target_len", POSITIVE],
    ),
    case(
        "seq2seq.teacher_forcing_percent",
        "teacher_forcing_prob=50, a percentage",
        "EncoderDecoder(encoder, decoder, 2, teacher_forcing_prob=50)",
        ["teacher_forcing_prob", PROBABILITY],
    ),
    case(
        "seq2seq.train_target_length",
        "training with a target of 3 steps for target_len=2",
        "seq2seq.train()(source, torch.randn(16, 3, 2))",
        ["target", "target_len"],
    ),
    case(
        "seq2seq.config_hidden_zero",
        "Seq2SeqConfig(hidden_dim=0)",
        "EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=0))",
        ["hidden_dim", POSITIVE],
    ),
    case(
        "seq2seq.config_target_len_float",
        "Seq2SeqConfig(target_len=2.0)",
        "EncoderDecoder.from_config(Seq2SeqConfig(target_len=2.0))(source)",
        ["target_len", "int"],
    ),
    case(
        "seq2seq.config_field_name",
        "Seq2SeqConfig(hidden_size=4): PyTorch's name for hidden_dim",
        "Seq2SeqConfig(hidden_size=4)",
        ["hidden_size", "unexpected|unknown"],
    ),
    case(
        "seq2seq.from_config_other_config",
        "EncoderDecoder.from_config given a SelfAttentionConfig (stale notebook variable)",
        "EncoderDecoder.from_config(SelfAttentionConfig())",
        ["seq2seqconfig"],
    ),
    case(
        "seq2seq.hidden_sizes_differ",
        "an encoder and a decoder of different hidden sizes joined",
        "EncoderDecoder(Encoder(2, 4), Decoder(2, 3), target_len=2)(source)",
        ["encoder", "decoder", "hidden"],
    ),
    case(
        "seq2seq.encoder_decoder_swapped",
        "EncoderDecoder(decoder, encoder, ...): the two parts swapped",
        "EncoderDecoder(decoder, encoder, target_len=2)(source)",
        ["encoder", "decoder"],
    ),
    # -- seq2seq_attention ------------------------------------------------------------------
    case(
        "seq2seq_attention.no_memory",
        "an AttentionDecoder called without the encoder's states",
        """
        _, final = encoder(source)
        attn_decoder(source[:, -1:], final)
        """,
        ["memory"],
    ),
    case(
        "seq2seq_attention.memory_is_final",
        "the AttentionDecoder given the final state (1, B, H) as memory",
        """
        _, final = encoder(source)
        attn_decoder(source[:, -1:], final, final)
        """,
        ["memory", r"states|\(b, s, h\)"],
    ),
    case(
        "seq2seq_attention.bahdanau_no_memory",
        "a BahdanauDecoder called without memory",
        """
        _, final = encoder(source)
        BahdanauDecoder(2, 4)(source[:, -1:], final)
        """,
        ["memory"],
    ),
    case(
        "seq2seq_attention.hidden_other_batch",
        "the decoder given a state left from another batch",
        """
        _, final = encoder(source[:3])
        attn_decoder(source[:, -1:], final, encoder(source)[0])
        """,
        ["hidden", "16|3"],
    ),
    # -- points_transformer -------------------------------------------------------------------
    case(
        "points_transformer.not_divisible",
        "SelfAttentionConfig(d_model=6, num_heads=4)",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(num_heads=4))",
        ["d_model", "num_heads"],
    ),
    case(
        "points_transformer.start",
        "SelfAttentionConfig(start='first')",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(start='first'))",
        ["start", "'last'|'origin'"],
    ),
    case(
        "points_transformer.add_norm_string_none",
        "SelfAttentionConfig(add_norm='none'), the string",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(add_norm='none'))",
        ["add_norm", "none"],
    ),
    case(
        "points_transformer.dropout",
        "SelfAttentionConfig(dropout=10)",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(dropout=10))",
        ["dropout", PROBABILITY],
    ),
    case(
        "points_transformer.source_too_long",
        "a source longer than the config's max_len",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(max_len=3))(torch.randn(2, 4, 2))",
        ["max_len"],
    ),
    case(
        "points_transformer.wrong_config",
        "SelfAttentionEncoderDecoder given a Seq2SeqConfig",
        "SelfAttentionEncoderDecoder(Seq2SeqConfig())",
        ["selfattentionconfig"],
    ),
    case(
        "points_transformer.features",
        "a 3-feature source into the 2-feature model",
        "sa_model(torch.randn(2, 2, 3))",
        ["source", "2", "3"],
    ),
    case(
        "points_transformer.positional_string",
        "SelfAttentionConfig(positional='none'), Chapter 7's word, where a bool is expected",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(positional='none'))",
        ["positional", "true|false|bool"],
    ),
    case(
        "points_transformer.target_len_zero",
        "SelfAttentionConfig(target_len=0)",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(target_len=0)).eval()(source)",
        ["target_len", POSITIVE],
    ),
    case(
        "points_transformer.layers_zero",
        "SelfAttentionConfig(num_layers=0)",
        "SelfAttentionEncoderDecoder(SelfAttentionConfig(num_layers=0))",
        ["num_layers", POSITIVE],
    ),
    # -- squares ------------------------------------------------------------------------------
    case(
        "squares.n_zero",
        "make_squares(n=0)",
        "make_squares(n=0)",
        [r"\bn\b", POSITIVE],
    ),
    case(
        "squares.n_float",
        "make_squares(n=len(points) / 2): a float count",
        "make_squares(n=16 / 2)",
        [r"\bn\b", "int"],
    ),
    case(
        "squares.seed_float",
        "make_squares(seed=1.5)",
        "make_squares(8, seed=1.5)",
        ["seed", "int"],
    ),
    case(
        "squares.noise_negative",
        "make_squares(noise=-0.1)",
        "make_squares(8, noise=-0.1)",
        ["noise", "negative"],
    ),
    case(
        "squares.rng_int",
        "make_squares(rng=0): a seed where a generator is expected",
        "make_squares(8, rng=0)",
        ["rng", "generator"],
    ),
    case(
        "squares.source_len_all",
        "split_source_target(points, source_len=4): nothing left to predict",
        "split_source_target(points, source_len=4)",
        ["source_len", "4"],
    ),
    case(
        "squares.accuracy_full_points",
        "corner_accuracy given the full sequences as target",
        "corner_accuracy(target, points)",
        ["predicted", "target", "shape"],
    ),
    case(
        "squares.plot_full_predicted",
        "plot_squares given whole sequences as predicted",
        "plot_squares(points, directions, predicted=points)",
        ["predicted", "source_len|l - source_len"],
    ),
    case(
        "squares.plot_directions_length",
        "plot_squares with fewer directions than sequences",
        "plot_squares(points, directions[:4])",
        ["directions", "16", "4"],
    ),
    case(
        "squares.datasets_missing_test",
        "seq2seq_datasets(points) without the validation points",
        "seq2seq_datasets(points)",
        ["test_points"],
    ),
    case(
        "squares.datasets_of_split",
        "seq2seq_datasets given (source, target), already split",
        "seq2seq_datasets(source, target)",
        ["train_points", "source_len"],
    ),
    case(
        "squares.area_one_sequence",
        "signed_area of a single (4, 2) sequence",
        "signed_area(points[0])",
        ["points", r"\(n, l, 2\)"],
    ),
    case(
        "squares.nearest_corner_3d",
        "nearest_corner of 3-D points",
        "nearest_corner(np.zeros((4, 2, 3)))",
        ["points", "2"],
    ),
]
