"""Measurement probe, half B: realistic slips in Chapters 5-7, their exercises and the README.

How it was written: a fixed sampling frame, fixed before any case ran. Every code cell of
``chapters/05_translation.ipynb``, ``chapters/06_gps_trajectories.ipynb`` and
``chapters/07_modern_transformers.ipynb``, of their student notebooks in ``exercises/``, and
the README's commands (``make grade``, ``COURSE_DEVICE``) was read in order; for each cell
that a student runs or adapts with a public name of ``course_lib`` (or a self-check
``check_*``), the 0-2 slips a student (or an instructor) most likely makes when adapting it
were written down, with the words a clear message must hold. The cell numbers are the
notebook's own cell indices (markdown cells counted), as in the earlier catalogues; for the
exercises, the index of the check cell in the student notebook.

Sources: the notebooks, the README, ``api.md`` and the public signatures and docstrings of
the names in each module's ``__all__``. The library's private checking code, the probes'
records and the repository's history were not read, and no case was run before this file
was complete. None repeats a case of the earlier catalogues (``tools/mistake_cases_*.py``)
nor a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``pairs`` (8 normalised ``(french, english)``
pairs), ``src_vocab``, ``tgt_vocab``, ``ids``, ``batch``, ``src`` ``(2, 4)``,
``transformer``, ``gru_translator``, ``deconly``, ``hyps``, ``refs``; the squares'
``seq2seq``, ``optimizer`` and ``train_loader``; the lecture's ``observed`` ``(20, 5, 3)``,
``future`` ``(20, 3, 3)``, ``features`` and ``rng``; ``tmp`` and ``run_cli``.
"""

from __future__ import annotations

from mistake_cases import case

_EXERCISES = "Path(__import__('course_lib').__file__).resolve().parents[1] / 'exercises'"

#: A tiny encoder-decoder config of the ready vocabularies' sizes, with ``{src}`` to fill in.
_SMALL_TRANSLATOR = (
    "TranslationConfig(\n"
    "    src_vocab={src}, tgt_vocab=len(tgt_vocab), d_model=8, num_heads=2, d_ff=16,\n"
    "    num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,\n"
    ")"
)

CASES = [
    # == Chapter 5: translation ===============================================================
    case(
        "tatoeba.m5_split_random_state",
        "[Ch. 5, cell 14] split_pairs(pairs, random_state=0): scikit-learn's train_test_split "
        "keyword for the seed",
        "split_pairs(pairs, random_state=0)",
        ["random_state", r"\bseed\b"],
    ),
    case(
        "tatoeba.m5_split_of_groups",
        "[Ch. 5, cell 14] split_pairs(groups, seed=0): the groups sentence_groups just returned "
        "(lists of pair indices), handed over as if the split needed them, not the pairs",
        """
        groups = sentence_groups(pairs)
        split_pairs(groups, seed=0)
        """,
        ["pairs", r"sentence_groups|groups itself|indices|index"],
    ),
    case(
        "vocab.m5_vocab_of_pairs",
        "[Ch. 5, cell 18] Vocab(split.train): the training pairs, not the French side of them "
        "(one vocabulary per language)",
        "Vocab(pairs)",
        [r"pairs?\b|tuple", r"fr for fr|one side|side of"],
    ),
    case(
        "vocab.m5_batches_seed_kwarg",
        "[Ch. 5, cell 22/38] PairBatches(ids, 4, shuffle=True, seed=0): a seed where the "
        "shuffling takes a torch.Generator (reseeded by fit(seed=...))",
        "PairBatches(ids, 4, shuffle=True, seed=0)",
        ["seed", r"generator"],
    ),
    case(
        "translation.m5_config_dim_feedforward",
        "[Ch. 5, cell 28] TranslationConfig(..., dim_feedforward=16): nn.Transformer's name for "
        "the feed-forward width on the course's config",
        """
        TranslationConfig(
            len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, dim_feedforward=16
        )
        """,
        ["dim_feedforward", r"\bd_ff\b"],
    ),
    case(
        "translation.m5_time_major",
        "[Ch. 5, cell 28] transformer(src.T, tgt_in.T): time-major (S, B) inputs, the layout of "
        "nn.Transformer's default batch_first=False that cell 30 shows beside it",
        """
        src3 = pad([src_vocab.encode(fr) for fr, _ in pairs[4:7]])  # (3, 5)
        tgt3 = pad([[SOS] + tgt_vocab.encode(en)[:-1] for _, en in pairs[4:7]])  # (3, 4)
        transformer(src3.T, tgt3.T)
        """,
        [r"batch.first|batch first|time.major|transpos|\(b, ?s\)"],
    ),
    case(
        "schedules.m5_noam_d_model",
        "[Ch. 5, cell 36] warmup_inverse_sqrt(optimizer, 300, d_model=256): the Annotated "
        "Transformer's NoamOpt, whose rate is scaled by d_model ** -0.5, where the peak is the "
        "optimizer's own learning rate",
        "warmup_inverse_sqrt(optimizer, 300, d_model=256)",
        ["d_model", r"\blr\b|learning rate|base rate|optimi[sz]er"],
    ),
    case(
        "train.m5_max_grad_norm",
        "[Ch. 5, cell 38] Trainer(..., max_grad_norm=1.0): Hugging Face's TrainingArguments name "
        "for the clipping the course calls clip_grad_norm",
        """
        Trainer(
            transformer, translation_loss, torch.optim.Adam(transformer.parameters()), "cpu",
            max_grad_norm=1.0,
        )
        """,
        ["max_grad_norm", "clip_grad_norm"],
    ),
    case(
        "train.m5_dataloader_of_ids",
        "[Ch. 5, cell 38] trainer.fit(DataLoader(train_ids, batch_size=4)): the encoded id "
        "pairs in a DataLoader (the Chapters 1-4 habit), which collates unpadded lists, instead "
        "of PairBatches",
        """
        trainer = Trainer(
            transformer, translation_loss, torch.optim.Adam(transformer.parameters()), "cpu",
            ignore_index=PAD,
        )
        trainer.fit(DataLoader(ids, batch_size=4), epochs=1, progress=False)
        """,
        [r"pairbatches"],
    ),
    case(
        "decoding.m5_translate_one_string",
        "[Ch. 5, cell 44] translate(transformer, fr, src_vocab, tgt_vocab): one sentence, "
        "without the list that cell 44 wraps it in ([fr])",
        'translate(transformer, "je suis content", src_vocab, tgt_vocab)',
        ["sentences", r"list|\[|one (string|sentence)"],
    ),
    case(
        "decoding.m5_use_cache",
        "[Ch. 5, cell 46] greedy_decode(model, src, use_cache=True): Hugging Face generate's "
        "switch for the key/value cache, where the course says recompute=",
        "greedy_decode(transformer, src, use_cache=True)",
        ["use_cache", "recompute"],
    ),
    case(
        "decoding.m5_decode_returns_none",
        "[Ch. 5, cell 46] a decode wrapper that logs its steps but forgets `return ids`, passed "
        "to translate(decode=...)",
        """
        def decode(model, src):
            out = greedy_decode(model, src)
            print(out.shape[1], "steps")

        translate(transformer, ["je suis content"], src_vocab, tgt_vocab, decode=decode)
        """,
        ["decode", r"none|return"],
    ),
    case(
        "metrics.m5_paired_n_bootstrap",
        "[Ch. 5, cell 51] paired_bootstrap(beam, greedy, refs, n_bootstrap=1000): corpus_bleu's "
        "keyword, two lines above, on the paired comparison (which says n_samples)",
        """
        other = ["i am glad", "he is tall", "we are late", "she is small"]
        paired_bootstrap(hyps, other, refs, metric="BLEU", n_bootstrap=1000)
        """,
        ["n_bootstrap", "n_samples"],
    ),
    case(
        "metrics.m5_bleu_tokenize",
        "[Ch. 5, cell 51] corpus_bleu(hyps, refs, tokenize='none'): sacrebleu's option, as the "
        "signature line invites, on the course's wrapper",
        'corpus_bleu(hyps, refs, tokenize="none")',
        ["tokenize", r"13a|fixed|standard|sacrebleu"],
    ),
    case(
        "vocab.m5_encode_pairs_vocab_tuple",
        "[Ch. 5, cell 63] encode_pairs(leaky_train, leaky_vocabs): the tuple of the two "
        "vocabularies, its * forgotten",
        """
        leaky_vocabs = (src_vocab, tgt_vocab)
        encode_pairs(pairs, leaky_vocabs)
        """,
        [r"tgt_vocab|two vocabular|vocabularies", r"\*|unpack|tuple"],
    ),
    case(
        "translation.m5_config_len_of_tuple",
        "[Ch. 5, cell 63] TranslationConfig(src_vocab=len(leaky_vocabs), ...): the length of the "
        "tuple of vocabularies (2), its [0] forgotten",
        "leaky_vocabs = (src_vocab, tgt_vocab)\n"
        "config = " + _SMALL_TRANSLATOR.format(src="len(leaky_vocabs)") + "\n"
        "TranslationTransformer(config)(batch.src, batch.tgt_in)",
        ["src_vocab", r"special|at least|len\(|\bids?\b"],
    ),
    case(
        "decoding.m5_translate_other_vocab",
        "[Ch. 5, cell 64] translate(leaky_model, ..., src_vocab, tgt_vocab): the grouped split's "
        "vocabularies (cell 18's names) for a model built on leaky_vocabs, of other sizes",
        """
        small = [pairs[0], pairs[2]]
        sv, tv = Vocab(fr for fr, _ in small), Vocab(en for _, en in small)
        leaky_model = TranslationTransformer(TranslationConfig(
            len(sv), len(tv), d_model=8, num_heads=2, d_ff=16,
            num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
        ))
        translate(leaky_model, ["vous etes en retard"], src_vocab, tgt_vocab)
        """,
        [r"vocab", r"size|model|trained"],
    ),
    case(
        "translation.m5_output_attentions",
        "[Ch. 5, cell 67] model(src, tgt_in, output_attentions=True): Hugging Face's switch for "
        "the attention weights, where the course says need_weights=True",
        "transformer(batch.src, batch.tgt_in, output_attentions=True)",
        ["output_attentions", "need_weights"],
    ),
    case(
        "translation.m5_weights_decoder_key",
        "[Ch. 5, cell 67] weights['decoder'][-1]: the cross-attention looked up under 'decoder' "
        "(encode's weights are 'encoder'), not 'cross'",
        """
        _, weights = transformer(batch.src, batch.tgt_in, need_weights=True)
        weights["decoder"][-1]
        """,
        ["decoder", r"cross"],
    ),
    case(
        "plots.m5_heatmaps_ncols",
        "[Ch. 5, cell 69] attention_heatmaps(w, ncols=2): matplotlib's plt.subplots keyword for "
        "the course's n_cols",
        "attention_heatmaps(torch.rand(4, 3, 5).softmax(-1), ncols=2)",
        ["ncols", "n_cols"],
    ),
    case(
        "translation.m5_encode_padding_mask",
        "[Ch. 5, cell 71] transformer.encode(src, src_key_padding_mask=src == PAD): the mask "
        "passed by hand, as nn.Transformer needs it, to a model that derives it from <pad>",
        "transformer.encode(src, src_key_padding_mask=src == PAD)",
        ["src_key_padding_mask", r"<pad>|\bpad\b|itself|deriv|automatic"],
    ),
    case(
        "recurrent_translation.m5_attention_additive",
        "[Ch. 5, cell 76] RecurrentConfig(..., attention='additive'): Chapter 2b's name for "
        "Bahdanau's score (AdditiveAttention) where the config says 'bahdanau'",
        'RecurrentConfig(len(src_vocab), len(tgt_vocab), attention="additive")',
        ["additive", "bahdanau"],
    ),
    case(
        "decoding.m5_translate_model_tuple",
        "[Ch. 5, cell 78] translate(recurrent['GRU + Bahdanau'], ...): the (model, history) "
        "pair cell 76 stores, not its model",
        """
        recurrent = {"GRU + Bahdanau": (gru_translator, {"loss": [1.0]})}
        translate(recurrent["GRU + Bahdanau"], ["je suis content"], src_vocab, tgt_vocab)
        """,
        ["model", r"tuple|\[0\]|unpack"],
    ),
    case(
        "multiple_comparisons.m5_alpha_confidence",
        "[Ch. 5, cell 84] significant(adjusted, alpha=0.95): the confidence level of the "
        "intervals where the error rate 0.05 goes, so nearly everything is 'significant'",
        "significant(holm([0.01, 0.04, 0.3]), alpha=0.95)",
        ["alpha", r"0\.05|confidence|error rate"],
        expect="warn",
    ),
    # == Chapter 5: exercises =================================================================
    case(
        "checks.m5_token_positions_swapped",
        "[Ch. 5 exercises, cell 13] token_positions returning (pe, ids): the two results in the "
        "other order",
        """
        def token_positions(sentence, vocab, d_model):
            ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
            return sinusoidal_encoding(len(ids), d_model), ids

        check_token_positions(token_positions)
        """,
        [r"\bids\b", r"order|swapped|first|\(ids, ?pe\)"],
    ),
    case(
        "checks.m5_token_positions_whole_table",
        "[Ch. 5 exercises, cell 13] token_positions returning sinusoidal_encoding(64, d_model), "
        "the whole table of a max_len (as PositionalEncoding keeps it), not one row per token",
        """
        def token_positions(sentence, vocab, d_model):
            ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
            return ids, sinusoidal_encoding(64, d_model)

        check_token_positions(token_positions)
        """,
        [r"\bpe\b|encoding", r"shape|rows"],
    ),
    case(
        "checks.m5_attention_shapes_head_width",
        "[Ch. 5 exercises, cell 18] attention_shapes giving the output one head's width, "
        "(B, Lq, D // H), as if the heads were not joined again",
        """
        def attention_shapes(B, Lq, Lk, D, H):
            return (B, Lq, D // H), (B, Lq, Lk), (B, H, Lq, Lk)

        check_attention_shapes(attention_shapes)
        """,
        ["output", r"concat|joined|width d\b|d_model|\(b, ?lq, ?d\)"],
    ),
    case(
        "checks.m5_self_mask_diagonal",
        "[Ch. 5 exercises, cell 27] decoder_self_attention_mask blocking the diagonal too "
        "(triu(0) for triu(1)): no token may attend to itself",
        """
        def decoder_self_attention_mask(tgt_in):
            T = tgt_in.shape[1]
            future = torch.ones(T, T, dtype=torch.bool).triu(0)
            return future[None] | (tgt_in == 0)[:, None, :]

        check_decoder_self_attention_mask(decoder_self_attention_mask)
        """,
        [r"diagonal|itself|own (position|token)|triu\(1\)"],
    ),
    case(
        "checks.m5_cached_step_softmax_dim",
        "[Ch. 5 exercises, cell 30] cached_attention_step taking the softmax over dim=1, the "
        "single query, so every weight is 1",
        """
        def cached_attention_step(q, k, v, cache_k, cache_v):
            keys = torch.cat([cache_k, k], dim=1)
            values = torch.cat([cache_v, v], dim=1)
            scores = q @ keys.transpose(1, 2) / q.shape[-1] ** 0.5
            context = torch.softmax(scores, dim=1) @ values
            return context, keys, values

        check_cached_attention_step(cached_attention_step)
        """,
        [r"softmax|weights", r"last (axis|dim)|dim ?= ?-1|over the keys|sum"],
    ),
    case(
        "checks.m5_label_smoothing_sign",
        "[Ch. 5 exercises, cell 33] label_smoothed_loss without the minus sign: the expected "
        "log-probability, a negative number, where the cross-entropy goes",
        """
        def label_smoothed_loss(logits, target, epsilon):
            log_p = torch.log_softmax(logits, dim=-1)
            V = logits.shape[-1]
            soft = torch.full_like(log_p, epsilon / V)
            soft.scatter_add_(1, target[:, None], torch.full_like(log_p[:, :1], 1 - epsilon))
            return (soft * log_p).sum(-1).mean()

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        [r"negative|sign|minus"],
    ),
    # == Chapter 6: GPS trajectories ==========================================================
    case(
        "gps.m6_seed_keyword",
        "[Ch. 6, cell 4] lecture_trajectories(20, seed=2024): the seed handed over by name, "
        "where the generator takes a NumPy Generator as rng=",
        "lecture_trajectories(20, seed=2024)",
        ["seed", r"\brng\b|default_rng|generator"],
    ),
    case(
        "trajectories.m6_relative_of_batch",
        "[Ch. 6, cell 6] plot_in_metres given the whole split: relative_metres(observed[None], "
        "future[None]) of arrays already (N, L, 3), so (1, N, L, 3)",
        "relative_metres(observed[None], future[None])",
        [r"\(n, ?[ls]|trajector", r"4|dimension|\[none\]|one trajectory|axes"],
    ),
    case(
        "gps.m6_city_interval_min",
        "[Ch. 6, cell 11] CityConfig(interval_min=15): the lecture generator's parameter (minutes) "
        "on the city generator's config, which says interval_s",
        "CityConfig(interval_min=15)",
        ["interval_min", "interval_s"],
    ),
    case(
        "gps.m6_cruise_kmh",
        "[Ch. 6, cell 11] CityConfig(cruise_mean=(5, 15, 30)): cruising speeds in km/h where the "
        "config takes m/s (walkers at 18 km/h, cars at 108 km/h in the centre)",
        """
        cfg = CityConfig(cruise_mean=(5.0, 15.0, 30.0))
        city_trajectories(5, rng=rng, config=cfg)
        """,
        ["cruise_mean", r"m/s|metres per second|km/h"],
        expect="warn",
    ),
    case(
        "trajectories.m6_features_transform",
        "[Ch. 6, cell 15] features.transform(observed): scikit-learn's method name on "
        "TrajectoryFeatures, which says encode",
        "features.transform(observed)",
        ["transform", "encode"],
    ),
    case(
        "points_transformer.m6_encoder_decoder_layers",
        "[Ch. 6, cell 20] SelfAttentionConfig(..., num_encoder_layers=2, num_decoder_layers=2): "
        "Chapter 5's TranslationConfig names on the points model's config (num_layers)",
        """
        SelfAttentionConfig(
            n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3,
            num_encoder_layers=2, num_decoder_layers=2,
        )
        """,
        ["num_encoder_layers", r"\bnum_layers\b"],
    ),
    case(
        "trajectories.m6_teacher_forcing_prob",
        "[Ch. 6, cell 21] trajectory_datasets(..., teacher_forcing=0.5): the model's coin "
        "probability where the datasets take a switch (True: hand the target over)",
        """
        trajectory_datasets(
            features, (observed, future), (observed, future), teacher_forcing=0.5
        )
        """,
        ["teacher_forcing", r"\bbool|true|false|teacher_forcing_prob"],
    ),
    case(
        "train.m6_steplr_in_epochs",
        "[Ch. 6, cell 21] Trainer(scheduler=StepLR(optimizer, step_size=10)): an epoch-based "
        "schedule (decay every 10 epochs, the PyTorch tutorials' habit) in a Trainer that steps "
        "it after every batch",
        """
        schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
        steplr = Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu", scheduler=schedule)
        steplr.fit(train_loader, epochs=1, progress=False)
        """,
        [r"steplr|step_size", r"every (optimi[sz]er )?step|per (batch|step)|each batch|epoch"],
        expect="warn",
    ),
    case(
        "gps.m6_replace_gps_noise",
        "[Ch. 6, cell 39] dataclasses.replace(walkers, gps_noise=0.0): the noise field without "
        "its unit suffix (gps_noise_m)",
        """
        import dataclasses

        dataclasses.replace(CityConfig(), gps_noise=0.0)
        """,
        ["gps_noise", "gps_noise_m"],
    ),
    case(
        "trajectories.m6_errors_one_trajectory",
        "[Ch. 6, cell 41] displacement_errors(p[k], ahead20[k]): one trajectory's (T, 2) and "
        "(T, 3) rows, where the cell keeps the batch axis with p[k:k + 1]",
        """
        p = stay(observed, 3)
        displacement_errors(p[0], future[0])
        """,
        [r"\(n, ?t|trajector|batch", r"2-d|dimension|one trajectory|\[none\]|k:k|0:1"],
    ),
    # == Chapter 6: exercises =================================================================
    case(
        "checks.m6_plot_no_return",
        "[Ch. 6 exercises, cell 7] plot_trajectories ending in plt.show() and returning nothing "
        "(the figure the check reads is never handed back)",
        """
        def plot_trajectories(observed, future, n):
            fig, ax = plt.subplots()
            for k in range(n):
                seen = to_local(observed[k, :, :2], FLORENCE)
                ahead = to_local(future[k, :, :2], FLORENCE)
                ax.plot(seen[:, 0], seen[:, 1], "o-")
                ax.plot(ahead[:, 0], ahead[:, 1], "s--")
            ax.set_aspect("equal")
            plt.show()

        check_plot_trajectories(plot_trajectories, observed, future, 5)
        """,
        [r"return", r"fig|figure"],
    ),
    case(
        "checks.m6_datasets_observed_statistics",
        "[Ch. 6 exercises, cell 10] make_datasets standardising with the statistics of the "
        "observed fixes only, the training futures left out",
        """
        def make_datasets(train, valid):
            def metres(obs, fut):
                origin = obs[:, -1:, :2]
                return to_local(obs[..., :2], origin), to_local(fut[..., :2], origin)

            seen, _ = metres(*train)
            mean, std = seen.reshape(-1, 2).mean(0), seen.reshape(-1, 2).std(0)

            def dataset(split):
                s, t = (torch.tensor((x - mean) / std, dtype=torch.float32)
                        for x in metres(*split))
                return TensorDataset(s, t)

            return dataset(train), dataset(valid)

        check_datasets(make_datasets)
        """,
        [r"future", r"mean|std|statistic|standardi"],
    ),
    case(
        "checks.m6_datasets_florence_origin",
        "[Ch. 6 exercises, cell 10] make_datasets measuring metres from Florence's centre "
        "(exercise 1's to_local(..., FLORENCE)), not from each trajectory's last observed fix",
        """
        def make_datasets(train, valid):
            def metres(obs, fut):
                return to_local(obs[..., :2], FLORENCE), to_local(fut[..., :2], FLORENCE)

            src, tgt = metres(*train)
            both = np.concatenate([src, tgt], axis=1).reshape(-1, 2)
            mean, std = both.mean(0), both.std(0)

            def dataset(split):
                s, t = (torch.tensor((x - mean) / std, dtype=torch.float32)
                        for x in metres(*split))
                return TensorDataset(s, t)

            return dataset(train), dataset(valid)

        check_datasets(make_datasets)
        """,
        [r"last (observed )?fix"],
    ),
    case(
        "checks.m6_models_plain_decoder",
        "[Ch. 6 exercises, cell 13] build_models copying the GRU line for 'GRU + attention': "
        "a plain Decoder where the AttentionDecoder goes",
        """
        def build_models():
            return {
                "GRU": EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5),
                "GRU + attention": EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5),
                "self-attention": SelfAttentionEncoderDecoder(SelfAttentionConfig(
                    n_features=2, d_model=32, num_heads=4, d_ff=64, target_len=3,
                    num_layers=2,
                )),
            }

        check_models(build_models)
        """,
        [r"gru \+ attention", r"attentiondecoder|attention decoder"],
    ),
    case(
        "checks.m6_training_fit_forgotten",
        "[Ch. 6 exercises, cell 18] train_attention_gru building the loader and the Trainer and "
        "returning it without calling fit: nothing trained",
        """
        def train_attention_gru(train_set, valid_set, epochs=15):
            torch.manual_seed(0)
            model = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5)
            src, tgt = train_set.tensors
            loader = DataLoader(TensorDataset(src, tgt, tgt), batch_size=64, shuffle=True,
                                generator=torch.Generator())
            return Trainer(model, nn.MSELoss(),
                           torch.optim.Adam(model.parameters(), lr=1e-3), "cpu")

        ex_train = city_trajectories(200, rng=np.random.default_rng([7, 0]))
        ex_valid = city_trajectories(50, rng=np.random.default_rng([7, 1]))
        check_training(train_attention_gru, ex_train, ex_valid)
        """,
        [r"fit|epochs?", r"0 epochs|no epochs?|not (been )?trained|never|untrained|15"],
    ),
    case(
        "checks.m6_inverse_applies_forward",
        "[Ch. 6 exercises, cell 21] inverse_transform computing (predicted - mean) / std, the "
        "forward standardisation again, instead of predicted * std + mean",
        """
        def inverse_transform(predicted, observed, mean, std):
            metres = (np.asarray(predicted) - mean) / std
            return from_local(metres, observed[:, -1:, :2])

        check_inverse_transform(inverse_transform)
        """,
        [r"std|standardi", r"multipl|\* ?std|undo|invert|inverse"],
    ),
    case(
        "checks.m6_haversine_no_arcsin",
        "[Ch. 6 exercises, cell 24] my_haversine returning 2 R sqrt(h), the arcsin forgotten "
        "(right to the millimetre across a city, wrong between far places)",
        """
        def my_haversine(a, b):
            p, q = np.radians(a), np.radians(b)
            dlat, dlon = q[..., 0] - p[..., 0], q[..., 1] - p[..., 1]
            h = (np.sin(dlat / 2) ** 2
                 + np.cos(p[..., 0]) * np.cos(q[..., 0]) * np.sin(dlon / 2) ** 2)
            return 2 * EARTH_RADIUS_M * np.sqrt(h)

        check_haversine(my_haversine)
        """,
        [r"arcsin|asin|long distance|far apart"],
    ),
    case(
        "checks.m6_ade_fde_per_trajectory",
        "[Ch. 6 exercises, cell 24] my_ade_fde returning each trajectory's ADE and FDE (arrays "
        "(N,)), not their averages over the trajectories",
        """
        def my_ade_fde(predicted, true):
            d = haversine(predicted, true)
            return d.mean(axis=1), d[:, -1]

        check_ade_fde(my_ade_fde)
        """,
        [r"number|float|scalar", r"trajector|mean|average"],
    ),
    case(
        "checks.m6_velocity_fixed_interval",
        "[Ch. 6 exercises, cell 27] my_constant_velocity dividing the last step by 20 s, the "
        "city's interval, not by the time between the last two fixes",
        """
        def my_constant_velocity(observed, times):
            origin = observed[:, -1, :2]
            velocity = -to_local(observed[:, -2, :2], origin) / 20.0
            ahead = times - observed[:, -1:, 2]
            return from_local(velocity[:, None] * ahead[..., None], origin[:, None])

        check_constant_velocity(my_constant_velocity)
        """,
        [r"time between|timestamps?|interval|spacing|uneven|irregular"],
    ),
    case(
        "checks.m6_plot_predictions_one_panel",
        "[Ch. 6 exercises, cell 33] plot_predictions drawing all n trajectories on one set of "
        "axes, not one panel each",
        """
        def plot_predictions(observed, future, predictions, n):
            fig, ax = plt.subplots()
            for k in range(n):
                origin = observed[k, -1, :2]
                ax.plot(*to_local(observed[k, :, :2], origin).T, "o-")
                ax.plot(*to_local(future[k, :, :2], origin).T, "s-")
                for name, p in predictions.items():
                    ax.plot(*to_local(p[k], origin).T, "x--", label=name)
            ax.set_aspect("equal")
            return fig

        check_plot_predictions(plot_predictions, observed, future, 4)
        """,
        [r"panel|axes|subplot", r"one per|each trajectory|per trajectory|\b4\b"],
    ),
    case(
        "checks.m6_stay_floor_no_walk",
        "[Ch. 6 exercises, cell 37] stay_ade drawing each future fix as an independent offset "
        "from the start (np.cumsum forgotten): no random walk",
        """
        def stay_ade(n, rng):
            start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
            future = start + rng.uniform(-0.001, 0.001, (n, 3, 2))
            return haversine(start, future).mean()

        check_stay_floor(stay_ade)
        """,
        [r"cumsum|cumulat|walk|accumulat|add up|each step"],
    ),
    # == Chapter 7: modern Transformers =======================================================
    case(
        "decoder_only.m7_positions_rope",
        "[Ch. 7, cell 11] DecoderOnlyConfig(..., positions='rope'): the usual abbreviation where "
        "the config says 'rotary'",
        """
        DecoderOnlyConfig(
            len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16, num_layers=1,
            positions="rope",
        )
        """,
        ["rope", "rotary"],
    ),
    case(
        "decoder_only.m7_gpt2_names",
        "[Ch. 7, cell 11] DecoderOnlyConfig(..., n_embd=128, n_head=4, n_layer=3): GPT-2's (and "
        "nanoGPT's) names for the sizes",
        "DecoderOnlyConfig(len(src_vocab), len(tgt_vocab), n_embd=128, n_head=4, n_layer=3)",
        [r"n_embd|n_head|n_layer", r"d_model|num_heads|num_layers"],
    ),
    case(
        "decoder_only.m7_generate",
        "[Ch. 7, cell 14] model.generate(src, max_new_tokens=10): a Hugging Face causal LM's "
        "method, where the course decodes with greedy_decode(model, src)",
        'deconly.generate(pad([src_vocab.encode("je suis content")]), max_new_tokens=10)',
        ["generate", r"greedy_decode|beam_search|translate"],
    ),
    case(
        "decoding.m7_translate_trainer",
        "[Ch. 7, cell 16] translate(trainer, val_fr, ...) inside the end-of-epoch hook: the "
        "Trainer where trainer.model goes",
        """
        decoder_trainer = Trainer(
            deconly, translation_loss, torch.optim.Adam(deconly.parameters()), "cpu",
            ignore_index=PAD,
        )
        translate(decoder_trainer, ["je suis content"], src_vocab, tgt_vocab)
        """,
        ["trainer", r"\.model"],
    ),
    case(
        "rotary.m7_start_pos",
        "[Ch. 7, cell 27] apply_rotary(q[None], start_pos=3): the name of Llama's reference code "
        "for the position of the first row",
        "apply_rotary(torch.tensor([[1.0, 0.0]]), start_pos=3)",
        ["start_pos", r"\bstart\b"],
    ),
    case(
        "multihead.m7_num_key_value_heads",
        "[Ch. 7, cell 33] MultiHeadAttention(128, 4, num_key_value_heads=2): the name of Hugging "
        "Face's Llama config for the key/value heads",
        "MultiHeadAttention(128, 4, num_key_value_heads=2)",
        ["num_key_value_heads", "num_kv_heads"],
    ),
    case(
        "decoder_only.m7_multi_query",
        "[Ch. 7, cell 37] DecoderOnlyConfig(..., multi_query=True): Falcon's switch for one "
        "key/value head, where the course sets num_kv_heads=1",
        """
        DecoderOnlyConfig(
            len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16, num_layers=1,
            multi_query=True,
        )
        """,
        ["multi_query", "num_kv_heads"],
    ),
    case(
        "modern_block.m7_swiglu_bias",
        "[Ch. 7, cell 42] SwiGLU(256, 341, bias=True): nn.Linear's switch on a feed-forward that "
        "has no biases",
        "SwiGLU(256, 341, bias=True)",
        ["bias", r"no bias|without bias|bias-free|has none"],
    ),
    case(
        "attention.m7_sdpa_inverted_causal",
        "[Ch. 7, cell 45] scaled_dot_product_attention(q, k, v, attn_mask=~causal_mask(6)): the "
        "fused function's polarity (True = may attend) carried over to the course's function",
        """
        g = torch.Generator().manual_seed(0)
        q4, k4, v4 = (torch.randn(2, 4, 6, 16, generator=g) for _ in range(3))
        scaled_dot_product_attention(q4, k4, v4, attn_mask=~causal_mask(6))
        """,
        [r"polarity|true ?= ?blocked|true means blocked|invert|~|opposite"],
        expect="warn",
    ),
    case(
        "masking.m7_window_swapped",
        "[Ch. 7, cell 49] sliding_window_mask(3, 8): the window first and the length second, so "
        "the 'window' of 8 covers a sequence of 3 and blocks nothing a causal mask would not",
        "sliding_window_mask(3, 8)",
        ["window", r"size|longer|larger|causal_mask"],
        expect="warn",
    ),
    # == Chapter 7: exercises =================================================================
    case(
        "checks.m7_rotate_pairs_from_one",
        "[Ch. 7 exercises, cell 5] rotate_pairs counting positions from start + 1 "
        "(arange(start + 1, start + L + 1)): every row turned one position too far",
        """
        def rotate_pairs(x, start):
            L, Dh = x.shape
            positions = torch.arange(start + 1, start + L + 1, dtype=x.dtype)
            speeds = 10000 ** (-torch.arange(0, Dh, 2, dtype=x.dtype) / Dh)
            angles = positions[:, None] * speeds
            a, b = x[:, 0::2], x[:, 1::2]
            out = torch.empty_like(x)
            out[:, 0::2] = a * angles.cos() - b * angles.sin()
            out[:, 1::2] = a * angles.sin() + b * angles.cos()
            return out

        check_rotate_pairs(rotate_pairs)
        """,
        [r"position|start", r"\bone\b|off by|shift|\+ ?1"],
    ),
    case(
        "checks.m7_repeat_kv_by_num_heads",
        "[Ch. 7 exercises, cell 9] repeat_kv repeating every key/value head num_heads times, not "
        "num_heads / num_kv_heads times: Nkv * Nh heads",
        """
        def repeat_kv(kv, num_heads):
            return kv.repeat_interleave(num_heads, dim=1)

        check_repeat_kv(repeat_kv)
        """,
        [r"shape|heads", r"num_heads ?/|group|\bg\b|nh ?/ ?nkv"],
    ),
    case(
        "checks.m7_cache_bytes_float32",
        "[Ch. 7 exercises, cell 12] cache_bytes with the 4 bytes of float32 written in, as in the "
        "chapter's formula of cell 37, bytes_per_number ignored",
        """
        def cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens):
            return 2 * num_layers * num_kv_heads * head_dim * 4 * tokens

        check_cache_bytes(cache_bytes)
        """,
        ["bytes_per_number"],
    ),
    case(
        "checks.m7_prefix_mask_source_sees_targets",
        "[Ch. 7 exercises, cell 16] prefix_mask unblocking whole source rows (mask[:S, :] = "
        "False): the source tokens also see the target tokens after them",
        """
        def prefix_mask(S, T):
            mask = causal_mask(S + T)
            mask[:S, :] = False
            return mask

        check_prefix_mask(prefix_mask)
        """,
        [r"source", r"target|future|causal"],
    ),
    # == README: the instructor's commands ====================================================
    case(
        "grading.mr_exercises_notebook",
        "[README, make grade] --exercises naming the student notebook itself (the instructor's "
        "edited copy), where the folder of the student notebooks goes",
        f"""
        run_cli([
            "--chapter", "05",
            "--exercises", str({_EXERCISES} / "05_translation_exercises.ipynb"),
            "--submissions", str(tmp), "--out", str(tmp / "out"),
        ])
        """,
        ["exercises", r"folder|directory"],
    ),
    case(
        "grading.mr_gradescope_with_submissions",
        "[README, Gradescope] --gradescope autograder.zip together with --submissions and --out: "
        "the two modes mixed, as if the autograder also graded the class here",
        """
        subs = tmp / "subs"
        subs.mkdir()
        run_cli([
            "--chapter", "05", "--gradescope", str(tmp / "autograder.zip"),
            "--submissions", str(subs), "--out", str(tmp / "out"),
        ])
        """,
        ["gradescope", r"submissions"],
    ),
    case(
        "train.mr_course_device_second_gpu",
        "[README, GPU and Apple silicon] COURSE_DEVICE=cuda:1, the README's example for another "
        "GPU, copied onto a machine without a second GPU",
        """
        os.environ["COURSE_DEVICE"] = "cuda:1"
        default_device.cache_clear()
        try:
            default_device()
        finally:
            os.environ.pop("COURSE_DEVICE")
            default_device.cache_clear()
        """,
        ["course_device", r"\bcpu\b|cuda:0|unset"],
    ),
]
