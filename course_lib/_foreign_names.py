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

A ``TypeError`` raised inside the body passes through untouched (except that a listed keyword
which a ``**kwargs`` parameter took and the body refused by name gets its hint). Keywords
listed give their hint; any other unknown keyword gets the names the callable accepts (with
the closest one); too many positional arguments get the signature and which arguments are
keyword-only; missing ones get the signature. ``positional=`` and ``missing=`` add a hint of
the callable's own to those two. Advice is given only about what the user wrote: a call that
course_lib's own code made (the Trainer calling the model with a batch) keeps Python's error,
except for keywords it passed on from the user (``**kwargs``); a keyword refused by another
function the body called is that function's to answer; "did you mean" offers near spellings
only (:func:`closest_name`).

:func:`explains_class` gives a whole class this treatment: its constructor (``__init__``, a
dataclass's generated one, a named tuple's ``__new__``), ``forward``, ``__call__`` and public
methods, and a failed attribute lookup of a public name: a known foreign name (``alphas``,
``generate``) gets its hint, any other "X has no 'name'; did you mean 'close'?" -- computed
only when the message is read, so ``hasattr`` probes stay cheap (a property whose getter
failed raises its own error; a lookup by course_lib's code gets no guess).
:func:`explain_config` does the same for a dataclass config, with hints for its constructor's
keywords. Every public
callable of the library is covered (``tests/test_foreign_names.py`` walks the modules'
``__all__`` and fails on one that is not).

The teaching modules do not wear these decorators: their tables live in
:mod:`course_lib._name_tables`, keyed by the qualified name of what they explain, and
:func:`apply_name_tables` applies them when the module ends, as the decorators would have.
"""

from __future__ import annotations

import builtins
import difflib
import functools
import inspect
import re
import sys
import types
from collections.abc import Callable, Mapping
from typing import TypeVar

from course_lib._frames import course_lib_frame, library_code, passes_keywords_on

F = TypeVar("F", bound=Callable)
C = TypeVar("C", bound=type)

__all__ = ["apply_name_tables", "explain_config", "explains_bad_calls", "explains_class"]

#: Set on every wrapper :func:`explains_bad_calls` returns (and copied by ``functools.wraps``
#: onto decorators above it): the class decorators leave such a callable alone, and the
#: conventions test finds the uncovered ones by its absence.
MARK = "_explains_bad_calls"

#: The names of a method's first parameter: the object or class it was called on.
_BOUND = ("self", "cls", "_cls")


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
        # A plain function without a closure (its state lives in its own globals), so that,
        # like the function it wraps, it can have its __code__ replaced and put back: the
        # grader's worker restores library functions a submission rewrote that way.
        state = {
            "__builtins__": builtins,
            "__name__": fn.__module__,
            "_fn": fn,
            "_why": (hints, positional, missing),
            "_explain": _explain,
        }
        wrapper = types.FunctionType(_call.__code__, state, fn.__name__)
        functools.update_wrapper(wrapper, fn)
        setattr(wrapper, MARK, True)
        return wrapper  # type: ignore[return-value]

    return decorate


def _call(*args, **kwargs):  # the code of every wrapper; _fn, _why, _explain: its globals
    try:
        return _fn(*args, **kwargs)  # noqa: F821
    except TypeError as err:
        message = _explain(_fn, args, kwargs, *_why, err)  # noqa: F821
        if message is None:
            raise
        raise TypeError(message) from err


def _explain(fn, args, kwargs, hints, positional, missing, err) -> str | None:
    caller = _looked_up_from(sys._getframe(2))  # 0: here, 1: the wrapper, 2: its caller
    if caller is not None and course_lib_frame(caller):
        # course_lib made this call, not the user: its arguments are the library's, so a
        # hint on how to write the call would be about a call the user never wrote -- unless
        # it passed keywords on (**kwargs), which are the user's
        if not passes_keywords_on(caller):
            return None
        return explain_call(fn, args, kwargs, hints, error=err, keywords_only=True)
    return explain_call(fn, args, kwargs, hints, positional, missing, err)


def _looked_up_from(frame: types.FrameType | None) -> types.FrameType | None:
    """The first frame from ``frame`` outwards that is course_lib's or the user's: the
    standard library's and installed packages' (``nn.Module.__call__``, ``functools``,
    ``dataclasses.replace``) pass a call or a lookup on."""
    while frame is not None and library_code(frame.f_code) and not course_lib_frame(frame):
        frame = frame.f_back
    return frame


def explains_class(cls: C | None = None, /, **attribute_hints: str):
    """Class decorator: every call of the class's own callables that does not bind, and every
    failed lookup of a public attribute, says how to write it in course_lib's words.

    Wraps with :func:`explains_bad_calls` the constructor the class defines (``__init__``,
    a dataclass's generated one -- so apply it above ``@dataclass`` --, a named tuple's
    ``__new__``), ``__call__`` and every public method, classmethod and staticmethod in its
    body that is not wrapped already (decorate a method yourself to give it hints). Bare or
    with hints for attributes another library's class has::

        @explains_class(alphas="course_lib's Attention returns its weights: ...")
        class Attention(nn.Module): ...

    Reading an attribute that does not exist then raises an ``AttributeError`` that gives
    the hint for a listed name (listed on this class or a decorated base), and for any other
    public name (not starting with ``_``) "Attention has no 'name'; did you mean 'close'?",
    computed only when the message is read (:class:`MissingAttributeError`). Only a failed
    lookup reaches it: Python calls ``__getattr__`` after the normal lookup fails. An
    ``nn.Module``'s parameters, buffers and submodules, which its own ``__getattr__`` finds,
    are found first, the same way and as fast. Private names (``__deepcopy__``,
    ``_parameters``) keep the inherited lookup and Python's error, so ``hasattr`` probes by
    ``copy``, ``pickle`` and ``torch`` answer as before.
    """

    def decorate(c: C) -> C:
        _wrap_callables(c)
        _answer_attributes(c, attribute_hints)
        return c

    return decorate if cls is None else decorate(cls)


def explain_config(cls: C | None = None, /, **hints: str):
    """:func:`explains_class` for a dataclass config, with ``hints`` for its constructor's
    keywords (those of :func:`explains_bad_calls`).

    Apply it above ``@dataclass`` (it needs the generated ``__init__``), bare or with
    hints::

        @explain_config(num_layers="the encoder-decoder has num_encoder_layers= ...")
        @dataclass(frozen=True)
        class TranslationConfig: ...
    """

    def decorate(c: C) -> C:
        init = vars(c).get("__init__")
        if init is not None and not getattr(init, MARK, False):
            c.__init__ = explains_bad_calls(**hints)(init)
        return explains_class(c)

    return decorate if cls is None else decorate(cls)


def apply_name_tables(module: types.ModuleType, tables: Mapping[str, Callable]) -> None:
    """Decorate ``module``'s functions, methods and classes as ``tables`` says, after the fact:
    the same result as the decorators written on top of them.

    ``tables`` maps a qualified name (``"masked_softmax"``, ``"Attention.forward"``,
    ``"EncoderDecoder"``) to its decorator (``explains_bad_calls(is_causal=...)``,
    ``explains_class``, ``explain_config(...)``). A method is looked up in its class's own
    body, as a decorator would sit there; call this once, when the module is complete::

        apply_name_tables(sys.modules[__name__], TABLES[__name__])

    The order is the decorators': the objects in the order the module defines them, and in a
    class its methods before the class itself (:func:`explains_class` then leaves a method
    with hints of its own alone, and a subclass finds its base's attribute hints). The
    decorator goes under a ``classmethod``, ``staticmethod`` or ``functools.lru_cache`` it
    finds there (which are rebuilt on top), as it was written under them. What the module bound
    to a replaced function before -- a default argument (``decode=greedy_decode``), another
    global name -- is bound to the decorated one.

    Raises:
        LookupError: a name the module (or the class) does not define.
        TypeError: a name that is not a function, a method or a class.
    """
    order = {name: i for i, name in enumerate(vars(module))}
    entries = []
    for qualname, decorate in tables.items():
        top, *rest = qualname.split(".")
        entries.append((order.get(top, -1), -len(rest), qualname, decorate))
    replaced: dict[int, tuple[object, object]] = {}  # id(before) -> (before, after)
    for *_, qualname, decorate in sorted(entries, key=lambda e: e[:2]):
        *path, name = qualname.split(".")
        owner: object = module
        for part in path:
            owner = vars(owner).get(part)
        if owner is None or name not in vars(owner):
            raise LookupError(f"{module.__name__} defines no {qualname} (named in its table)")
        before = vars(owner)[name]
        after = _decorated(before, decorate, qualname)
        if after is not before:
            setattr(owner, name, after)
            replaced[id(before)] = (before, after)
    _rebind(module, replaced)


def _decorated(member: object, decorate: Callable, qualname: str) -> object:
    """``decorate(member)``, under the ``classmethod``, ``staticmethod`` or ``lru_cache``
    wrapping ``member``."""
    if isinstance(member, (classmethod, staticmethod)):
        return type(member)(_decorated(member.__func__, decorate, qualname))
    if callable(getattr(member, "cache_parameters", None)) and hasattr(member, "__wrapped__"):
        cached = functools.lru_cache(**member.cache_parameters())  # type: ignore[attr-defined]
        return cached(_decorated(member.__wrapped__, decorate, qualname))  # type: ignore[attr-defined]
    if inspect.isfunction(member) or inspect.isclass(member):
        return decorate(member)
    raise TypeError(f"{qualname} is a {type(member).__name__}: its table cannot apply to it")


def _rebind(module: types.ModuleType, replaced: dict[int, tuple[object, object]]) -> None:
    """Point the module's global names and the default arguments of the functions it defines
    at the decorated objects instead of the ones they replaced."""

    def new(value: object) -> object:
        pair = replaced.get(id(value))
        return pair[1] if pair is not None and pair[0] is value else value

    functions = []
    for name, value in list(vars(module).items()):
        if new(value) is not value:
            value = new(value)
            setattr(module, name, value)
        if getattr(value, "__module__", None) != module.__name__:
            continue  # imported: its defaults were bound in its own module
        members = vars(value).values() if inspect.isclass(value) else (value,)
        for member in members:
            fn = getattr(member, "__func__", member)
            while inspect.isfunction(fn) and fn.__module__ == module.__name__:
                functions.append(fn)
                fn = getattr(fn, "__wrapped__", None)
    for fn in functions:
        if fn.__defaults__:
            fn.__defaults__ = tuple(new(v) for v in fn.__defaults__)
        if fn.__kwdefaults__:
            fn.__kwdefaults__ = {k: new(v) for k, v in fn.__kwdefaults__.items()}


def covers_calls(member: object) -> bool:
    """Whether ``member`` (a function, or a ``staticmethod``/``classmethod``) answers a
    call that does not bind in the course's words."""
    fn = getattr(member, "__func__", member)
    return bool(getattr(fn, MARK, False))


def _wrap_callables(c: type) -> None:
    is_namedtuple = issubclass(c, tuple) and hasattr(c, "_fields")
    for name, member in list(vars(c).items()):
        if not (
            name in ("__init__", "__call__")
            or (name == "__new__" and is_namedtuple)
            or not name.startswith("_")
        ):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            fn, rewrap = member.__func__, type(member)
        elif inspect.isfunction(member):
            fn, rewrap = member, None
        else:  # a property, a constant, a nested class
            continue
        if getattr(fn, MARK, False):
            continue  # wrapped with hints of its own
        wrapped = explains_bad_calls()(fn)
        setattr(c, name, rewrap(wrapped) if rewrap else wrapped)


def explain_call(
    fn: Callable,
    args: tuple,
    kwargs: dict,
    hints: dict[str, str],
    positional: str | None = None,
    missing: str | None = None,
    error: BaseException | None = None,
    *,
    keywords_only: bool = False,
) -> str | None:
    """The course's message for a call of ``fn`` that cannot bind, or ``None`` when the
    arguments bind (the ``TypeError`` then came from inside the body: leave it alone --
    unless a ``**kwargs`` parameter took a keyword listed in ``hints`` and the body's
    ``error`` names it, which gets the hint). ``keywords_only``: answer unknown keywords
    only (``None`` for the positional arguments of a call the user did not write)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError as refusal:
        reason = str(refusal)
    else:
        return _refused_by_the_body(fn, sig, args, kwargs, hints, error)
    name = _call_name(fn, sig, args)
    shown = _shown_signature(sig)
    params = sig.parameters
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = [k for k in kwargs if k not in params and not takes_kwargs]
    if unknown:
        return _unexpected_keyword(name, unknown, params, hints, shown)
    if keywords_only:
        return None
    n_positional = sum(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params.values()
    )
    takes_args = any(p.kind is p.VAR_POSITIONAL for p in params.values())
    if len(args) > n_positional and not takes_args:
        return _too_many_positional(name, args, n_positional, params, shown, positional)
    reason = _strip_name(reason)
    if reason.startswith("multiple values"):
        reason = "got " + reason
    text = f"{name}() {reason}: call it as {name}{shown}"
    if reason.startswith("missing") and missing:
        text += f"; {missing}"
    return text


_REFUSED = re.compile(r"^([\w.<>]+)\(\) got an unexpected keyword argument")


def _refused_by_the_body(fn, sig, args, kwargs, hints, error) -> str | None:
    """A hinted keyword that ``**kwargs`` took and the body refused by its name: the error
    raised in ``fn``'s own code or course_lib's, not by another function of the user's that
    the body called (a callback refusing the keyword is the callback's to answer)."""
    if error is None or error.__traceback__ is None:
        return None
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code is not getattr(fn, "__code__", None) and not course_lib_frame(
        tb.tb_frame
    ):
        return None
    said = str(error)
    refused = _REFUSED.match(said)
    if refused and refused.group(1) not in (fn.__qualname__, fn.__name__):
        return None  # Python refused a call of another function the body made
    for key in kwargs:
        if key not in sig.parameters and key in hints and repr(key) in said:
            name = _call_name(fn, sig, args)
            return f"{name}() got an unexpected keyword argument {key!r}: {hints[key]}"
    return None


def _call_name(fn: Callable, sig: inspect.Signature, args: tuple) -> str:
    """``EncoderLayer`` for a constructor, ``MultiHeadAttention.forward`` for a method (the
    class of the object it was called on, not the base class defining it), ``fn`` else."""
    first = next(iter(sig.parameters), None)
    if args and first in _BOUND:
        owner = args[0] if first != "self" and isinstance(args[0], type) else type(args[0])
        if fn.__name__ in ("__init__", "__new__"):
            return owner.__name__
        return f"{owner.__name__}.{fn.__name__}"
    return fn.__name__


def _shown_signature(sig: inspect.Signature) -> str:
    """The signature as a caller writes it: no ``self``/``cls``, no annotations."""
    params = [
        p.replace(annotation=inspect.Parameter.empty)
        for i, p in enumerate(sig.parameters.values())
        if not (i == 0 and p.name in _BOUND)
    ]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _strip_name(reason: str) -> str:
    """Python's reason without its leading ``fn()``: "missing 1 required ..." ."""
    return reason.split("() ", 1)[1] if "() " in reason else reason


def _accepted(params) -> list[str]:
    return [
        p.name
        for i, p in enumerate(params.values())
        if not (i == 0 and p.name in _BOUND) and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _unexpected_keyword(
    name: str, unknown: list[str], params, hints: dict[str, str], shown: str
) -> str:
    """The first unknown keyword (one with a hint, if any has) with its hint or the accepted
    names; the others after it, each with its hint or closest name."""
    unknown = sorted(unknown, key=lambda k: k not in hints)  # stable: hinted ones first
    key, *others = unknown
    accepted = _accepted(params)
    text = f"{name}() got an unexpected keyword argument {key!r}"
    if key in hints:
        text = f"{text}: {hints[key]}"
    else:
        close = closest_name(key, accepted)
        guess = f"; did you mean {close}=? " if close else ". "
        text = f"{text}{guess}{name} accepts: {', '.join(accepted)}, as in {name}{shown}"
    more = []
    for k in others:
        if k in hints:
            if hints[k] not in text:  # one hint may answer several names
                more.append(f"{k!r}: {hints[k]}")
            continue
        close = closest_name(k, accepted)
        more.append(f"{k!r} (did you mean {close}=?)" if close else repr(k))
    if more:
        text += f"; not accepted either: {'; '.join(more)}"
    return text


def closest_name(name: str, names: list[str]) -> str | None:
    """The one of ``names`` that ``name`` is a near spelling of, or None. Near: a similarity
    of at least 0.7 (``hidden_size`` and ``hidden_dim``, ``scal`` and ``scale``), or the only
    name that contains it or that it contains (``beam`` in ``beam_size``). Not near: a ratio
    under 0.7 (``seed`` and ``observed``, ``device`` and ``decode``): a guess from such a
    pair names an argument the user did not mean."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
    if close:
        return close[0]
    inside = [n for n in names if min(len(n), len(name)) >= 3 and (name in n or n in name)]
    return inside[0] if len(inside) == 1 else None


def _too_many_positional(
    name: str, args: tuple, n_positional: int, params, shown: str, hint: str | None
) -> str:
    own = n_positional - (1 if next(iter(params), None) in _BOUND else 0)
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


class MissingAttributeError(AttributeError):
    """A public attribute a course_lib object does not have: "Attention has no 'alpha';
    did you mean 'alphas'?". The message (a search over the object's public attributes)
    is computed only when it is read, so a ``hasattr`` probe costs no more than Python's
    own error. Pickled, it becomes a plain ``AttributeError`` with that message."""

    def __init__(
        self, obj: object = None, name: str | None = None, by_library: bool = False
    ) -> None:
        super().__init__()
        self._owner, self._attribute, self._by_library = obj, name, by_library

    def __str__(self) -> str:
        plain = f"{type(self._owner).__name__} has no {self._attribute!r}"
        if self._by_library:  # course_lib's code read it: no guess at what the user meant
            return f"{plain} (read by course_lib's code, not by a line of yours)"
        try:
            return _missing_attribute(self._owner, self._attribute)
        except Exception:  # a half-built object whose dir() fails: say the least
            return plain

    def __reduce__(self):
        return AttributeError, (str(self),)


def _missing_attribute(obj: object, name: str) -> str:
    owner = type(obj).__name__
    public = sorted({n for n in dir(obj) if not n.startswith("_")})
    close = closest_name(name, public)
    if close:
        return f"{owner} has no {name!r}; did you mean {close!r}?"
    ours = {"course_lib", type(obj).__module__.split(".")[0]}  # and a student's subclass
    foreign = set()  # what the base classes of other libraries (nn.Module, tuple) define
    for k in type(obj).__mro__:
        if k.__module__.split(".")[0] not in ours:
            foreign.update(vars(k))
    own = [n for n in public if n not in foreign and n != "training"]
    shown = ", ".join(own[:20]) + (", ..." if len(own) > 20 else "")
    return f"{owner} has no {name!r}; its own attributes and methods are: {shown or 'none'}"


_ABSENT = object()

#: Where an ``nn.Module`` keeps what its ``__getattr__`` finds, in the order it looks.
_MODULE_STORES = ("_parameters", "_buffers", "_modules")

#: Set on every ``__getattr__`` :func:`explains_class` installs (with its hints).
_GETATTR_MARK = "_explains_attributes"


def _answer_attributes(c: type, hints: dict[str, str]) -> None:
    inherited = None  # the first __getattr__ of another library in the MRO (nn.Module's)
    merged: dict[str, str] = {}
    for k in c.__mro__:
        found = vars(k).get("__getattr__")
        if found is None:
            continue
        known = getattr(found, _GETATTR_MARK, None)
        if known is None:
            inherited = found
            break
        merged = {**known, **merged}
    merged.update(hints)
    module = getattr(inherited, "__qualname__", None) == "Module.__getattr__" and (
        inherited.__module__.startswith("torch.")
    )

    def __getattr__(self, name: str):
        if inherited is not None:
            if name.startswith("_"):  # private: the inherited lookup and its error, as before
                return inherited(self, name)
            if module:  # parameters, buffers, submodules: as fast as nn.Module's own lookup
                state = self.__dict__
                for store in _MODULE_STORES:
                    found = state.get(store)
                    if found is not None and name in found:
                        return found[name]
            try:
                return inherited(self, name)
            except AttributeError:
                pass
        elif name.startswith("_"):
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {name!r}", obj=self, name=name
            )
        for k in type(self).__mro__:  # found, but its getter raised: raise that error again
            found = vars(k).get(name, _ABSENT)
            if found is not _ABSENT:
                if hasattr(type(found), "__get__"):
                    return found.__get__(self, type(self))
                break
        looker = _looked_up_from(sys._getframe(1))
        by_library = looker is not None and course_lib_frame(looker)
        hint = merged.get(name)
        if hint is not None and not by_library:
            raise AttributeError(f"{type(self).__name__} has no {name}: {hint}") from None
        raise MissingAttributeError(self, name, by_library) from None

    setattr(__getattr__, _GETATTR_MARK, merged)
    __getattr__.__qualname__ = f"{c.__qualname__}.__getattr__"
    c.__getattr__ = __getattr__


def answers_attributes(cls: type) -> bool:
    """Whether a failed attribute lookup on ``cls`` gets the course's answer."""
    return any(hasattr(vars(k).get("__getattr__"), _GETATTR_MARK) for k in cls.__mro__)


def not_subscriptable(cls_name: str, hint: str) -> Callable:
    """A ``__getitem__`` that refuses every index with ``hint``: for objects read by
    attribute (``split.train``) or by iteration (``for batch in batches``), where a
    dictionary's or list's habit (``split["train"]``, ``batches[0]``) would otherwise get
    Python's "object is not subscriptable". Unpacking (``a, b, c = split``) gets it too.
    """

    def __getitem__(self, key):
        raise TypeError(f"{cls_name} is not indexed, so [{key!r}] cannot work: {hint}")

    return __getitem__
