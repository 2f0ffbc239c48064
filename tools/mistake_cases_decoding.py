"""Mistakes at the end of Chapter 5: decoding the translators, scoring the translations and
adjusting several comparisons.

Ready-made (see ``mistake_cases.namespace``): ``pairs``, ``batch``, ``src_vocab``, ``tgt_vocab``;
``src`` ``(2, 4)``; ``transformer`` (``max_len=32``); ``seq2seq`` (a squares model); ``hyps``,
``refs`` (4 sentences each).
"""

from __future__ import annotations

from mistake_cases import NON_NEGATIVE, POSITIVE, case

CASES = [
    # -- decoding -----------------------------------------------------------------------------
    case(
        "decoding.negative_tokens",
        "greedy_decode(max_new_tokens=-1)",
        "greedy_decode(transformer, src, max_new_tokens=-1)",
        ["max_new_tokens", POSITIVE],
    ),
    case(
        "decoding.too_many_tokens",
        "greedy_decode with max_new_tokens beyond the model's max_len",
        "greedy_decode(transformer, src, max_new_tokens=40)",
        ["max_new_tokens", "max_len|at most 32"],
    ),
    case(
        "decoding.beam_zero",
        "beam_search(beam_size=0)",
        "beam_search(transformer, src, beam_size=0)",
        ["beam_size", POSITIVE],
    ),
    case(
        "decoding.beam_float",
        "beam_search(beam_size=4.0)",
        "beam_search(transformer, src, beam_size=4.0)",
        ["beam_size", "int"],
    ),
    case(
        "decoding.sentence_as_src",
        "greedy_decode given a sentence instead of token ids",
        "greedy_decode(transformer, 'je suis content')",
        ["src", "translate|encode"],
    ),
    case(
        "decoding.swapped",
        "greedy_decode(src, model): the arguments swapped",
        "greedy_decode(src, transformer)",
        ["model", "tensor|src|swap"],
    ),
    case(
        "decoding.recompute_name",
        "greedy_decode(recompute='all')",
        "greedy_decode(transformer, src, recompute='all')",
        ["recompute", "everything"],
    ),
    case(
        "decoding.float_src",
        "greedy_decode of float ids",
        "greedy_decode(transformer, src.float())",
        ["src", "long"],
    ),
    case(
        "decoding.not_a_translator",
        "greedy_decode given the squares model (stale variable)",
        "greedy_decode(seq2seq, src)",
        ["translator|init_cache|step"],
    ),
    case(
        "decoding.vocabs_swapped",
        "translate(model, sentences, tgt_vocab, src_vocab): the vocabularies swapped",
        "translate(transformer, ['je suis content', 'il est grand'], tgt_vocab, src_vocab)",
        ["src_vocab|vocabular", "unknown|<unk>|swap|order"],
        expect="warn",
    ),
    case(
        "decoding.decode_called",
        "translate(decode=beam_search(beam_size=4)): the decoder called, not passed",
        "translate(transformer, ['je suis content'], src_vocab, tgt_vocab, "
        "decode=beam_search(beam_size=4))",
        ["decode", "partial"],
    ),
    case(
        "decoding.batch_size_zero",
        "translate(batch_size=0)",
        "translate(transformer, ['je suis content'], src_vocab, tgt_vocab, batch_size=0)",
        ["batch_size", POSITIVE],
    ),
    case(
        "decoding.unnormalised",
        "translate of raw sentences (capitals, punctuation) the vocabulary never saw",
        "translate(transformer, ['Je suis content.', 'Il est grand !'], src_vocab, tgt_vocab)",
        ["normali"],
        expect="warn",
    ),
    # -- metrics ------------------------------------------------------------------------------
    case(
        "metrics.length_mismatch",
        "corpus_bleu with one reference fewer than hypotheses",
        "corpus_bleu(hyps, refs[:-1])",
        ["hypotheses", "references", "4|3"],
    ),
    case(
        "metrics.token_ids",
        "corpus_bleu of token id lists",
        "corpus_bleu([[5, 6, 2]], [[5, 7, 2]])",
        ["hypotheses", "str|sentences"],
    ),
    case(
        "metrics.sacrebleu_refs",
        "corpus_bleu(hyps, [refs]): sacrebleu's list of reference streams",
        "corpus_bleu(hyps, [refs])",
        ["references", "one reference|list of"],
    ),
    case(
        "metrics.bootstrap_one",
        "corpus_bleu(n_bootstrap=1)",
        "corpus_bleu(hyps, refs, n_bootstrap=1)",
        ["n_bootstrap", "2|0"],
    ),
    case(
        "metrics.groups_without_bootstrap",
        "corpus_bleu(groups=...) without n_bootstrap",
        "corpus_bleu(hyps, refs, groups=[0, 0, 1, 1])",
        ["groups", "n_bootstrap"],
    ),
    case(
        "metrics.metric_case",
        "paired_bootstrap(metric='bleu')",
        "paired_bootstrap(hyps, refs, refs, metric='bleu')",
        ["metric", "bleu"],
    ),
    case(
        "metrics.few_samples",
        "paired_bootstrap(n_samples=10)",
        "paired_bootstrap(hyps, refs, refs, n_samples=10)",
        ["n_samples", "100"],
    ),
    case(
        "metrics.perplexity_zero_tokens",
        "perplexity(total, 0)",
        "perplexity(12.0, 0)",
        ["n_tokens", POSITIVE],
    ),
    case(
        "metrics.perplexity_negative",
        "perplexity of a negative total (a log-likelihood, not its negative)",
        "perplexity(-12.0, 10)",
        ["total_nll", NON_NEGATIVE],
    ),
    case(
        "metrics.exact_match_ids",
        "exact_match of token id lists",
        "exact_match([[5, 6]], [[5, 6]])",
        ["hypotheses", "str|sentences"],
    ),
    case(
        "metrics.special_tokens",
        "corpus_bleu of hypotheses decoded with strip=False (<sos>, <eos>, <pad> left in)",
        """
        decoded = [tgt_vocab.decode(row, strip=False) for row in batch.tgt_out]
        corpus_bleu(decoded, [en for _, en in pairs[:2]])
        """,
        ["<eos>|<pad>|<sos>|special", "strip|decode"],
    ),
    case(
        "metrics.empty",
        "corpus_bleu of empty lists",
        "corpus_bleu([], [])",
        ["empty"],
    ),
    case(
        "metrics.bootstrap_float",
        "corpus_chrf(n_bootstrap=1000.0)",
        "corpus_chrf(hyps, refs, n_bootstrap=1000.0)",
        ["n_bootstrap", "int|whole"],
    ),
    case(
        "metrics.decoded_tensor",
        "corpus_bleu of the tensor greedy_decode returns",
        "corpus_bleu(greedy_decode(transformer, src, max_new_tokens=3), refs[:2])",
        ["hypotheses", "str|sentences"],
    ),
    # -- multiple_comparisons -----------------------------------------------------------------
    case(
        "multiple_comparisons.above_one",
        "holm with a p-value of 1.5",
        "holm([0.01, 1.5])",
        ["1.5", "p-value|[0, 1]"],
    ),
    case(
        "multiple_comparisons.comparisons",
        "holm given the PairedComparison results, not their p-values",
        """
        c = paired_bootstrap(hyps, refs, refs, n_samples=100)
        holm({"a": c, "b": c})
        """,
        ["p_value", "number"],
    ),
    case(
        "multiple_comparisons.alpha_percent",
        "significant(adjusted, alpha=5)",
        "significant([0.01, 0.2], alpha=5)",
        ["alpha", r"\(0, 1\)|between 0 and 1"],
    ),
    case(
        "multiple_comparisons.scalar",
        "holm(0.03): one p-value",
        "holm(0.03)",
        ["p_values", "sequence|list"],
    ),
    case(
        "multiple_comparisons.empty",
        "holm([])",
        "holm([])",
        ["p_values", "empty"],
    ),
    case(
        "multiple_comparisons.nan",
        "holm with a NaN from a comparison that failed",
        "holm([0.01, float('nan')])",
        ["nan"],
    ),
]
