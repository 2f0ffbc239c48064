"""Mistakes on Chapter 5's path up to the models: data files, sentence pairs, vocabularies and
batches, and the three translators.

Ready-made (see ``mistake_cases.namespace``): ``pairs`` (8 normalised ``(french, english)``);
``src_vocab``, ``tgt_vocab``; ``ids`` (encoded pairs); ``batch`` (a ``PairBatch`` of 2);
``src`` ``(2, 4)``; the configs ``tcfg``, ``rcfg``, ``dcfg`` and their models
``transformer``, ``gru_translator``, ``deconly`` (``max_len=16``); ``hyps``, ``refs`` (4
sentences each); ``tmp`` (an empty folder).
"""

from __future__ import annotations

from mistake_cases import POSITIVE, PROBABILITY, case

CASES = [
    # -- datafiles ----------------------------------------------------------------------------
    case(
        "datafiles.read_missing",
        "read_text of a path with a typo",
        "read_text(tmp / 'eng-fra.txt.gzz', ENG_FRA)",
        ["does not exist|not found|no such", "eng-fra.txt.gzz"],
    ),
    case(
        "datafiles.read_not_gzip",
        "read_text of the uncompressed eng-fra.txt",
        """
        (tmp / "eng-fra.txt").write_text("Go.\\tVa !\\n", encoding="utf-8")
        read_text(tmp / "eng-fra.txt", ENG_FRA)
        """,
        ["gzip", "eng-fra.txt"],
    ),
    case(
        "datafiles.read_swapped",
        "read_text(ENG_FRA, path): the spec and the path swapped",
        "read_text(ENG_FRA, tmp / 'eng-fra.txt.gz')",
        [r"\bpath\b", "spec|datafile"],
    ),
    case(
        "datafiles.source_no_scheme",
        "Source('www.example.org/eng-fra.txt.gz') without https://",
        "Source('www.example.org/eng-fra.txt.gz')",
        ["url", "https://"],
    ),
    case(
        "datafiles.filename_not_gz",
        "DataFile(filename='eng-fra.txt'), not the .gz name",
        "DataFile('eng-fra.txt', ENG_FRA.sha256, ENG_FRA.sources)",
        ["filename", ".gz"],
    ),
    case(
        "datafiles.sha_upper",
        "DataFile with an upper-case checksum",
        "DataFile('x.gz', ENG_FRA.sha256.upper(), ENG_FRA.sources)",
        ["sha256", "lowercase|hex"],
    ),
    case(
        "datafiles.source_str",
        "DataFile(sources=('https://...',)): a URL string, not a Source",
        "DataFile('x.gz', ENG_FRA.sha256, ('https://example.org/x.gz',))",
        ["source", r"source\(url"],
    ),
    case(
        "datafiles.data_dir_missing",
        "COURSE_DATA_DIR set to a folder that does not exist",
        """
        os.environ["COURSE_DATA_DIR"] = str(tmp / "data")
        data_dir()
        """,
        ["course_data_dir", "not a folder|does not exist"],
    ),
    # -- tatoeba ------------------------------------------------------------------------------
    case(
        "tatoeba.normalize_none",
        "normalize(None): a missing sentence",
        "normalize(None)",
        ["str|string", "none"],
    ),
    case(
        "tatoeba.split_seed_float",
        "split_pairs(pairs, seed=0.5)",
        "split_pairs(pairs, seed=0.5)",
        ["seed", "int"],
    ),
    case(
        "tatoeba.split_percentages",
        "split_pairs(fractions=(80, 10, 10)): percentages",
        "split_pairs(pairs, fractions=(80, 10, 10))",
        ["fractions", "sum|1"],
    ),
    case(
        "tatoeba.split_two_fractions",
        "split_pairs(fractions=(0.8, 0.2)): two shares",
        "split_pairs(pairs, fractions=(0.8, 0.2))",
        ["fractions", "three|3"],
    ),
    case(
        "tatoeba.split_too_few",
        "split_pairs of two pairs",
        "split_pairs(pairs[:2])",
        ["3", "pairs"],
    ),
    case(
        "tatoeba.parse_no_tabs",
        "parse_pairs of a text separated by spaces, not tabs",
        "parse_pairs('Go. Va !\\nHi. Salut !')",
        ["tab", "line 1"],
    ),
    case(
        "tatoeba.group_labels_split",
        "group_labels(split): the Split where split.test is expected",
        "group_labels(split_pairs(pairs, seed=0))",
        ["split", r"test|train|validation|\.test"],
    ),
    case(
        "tatoeba.group_labels_sentences",
        "group_labels(test_fr): the French sentences, not the pairs",
        "group_labels([fr for fr, _ in pairs])",
        ["pairs", "pair|tuple"],
    ),
    case(
        "tatoeba.filter_prefix_string",
        "tutorial_filter(pairs, prefixes='i am '): one prefix as a string",
        "tutorial_filter([(en, fr) for fr, en in pairs], prefixes='i am ')",
        ["prefixes", "tuple|list|sequence"],
    ),
    # -- vocab --------------------------------------------------------------------------------
    case(
        "vocab.min_freq_zero",
        "Vocab(..., min_freq=0)",
        "Vocab([fr for fr, _ in pairs], min_freq=0)",
        ["min_freq", POSITIVE],
    ),
    case(
        "vocab.min_freq_float",
        "Vocab(..., min_freq=1.5)",
        "Vocab([fr for fr, _ in pairs], min_freq=1.5)",
        ["min_freq", "int"],
    ),
    case(
        "vocab.tokenised_sentences",
        "Vocab of sentences already split into words (lists of words)",
        "Vocab([fr.split() for fr, _ in pairs])",
        ["sentence", "str|string"],
    ),
    case(
        "vocab.encode_words",
        "vocab.encode(['je', 'suis']): a list of words",
        "src_vocab.encode(['je', 'suis'])",
        ["sentence", "str|string"],
    ),
    case(
        "vocab.encode_empty",
        "vocab.encode('') of an empty line",
        "src_vocab.encode('')",
        ["empty"],
    ),
    case(
        "vocab.decode_out_of_range",
        "tgt_vocab.decode of source ids (another vocabulary's)",
        "tgt_vocab.decode([len(tgt_vocab) + 1])",
        ["id", "vocabulary"],
    ),
    case(
        "vocab.max_tokens",
        "encode of a sentence longer than max_tokens",
        "src_vocab.encode('je suis content je suis fatigue', max_tokens=4)",
        ["max_tokens"],
    ),
    case(
        "vocab.batches_zero",
        "PairBatches(ids, batch_size=0)",
        "PairBatches(ids, 0)",
        ["batch_size", POSITIVE],
    ),
    case(
        "vocab.batches_of_sentences",
        "PairBatches given the sentence pairs, not encoded ids",
        "next(iter(PairBatches(pairs, 4)))",
        ["pair", "encode"],
    ),
    case(
        "vocab.batches_generator_int",
        "PairBatches(shuffle=True, generator=0): a seed where a Generator is expected",
        "next(iter(PairBatches(ids, 4, shuffle=True, generator=0)))",
        ["generator", r"torch\.generator"],
    ),
    case(
        "vocab.batches_no_eos",
        "PairBatches of targets encoded with eos=False",
        """
        no_eos = [(src_vocab.encode(fr), tgt_vocab.encode(en, eos=False)) for fr, en in pairs]
        PairBatches(no_eos, 4)
        """,
        ["<eos>", "eos=true"],
    ),
    case(
        "vocab.encode_pairs_missing",
        "encode_pairs(pairs, src_vocab) without the target vocabulary",
        "encode_pairs(pairs, src_vocab)",
        ["tgt_vocab"],
    ),
    # -- translation --------------------------------------------------------------------------
    case(
        "translation.not_divisible",
        "TranslationConfig(d_model=10, num_heads=4)",
        "TranslationConfig(20, 20, d_model=10, num_heads=4)",
        ["d_model", "num_heads"],
    ),
    case(
        "translation.dropout",
        "TranslationConfig(dropout=10)",
        "TranslationConfig(20, 20, dropout=10)",
        ["dropout", PROBABILITY],
    ),
    case(
        "translation.vocab_object",
        "TranslationConfig(src_vocab=src_vocab): the Vocab, not its size",
        "TranslationConfig(src_vocab, tgt_vocab)",
        ["src_vocab", r"int|len\("],
    ),
    case(
        "translation.add_norm_none",
        "TranslationConfig(add_norm=None)",
        "TranslationConfig(20, 20, add_norm=None)",
        ["add_norm", "'post'|'pre'"],
    ),
    case(
        "translation.float_src",
        "the Transformer given float token ids",
        "transformer(src.float(), batch.tgt_in)",
        ["src", "long"],
    ),
    case(
        "translation.tgt_ids_out_of_vocab",
        "target ids of the source vocabulary (a bigger one) fed as tgt_in",
        "transformer(src, torch.full((2, 3), len(tgt_vocab) + 1))",
        ["tgt_in", "vocabulary"],
    ),
    case(
        "translation.missing_tgt_in",
        "transformer(src) without tgt_in",
        "transformer(src)",
        ["tgt_in"],
    ),
    case(
        "translation.one_sentence",
        "one sentence (S,) without its batch dimension",
        "transformer(src[0], batch.tgt_in[0])",
        ["src", r"\(b, |batch|unsqueeze"],
    ),
    case(
        "translation.loss_length",
        "translation_loss given logits for tgt_in and a target of another length",
        "translation_loss(transformer(src, batch.tgt_in), batch.tgt_out[:, :-1])",
        ["logits", "target"],
    ),
    case(
        "translation.loss_swapped",
        "translation_loss(target, logits): the arguments swapped",
        "translation_loss(batch.tgt_out, transformer(src, batch.tgt_in))",
        ["logits", "target", r"\(b, t, v\)"],
    ),
    case(
        "translation.loss_float_target",
        "translation_loss with a float target",
        "translation_loss(transformer(src, batch.tgt_in), batch.tgt_out.float())",
        ["target", "long|int|ids"],
    ),
    case(
        "translation.loss_smoothing",
        "translation_loss(label_smoothing=10)",
        "translation_loss(transformer(src, batch.tgt_in), batch.tgt_out, label_smoothing=10)",
        ["label_smoothing", "1"],
    ),
    case(
        "translation.loss_reduction",
        "translation_loss(reduction='none')",
        "translation_loss(transformer(src, batch.tgt_in), batch.tgt_out, reduction='none')",
        ["reduction", "'mean'|'sum'"],
    ),
    case(
        "translation.step_other_cache",
        "transformer.step given the GRU translator's cache (stale variable)",
        "transformer.step(batch.tgt_in[:, :1], gru_translator.init_cache(src))",
        ["cache", "init_cache"],
    ),
    case(
        "translation.step_1d_tokens",
        "transformer.step given the newest tokens as (B,), not (B, 1)",
        "transformer.step(batch.tgt_in[:, 0], transformer.init_cache(src))",
        ["tokens", r"\(b, 1\)|\(b, length\)|\(b, t\)"],
    ),
    case(
        "translation.step_none",
        "transformer.step before init_cache",
        "transformer.step(batch.tgt_in[:, :1], None)",
        ["cache", "init_cache"],
    ),
    case(
        "translation.config_dict",
        "TranslationTransformer given a dict of sizes",
        "TranslationTransformer(dict(src_vocab=20, tgt_vocab=20))",
        ["config", "translationconfig"],
    ),
    case(
        "translation.src_too_long",
        "a source sentence longer than the model's max_len",
        "transformer(torch.randint(4, 20, (2, 40)), batch.tgt_in)",
        ["src", "max_len"],
    ),
    case(
        "translation.max_len_zero",
        "TranslationConfig(max_len=0)",
        "TranslationConfig(20, 20, max_len=0)",
        ["max_len", POSITIVE],
    ),
    # -- recurrent_translation ----------------------------------------------------------------
    case(
        "recurrent_translation.attention_name",
        "RecurrentConfig(attention='luong')",
        "RecurrentConfig(20, 20, attention='luong')",
        ["attention", "bahdanau"],
    ),
    case(
        "recurrent_translation.left_padded",
        "a left-padded source into the GRU translator",
        "gru_translator(torch.tensor([[0, 5, 6], [7, 8, 9]]), batch.tgt_in)",
        ["pad", "right|after"],
    ),
    case(
        "recurrent_translation.float_src",
        "float token ids into the GRU translator",
        "gru_translator(src.float(), batch.tgt_in)",
        ["src", "long"],
    ),
    case(
        "recurrent_translation.dropout_negative",
        "RecurrentConfig(dropout=-0.1)",
        "RecurrentConfig(20, 20, dropout=-0.1)",
        ["dropout", PROBABILITY],
    ),
    case(
        "recurrent_translation.wrong_config",
        "RecurrentTranslator given the Transformer's config",
        "RecurrentTranslator(tcfg)",
        ["config", "recurrentconfig"],
    ),
    # -- decoder_only -------------------------------------------------------------------------
    case(
        "decoder_only.positions_name",
        "DecoderOnlyConfig(positions='learned')",
        "DecoderOnlyConfig(20, 20, positions='learned')",
        ["positions", "rotary"],
    ),
    case(
        "decoder_only.not_divisible",
        "DecoderOnlyConfig(d_model=10, num_heads=4)",
        "DecoderOnlyTranslator(DecoderOnlyConfig(20, 20, d_model=10, num_heads=4))",
        ["d_model", "num_heads"],
    ),
    case(
        "decoder_only.odd_rotary_heads",
        "rotary positions with heads of odd width (d_model=6, num_heads=2)",
        """
        m = DecoderOnlyTranslator(DecoderOnlyConfig(20, 20, d_model=6, num_heads=2, d_ff=8,
                                                    num_layers=1))
        m(src, batch.tgt_in)
        """,
        ["d_model|num_heads|head", "even"],
    ),
    case(
        "decoder_only.src_too_long",
        "a source longer than max_src_len",
        "deconly(torch.randint(4, 20, (2, 20)), batch.tgt_in)",
        ["src", "max_src_len"],
    ),
    case(
        "decoder_only.norm_case",
        "DecoderOnlyConfig(norm='RMS')",
        "DecoderOnlyConfig(20, 20, norm='RMS')",
        ["norm", "'rms'"],
    ),
    case(
        "decoder_only.batch_mismatch",
        "three targets for two sources",
        "deconly(src, torch.cat([batch.tgt_in, batch.tgt_in[:1]]))",
        ["src", "tgt_in"],
    ),
]
