"""Translation metrics: corpus BLEU and chrF through sacrebleu, their confidence intervals,
paired comparisons, perplexity and exact matches.

The scores are never hand-written here: :func:`corpus_bleu` and :func:`corpus_chrf` call
sacrebleu with its standard settings (corpus level, ``13a`` tokenisation for BLEU, one
reference per sentence), and each result carries sacrebleu's *signature* -- the line that
says how the score was computed. With ``n_bootstrap`` they also carry sacrebleu's 95 %
bootstrap confidence interval (Koehn, 2004).

A score says how good one system is; whether system A beats system B on the same sentences
is a different question, answered by :func:`paired_bootstrap`: both systems are scored on
the same resampled test sets, and the interval of the *difference* says how sure the
comparison is.

Both resample single sentences, as if each were drawn independently. A test set built from
Tatoeba is not: one English sentence often comes with several translations, so it holds
*clusters* of pairs that share a sentence and succeed or fail together. Resampling the pairs
one by one counts each copy as fresh evidence and gives intervals that are too narrow. With
``groups=group_labels(pairs)`` (:func:`course_lib.tatoeba.group_labels`: one label per pair,
the connected group of pairs that share a French or an English sentence) each resample draws
whole groups with replacement, as many draws as there are groups, and keeps all their
sentences: a *cluster bootstrap*, whose interval reflects how many independent clusters the
test set really has. Label by the whole group, not by one side's sentence: on Chapter 5's
test set the id of the French sentence leaves 1,065 groups of 1,144 pairs, and an interval
hardly wider than resampling pairs.

What the signature does not record: the course scores its own **normalised** text (lower
case, no punctuation but ``!`` and ``?``, no digits; :func:`course_lib.tatoeba.normalize`)
on both sides, so these numbers compare with each other and with nothing outside the book;
and a cluster bootstrap's signature (``bs:1000|seed:12345|...``) is the same as a sentence
bootstrap's: the result's ``resampled`` (``"groups (672)"``, printed by ``str()``) is what
says that whole groups were drawn, so report it beside the signature.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NoReturn

import numpy as np
import sacrebleu
import torch

from course_lib._foreign_names import explains_bad_calls, explains_class
from course_lib._sacrebleu import (
    grouped_corpus_score,
    interval_half_width,
    score_from_statistics,
    sentence_statistics,
)
from course_lib._validate_basics import check_seed, type_name, warn_user

__all__ = [
    "CorpusScore",
    "PairedComparison",
    "corpus_bleu",
    "corpus_chrf",
    "exact_match",
    "paired_bootstrap",
    "perplexity",
]

_METRICS = {"BLEU": lambda: sacrebleu.BLEU(tokenize="13a"), "chrF": lambda: sacrebleu.CHRF()}


_SPECIALS = ("<pad>", "<sos>", "<eos>", "<unk>")  # course_lib.vocab's, as decode writes them


def _sentences(texts: object, name: str) -> list[str]:
    """``texts`` as a list of strings, or a TypeError saying what came and what to do."""
    what = "a list of sentences (strings)"
    if isinstance(texts, str):
        raise TypeError(
            f"{name} must be {what}, got one {type_name(texts)}: wrap one sentence in a "
            f"list, [{texts[:20]!r}], or pass the whole corpus"
        )
    if isinstance(texts, (torch.Tensor, np.ndarray)) and not (
        isinstance(texts, np.ndarray) and texts.dtype.kind in "UO"
    ):
        raise TypeError(
            f"{name} must be {what}, got token ids ({type_name(texts)}): decode them first, "
            f"[tgt_vocab.decode(ids) for ids in {name}]"
        )
    if not isinstance(texts, Iterable):
        raise TypeError(f"{name} must be {what}, got {type_name(texts)}")
    texts = list(texts)
    for k, text in enumerate(texts):
        if isinstance(text, str):
            continue
        if isinstance(text, (torch.Tensor, np.ndarray)) or (
            isinstance(text, (list, tuple))
            and text
            and isinstance(text[0], (Integral, torch.Tensor))
        ):
            fix = f"token ids: decode them first, [tgt_vocab.decode(ids) for ids in {name}]"
        elif (
            isinstance(text, (list, tuple))
            and len(texts) == 1
            and text
            and isinstance(text[0], str)
        ):
            fix = (
                f"sacrebleu's form [{name}] for several references per sentence; the course "
                f"scores one reference per sentence: pass the list itself, {name}[0]"
            )
        elif isinstance(text, (list, tuple)) and text and isinstance(text[0], str):
            fix = f"lists of words: join each, [' '.join(words) for words in {name}]"
        else:
            fix = "one string per sentence"
        raise TypeError(f"{name} must be {what}, but {name}[{k}] is {type_name(text)}: {fix}")
    return texts


def _check_corpus(
    hypotheses: object, references: object, name: str = "hypotheses"
) -> tuple[list[str], list[str]]:
    """Both corpora as lists of strings, one hypothesis per reference; references as
    written, not decoded through a vocabulary. ``name`` is the hypotheses' argument name."""
    hypotheses = _sentences(hypotheses, name)
    references = _sentences(references, "references")
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{name} holds {len(hypotheses)} sentences but references holds "
            f"{len(references)}: one hypothesis per reference, in the same order (translate "
            "every test sentence, and score against the same references)"
        )
    if not hypotheses:
        raise ValueError("a score of an empty corpus is undefined")
    for k, hypothesis in enumerate(hypotheses):
        if "<" in hypothesis and any(w in _SPECIALS[:3] for w in hypothesis.split()):
            raise ValueError(
                f"{name}[{k}] = {hypothesis!r} holds <pad>, <sos> or <eos>: it was decoded "
                "with strip=False. Decode with vocab.decode(ids) (strip=True, the default), "
                "which stops at <eos> and drops <pad> and <sos>"
            )
    for k, reference in enumerate(references):
        if "<" in reference and any(w in _SPECIALS for w in reference.split()):
            raise ValueError(
                f"references[{k}] = {reference!r} holds a vocabulary token (<unk>, <eos>, "
                "...), which only a model's output holds: references are the target "
                "sentences as written, e.g. [en for _, en in split.test], not decoded ids. If "
                "the two are swapped, the order is corpus_bleu(hypotheses, references)"
            )
    return hypotheses, references


def _group_index(groups: Sequence[Hashable], n_sentences: int) -> tuple[np.ndarray, int]:
    """Each sentence's group as ``0..G-1``, numbered in order of first appearance, and ``G``.

    The numbering makes all-distinct labels the identity: group ``i`` is sentence ``i``, so
    the cluster bootstrap then draws exactly the resamples of the sentence bootstrap.
    """
    if isinstance(groups, (str, bytes)):
        raise TypeError(
            f"groups must hold one group label per sentence, got the string {groups!r}; "
            "pass one label per pair, e.g. groups=group_labels(pairs) (course_lib.tatoeba)"
        )
    if isinstance(groups, (Mapping, Set)) or not hasattr(groups, "__len__"):
        raise TypeError(
            f"groups must be an ordered sequence of labels (a list, tuple or 1-D array), one "
            f"per sentence in the order of references, got {type(groups).__name__}"
        )
    labels = list(groups)
    if labels and all(_is_pair(label) for label in labels):
        warn_user(
            f"groups holds sentence pairs such as {labels[0]!r}, not group labels: pairs "
            "that differ form different groups, so pairs that share a source sentence are not "
            "drawn together; pass groups=group_labels(pairs) (course_lib.tatoeba), one label "
            "per pair",
            UserWarning,
        )
    if len(labels) != n_sentences:
        raise ValueError(
            f"groups has {len(labels)} labels for {n_sentences} sentences: give one label per "
            "sentence, in the order of references (sentences with the same label form a group)"
        )
    number: dict[Hashable, int] = {}
    try:
        group = np.array([number.setdefault(label, len(number)) for label in labels])  # (N,)
    except TypeError as err:
        raise TypeError(
            f"groups' labels must be hashable (str, int, ...): {err}; a 2-D array gives rows "
            "as labels, pass a 1-D one"
        ) from None
    if len(number) < 2:
        raise ValueError(
            f"groups holds {len(number)} distinct label ({labels[0]!r}) for {n_sentences} "
            "sentences: a cluster bootstrap draws whole groups and needs at least 2 (with one, "
            "every resample is the whole test set); label each sentence's cluster, or pass "
            "groups=None to resample single sentences"
        )
    return group, len(number)


def _is_pair(label: object) -> bool:
    return isinstance(label, tuple) and len(label) == 2 and all(isinstance(x, str) for x in label)


@explains_class
@dataclass(frozen=True)
class CorpusScore:
    """A corpus-level score as sacrebleu reports it.

    ``ci`` is the half-width of sacrebleu's 95 % bootstrap confidence interval (``None``
    without bootstrap): the score is ``score +- ci``. ``resampled`` says what the bootstrap
    drew: ``"sentences"``, or ``"groups (672)"`` for a cluster bootstrap over 672 groups
    (``None`` without bootstrap).

    Compare scores by their number: ``bleu.score > 30``. Ordering the objects themselves
    (``bleu > 30``, ``max(scores)``) raises a TypeError that says so.
    """

    name: str  # "BLEU" or "chrF"
    score: float  # 0..100
    line: str  # sacrebleu's full score line: "BLEU = 54.32 (mu = ...) 80.1/61.0/..."
    signature: str  # how it was computed: "nrefs:1|bs:1000|rs:12345|case:mixed|..."
    ci: float | None = None
    resampled: str | None = None  # "sentences", "groups (672)"; None without bootstrap

    def __str__(self) -> str:
        interval = "" if self.ci is None else f" +- {self.ci:.1f}"
        return f"{self.name} {self.score:.1f}{interval}{_resampled_note(self.resampled)}"

    def __format__(self, spec: str) -> str:
        """``f"{bleu}"`` is ``str(bleu)``; a number's format (``f"{bleu:.1f}"``) is refused
        with the fix: format ``bleu.score``."""
        if not spec:
            return str(self)
        name = self.name.lower()
        raise TypeError(
            f"a CorpusScore ({self}) is not a number, so the format {spec!r} does not apply: "
            f'format its score, f"{{{name}.score:{spec}}}" (and its interval, .ci)'
        )

    def _refuse_order(self, other: object, op: str) -> NoReturn:
        """``<``, ``>``, ``<=``, ``>=``: a TypeError saying to compare ``.score`` (Python's
        own says only that the types cannot be compared)."""
        mine = f"{self.name.lower()}.score"
        if isinstance(other, CorpusScore):
            fix = f"{mine} {op} other.score"
            if other.name != self.name:
                fix += f" (but {self.name} and {other.name} are on different scales)"
        elif isinstance(other, Real):
            fix = f"{mine} {op} {other!r}"
        else:
            fix = mine
        raise TypeError(
            f"a CorpusScore ({self}) cannot be compared with '{op}' against "
            f"{type_name(other)}: it holds the number in .score (0..100) and its interval in "
            f".ci. Compare the numbers, {fix}"
        )

    def __lt__(self, other: object) -> bool:
        return self._refuse_order(other, "<")

    def __le__(self, other: object) -> bool:
        return self._refuse_order(other, "<=")

    def __gt__(self, other: object) -> bool:
        return self._refuse_order(other, ">")

    def __ge__(self, other: object) -> bool:
        return self._refuse_order(other, ">=")


def _resampled_note(resampled: str | None) -> str:
    """Printed only for a cluster bootstrap, so that sentence-bootstrap lines read as before."""
    return "" if resampled in (None, "sentences") else f", resampled: {resampled}"


def _corpus_score(name: str, hypotheses, references, n_bootstrap: int, groups) -> CorpusScore:
    hypotheses, references = _check_corpus(hypotheses, references)
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, int)
        or n_bootstrap < 0
        or n_bootstrap == 1
    ):
        raise ValueError(f"n_bootstrap must be 0 (no interval) or at least 2, got {n_bootstrap!r}")
    metric = _METRICS[name]()
    if groups is None:
        result = metric.corpus_score(
            list(hypotheses), [list(references)], n_bootstrap=max(n_bootstrap, 1)
        )
        resampled = "sentences" if n_bootstrap else None
    else:
        if n_bootstrap == 0:
            raise ValueError(
                "groups only changes how the bootstrap interval is resampled, but "
                "n_bootstrap=0 asks for no interval: pass n_bootstrap as well, e.g. "
                "n_bootstrap=1000"
            )
        group, n_groups = _group_index(groups, len(references))
        result = grouped_corpus_score(metric, hypotheses, references, group, n_bootstrap)
        resampled = f"groups ({n_groups})"
    ci = interval_half_width(result) if n_bootstrap else None
    signature = str(metric.get_signature())
    return CorpusScore(name, float(result.score), str(result), signature, ci, resampled)


@explains_bad_calls(
    tokenize="corpus_bleu always uses sacrebleu's standard 13a tokenisation, fixed so that the course's scores compare with each other: leave tokenize out"
)
def corpus_bleu(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    n_bootstrap: int = 0,
    groups: Sequence[Hashable] | None = None,
) -> CorpusScore:
    """sacrebleu's corpus BLEU (13a tokenisation) of one hypothesis per reference.

    Args:
        n_bootstrap: resamples for sacrebleu's 95 % confidence interval (1000 is usual;
            sacrebleu seeds them with 12345, so the interval is reproducible); 0 for none.
        groups: one cluster label per sentence, for a cluster bootstrap, e.g.
            ``groups=group_labels(pairs)`` (:func:`course_lib.tatoeba.group_labels`, for the
            test pairs the references come from): each resample draws as many groups as
            there are, with replacement, and keeps all their sentences. Needs
            ``n_bootstrap``. ``None`` resamples single sentences; all-distinct labels give
            the same interval. The signature does not show it; ``resampled`` does.

    Returns:
        The score, its signature and, with ``n_bootstrap``, its interval.

    Raises:
        TypeError: ``hypotheses`` or ``references`` is one string, token ids (decode them
            first), lists of words, or sacrebleu's ``[references]`` form.
        ValueError: different lengths, an empty corpus, references holding vocabulary
            tokens such as ``<unk>`` (decoded ids, or the two arguments swapped), a bad
            ``n_bootstrap`` or ``groups``.
    """
    return _corpus_score("BLEU", hypotheses, references, n_bootstrap, groups)


@explains_bad_calls()
def corpus_chrf(
    hypotheses: Sequence[str],
    references: Sequence[str],
    *,
    n_bootstrap: int = 0,
    groups: Sequence[Hashable] | None = None,
) -> CorpusScore:
    """sacrebleu's corpus chrF (character 6-grams, beta 2) of one hypothesis per reference.

    chrF gives partial credit for a word with the right stem and the wrong ending, which
    BLEU's whole-word n-grams count as a miss. ``n_bootstrap`` and ``groups`` as in
    :func:`corpus_bleu`.
    """
    return _corpus_score("chrF", hypotheses, references, n_bootstrap, groups)


@explains_class
@dataclass(frozen=True)
class PairedComparison:
    """System A minus system B on the same sentences, with a paired bootstrap interval."""

    metric: str
    a: float  # A's score on the whole test set
    b: float
    delta: float  # a - b
    low: float  # 95 % interval of the difference (2.5th and 97.5th percentiles)
    high: float
    p_value: float  # two-sided: how often the resampled difference has the other sign
    resampled: str = "sentences"  # or "groups (672)" for a cluster bootstrap

    @property
    def significant(self) -> bool:
        """The 95 % interval of the difference excludes 0."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        # three decimals, four below 0.001 (10,000 resamples reach 0.0002): never "0.000"
        p = f"{self.p_value:.3f}" if self.p_value >= 0.001 else f"{self.p_value:.4f}"
        return (
            f"{self.metric} {self.a:.1f} - {self.b:.1f} = {self.delta:+.1f} "
            f"[95 % CI {self.low:+.1f}, {self.high:+.1f}], p = {p}"
            f"{_resampled_note(self.resampled)}"
        )


@explains_bad_calls(
    n_bootstrap="paired_bootstrap calls it n_samples=: paired_bootstrap(hypotheses_a, hypotheses_b, references, n_samples=1000)"
)
def paired_bootstrap(
    hypotheses_a: Sequence[str],
    hypotheses_b: Sequence[str],
    references: Sequence[str],
    *,
    metric: str = "BLEU",
    n_samples: int = 1000,
    seed: int = 12345,
    groups: Sequence[Hashable] | None = None,
) -> PairedComparison:
    """Paired bootstrap resampling (Koehn, 2004) of ``metric(A) - metric(B)``.

    Each resample draws ``len(references)`` sentences with replacement and scores *both*
    systems on that same draw, from sacrebleu's per-sentence statistics, so the sentences'
    difficulty cancels and only the systems' difference varies.

    Args:
        metric: ``"BLEU"`` or ``"chrF"``.
        n_samples: resampled test sets. The p-value is never below
            ``2 / (n_samples + 1)`` (0.002 at 1000): for several comparisons adjusted
            together (:mod:`course_lib.multiple_comparisons`) pass ``n_samples=10_000``.
        seed: for the resampling (sacrebleu's default seed).
        groups: one cluster label per sentence, for a cluster bootstrap, e.g.
            ``groups=group_labels(pairs)`` (:func:`course_lib.tatoeba.group_labels`): each
            resample draws as many groups as there are, with replacement, and keeps all
            their sentences. ``None`` resamples single sentences; all-distinct labels give
            the same interval and p-value.

    Returns:
        Both scores, their difference, its 95 % interval and a two-sided p-value.

    Raises:
        TypeError: a corpus that is not a list of sentences (see :func:`corpus_bleu`), or
            a seed that is not an integer.
        ValueError: corpora of different lengths, an unknown ``metric``, fewer than 100
            ``n_samples``, bad ``groups``.

    Warns:
        UserWarning: ``hypotheses_a`` and ``hypotheses_b`` are identical (a system compared
            with itself: a stale variable?).
    """
    hypotheses_a, references = _check_corpus(hypotheses_a, references, "hypotheses_a")
    hypotheses_b, _ = _check_corpus(hypotheses_b, references, "hypotheses_b")
    if hypotheses_a == hypotheses_b:
        warn_user(
            f"hypotheses_a and hypotheses_b are identical (the same {len(hypotheses_a)} "
            "translations): this compares a system with itself, so the difference is 0 and "
            "p = 1 whatever the systems are worth. Pass the two systems' outputs, e.g. "
            "paired_bootstrap(beam_hyps, greedy_hyps, references) -- a variable not "
            "re-computed after a change (a stale cell) is the usual cause",
            UserWarning,
        )
    if metric not in _METRICS:
        close = [m for m in _METRICS if isinstance(metric, str) and m.lower() == metric.lower()]
        hint = f" (the case matters: metric={close[0]!r})" if close else ""
        raise ValueError(f"metric must be one of {sorted(_METRICS)}, got {metric!r}{hint}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 100:
        raise ValueError(f"n_samples must be an integer of at least 100, got {n_samples!r}")
    seed = check_seed(seed)
    scorer = _METRICS[metric]()
    # per-sentence sufficient statistics, (N, k) each
    stats = [sentence_statistics(scorer, h, references) for h in (hypotheses_a, hypotheses_b)]
    full = [score_from_statistics(scorer, s.sum(0)) for s in stats]
    n = len(references)
    resampled = "sentences"
    if groups is not None:  # resample groups: their summed statistics, (G, k) each
        group, n = _group_index(groups, n)
        per_group = [np.zeros((n, s.shape[1])) for s in stats]
        for summed, s in zip(per_group, stats, strict=True):
            np.add.at(summed, group, s)
        stats, resampled = per_group, f"groups ({n})"
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=n_samples).astype(np.float64)  # (R, G)
    sums = [counts @ s for s in stats]  # (R, k): each resample's summed statistics
    deltas = np.array(
        [
            score_from_statistics(scorer, ra) - score_from_statistics(scorer, rb)
            for ra, rb in zip(*sums, strict=True)
        ]
    )
    delta = full[0] - full[1]
    low, high = np.percentile(deltas, [2.5, 97.5])
    if delta == 0:
        p = 1.0
    else:
        other_side = np.mean(deltas <= 0) if delta > 0 else np.mean(deltas >= 0)
        p = min(1.0, 2 * (other_side * n_samples + 1) / (n_samples + 1))
    return PairedComparison(
        metric, full[0], full[1], delta, float(low), float(high), float(p), resampled
    )


@explains_bad_calls()
def exact_match(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Share of hypotheses equal to their reference, word for word (spaces normalised).

    Raises:
        TypeError, ValueError: as :func:`corpus_bleu`.
    """
    hypotheses, references = _check_corpus(hypotheses, references)
    same = sum(h.split() == r.split() for h, r in zip(hypotheses, references, strict=True))
    return same / len(hypotheses)


def _number(value: object, name: str, fix: str) -> float:
    """A Python number from a number, a NumPy scalar or a one-element tensor."""
    if isinstance(value, (torch.Tensor, np.ndarray)):
        count = value.size if isinstance(value, np.ndarray) else value.numel()
        if count != 1:
            raise TypeError(f"{name} must be one number, got {type_name(value)}: {fix}")
        return value.item()
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, got {type_name(value)}: {fix}")
    return value


#: A mean loss per token below this (perplexity below 1.001) is implausible for a summed
#: loss that is itself in ``_MEAN_LOSSES``: together, the mark of a mean where the sum goes.
_IMPLAUSIBLE_NLL = 1e-3
#: Where a mean cross-entropy per token lies: from a well-trained model's to a uniform guess
#: over a large vocabulary (ln 50 000 = 10.8).
_MEAN_LOSSES = (0.1, 12.0)


@explains_bad_calls()
def perplexity(total_nll: float, n_tokens: int) -> float:
    """``exp`` of the mean negative log-likelihood per token (natural log).

    Args:
        total_nll: the **summed** negative log-likelihood of all tokens (a number or a
            one-element tensor), not a mean.
        n_tokens: the number of tokens it sums over.

    Raises:
        TypeError: an argument that is not one number (a tensor of several losses, a
            list), or a ``n_tokens`` that is not a whole number (arguments swapped?).
        ValueError: ``n_tokens`` not positive, ``total_nll`` negative or not finite.

    Warns:
        UserWarning: ``total_nll`` looks like a mean loss (between 0.1 and 12) spread over
            so many tokens that the perplexity is below 1.001: the mean where the sum goes.
    """
    total_nll = _number(total_nll, "total_nll", "sum the losses, e.g. losses.sum().item()")
    n_tokens = _number(n_tokens, "n_tokens", "count the tokens, e.g. int(mask.sum())")
    if not float(n_tokens).is_integer():
        raise TypeError(
            f"n_tokens must be a whole number of tokens, got {n_tokens!r}: the order is "
            "perplexity(total_nll, n_tokens)"
        )
    if n_tokens <= 0:
        raise ValueError(f"n_tokens must be positive, got {n_tokens}")
    if not math.isfinite(total_nll) or total_nll < 0:
        raise ValueError(f"total_nll must be a finite, non-negative sum, got {total_nll}")
    mean = total_nll / n_tokens
    if mean < _IMPLAUSIBLE_NLL and _MEAN_LOSSES[0] <= total_nll <= _MEAN_LOSSES[1]:
        warn_user(
            f"perplexity({total_nll:g}, {n_tokens:g}) is {math.exp(mean):.4f}, a model almost "
            f"never wrong: total_nll={total_nll:g} is what a mean loss per token looks like. "
            "total_nll is the *sum* over the tokens, not the mean: pass the summed loss "
            "(F.cross_entropy(..., reduction='sum'), or mean_loss * n_tokens), or take "
            "math.exp(mean_loss) directly. (If it is the sum and the model is this good, "
            "ignore this.)",
            UserWarning,
        )
    return math.exp(mean)
