"""Final-probe mistakes with the recurrent models, the squares task, the self-attention model
for points and the lecture's training helpers (see ``tools/probe_final.py``).

Written, with their expected answers and keywords, from the chapters' cells, ``api.md`` and the
public signatures and docstrings alone, before any of them ran; none repeats a case of the
three earlier catalogues, nor a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``points`` ``(16, 4, 2)`` and ``directions``;
``source``, ``target`` ``(16, 2, 2)``; ``encoder``, ``decoder`` (``Encoder(2, 4)``,
``Decoder(2, 4)``); ``train_set``, ``val_set``, ``train_loader``, ``val_loader``; ``trainer``
(the GRU encoder-decoder ``seq2seq``).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- seq2seq ------------------------------------------------------------------------------
    case(
        "seq2seq.decoder_init_hidden",
        "[Ch. 1, cell 15 vs 30] decoder.init_hidden(states) on the library's Decoder, as on the "
        "lecture's LectureDecoder",
        """
        states, hidden = encoder(source)
        decoder.init_hidden(states)
        """,
        ["init_hidden", r"pass|argument"],
    ),
    case(
        "seq2seq.decoder_without_hidden",
        "[Ch. 1, cell 15 vs 30] the library's Decoder called without its state, the lecture's "
        "decoder(inputs) habit",
        """
        states, hidden = encoder(source)
        out, hidden, _ = decoder(source[:, -1:])
        """,
        ["hidden"],
    ),
    case(
        "seq2seq.model_from_config_constructor",
        "[Ch. 1, cell 36] EncoderDecoder(config): the config passed to the constructor, not to "
        "EncoderDecoder.from_config",
        "EncoderDecoder(Seq2SeqConfig(n_features=2, hidden_dim=2, target_len=2))",
        ["from_config"],
    ),
    case(
        "seq2seq.from_config_class",
        "[Ch. 1, cell 44] EncoderDecoder.from_config(Seq2SeqConfig): the class, without ()",
        "EncoderDecoder.from_config(Seq2SeqConfig)",
        ["config", r"instance|\(\)|class"],
    ),
    case(
        "seq2seq.model_alphas_attribute",
        "[Ch. 2c, cell 43/45] lib_model.alphas after a call: the lecture model's stored weights "
        "read from the library's EncoderDecoder",
        """
        lib_model = EncoderDecoder(Encoder(2, 2), AttentionDecoder(2, 2), target_len=2).eval()
        with torch.no_grad():
            predictions = lib_model(source)
        lib_model.alphas
        """,
        ["alphas", "need_weights"],
    ),
    case(
        "seq2seq.target_len_prob_swapped",
        "[Ch. 6, cell 20] EncoderDecoder(enc, dec, 0.5, 3): target_len and teacher_forcing_prob "
        "given positionally in the wrong order",
        "EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 0.5, 3)",
        [
            r"target_len|teacher_forcing_prob",
            r"int|whole|integer|swap|order|probability|\[0, 1",
        ],
    ),
    case(
        "seq2seq.input_len_kwarg",
        "[Ch. 1, cell 24 vs 31] EncoderDecoder(encoder, decoder, input_len=2, target_len=2): the "
        "lecture model's input_len on the library's class",
        "EncoderDecoder(encoder, decoder, input_len=2, target_len=2)",
        ["input_len", "source"],
    ),
    # -- seq2seq_attention --------------------------------------------------------------------
    case(
        "seq2seq_attention.hidden_memory_swapped",
        "[Ch. 2c, cell 67] bahdanau(x, memory, hidden): the state and the encoder's states swapped",
        """
        bahdanau = BahdanauDecoder(n_features=2, hidden_dim=2)
        x_steps = torch.randn(3, 2, 2)
        hidden = torch.randn(1, 3, 2)
        memory = torch.randn(3, 4, 2)
        bahdanau(x_steps, memory, hidden)
        """,
        [
            r"hidden|memory",
            r"swap|order|\(1, ?b, ?h\)|\(1, 3, 2\)|layers first|\(b, ?s, ?h\)",
        ],
    ),
    # -- squares ------------------------------------------------------------------------------
    case(
        "squares.plot_more_predictions",
        "[Ch. 1, cell 40] plot_squares(points[:4], directions[:4], predicted=predicted): every "
        "prediction kept, [:4] forgotten on it",
        """
        predicted = trainer.predict(source)
        plot_squares(points[:4], directions[:4], predicted=predicted)
        """,
        ["predicted", r"\b(4|16)\b"],
    ),
    case(
        "squares.plot_without_directions",
        "[Ch. 1, cell 40] plot_squares(points[:4], predicted=...): the directions left out",
        "plot_squares(points[:4], predicted=trainer.predict(source[:4]))",
        ["directions"],
    ),
    case(
        "squares.split_input_len_kwarg",
        "[Ch. 1, cell 39] split_source_target(test_points, input_len=2): the lecture model's "
        "name for source_len",
        "split_source_target(points, input_len=2)",
        ["input_len", "source_len"],
    ),
    # -- points_transformer -------------------------------------------------------------------
    case(
        "points_transformer.lecture_arguments",
        "[Ch. 3, cell 45 / Ch. 4, cell 64] SelfAttentionEncoderDecoder(encself, decself, "
        "input_len=2, target_len=2): the lecture model's signature on the library's class",
        """
        from course_lib.lecture.self_attention import (
            LectureDecoderSelfAttn,
            LectureEncoderSelfAttn,
        )

        encself = LectureEncoderSelfAttn(n_heads=3, d_model=2, ff_units=10, n_features=2)
        decself = LectureDecoderSelfAttn(n_heads=3, d_model=2, ff_units=10, n_features=2)
        SelfAttentionEncoderDecoder(encself, decself, input_len=2, target_len=2)
        """,
        ["config", "selfattentionconfig"],
    ),
    # -- lecture ------------------------------------------------------------------------------
    case(
        "lecture.train_seq2seq_loaders",
        "[Ch. 2c, cells 40-49] lecture_train given the library's loaders (training items "
        "(source, target, target)) instead of lecture_loaders'",
        """
        from course_lib.lecture.seq2seq import (
            LectureDecoder,
            LectureEncoder,
            LectureEncoderDecoder,
        )

        lecture_model = LectureEncoderDecoder(
            LectureEncoder(2, 2), LectureDecoder(2, 2), input_len=2, target_len=2
        )
        opt = torch.optim.Adam(lecture_model.parameters(), lr=0.01)
        lecture_train(lecture_model, opt, train_loader, val_loader, epochs=1)
        """,
        ["train_loader", r"lecture_loaders|\(x, ?y\)|pairs|two|2-tuple|\(source, ?target\)"],
    ),
]
