"""Clear errors for calls written in another library's words.

Students copy keywords, argument orders and attributes from PyTorch, Hugging Face, Keras,
scikit-learn or the lecture's own classes: ``is_causal=True``, ``batch_first=True``,
``nhead=``, ``beam_search(model, src, 4)``. Python then answers "got an unexpected keyword
argument 'is_causal'", which says what is wrong but not what course_lib calls it.

:func:`explains_bad_calls` wraps a function, method or ``forward``: a correct call runs the
function directly (one ``try`` block, nothing checked). Only when the call raises a
``TypeError`` *and* the arguments do not bind to the signature (so Python refused the call
itself, before the body ran) is the error rewritten in the course's words::

    @explains_bad_calls(is_causal="course_lib writes attn_mask=causal_mask(T) (True = blocked)")
    def forward(self, query, key, value, *, attn_mask=None): ...

A ``TypeError`` raised inside the body passes through untouched. Keywords listed give their
hint; any other unknown keyword gets the names the callable accepts (with the closest one);
too many positional arguments get the signature and which arguments are keyword-only; missing
ones get the signature. ``positional=`` and ``missing=`` add a hint of the callable's own to
those two. :func:`explain_config` does the same for a dataclass's generated ``__init__``.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)
C = TypeVar("C", bound=type)

__all__ = ["explain_config", "explains_bad_calls"]


def explains_bad_calls(
    *, positional: str | None = None, missing: str | None = None, **hints: str
) -> Callable[[F], F]:
    """Decorate ``fn`` so a call that does not fit its signature says how to write it.

    ``hints`` maps a foreign keyword (``is_causal``) to what course_lib says instead;
    ``positional`` is added when too many positional arguments are given, ``missing`` when
    required ones are missing. The signature, name and docstring stay ``fn``'s
    (:func:`functools.wraps`), so ``help()`` and the API docs show them unchanged.
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError as err:
                message = explain_call(fn, args, kwargs, hints, positional, missing)
                if message is None:
                    raise
                raise TypeError(message) from err

        return wrapper  # type: ignore[return-value]

    return decorate


def explain_config(cls: C | None = None, /, **hints: str):
    """Give a dataclass's ``__init__`` the clear errors of :func:`explains_bad_calls`.

    Apply it above ``@dataclass`` (it needs the generated ``__init__``), bare or with
    hints::

        @explain_config(num_layers="the encoder-decoder has num_encoder_layers= ...")
        @dataclass(frozen=True)
        class TranslationConfig: ...
    """

    def decorate(c: C) -> C:
        c.__init__ = explains_bad_calls(**hints)(c.__init__)
        return c

    return decorate if cls is None else decorate(cls)


def explain_call(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    hints: dict[str, str],
    positional: str | None = None,
    missing: str | None = None,
) -> str | None:
    """The course's message for a call of ``fn`` that cannot bind, or ``None`` when the
    arguments bind (the ``TypeError`` then came from inside the body: leave it alone)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError as refusal:
        reason = str(refusal)
    else:
        return None
    name = _call_name(fn, sig, args)
    shown = _shown_signature(sig)
    params = sig.parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = [k for k in kwargs if k not in params and not takes_kwargs]
    if unknown:
        return _unexpected_keyword(name, unknown[0], params, hints, shown)
    n_positional = sum(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params.values()
    )
    takes_args = any(p.kind is p.VAR_POSITIONAL for p in params.values())
    if len(args) > n_positional and not takes_args:
        return _too_many_positional(name, args, n_positional, params, shown, positional)
    text = f"{name}() {_strip_name(reason)}: call it as {name}{shown}"
    if reason.startswith("missing") and missing:
        text += f"; {missing}"
    return text


def _call_name(fn: Callable, sig: inspect.Signature, args: tuple) -> str:
    """``EncoderLayer`` for a constructor, ``MultiHeadAttention.forward`` for a method (the
    class of the object it was called on, not the base class defining it), ``fn`` else."""
    first = next(iter(sig.parameters), None)
    if args and first in ("self", "cls"):
        owner = args[0] if first == "cls" and isinstance(args[0], type) else type(args[0])
        if fn.__name__ == "__init__":
            return owner.__name__
        return f"{owner.__name__}.{fn.__name__}"
    return fn.__name__


def _shown_signature(sig: inspect.Signature) -> str:
    """The signature as a caller writes it: no ``self``/``cls``, no annotations."""
    params = [
        p.replace(annotation=inspect.Parameter.empty)
        for i, p in enumerate(sig.parameters.values())
        if not (i == 0 and p.name in ("self", "cls"))
    ]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _strip_name(reason: str) -> str:
    """Python's reason without its leading ``fn()``: "missing 1 required ..." ."""
    return reason.split("() ", 1)[1] if "() " in reason else reason


def _accepted(params) -> list[str]:
    return [
        p.name
        for p in params.values()
        if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _unexpected_keyword(name: str, key: str, params, hints: dict[str, str], shown: str) -> str:
    text = f"{name}() got an unexpected keyword argument {key!r}"
    if key in hints:
        return f"{text}: {hints[key]}"
    accepted = _accepted(params)
    close = difflib.get_close_matches(key, accepted, n=1)
    guess = f"; did you mean {close[0]}=? " if close else ". "
    return f"{text}{guess}{name} accepts: {', '.join(accepted)}, as in {name}{shown}"


def _too_many_positional(
    name: str, args: tuple, n_positional: int, params, shown: str, hint: str | None
) -> str:
    own = n_positional - (1 if next(iter(params), None) in ("self", "cls") else 0)
    given = len(args) - (n_positional - own)
    text = (
        f"{name}() takes {own} positional argument{'s' if own != 1 else ''} but {given} "
        f"{'was' if given == 1 else 'were'} given: its signature is {name}{shown}"
    )
    if hint:
        return f"{text}; {hint}"
    keyword_only = [p.name for p in params.values() if p.kind is p.KEYWORD_ONLY]
    if keyword_only:
        extra = args[n_positional:]
        named = ", ".join(f"{k}={_short(v)}" for k, v in zip(keyword_only, extra, strict=False))
        text += f"; the arguments after * are keyword-only: name them, e.g. {name}(..., {named})"
    return text


def _short(value) -> str:
    """``3``, ``0.05`` or ``...``: a value short enough to echo in the example call."""
    if isinstance(value, bool | int | float | str) and len(repr(value)) <= 12:
        return repr(value)
    return "..."


def explains_foreign_attributes(**hints: str) -> Callable[[C], C]:
    """Class decorator: reading an attribute another library's class has (``in_proj_weight``,
    ``init_hidden``, ``predict``) raises an ``AttributeError`` that says what course_lib
    has instead.

    Only a failed lookup reaches it (Python calls ``__getattr__`` after the normal lookup
    fails); an ``nn.Module``'s own ``__getattr__`` (parameters, buffers, submodules) runs
    first, unchanged. Names not in ``hints`` keep Python's message.
    """

    def decorate(cls: C) -> C:
        inherited = getattr(cls, "__getattr__", None)

        def __getattr__(self, name: str):
            if inherited is not None:
                try:
                    return inherited(self, name)
                except AttributeError:
                    if name not in hints:
                        raise
            elif name not in hints:
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute {name!r}", obj=self, name=name
                )
            raise AttributeError(f"{type(self).__name__} has no {name}: {hints[name]}") from None

        cls.__getattr__ = __getattr__
        return cls

    return decorate


def not_subscriptable(cls_name: str, hint: str) -> Callable:
    """A ``__getitem__`` that refuses every index with ``hint``: for objects read by
    attribute (``split.train``) or by iteration (``for batch in batches``), where a
    dictionary's or list's habit (``split["train"]``, ``batches[0]``) would otherwise get
    Python's "object is not subscriptable". Unpacking (``a, b, c = split``) gets it too.
    """

    def __getitem__(self, key):
        raise TypeError(f"{cls_name} is not indexed, so [{key!r}] cannot work: {hint}")

    return __getitem__
