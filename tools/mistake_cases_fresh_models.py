"""Fresh mistakes with the squares task and its models: the GRU encoder-decoder, the
attention decoders, the data and its figure, the self-attention model and the lecture's
training code (see ``tools/probe_fresh.py``).

Ready-made (see ``mistake_cases.namespace``): ``points`` ``(16, 4, 2)``, ``directions``;
``source``, ``target`` ``(16, 2, 2)``; ``encoder`` (``Encoder(2, 4)``), ``decoder``,
``attn_decoder``; ``seq2seq`` (``target_len=2``); ``sa_model`` (the default
``SelfAttentionConfig``).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- seq2seq ------------------------------------------------------------------------------
    case(
        "seq2seq.hidden_without_layer_axis",
        "the decoder given the last encoder state states[:, -1] (B, H) as its hidden state",
        """
        states, final = encoder(source)
        decoder(source[:, -1:], states[:, -1])
        """,
        ["hidden", r"\(1, ?b, ?h\)|\(1, 16, 4\)|unsqueeze|\[none\]"],
    ),
    case(
        "seq2seq.from_config_dict",
        "EncoderDecoder.from_config given a dict of sizes",
        "EncoderDecoder.from_config({'hidden_dim': 4, 'target_len': 2})",
        ["config", "seq2seqconfig"],
    ),
    case(
        "seq2seq.encoder_hidden_float",
        "Encoder(2, 4 * 1.5): the hidden width left a float",
        "Encoder(2, 4 * 1.5)",
        ["hidden_dim", "int|whole"],
    ),
    case(
        "seq2seq.decoder_features_differ",
        "an encoder of 2 features joined to a decoder of 3",
        "EncoderDecoder(Encoder(2, 4), Decoder(3, 4), target_len=2)(source)",
        ["n_features|features", r"\b2\b", r"\b3\b"],
    ),
    case(
        "seq2seq.empty_source",
        "the model given an empty source (a slice that kept no step)",
        "seq2seq(source[:, :0])",
        ["source", r"empty|\b0\b|at least one|no steps"],
    ),
    case(
        "seq2seq.decoder_returns_pair",
        "a student's decoder returning (out, hidden), without the third value, in EncoderDecoder",
        """
        class MyDecoder(Decoder):
            def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
                out, hidden = self.gru(x, hidden)
                return self.output(out), hidden

        EncoderDecoder(Encoder(2, 4), MyDecoder(2, 4), target_len=2)(source)
        """,
        ["decoder", r"\(out, ?hidden, ?weights\)|three|3 values|\(out, ?hidden, ?none\)"],
    ),
    # -- seq2seq_attention --------------------------------------------------------------------
    case(
        "seq2seq_attention.memory_time_major",
        "the AttentionDecoder given the encoder states transposed to (S, B, H) as memory",
        """
        states, final = encoder(source)
        attn_decoder(source[:, -1:], final, states.transpose(0, 1))
        """,
        ["memory", r"\(b, ?s, ?h\)|\(16, 2, 4\)|batch"],
    ),
    # -- squares ------------------------------------------------------------------------------
    case(
        "squares.source_len_zero",
        "split_source_target(points, source_len=0): no source point",
        "split_source_target(points, source_len=0)",
        ["source_len", "at least|positive|each side|between"],
    ),
    case(
        "squares.plot_predicted_other_source_len",
        "plot_squares(source_len=3) with predictions made for source_len=2",
        "plot_squares(points, directions, predicted=target, source_len=3)",
        ["predicted", r"\(16, 1, 2\)|source_len"],
    ),
    case(
        "squares.accuracy_of_directions",
        "corner_accuracy(predicted, directions): the labels where the target points go",
        "corner_accuracy(target, directions)",
        ["target", r"shape|\(16, 2, 2\)|\(16,\)"],
    ),
    case(
        "squares.plot_points_flat",
        "plot_squares of points flattened to (N, 8)",
        "plot_squares(points.reshape(16, 8), directions)",
        ["points", r"\(n, ?l, ?2\)|\(16, 8\)"],
    ),
    # -- points_transformer -------------------------------------------------------------------
    case(
        "points_transformer.train_target_too_long",
        "the self-attention model trained on a target of 3 points for target_len=2",
        """
        sa_model.train()
        sa_model(source, torch.cat([target, target[:, :1]], dim=1))
        """,
        ["target", r"target_len|\b2\b"],
    ),
    case(
        "points_transformer.target_one_feature",
        "the self-attention model trained on a target with one feature of two",
        """
        sa_model.train()
        sa_model(source, target[..., :1])
        """,
        ["target", r"n_features|\b2\b"],
    ),
    # -- lecture ------------------------------------------------------------------------------
    case(
        "lecture.train_epochs_zero",
        "lecture_train(..., epochs=0)",
        """
        from course_lib.lecture.seq2seq import (
            LectureDecoder, LectureEncoder, LectureEncoderDecoder,
        )
        train, val = lecture_loaders(points, points[:8])
        model = LectureEncoderDecoder(
            LectureEncoder(2, 4), LectureDecoder(2, 4), input_len=2, target_len=2
        )
        lecture_train(model, torch.optim.Adam(model.parameters()), train, val, 0)
        """,
        ["epochs", POSITIVE],
    ),
    case(
        "lecture.loaders_batch_float",
        "lecture_loaders(batch_size=len(points) / 4): a float batch size",
        "lecture_loaders(points, points[:8], batch_size=len(points) / 4)",
        ["batch_size", "int|whole"],
    ),
]
