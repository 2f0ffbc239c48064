"""Held-out mistakes with the translation task: data files, sentence pairs, vocabularies, the
three translators, decoding, metrics and Holm's adjustment (see ``tools/probe_heldout.py``).

Ready-made (see ``mistake_cases.namespace``): ``pairs`` (``(french, english)``, normalised);
``src_vocab``, ``tgt_vocab``; ``ids``; ``batch`` (a ``PairBatch`` of 2); ``src`` ``(2, 4)``;
``transformer``, ``gru_translator``, ``deconly``; ``hyps``, ``refs`` (4 sentences each).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- datafiles ----------------------------------------------------------------------------
    case(
        "datafiles.load_text_of_path",
        "load_text('eng-fra.txt.gz'): a path where the DataFile spec goes",
        "load_text('eng-fra.txt.gz')",
        ["datafile", "read_text"],
    ),
    case(
        "datafiles.fetch_offline_missing",
        "fetch(download=False) with no local copy in the data folder",
        """
        os.environ["COURSE_DATA_DIR"] = str(tmp)
        fetch(download=False)
        """,
        ["download", "eng-fra"],
    ),
    case(
        "datafiles.no_sources",
        "DataFile(sources=()): no place to download it from",
        "DataFile('x.gz', ENG_FRA.sha256, ())",
        ["sources", "no |empty|at least"],
    ),
    case(
        "datafiles.read_other_text",
        "read_text of a gzip file holding another text (a trimmed copy) than ENG_FRA",
        """
        import gzip
        path = tmp / "eng-fra.txt.gz"
        path.write_bytes(gzip.compress("Go.\\tVa !\\n".encode()))
        read_text(path, ENG_FRA)
        """,
        [r"eng-fra\.txt\.gz", "checksum|sha|damaged|other|differ"],
    ),
    case(
        "datafiles.member_empty",
        "Source(member=''): an empty path inside the zip",
        "Source('https://example.org/data.zip', member='')",
        ["member", "empty"],
    ),
    case(
        "datafiles.data_dir_is_file",
        "COURSE_DATA_DIR set to the data file itself, not its folder",
        """
        (tmp / "eng-fra.txt.gz").write_bytes(b"")
        os.environ["COURSE_DATA_DIR"] = str(tmp / "eng-fra.txt.gz")
        data_dir()
        """,
        ["course_data_dir", "folder|directory"],
    ),
    # -- tatoeba ------------------------------------------------------------------------------
    case(
        "tatoeba.normalize_pair",
        "normalize(pair): a (french, english) pair where one sentence is expected",
        "normalize(pairs[0])",
        ["tuple|pair", "str"],
    ),
    case(
        "tatoeba.load_pairs_of_spec",
        "load_pairs(ENG_FRA): the DataFile where a path goes",
        "load_pairs(ENG_FRA)",
        ["path", "datafile"],
    ),
    case(
        "tatoeba.split_fractions_sum",
        "split_pairs(fractions=(0.8, 0.1, 0.2)): shares summing to 1.1",
        "split_pairs(pairs, fractions=(0.8, 0.1, 0.2))",
        ["fractions", r"sum|add up|\b1\b"],
    ),
    case(
        "tatoeba.filter_max_words_zero",
        "tutorial_filter(max_words=0)",
        "tutorial_filter([(en, fr) for fr, en in pairs], max_words=0)",
        ["max_words", POSITIVE],
    ),
    case(
        "tatoeba.filter_french_first",
        "tutorial_filter of (french, english) pairs, after load_pairs' reverse=True",
        "tutorial_filter(pairs)",
        ["english", "french"],
    ),
    case(
        "tatoeba.parse_path",
        "parse_pairs(path): the file's path where its text is expected",
        "parse_pairs(tmp / 'eng-fra.txt')",
        ["text", "path|read_text|load_text"],
    ),
    # -- vocab --------------------------------------------------------------------------------
    case(
        "vocab.generator_used_up",
        "a generator of sentences used for a second Vocab (the cell run twice)",
        """
        french = (fr for fr, _ in pairs)
        Vocab(french)
        Vocab(french)
        """,
        ["sentences", "generator|used up|exhausted|empty"],
    ),
    case(
        "vocab.decode_batch",
        "tgt_vocab.decode of a whole batch (B, T)",
        "tgt_vocab.decode(batch.tgt_out)",
        ["ids", r"batch|one sentence|\(b, t\)|\[0\]"],
    ),
    case(
        "vocab.decode_logits",
        "tgt_vocab.decode of one sentence's logits (T, V), without argmax",
        "tgt_vocab.decode(transformer(src, batch.tgt_in)[0])",
        ["ids", "float|logits|argmax"],
    ),
    case(
        "vocab.decode_sentence",
        "tgt_vocab.decode of a sentence string",
        "tgt_vocab.decode('i am happy')",
        ["ids", "str"],
    ),
    case(
        "vocab.encode_raw_sentence",
        "src_vocab.encode of a raw sentence (capitals, a full stop): every word becomes <unk>",
        "src_vocab.encode('Je suis content.')",
        ["normali[sz]"],
        expect="warn",
    ),
    case(
        "vocab.special_token_in_text",
        "a training sentence that already holds '<sos>'",
        "Vocab(['<sos> je suis', 'il est grand'])",
        ["<sos>", "special"],
    ),
    case(
        "vocab.encode_pairs_vocabs_swapped",
        "encode_pairs(pairs, tgt_vocab, src_vocab): the vocabularies swapped",
        "encode_pairs(pairs, tgt_vocab, src_vocab)",
        ["vocab", "swap|other side|english|french"],
    ),
    case(
        "vocab.pad_value_token",
        "pad(value='<pad>'): the token where its id is expected",
        "pad([[5, 6], [7]], value='<pad>')",
        ["value", "int|id"],
    ),
    case(
        "vocab.pad_words",
        "pad of sentences split into words, not encoded",
        "pad([['je', 'suis'], ['il']])",
        ["str", "encode|id"],
    ),
    case(
        "vocab.min_freq_above_every_word",
        "Vocab(min_freq=100) on a small corpus: no word is that frequent",
        "Vocab((fr for fr, _ in pairs), min_freq=100)",
        ["min_freq", "100"],
    ),
    # -- translation --------------------------------------------------------------------------
    case(
        "translation.tgt_out_as_input",
        "the Transformer fed tgt_out (no <sos>) where tgt_in goes",
        "transformer(src, batch.tgt_out)",
        ["tgt_in", "<sos>|sos"],
        expect="warn",
    ),
    case(
        "translation.src_tgt_swapped",
        "transformer(tgt_in, src): the source and the target swapped",
        "transformer(batch.tgt_in, src)",
        ["tgt_in|src", "swap|<sos>|order|source vocabulary|other vocabulary"],
        expect="warn",
    ),
    case(
        "translation.loss_of_probabilities",
        "translation_loss given softmax probabilities instead of logits",
        "translation_loss(transformer(src, batch.tgt_in).softmax(-1), batch.tgt_out)",
        ["logits", "softmax|probabilit"],
        expect="warn",
    ),
    case(
        "translation.step_fewer_rows",
        "transformer.step with one sentence's tokens for a cache of two",
        """
        cache = transformer.init_cache(src)
        transformer.step(batch.tgt_in[:1, :1], cache)
        """,
        ["tokens", "cache", "batch|rows|sentences"],
    ),
    case(
        "translation.numpy_src",
        "the Transformer given a NumPy source",
        "transformer(src.numpy(), batch.tgt_in)",
        ["src", "numpy|tensor"],
    ),
    # -- recurrent_translation ----------------------------------------------------------------
    case(
        "recurrent_translation.hidden_zero",
        "RecurrentConfig(hidden_dim=0)",
        "RecurrentTranslator(RecurrentConfig(20, 20, embed_dim=8, hidden_dim=0))",
        ["hidden_dim", POSITIVE],
    ),
    # -- decoder_only -------------------------------------------------------------------------
    case(
        "decoder_only.feed_forward_name",
        "DecoderOnlyConfig(feed_forward='swish')",
        """
        DecoderOnlyTranslator(DecoderOnlyConfig(20, 20, d_model=8, num_heads=2, d_ff=16,
                                                num_layers=1, feed_forward='swish'))
        """,
        ["feed_forward", "relu"],
    ),
    case(
        "decoder_only.prefix_mask_string",
        "DecoderOnlyConfig(prefix_mask='yes'): a string where a bool is expected",
        """
        DecoderOnlyTranslator(DecoderOnlyConfig(20, 20, d_model=8, num_heads=2, d_ff=16,
                                                num_layers=1, prefix_mask='yes'))
        """,
        ["prefix_mask", "bool|true|false"],
    ),
    case(
        "decoder_only.max_src_len_zero",
        "DecoderOnlyConfig(max_src_len=0)",
        """
        DecoderOnlyTranslator(DecoderOnlyConfig(20, 20, d_model=8, num_heads=2, d_ff=16,
                                                num_layers=1, max_src_len=0))
        """,
        ["max_src_len", POSITIVE],
    ),
    # -- decoding -----------------------------------------------------------------------------
    case(
        "decoding.translate_tokenised",
        "translate given sentences split into words",
        "translate(transformer, ['je suis content'.split()], src_vocab, tgt_vocab)",
        ["sentences", "str|join"],
    ),
    case(
        "decoding.greedy_one_sentence",
        "greedy_decode of one sentence's ids (S,) without the batch axis",
        "greedy_decode(transformer, src[0])",
        ["src", r"\(b, s\)|batch|\[none\]|unsqueeze"],
    ),
    case(
        "decoding.partial_wrong_keyword",
        "translate(decode=partial(beam_search, beam=4)): beam for beam_size",
        """
        translate(transformer, ['je suis content'], src_vocab, tgt_vocab,
                  decode=partial(beam_search, beam=4))
        """,
        ["beam_size"],
    ),
    case(
        "decoding.translate_model_class",
        "translate(TranslationTransformer, ...): the class, not the trained model",
        "translate(TranslationTransformer, ['je suis content'], src_vocab, tgt_vocab)",
        ["model", "instance|class"],
    ),
    case(
        "decoding.translate_empty_sentence",
        "translate of a list holding an empty sentence",
        "translate(transformer, ['je suis content', ''], src_vocab, tgt_vocab)",
        ["empty", "sentence"],
    ),
    case(
        "decoding.src_out_of_vocab",
        "greedy_decode of ids beyond the source vocabulary",
        "greedy_decode(transformer, torch.full((2, 3), 50))",
        ["src", "vocab|range"],
    ),
    # -- metrics ------------------------------------------------------------------------------
    case(
        "metrics.references_with_unk",
        "references made by decoding encoded sentences: unknown words became <unk>",
        """
        refs_unk = [tgt_vocab.decode(tgt_vocab.encode(r))
                    for r in ['i am very happy', 'he is tall']]
        corpus_bleu(['i am happy', 'he is tall'], refs_unk)
        """,
        ["references", "<unk>"],
    ),
    case(
        "metrics.perplexity_of_losses",
        "perplexity of a tensor of per-batch losses",
        "perplexity(torch.tensor([3.0, 2.5]), 10)",
        ["total_nll", "one number|scalar|sum|one-element|single"],
    ),
    case(
        "metrics.perplexity_swapped",
        "perplexity(n_tokens, total_nll): the arguments swapped",
        "perplexity(10, 12.5)",
        ["n_tokens", "whole|int|swap"],
    ),
    case(
        "metrics.chrf_word_lists",
        "corpus_chrf of hypotheses split into words",
        "corpus_chrf([h.split() for h in hyps], refs)",
        ["hypotheses", "words|join|str"],
    ),
    case(
        "metrics.paired_lengths",
        "paired_bootstrap with a second system that translated one sentence fewer",
        "paired_bootstrap(hyps, hyps[:3], refs, n_samples=100)",
        ["hypotheses_b", "3"],
    ),
    case(
        "metrics.groups_length",
        "corpus_bleu(groups=...) with two labels for four sentences",
        "corpus_bleu(hyps, refs, n_bootstrap=100, groups=[0, 1])",
        ["groups", "2", "4"],
    ),
    case(
        "metrics.score_compared",
        "a CorpusScore compared with a number (best = bleu if bleu > best)",
        "corpus_bleu(hyps, refs) > 30",
        [r"\.score"],
    ),
    # -- multiple_comparisons -----------------------------------------------------------------
    case(
        "multiple_comparisons.significant_of_comparison",
        "significant(comparison): a PairedComparison, not adjusted p-values",
        "significant(paired_bootstrap(hyps, refs, refs, n_samples=100))",
        ["adjusted", "p_value|holm"],
    ),
    case(
        "multiple_comparisons.holm_dict_of_lists",
        "holm of a dict whose values are lists of p-values (one per metric)",
        "holm({'a': [0.01, 0.02], 'b': [0.03]})",
        ["number", "list"],
    ),
]
