"""Fresh mistakes with the translation task: data files, sentence pairs, vocabularies and
batches, the three translators, decoding, metrics and Holm's adjustment (see
``tools/probe_fresh.py``).

Ready-made (see ``mistake_cases.namespace``): ``pairs`` (``(french, english)``, normalised);
``src_vocab``, ``tgt_vocab``; ``ids``; ``batch`` (a ``PairBatch`` of 2); ``src`` ``(2, 4)``;
``transformer``, ``gru_translator``, ``deconly``; ``hyps``, ``refs`` (4 sentences each).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- datafiles ----------------------------------------------------------------------------
    case(
        "datafiles.sha_truncated",
        "DataFile with a checksum cut short (the first 12 hex digits copied)",
        "DataFile('eng-fra.txt.gz', ENG_FRA.sha256[:12], ENG_FRA.sources)",
        ["sha256", r"\b64\b"],
    ),
    case(
        "datafiles.read_empty_file",
        "read_text of an empty eng-fra.txt.gz (a download that wrote nothing)",
        """
        (tmp / "eng-fra.txt.gz").write_bytes(b"")
        read_text(tmp / "eng-fra.txt.gz", ENG_FRA)
        """,
        ["empty|0 bytes|no data|truncat|incomplete"],
    ),
    case(
        "datafiles.read_truncated_gzip",
        "read_text of a gzip file cut off in the middle (an interrupted download)",
        """
        import gzip
        data = gzip.compress("Go.\\tVa !\\n".encode() * 5000)
        (tmp / "eng-fra.txt.gz").write_bytes(data[:200])
        read_text(tmp / "eng-fra.txt.gz", ENG_FRA)
        """,
        ["truncat|incomplete|ended|damaged|corrupt|interrupted|partial"],
    ),
    # -- tatoeba ------------------------------------------------------------------------------
    case(
        "tatoeba.split_of_split",
        "split_pairs(split): the cell run twice, a Split where the pairs go",
        "split_pairs(split_pairs(pairs))",
        ["pairs", r"\bsplit\b"],
    ),
    case(
        "tatoeba.normalize_list",
        "normalize(sentences): a whole list where one sentence goes",
        "normalize([fr for fr, _ in pairs])",
        ["text", r"one (string|sentence)|\[normalize\(|for each|each sentence|one at a time"],
    ),
    case(
        "tatoeba.parse_bytes",
        "parse_pairs of the decompressed bytes, not decoded to text",
        """
        import gzip
        parse_pairs(gzip.decompress(gzip.compress("Go.\\tVa !\\n".encode())))
        """,
        ["text", "bytes|decode|read_text"],
    ),
    case(
        "tatoeba.groups_of_ids",
        "sentence_groups of the encoded id pairs, not the sentence pairs",
        "sentence_groups(ids)",
        ["pairs", "sentence|str"],
    ),
    case(
        "tatoeba.fractions_negative",
        "split_pairs(fractions=(0.9, 0.2, -0.1)): summing to 1 with a negative share",
        "split_pairs(pairs, fractions=(0.9, 0.2, -0.1))",
        ["fractions", "negative"],
    ),
    # -- vocab --------------------------------------------------------------------------------
    case(
        "vocab.batches_targets_with_sos",
        "PairBatches of targets encoded with sos=True (PairBatches adds <sos> itself)",
        """
        PairBatches(
            [(src_vocab.encode(fr), tgt_vocab.encode(en, sos=True)) for fr, en in pairs], 2
        )
        """,
        [r"<sos>|\bsos\b", r"encode_pairs|sos=false|without|adds"],
    ),
    case(
        "vocab.decode_float_ids",
        "tgt_vocab.decode of float ids",
        "tgt_vocab.decode(torch.tensor([4.0, 5.0, 2.0]))",
        ["ids", "int|integer|long"],
    ),
    case(
        "vocab.batches_size_float",
        "PairBatches(ids, len(ids) / 4): a float batch size",
        "PairBatches(ids, len(ids) / 4)",
        ["batch_size", "int|whole"],
    ),
    case(
        "vocab.generator_without_shuffle",
        "PairBatches(generator=...) without shuffle=True: the generator is never used",
        "PairBatches(ids, 2, generator=torch.Generator())",
        ["shuffle", "generator"],
        expect="warn",
    ),
    case(
        "vocab.unknown_words_of_list",
        "src_vocab.unknown_words of the whole list of sentences",
        "src_vocab.unknown_words([fr for fr, _ in pairs])",
        ["sentence", r"one (string|sentence)|str\b|each"],
    ),
    case(
        "vocab.encode_pairs_of_ids",
        "encode_pairs of pairs already encoded (the cell run twice)",
        "encode_pairs(ids, src_vocab, tgt_vocab)",
        ["pairs", "sentence|str|already|encoded"],
    ),
    case(
        "vocab.pad_empty_row",
        "pad of two sentences, one of them empty (no ids)",
        "pad([src_vocab.encode('je suis'), []])",
        ["empty", r"sequence|sentence|index|\b1\b"],
    ),
    # -- translation --------------------------------------------------------------------------
    case(
        "translation.loss_target_tgt_in",
        "translation_loss(logits, batch.tgt_in): the decoder's input where tgt_out goes",
        "translation_loss(transformer(batch.src, batch.tgt_in), batch.tgt_in)",
        ["target", r"tgt_out|<sos>|\bsos\b"],
        expect="warn",
    ),
    case(
        "translation.loss_of_pair",
        "translation_loss of the (logits, weights) pair need_weights=True returns",
        "translation_loss(transformer(batch.src, batch.tgt_in, need_weights=True), batch.tgt_out)",
        ["logits", "tuple|need_weights|pair"],
    ),
    case(
        "translation.loss_target_3d",
        "translation_loss with a target of shape (B, T, 1)",
        "translation_loss(transformer(batch.src, batch.tgt_in), batch.tgt_out.unsqueeze(-1))",
        ["target", r"\(b, ?t\)|\(2, \d+\)"],
    ),
    case(
        "translation.batch_to_gpu",
        "batch.to('gpu'): 'gpu' where PyTorch says 'cuda'",
        "batch.to('gpu')",
        ["gpu|device", "cuda"],
    ),
    case(
        "translation.loss_of_argmax",
        "translation_loss of the predicted ids (logits.argmax(-1)), not the logits",
        "translation_loss(transformer(batch.src, batch.tgt_in).argmax(-1), batch.tgt_out)",
        ["logits", r"\(b, ?t, ?v\)|argmax|float|scores"],
    ),
    # -- recurrent_translation ----------------------------------------------------------------
    case(
        "recurrent_translation.attention_bool",
        "RecurrentConfig(attention=True): a flag where 'bahdanau' is expected",
        "RecurrentConfig(len(src_vocab), len(tgt_vocab), attention=True)",
        ["attention", "bahdanau"],
    ),
    case(
        "recurrent_translation.init_cache_one_sentence",
        "gru_translator.init_cache of one sentence (S,) without its batch axis",
        "gru_translator.init_cache(src[0])",
        ["src", r"\(b, ?s\)|\[none\]|batch|unsqueeze"],
    ),
    # -- decoder_only -------------------------------------------------------------------------
    case(
        "decoder_only.src_left_padded",
        "the decoder-only model given a left-padded source (as LLM code pads)",
        """
        left = torch.tensor([
            [PAD] + src_vocab.encode("je suis ici"),
            src_vocab.encode("vous etes en retard"),
        ])
        deconly(left, batch.tgt_in)
        """,
        ["src", "right|left"],
    ),
    case(
        "decoder_only.dropout_one",
        "DecoderOnlyConfig(dropout=1.0): every activation dropped",
        "DecoderOnlyConfig(len(src_vocab), len(tgt_vocab), dropout=1.0)",
        ["dropout", r"\[0, ?1\)|below 1|less than 1|< ?1\b|smaller than 1"],
    ),
    # -- decoding -----------------------------------------------------------------------------
    case(
        "decoding.decode_one_argument",
        "translate(decode=lambda src: ...): a decoder that takes the source alone",
        """
        translate(transformer, ["je suis ici"], src_vocab, tgt_vocab,
                  decode=lambda src: greedy_decode(transformer, src))
        """,
        ["decode", r"model, src|two arguments|decode\(model"],
    ),
    case(
        "decoding.max_new_tokens_float",
        "greedy_decode(max_new_tokens=1.5 * S): a float budget",
        "greedy_decode(transformer, src, max_new_tokens=1.5 * src.shape[1])",
        ["max_new_tokens", "int|whole"],
    ),
    case(
        "decoding.src_with_sos",
        "greedy_decode of sources encoded with sos=True (the model never saw <sos> in a source)",
        "greedy_decode(transformer, pad([src_vocab.encode(fr, sos=True) for fr, _ in pairs[:2]]))",
        ["src", r"<sos>|\bsos\b"],
        expect="warn",
    ),
    case(
        "decoding.partial_with_model",
        "translate(decode=partial(beam_search, transformer, beam_size=4)): the model bound too",
        """
        translate(transformer, ["je suis ici"], src_vocab, tgt_vocab,
                  decode=partial(beam_search, transformer, beam_size=4))
        """,
        ["decode", r"partial\(beam_search, ?beam_size|without the model|twice|bound"],
    ),
    case(
        "decoding.translate_ids",
        "translate given a tensor of source ids instead of sentences",
        "translate(transformer, src, src_vocab, tgt_vocab)",
        ["sentences", "str|string|greedy_decode"],
    ),
    # -- metrics ------------------------------------------------------------------------------
    case(
        "metrics.perplexity_of_mean",
        "perplexity(mean_loss, n_tokens): the mean loss where the summed one goes",
        "perplexity(2.3, 5000)",
        ["total_nll", "sum|mean"],
        expect="warn",
    ),
    case(
        "metrics.paired_same_system",
        "paired_bootstrap(hyps, hyps, refs): a system compared with itself (a stale variable)",
        "paired_bootstrap(hyps, hyps, refs)",
        ["hypotheses_a|hypotheses_b|system", "identical|same"],
        expect="warn",
    ),
    case(
        "metrics.perplexity_nan",
        "perplexity of a NaN total (a run that diverged)",
        "perplexity(float('nan'), 100)",
        ["total_nll", "nan|finite"],
    ),
    case(
        "metrics.hypothesis_none",
        "corpus_bleu of hypotheses holding None (a translation that failed)",
        "corpus_bleu(hyps[:3] + [None], refs)",
        ["hypotheses", "none|str"],
    ),
    # -- multiple_comparisons -----------------------------------------------------------------
    case(
        "multiple_comparisons.holm_2d",
        "holm of a 2-D table of p-values (metric x pair)",
        "holm(np.array([[0.01, 0.2], [0.03, 0.5]]))",
        ["p_values", "2-d|one-dimensional|1-d|flat|ravel"],
    ),
]
