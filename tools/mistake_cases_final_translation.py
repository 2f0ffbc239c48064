"""Final-probe mistakes on the translation path: sentence pairs and their split, vocabularies
and batches, the translators, decoding, metrics and Holm's adjustment (see
``tools/probe_final.py``).

Written, with their expected answers and keywords, from Chapters 5 and 7, ``api.md`` and the
public signatures and docstrings alone, before any of them ran; none repeats a case of the
three earlier catalogues, nor a mistake the issue names. None needs the Tatoeba file.

Ready-made (see ``mistake_cases.namespace``): ``pairs`` (8 normalised ``(french, english)``
pairs), ``src_vocab``, ``tgt_vocab``, ``ids`` (their encoded pairs), ``batch`` (a
``PairBatch`` of 2), ``src`` ``(2, 4)``, ``transformer``, ``gru_translator``, ``deconly``,
``hyps`` and ``refs`` (four sentences each).
"""

from __future__ import annotations

from mistake_cases import case

#: Forty distinct sentence pairs: enough for ``split_pairs``' three shares.
_MANY = (
    'many = [(f"je vois le {w}", f"i see the {w}") for w in '
    '"chat chien cheval lapin loup ours rat lion tigre zebre singe poule coq canard oie '
    "cygne aigle hibou corbeau pie merle moineau pigeon faucon serpent lezard tortue "
    "grenouille crapaud poisson requin baleine dauphin phoque crabe homard moule huitre "
    'escargot ver".split()]'
)

CASES = [
    # -- tatoeba ------------------------------------------------------------------------------
    case(
        "tatoeba.parse_of_function",
        "[Ch. 5, cell 4] parse_pairs(load_text): the function passed, not called",
        "parse_pairs(load_text)",
        ["text", r"load_text\(\)|function|call"],
    ),
    case(
        "tatoeba.split_of_function",
        "[Ch. 7, cell 7 / Ch. 5, exercise D] split_pairs(load_pairs, seed=0): the function "
        "passed, not called",
        "split_pairs(load_pairs, seed=0)",
        ["pairs", r"load_pairs\(\)|function|call"],
    ),
    case(
        "tatoeba.split_dict_access",
        "[Ch. 5, cell 14] split['train']: the Split read like a dict of datasets (Hugging Face's "
        "habit)",
        _MANY + '\nsplit_pairs(many, seed=0)["train"]',
        ["train", r"split\.train|\.train|attribute"],
    ),
    case(
        "tatoeba.split_unpacked",
        "[Ch. 5, cell 14] train, val, test = split_pairs(pairs, seed=0): unpacked like "
        "scikit-learn's train_test_split",
        _MANY + "\ntrain_pairs, val_pairs, test_pairs = split_pairs(many, seed=0)",
        [r"split\.train|\.train|attribute|split_pairs"],
    ),
    case(
        "tatoeba.filter_prefix_capitalised",
        "[Ch. 5, cell 8] tutorial_filter(normalised, prefixes=('I am ', 'He is ')): capitalised "
        "prefixes for normalised (lower-case) sentences, so nothing is kept",
        """
        normalised = [(en, fr) for fr, en in pairs]
        tutorial_filter(normalised, prefixes=("I am ", "He is "))
        """,
        [r"prefixes|prefix", r"lower|normali|case"],
        expect="warn",
    ),
    # -- vocab --------------------------------------------------------------------------------
    case(
        "vocab.getitem_word",
        "[Ch. 5, cell 20] src_vocab['je']: a word looked up by indexing, torchtext's habit",
        'src_vocab["je"]',
        [r"encode|\.words|index"],
    ),
    case(
        "vocab.batch_dict_access",
        "[Ch. 5, cell 22/24] batch['src']: a PairBatch read like a dict (Hugging Face's habit)",
        'batch["src"]',
        ["src", r"batch\.src|attribute"],
    ),
    case(
        "vocab.batches_indexed",
        "[Ch. 5, cell 22] PairBatches(ids, 4)[0]: the first batch taken by indexing, not by "
        "next(iter(...))",
        "PairBatches(ids, 4)[0]",
        [r"iter|next\(|for .* in|loop"],
    ),
    case(
        "vocab.batches_of_flat_ids",
        "[Ch. 5, cells 20/38] PairBatches(ids, ...) with the stale ids of one encoded sentence "
        "(cell 20's name), not a list of (src, tgt) pairs",
        'PairBatches(src_vocab.encode("je suis content"), 4)',
        ["pairs", r"\(src|pairs of|encode_pairs|list of"],
    ),
    case(
        "vocab.pad_one_sentence",
        "[Ch. 7, cell 11] pad(short): one sentence's ids, not wrapped in a list",
        'pad(src_vocab.encode("je suis content"))',
        ["sequences", r"list of|one sentence|wrap|\[.*\]"],
    ),
    case(
        "vocab.decode_hf_kwarg",
        "[Ch. 5, cell 20 / Ch. 7, cell 9] tgt_vocab.decode(ids, skip_special_tokens=True): the "
        "Hugging Face keyword for strip",
        'tgt_vocab.decode(tgt_vocab.encode("i am happy"), skip_special_tokens=True)',
        ["skip_special_tokens", "strip"],
    ),
    case(
        "vocab.encode_hf_kwarg",
        "[Ch. 5, cell 20 / Ch. 7, cell 9] src_vocab.encode(s, add_special_tokens=False): the "
        "Hugging Face keyword for eos=False",
        'src_vocab.encode("je suis content", add_special_tokens=False)',
        ["add_special_tokens", r"\beos\b|\bsos\b"],
    ),
    # -- translation --------------------------------------------------------------------------
    case(
        "translation.config_num_layers",
        "[Ch. 5, cell 28 / Ch. 7, cell 11] TranslationConfig(..., num_layers=1): the "
        "decoder-only config's name (the small dict of Chapter 7) on the encoder-decoder's",
        """
        TranslationConfig(
            len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16, num_layers=1
        )
        """,
        ["num_layers", "num_encoder_layers"],
    ),
    case(
        "translation.config_vocab_size_names",
        "[Ch. 5, cell 28] TranslationConfig(src_vocab_size=..., tgt_vocab_size=...): the "
        "vocabulary sizes under the names other libraries use",
        """
        TranslationConfig(
            src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab),
            d_model=8, num_heads=2, d_ff=16,
        )
        """,
        [r"src_vocab_size|tgt_vocab_size", r"\bsrc_vocab\b|\btgt_vocab\b"],
    ),
    case(
        "translation.loss_ignore_index_kwarg",
        "[Ch. 5, cell 38] translation_loss(logits, tgt_out, ignore_index=PAD): "
        "F.cross_entropy's keyword",
        """
        logits = transformer(batch.src, batch.tgt_in)
        translation_loss(logits, batch.tgt_out, ignore_index=PAD)
        """,
        ["ignore_index", r"pad|already|always"],
    ),
    case(
        "translation.step_memory_as_cache",
        "[Ch. 5, cell 71 / 46] transformer.step(tokens, memory): the encoder's output (encode) "
        "where the cache of init_cache goes",
        """
        transformer.eval()
        memory = transformer.encode(src)[0]
        transformer.step(torch.full((2, 1), SOS), memory)
        """,
        ["cache", "init_cache"],
    ),
    # -- recurrent_translation ----------------------------------------------------------------
    case(
        "recurrent_translation.config_d_model",
        "[Ch. 5, cell 76] RecurrentConfig(..., d_model=8): the Transformer config's width name "
        "on the GRU translator's",
        'RecurrentConfig(len(src_vocab), len(tgt_vocab), d_model=8, attention="bahdanau")',
        ["d_model", r"embed_dim|hidden_dim"],
    ),
    case(
        "recurrent_translation.tie_unequal_widths",
        "[Ch. 5, cell 76] RecurrentConfig(embed_dim=8, hidden_dim=16, tie_embeddings=True): "
        "tied embeddings with the hidden width changed alone",
        """
        model = RecurrentTranslator(RecurrentConfig(
            len(src_vocab), len(tgt_vocab), embed_dim=8, hidden_dim=16,
            attention="bahdanau", dropout=0.0, tie_embeddings=True,
        ))
        model(batch.src, batch.tgt_in)
        """,
        ["tie_embeddings", r"embed_dim|hidden_dim"],
    ),
    # -- decoder_only -------------------------------------------------------------------------
    case(
        "decoder_only.config_encoder_decoder_layers",
        "[Ch. 7, cell 11/37] DecoderOnlyConfig(..., num_encoder_layers=1, num_decoder_layers=1): "
        "the encoder-decoder config's names on the decoder-only one",
        """
        DecoderOnlyConfig(
            len(src_vocab), len(tgt_vocab), d_model=8, num_heads=2, d_ff=16,
            num_encoder_layers=1, num_decoder_layers=1,
        )
        """,
        [r"num_encoder_layers|num_decoder_layers", r"\bnum_layers\b"],
    ),
    # -- decoding -----------------------------------------------------------------------------
    case(
        "decoding.max_len_kwarg",
        "[Ch. 5, cell 46/67] greedy_decode(model, src, max_len=10): the configs' max_len for "
        "max_new_tokens",
        "greedy_decode(transformer, src, max_len=10)",
        ["max_len", "max_new_tokens"],
    ),
    case(
        "decoding.beam_size_positional",
        "[Ch. 5, cell 49] beam_search(model, src, 4): the beam size passed positionally",
        "beam_search(transformer, src, 4)",
        ["beam_size"],
    ),
    case(
        "decoding.decode_string",
        "[Ch. 5, cell 49/51] translate(..., decode='beam'): the decoder named by a string",
        'translate(transformer, ["je suis content"], src_vocab, tgt_vocab, decode="beam")',
        ["decode", r"callable|function|greedy_decode|beam_search"],
    ),
    # -- metrics ------------------------------------------------------------------------------
    case(
        "metrics.score_formatted",
        "[Ch. 5, cell 57/79] f'{bleu:.1f}' of the CorpusScore corpus_bleu returns, not of its "
        ".score",
        """
        bleu = corpus_bleu(hyps, refs)
        text = f"BLEU {bleu:.1f}"
        """,
        [r"\.score"],
    ),
    case(
        "metrics.bootstrap_positional",
        "[Ch. 5, cell 51] corpus_bleu(hyps, refs, 1000): the number of bootstrap samples passed "
        "positionally",
        "corpus_bleu(hyps, refs, 1000)",
        ["n_bootstrap"],
    ),
    case(
        "metrics.groups_of_pairs",
        "[Ch. 5, cell 51] corpus_bleu(..., groups=split.test): the test pairs where their "
        "group_labels go (every pair its own group)",
        """
        test_pairs = [
            ("je suis content", "i am happy"), ("il est grand", "he is tall"),
            ("nous sommes prets", "we are late"), ("ils sont ici", "she is here"),
        ]
        corpus_bleu(hyps, refs, n_bootstrap=1000, groups=test_pairs)
        """,
        ["groups", r"group_labels|label"],
        expect="warn",
    ),
    case(
        "metrics.multi_references_per_sentence",
        "[Ch. 5, cell 44] exact_match(outs, [references[fr] for fr in ...]): every sentence's "
        "list of references where one reference string goes",
        "exact_match(hyps, [[r] for r in refs])",
        ["references", r"str|string|list of lists|one reference"],
    ),
    # -- multiple_comparisons -----------------------------------------------------------------
    case(
        "multiple_comparisons.alpha_positional",
        "[Ch. 5, cell 84] significant(adjusted, 0.05): alpha passed positionally",
        "significant(holm([0.01, 0.04, 0.03]), 0.05)",
        ["alpha"],
    ),
    case(
        "multiple_comparisons.holm_alpha",
        "[Ch. 5, cell 84] holm(p_values, alpha=0.05): statsmodels' multipletests habit, alpha "
        "given to the adjustment",
        "holm([0.01, 0.04, 0.03], alpha=0.05)",
        ["alpha", "significant"],
    ),
]
