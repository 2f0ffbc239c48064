"""The cases of Chapter 5's data checks (``checks.translation``): the library's sinusoidal
table written out, and the sentences, sizes and lengths ``unseen_cases`` adds."""

from __future__ import annotations

import operator

import numpy as np
import torch
from torch import Tensor

from course_lib.vocab import PAD, SOS


def sinusoid_table(
    s: int, d: int, start: int = 0, exponent: int = 2, concatenated: bool = False
) -> Tensor:
    """``(S, D)`` sines and cosines of positions ``start ..``, even ``D``; the defaults give
    the library's table (pair ``i`` at speed ``1 / 10000^(exponent * i / D)``, interleaved)."""
    angles = torch.arange(start, start + s)[:, None] / 10000 ** (
        exponent * torch.arange(d // 2) / d
    )
    if concatenated:
        return torch.cat([angles.sin(), angles.cos()], 1)
    return torch.stack([angles.sin(), angles.cos()], -1).flatten(1)


#: Words outside ``check_token_positions``'s vocabulary, for the unseen sentences.
_NEW_WORDS = ("mange", "souris", "rouge", "court")


def unseen_sentences(words: list[str], g: torch.Generator) -> list[tuple[str, int]]:
    """Two ``(sentence, d_model)`` cases for ``unseen_cases``: one to five words of ``words``
    or of :data:`_NEW_WORDS` (unknown ones), at an even width of at least 4."""
    pool = [*words, *_NEW_WORDS]
    cases = []
    for _ in range(2):
        n = int(torch.randint(1, 6, (), generator=g))
        picked = torch.randint(len(pool), (n,), generator=g).tolist()
        d = 2 * int(torch.randint(2, 33, (), generator=g))
        cases.append((" ".join(pool[i] for i in picked), d))
    return cases


def unseen_shapes(g: torch.Generator) -> list[tuple[int, int, int, int, int]]:
    """Two ``(B, Lq, Lk, D, H)`` cases for ``unseen_cases``; ``D`` is a multiple of ``H``."""
    cases = []
    for _ in range(2):
        b, lq, lk, h, width = (int(n) for n in torch.randint(1, 9, (5,), generator=g))
        cases.append((b, lq, lk, h * width, h))
    return cases


def an_int(n: object) -> bool:
    """A Python or NumPy integer, or a 0-dim integer tensor; not a bool."""
    if isinstance(n, (bool, np.bool_)) or (isinstance(n, Tensor) and n.dtype == torch.bool):
        return False
    try:
        operator.index(n)
    except TypeError:
        return False
    return True


def target_inputs(lengths: list[int], t: int, g: torch.Generator) -> Tensor:
    """Decoder inputs ``(B, T)``: ``<sos>``, random word ids, then ``<pad>`` after each length."""
    tokens = torch.randint(4, 20, (len(lengths), t), generator=g)
    tokens[:, 0] = SOS
    tokens[torch.arange(t) >= torch.tensor(lengths)[:, None]] = PAD
    return tokens


def unseen_lengths(g: torch.Generator) -> list[tuple[list[int], int]]:
    """Two ``(lengths, T)`` cases for ``unseen_cases``: B of 1 to 5 sentences, T of 2 to 7
    steps, the longest sentence filling them."""
    cases = []
    for _ in range(2):
        b, t = int(torch.randint(1, 6, (), generator=g)), int(torch.randint(2, 8, (), generator=g))
        lengths = torch.randint(1, t + 1, (b,), generator=g)
        lengths[int(torch.randint(b, (), generator=g))] = t
        cases.append((lengths.tolist(), t))
    return cases
