"""The mechanism that rewrites calls in another library's words (course_lib._foreign_names)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import pydoc
from dataclasses import dataclass
from typing import NamedTuple

import pytest
import torch

from course_lib._foreign_names import explain_config, explains_bad_calls, explains_class


def _plain(x: int, y: int = 1, *, scale: float = 2.0) -> float:
    """Add and scale."""
    if x == "boom":
        raise TypeError("raised inside the body")
    return (x + y) * scale


wrapped = explains_bad_calls(is_causal="course_lib writes attn_mask=causal_mask(T)")(_plain)


class _Module:
    @explains_bad_calls(nhead="course_lib calls it num_heads", missing="build it from sizes")
    def __init__(self, d_model: int, num_heads: int) -> None:
        self.d_model, self.num_heads = d_model, num_heads

    @explains_bad_calls(positional="masks are keyword-only: layer(x, src_mask=mask)")
    def forward(self, x, *, src_mask=None):
        return x, src_mask


class _Sub(_Module):
    pass


@explain_config(num_layers="the encoder-decoder has num_encoder_layers=")
@dataclass(frozen=True)
class _Config:
    vocab: int
    num_encoder_layers: int = 2


def test_correct_call_returns_the_result():
    assert wrapped(1, 2, scale=3.0) == 9.0
    assert _Module(4, 2).forward(5, src_mask=1) == (5, 1)
    assert _Config(3, num_encoder_layers=1) == _Config(3, 1)


def test_type_error_from_the_body_passes_untouched():
    with pytest.raises(TypeError) as info:
        wrapped("boom")
    assert str(info.value) == "raised inside the body"
    assert info.value.__cause__ is None


def test_known_foreign_keyword_gets_its_hint():
    with pytest.raises(TypeError, match=r"_plain\(\) got an unexpected keyword argument "):
        wrapped(1, is_causal=True)
    with pytest.raises(TypeError) as info:
        wrapped(1, is_causal=True)
    assert "'is_causal'" in str(info.value) and "attn_mask=causal_mask(T)" in str(info.value)


def test_unknown_keyword_lists_the_accepted_names_and_a_close_match():
    with pytest.raises(TypeError) as info:
        wrapped(1, scal=2.0)
    text = str(info.value)
    assert "did you mean scale=?" in text
    assert "accepts: x, y, scale" in text


def test_too_many_positional_shows_the_keyword_only_part():
    with pytest.raises(TypeError) as info:
        wrapped(1, 2, 3.0)
    text = str(info.value)
    assert "takes 2 positional arguments but 3 were given" in text
    assert "_plain(x, y=1, *, scale=2.0)" in text
    assert "keyword-only" in text and "scale=3.0" in text


def test_positional_hint_and_the_class_called_on():
    with pytest.raises(TypeError) as info:
        _Sub(4, 2).forward(5, 6)
    text = str(info.value)
    assert text.startswith("_Sub.forward() takes 1 positional argument but 2 were given")
    assert "layer(x, src_mask=mask)" in text


def test_constructor_names_the_class_and_missing_hint():
    with pytest.raises(TypeError) as info:
        _Sub(d_model=4, nhead=2)
    assert str(info.value).startswith("_Sub() got an unexpected keyword argument 'nhead'")
    assert "num_heads" in str(info.value)
    with pytest.raises(TypeError) as info:
        _Module(4)
    text = str(info.value)
    assert "missing a required argument: 'num_heads'" in text
    assert "_Module(d_model, num_heads)" in text and "build it from sizes" in text


def test_config_constructor():
    with pytest.raises(TypeError) as info:
        _Config(3, num_layers=1)
    assert "_Config() got an unexpected keyword argument 'num_layers'" in str(info.value)
    assert "num_encoder_layers=" in str(info.value)
    with pytest.raises(TypeError, match="did you mean num_encoder_layers="):
        _Config(3, num_encoder_layer=1)


def test_signature_name_and_doc_are_preserved():
    assert inspect.signature(wrapped) == inspect.signature(_plain)
    assert wrapped.__name__ == "_plain" and wrapped.__doc__ == "Add and scale."
    assert (
        str(inspect.signature(_Config)) == "(vocab: 'int', num_encoder_layers: 'int' = 2) -> None"
    )
    assert "self, x, *, src_mask=None" in str(inspect.signature(_Module.forward))
    assert "_plain(x: 'int', y: 'int' = 1, *, scale: 'float' = 2.0) -> 'float'" in pydoc.render_doc(
        wrapped, renderer=pydoc.plaintext
    )


def test_library_signatures_are_unchanged_by_the_decorator():
    from course_lib.decoding import beam_search
    from course_lib.transformer import EncoderLayer
    from course_lib.translation import TranslationConfig

    for fn in (beam_search, EncoderLayer.forward, TranslationConfig.__init__):
        assert inspect.signature(fn) == inspect.signature(inspect.unwrap(fn))
    assert "num_encoder_layers: 'int' = 2" in str(inspect.signature(TranslationConfig))


def test_foreign_attribute_gets_its_hint_and_others_a_close_match():
    from torch import nn

    @explains_class(in_proj_weight="course_lib keeps q_proj, k_proj and v_proj")
    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(2, 2)

    layer = Layer()
    assert isinstance(layer.q_proj, nn.Linear)  # the module's own lookup still runs first
    with pytest.raises(AttributeError, match="Layer has no in_proj_weight: course_lib keeps q_"):
        _ = layer.in_proj_weight
    with pytest.raises(AttributeError, match="Layer has no 'q_proj_'; did you mean 'q_proj'"):
        _ = layer.q_proj_
    assert not hasattr(layer, "in_proj_weight") and not hasattr(layer, "other")


def test_foreign_attribute_on_a_plain_class():
    @explains_class(predict="call it: model(observed)")
    class Plain:
        def fit(self):
            return self

    with pytest.raises(AttributeError, match="Plain has no predict: call it"):
        _ = Plain().predict
    with pytest.raises(AttributeError, match="Plain has no 'fitt'; did you mean 'fit'"):
        _ = Plain().fitt
    with pytest.raises(AttributeError, match="'Plain' object has no attribute '_private'"):
        _ = Plain()._private


def test_not_subscriptable_refuses_indexing_and_unpacking_with_the_hint():
    from course_lib._foreign_names import not_subscriptable

    class Holder:
        __getitem__ = not_subscriptable("Holder", "read holder.train")

    with pytest.raises(TypeError, match=r"Holder is not indexed, so \['train'\].*holder\.train"):
        Holder()["train"]
    with pytest.raises(TypeError, match="read holder.train"):
        a, b = Holder()


# -- the class decorator: every callable of a class, and the generic attribute answer ---------


@explains_class
class _Point(NamedTuple):
    x: float
    y: float

    def scaled(self, k: float) -> _Point:
        return _Point(self.x * k, self.y * k)


@explains_class
class _Tool:
    def __init__(self, size: int) -> None:
        self.size = size

    def __call__(self, x, *, scale: float = 1.0):
        return x * scale * self.size

    def method(self, a, b=1):
        return a + b

    @classmethod
    def build(cls, size: int) -> _Tool:
        return cls(size)

    @staticmethod
    def helper(a: int) -> int:
        return a

    @property
    def double(self) -> int:
        return 2 * self.size


def test_the_class_decorator_covers_every_callable_and_keeps_signatures():
    tool = _Tool.build(2)
    assert (tool(3, scale=2.0), tool.method(1), _Tool.helper(4), tool.double) == (12.0, 2, 4, 4)
    assert _Point(1, 2).scaled(2) == (2, 4)
    calls = [
        (lambda: _Tool(size=1, sise=2), "_Tool() got an unexpected keyword argument 'sise'"),
        (lambda: tool(1, 2), "_Tool.__call__() takes 1 positional argument but 2 were given"),
        (lambda: tool.method(), "_Tool.method() missing a required argument: 'a'"),
        (lambda: _Tool.build(), "_Tool.build() missing a required argument: 'size'"),
        (lambda: _Tool.helper(b=1), "helper() got an unexpected keyword argument 'b'"),
        (lambda: _Point(1, z=2), "_Point() got an unexpected keyword argument 'z'"),
        (lambda: _Point(1, 2).scaled(k=1, j=2), "_Point.scaled() got an unexpected keyword"),
        (lambda: tool.method(1, a=2), "_Tool.method() got multiple values for argument 'a'"),
    ]
    for call, start in calls:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value).startswith(start), str(info.value)
    for fn in (
        _Tool,
        _Tool.__call__,
        _Tool.method,
        vars(_Tool)["build"].__func__,
        _Tool.helper,
        _Point,
    ):
        assert inspect.signature(fn) == inspect.signature(inspect.unwrap(fn))
    assert _Point._fields == ("x", "y") and _Point._make([3, 4]) == (3, 4)


def test_several_unknown_keywords_are_all_named():
    @explains_bad_calls(input_size="say n_features=", hidden_size="say hidden_dim=")
    def build(n_features, hidden_dim, *, layers=1):
        return n_features, hidden_dim

    with pytest.raises(TypeError) as info:
        build(layer=2, input_size=2, hidden_size=3)
    text = str(info.value)
    assert text.startswith("build() got an unexpected keyword argument 'input_size': say n_")
    assert "'hidden_size': say hidden_dim=" in text and "'layer' (did you mean layers=?)" in text


def test_a_hinted_keyword_refused_by_a_kwargs_body_gets_its_hint():
    @explains_bad_calls(is_causal="pass src_mask=causal_mask(T)")
    def forward(x, **unknown):
        if x == "boom":
            raise TypeError("inside")
        if unknown:
            raise TypeError(f"forward got an unexpected keyword argument {next(iter(unknown))!r}")
        return x

    assert forward(1) == 1
    with pytest.raises(TypeError, match="'is_causal': pass src_mask=causal_mask"):
        forward(1, is_causal=True)
    with pytest.raises(TypeError, match="^forward got an unexpected keyword argument 'other'$"):
        forward(1, other=True)
    with pytest.raises(TypeError, match="^inside$"):
        forward("boom", is_causal=True)  # the body's error does not name it: untouched


def test_a_correct_call_never_builds_a_message(monkeypatch):
    import course_lib._foreign_names as foreign
    from course_lib.masking import causal_mask, padding_mask

    def refuse(*args, **kwargs):
        raise AssertionError("explain_call ran on a correct call")

    monkeypatch.setattr(foreign, "explain_call", refuse)
    monkeypatch.setattr(foreign, "_missing_attribute", refuse)
    causal_mask(3)
    padding_mask(torch.tensor([1, 2]), total_length=3)
    tool = _Tool(2)
    assert tool.method(1) == 2 and not hasattr(tool, "nothing")
    with pytest.raises(AttributeError):  # the message is built only when read
        _ = tool.nothing


def test_the_attribute_answer_is_lazy_and_pickles_as_a_plain_attribute_error():
    import pickle

    from course_lib._foreign_names import MissingAttributeError

    with pytest.raises(MissingAttributeError) as info:
        _ = _Tool(2).methd
    err = info.value
    assert isinstance(err, AttributeError) and err.args == ()
    assert str(err) == "_Tool has no 'methd'; did you mean 'method'?"
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is AttributeError and str(again) == str(err)
    with pytest.raises(AttributeError) as info:
        _ = _Tool(2).zzzzzzzz
    assert str(info.value) == (
        "_Tool has no 'zzzzzzzz'; its own attributes and methods are: build, double, helper, "
        "method, size"
    )
    assert "object has no attribute" not in str(info.value)


def test_models_still_copy_pickle_save_and_load():
    import copy
    import io
    import pickle

    from course_lib.seq2seq import EncoderDecoder, Seq2SeqConfig
    from course_lib.translation import TranslationConfig, TranslationTransformer

    torch.manual_seed(0)
    models = [
        EncoderDecoder.from_config(Seq2SeqConfig()),
        TranslationTransformer(TranslationConfig(12, 12, d_model=8, num_heads=2)),
    ]
    for model in models:
        model.eval()
        names = dict(model.named_parameters())
        assert model.encoder is model._modules["encoder"]  # submodules still found
        for other in (
            copy.deepcopy(model),
            pickle.loads(pickle.dumps(model)),
            _saved_and_loaded(model, io.BytesIO()),
        ):
            assert type(other) is type(model)
            for name, p in other.named_parameters():
                assert torch.equal(p, names[name])
        assert not hasattr(model, "__deepcopy__") and not hasattr(model, "generate_")
    translation = models[1]
    assert translation.output.weight is translation.output._parameters["weight"]
    with pytest.raises(
        AttributeError, match="TranslationTransformer has no 'outptu'; did you mean 'output'"
    ):
        _ = translation.outptu


def _saved_and_loaded(model, buffer):
    torch.save(model, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=False)


# -- the convention: every public callable of the library is covered ------------------------

#: Packages that are not covered here: the exercises' checks (owned by their own tests) and the
#: lecture's code (frozen: it must equal the chapters' cells).
NOT_COVERED = ("course_lib.checks", "course_lib.lecture")


def _public_modules():
    import course_lib

    for info in pkgutil.walk_packages(course_lib.__path__, "course_lib."):
        parts = info.name.split(".")
        if info.name.startswith(NOT_COVERED) or any(p.startswith("_") for p in parts[1:]):
            continue
        yield importlib.import_module(info.name)


def _public_callables():
    """``(where, callable, kind)`` for every function in a public module's
    ``__all__`` and every constructor, ``forward``, ``__call__`` and public method of its
    classes that course_lib defines (inherited from a course_lib base included); ``kind`` is
    ``"function"``, ``"method"`` or, for a constructor, its class."""
    seen = set()
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            where = f"{module.__name__}.{name}"
            if not inspect.isclass(obj):
                if callable(obj):
                    yield where, obj, "function"
                continue
            if issubclass(obj, BaseException) or getattr(obj, "_is_protocol", False):
                continue
            wanted = {"__init__", "__call__", "forward"} | {
                m for m in dir(obj) if not m.startswith("_")
            }
            if issubclass(obj, tuple) and hasattr(obj, "_fields"):
                wanted.add("__new__")
            for member in sorted(wanted):
                owner = next((k for k in obj.__mro__ if member in vars(k)), None)
                if owner is None or not owner.__module__.startswith("course_lib"):
                    continue
                found = vars(owner)[member]
                if isinstance(found, (staticmethod, classmethod)) or inspect.isfunction(found):
                    kind = obj if member in ("__init__", "__new__") else "method"
                    yield f"{where}.{member}", found, kind


def test_every_public_callable_explains_a_call_that_does_not_bind():
    """A public function, constructor, ``forward`` or method without the course's answer to a
    call that does not bind fails here: decorate it with ``@explains_bad_calls(...)``, its class
    with ``@explains_class`` (above ``@dataclass``) or a config with ``@explain_config`` -- in a
    teaching module, give it an entry in ``course_lib/_name_tables.py`` instead."""
    from course_lib._foreign_names import covers_calls

    uncovered = [where for where, fn, _ in _public_callables() if not covers_calls(fn)]
    assert not uncovered, "not covered by explains_bad_calls / explains_class:\n" + "\n".join(
        uncovered
    )


def test_every_public_class_answers_a_missing_attribute():
    from course_lib._foreign_names import answers_attributes

    missing = []
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and not issubclass(obj, BaseException)
                and not getattr(obj, "_is_protocol", False)
                and not answers_attributes(obj)
            ):
                missing.append(f"{module.__name__}.{name}")
    assert not missing, (
        "decorate with @explains_class (in a teaching module: an entry in _name_tables.py):\n"
        + "\n".join(missing)
    )


def test_every_covered_function_and_constructor_answers_an_unknown_keyword():
    """Called with a keyword no signature has, each answers in the course's words (Python
    refuses such a call before the body runs, so nothing is computed)."""
    for where, fn, kind in _public_callables():
        if kind == "method":
            continue  # it needs an object: its wrapper is checked above
        target = fn if kind == "function" else kind
        params = inspect.signature(target).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            continue
        with pytest.raises(TypeError) as info:
            target(not_a_keyword_of_anything=1)
        text = str(info.value)
        assert "got an unexpected keyword argument 'not_a_keyword_of_anything'" in text, where
        assert " accepts: " in text, (where, text)


def test_signatures_and_docstrings_of_the_library_are_unchanged():
    for where, fn, _ in _public_callables():
        fn = getattr(fn, "__func__", fn)
        inner = inspect.unwrap(fn)
        assert inspect.signature(fn) == inspect.signature(inner), where
        assert fn.__doc__ == inner.__doc__ and fn.__name__ == inner.__name__, where
        assert fn.__qualname__ == inner.__qualname__, where


# -- hints for other libraries' names (the fifth probe's cases), and following them works -----


def _hint_calls():
    from course_lib.attention import AdditiveAttention, Attention
    from course_lib.decoder_only import DecoderOnlyConfig, DecoderOnlyTranslator
    from course_lib.masking import causal_mask, masked_softmax, merge_masks, padding_mask
    from course_lib.metrics import corpus_bleu, paired_bootstrap
    from course_lib.modern_block import SwiGLU
    from course_lib.plots import attention_heatmap, attention_heatmaps, plot_losses
    from course_lib.schedules import warmup_cosine, warmup_inverse_sqrt
    from course_lib.seq2seq import Encoder, EncoderDecoder, Seq2SeqConfig
    from course_lib.seq2seq_attention import BahdanauDecoder
    from course_lib.tatoeba import split_pairs
    from course_lib.train import Trainer
    from course_lib.transformer import DecoderLayer, EncoderLayer, TransformerEncoder
    from course_lib.translation import TranslationConfig, TranslationTransformer
    from course_lib.vocab import PairBatches, Vocab, encode_pairs

    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seq2seq = EncoderDecoder.from_config(Seq2SeqConfig())
    transformer = TranslationTransformer(TranslationConfig(12, 12, d_model=8, num_heads=2))
    src = torch.randint(4, 12, (2, 5))
    w = torch.rand(2, 3, 3)
    vocab = Vocab(["a b"])
    layer = EncoderLayer(8, 2, 16)
    return {
        "Encoder(input_size=)": (
            lambda: Encoder(input_size=2, hidden_size=2),
            ["'input_size'", "n_features=", "hidden_dim="],
        ),
        "forward(teacher_forcing_ratio=)": (
            lambda: seq2seq(torch.randn(1, 3, 2), teacher_forcing_ratio=0.5),
            ["teacher_forcing_prob=0.5"],
        ),
        "EncoderDecoder(output_attentions=)": (
            lambda: seq2seq(torch.randn(1, 3, 2), output_attentions=True),
            ["need_weights=True"],
        ),
        "plot_losses(yscale=)": (lambda: plot_losses({"a": [1.0]}, yscale="linear"), ["logy="]),
        "padding_mask(lengths=)": (
            lambda: padding_mask(lengths=torch.tensor([2]), total_length=4),
            ["first argument", "padding_mask(lengths, total_length=S)"],
        ),
        "masked_softmax(dim=)": (lambda: masked_softmax(w, dim=-1), ["last axis"]),
        "merge_masks(padding_mask=)": (
            lambda: merge_masks(attn_mask=causal_mask(3), padding_mask=None),
            ["key_padding_mask="],
        ),
        "AdditiveAttention(key_size=)": (
            lambda: AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1),
            ["query_dim=query_size", "'dropout': AdditiveAttention has no dropout"],
        ),
        "additive(valid_lens=)": (
            lambda: AdditiveAttention(4, 2, 8)(w, w, w, valid_lens=torch.tensor([1, 2])),
            ["key_padding_mask=padding_mask(valid_lens"],
        ),
        "Attention(hidden_dim=)": (lambda: Attention(hidden_dim=2), ["proj_dim="]),
        "Attention().alphas": (lambda: Attention(2).alphas, ["returns its weights"]),
        "attention_heatmap(xticklabels=)": (
            lambda: attention_heatmap(w[0], xticklabels=["a", "b", "c"]),
            ["x_labels="],
        ),
        "attention_heatmaps(ncols=)": (lambda: attention_heatmaps(w, ncols=2), ["n_cols="]),
        "BahdanauDecoder(x, hidden, memory, mask)": (
            lambda: BahdanauDecoder(2, 2)(w, w, w, w),
            ["keyword-only", "memory_key_padding_mask="],
        ),
        "trainer.evaluate(x, y)": (
            lambda: Trainer(model, torch.nn.functional.mse_loss, optimizer, "cpu").evaluate(w, w),
            ["one loader", "TensorDataset(source, target)"],
        ),
        "layer(x, is_causal=True)": (
            lambda: layer(torch.randn(1, 3, 8), is_causal=True),
            ["'is_causal'", "src_mask=causal_mask(T)"],
        ),
        "encoder(x, is_causal=True)": (
            lambda: TransformerEncoder(8, 2, 16, 1)(torch.randn(1, 3, 8), is_causal=True),
            ["'is_causal'", "mask=causal_mask(S)"],
        ),
        "DecoderLayer(tgt_is_causal=)": (
            lambda: DecoderLayer(8, 2, 16)(
                torch.randn(1, 3, 8), torch.randn(1, 3, 8), tgt_is_causal=True
            ),
            ["tgt_mask=causal_mask(T)"],
        ),
        "EncoderLayer(activation=)": (
            lambda: EncoderLayer(8, 2, 16, activation="gelu"),
            ["ReLU", "no activation switch"],
        ),
        "split_pairs(random_state=)": (
            lambda: split_pairs([("a", "b")] * 3, random_state=0),
            ["seed="],
        ),
        "PairBatches(seed=)": (
            lambda: PairBatches([([4], [4, 2])], 1, shuffle=True, seed=0),
            ["generator=torch.Generator().manual_seed(0)"],
        ),
        "warmup_inverse_sqrt(d_model=)": (
            lambda: warmup_inverse_sqrt(optimizer, 300, d_model=256),
            ["optimizer's own learning rate", "lr=factor * d_model ** -0.5 * warmup ** -0.5"],
        ),
        "warmup_cosine(num_training_steps=)": (
            lambda: warmup_cosine(optimizer, 10, num_training_steps=100),
            ["total="],
        ),
        "Trainer(max_grad_norm=)": (
            lambda: Trainer(model, torch.nn.functional.mse_loss, optimizer, max_grad_norm=1.0),
            ["clip_grad_norm=1.0"],
        ),
        "Trainer(epochs=)": (
            lambda: Trainer(model, torch.nn.functional.mse_loss, optimizer, epochs=3),
            ["trainer.fit(train_loader, val_loader, epochs=10)"],
        ),
        "paired_bootstrap(n_bootstrap=)": (
            lambda: paired_bootstrap(["a"], ["a"], ["a"], n_bootstrap=10),
            ["n_samples="],
        ),
        "corpus_bleu(tokenize=)": (lambda: corpus_bleu(["a"], ["a"], tokenize="none"), ["13a"]),
        "encode_pairs(pairs, vocabs)": (
            lambda: encode_pairs([("a", "b")], (vocab, vocab)),
            ["'tgt_vocab'", "encode_pairs(pairs, *vocabs)"],
        ),
        "transformer(output_attentions=)": (
            lambda: transformer(src, src, output_attentions=True),
            ["need_weights=True"],
        ),
        "transformer.encode(src_key_padding_mask=)": (
            lambda: transformer.encode(src, src_key_padding_mask=src == 0),
            ["<pad>", "transformer.encode(src)"],
        ),
        "model.generate": (
            lambda: (
                DecoderOnlyTranslator(DecoderOnlyConfig(12, 12, d_model=8, num_heads=2)).generate
            ),
            ["greedy_decode(model, src", "beam_search(model, src"],
        ),
        "SwiGLU(bias=True)": (lambda: SwiGLU(8, 12, bias=True), ["bias-free"]),
    }


def test_other_libraries_names_get_the_course_equivalent():
    for label, (call, fragments) in _hint_calls().items():
        with pytest.raises((TypeError, AttributeError)) as info:
            call()
        text = str(info.value)
        for fragment in fragments:
            assert fragment in text, (label, fragment, text)
        assert "object has no attribute" not in text, (label, text)


def test_following_the_hints_works():
    from course_lib.attention import AdditiveAttention
    from course_lib.masking import padding_mask
    from course_lib.schedules import warmup_inverse_sqrt
    from course_lib.seq2seq import EncoderDecoder, Seq2SeqConfig
    from course_lib.translation import TranslationConfig, TranslationTransformer
    from course_lib.vocab import PAD

    # AdditiveAttention(query_dim=query_size, ...) and key_padding_mask from the lengths
    additive = AdditiveAttention(query_dim=20, key_dim=2, attn_dim=8)
    keys, valid_lens = torch.randn(2, 10, 2), torch.tensor([2, 6])
    _, weights = additive(
        torch.randn(2, 1, 20),
        keys,
        torch.randn(2, 10, 4),
        key_padding_mask=padding_mask(valid_lens, total_length=keys.shape[1]),
    )
    assert (weights[0, 0, 2:] == 0).all() and (weights[1, 0, 6:] == 0).all()
    # model.teacher_forcing_prob = 0.5 is read by forward
    model = EncoderDecoder.from_config(Seq2SeqConfig())
    model.teacher_forcing_prob = 1.0
    assert model(torch.randn(1, 3, 2), torch.randn(1, 2, 2)).shape == (1, 2, 2)
    # transformer.encode(src) derives the padding mask from <pad>
    transformer = TranslationTransformer(TranslationConfig(12, 12, d_model=8, num_heads=2))
    src = torch.tensor([[5, 6, PAD]])
    _, mask, _ = transformer.encode(src)
    assert torch.equal(mask, src == PAD)
    # the Annotated Transformer's rate is warmup_inverse_sqrt with that peak
    d_model, warmup, factor = 256, 40, 2.0
    peak = factor * d_model**-0.5 * warmup**-0.5
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=peak)
    scheduler = warmup_inverse_sqrt(optimizer, warmup)
    for step in range(1, 120):  # the Annotated Transformer counts steps from 1
        noam = factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert optimizer.param_groups[0]["lr"] == pytest.approx(noam)
        optimizer.step()
        scheduler.step()


def test_a_wrapper_can_have_its_code_replaced_and_put_back():
    """The grader's worker puts back a library function whose ``__code__`` a submission
    rewrote: a wrapper is a plain function without a closure, so that still works."""
    from course_lib.masking import masked_softmax

    code = masked_softmax.__code__
    try:
        masked_softmax.__code__ = (lambda s, m: s).__code__
        assert masked_softmax(1, 2) == 1
    finally:
        masked_softmax.__code__ = code
    assert masked_softmax(torch.zeros(2)).tolist() == [0.5, 0.5]
    with pytest.raises(TypeError, match="'dim': masked_softmax always normalises over the last"):
        masked_softmax(torch.zeros(2), dim=0)


# -- the tables of the teaching modules (course_lib._name_tables) -----------------------------

from check_share import TEACHING  # noqa: E402  (tools/, on the path by conftest.py)


@pytest.mark.parametrize("name", TEACHING)
def test_a_teaching_module_wears_no_explain_decorator_and_ends_with_its_tables(name):
    """The algorithm first: the tables of other libraries' names live in _name_tables.py,
    applied by the module's last line."""
    import ast
    from pathlib import Path

    import course_lib

    source = (Path(course_lib.__file__).parent / f"{name}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    worn = [
        f"line {d.lineno}"
        for node in ast.walk(tree)
        for d in getattr(node, "decorator_list", [])
        if ast.unparse(d.func if isinstance(d, ast.Call) else d).startswith("explain")
    ]
    assert not worn, f"course_lib/{name}.py: move these to _name_tables.py: {worn}"
    assert ast.unparse(tree.body[-1]) == "explain_names(__name__)"


def test_every_table_entry_is_applied():
    from course_lib._foreign_names import answers_attributes, covers_calls
    from course_lib._name_tables import TABLES

    assert sorted(TABLES) == sorted(f"course_lib.{name}" for name in [*TEACHING, "ensemble"])
    for module_name, table in TABLES.items():
        module = importlib.import_module(module_name)
        for qualname in table:
            obj = module
            for part in qualname.split("."):
                obj = vars(obj)[part]
            if inspect.isclass(obj):
                assert answers_attributes(obj), f"{module_name}.{qualname}"
            else:
                assert covers_calls(obj), f"{module_name}.{qualname}"


def test_the_tables_keep_the_messages():
    """Hints for a function, a method under an inherited constructor, a class's attributes
    and a config's keywords, as the decorators gave them."""
    from course_lib import decoding, masking, seq2seq, transformer

    with pytest.raises(TypeError, match="normalises over the last axis"):
        masking.masked_softmax(torch.zeros(2, 3), dim=0)
    with pytest.raises(TypeError, match="TransformerEncoder.* 'nhead': course_lib calls it"):
        transformer.TransformerEncoder(8, nhead=2, d_ff=16, num_layers=1)
    with pytest.raises(TypeError, match="^EncoderLayer.forward.*masks are keyword-only"):
        transformer.EncoderLayer(8, 2, 16)(torch.zeros(1, 3, 8), None)
    with pytest.raises(TypeError, match="use EncoderDecoder.from_config"):
        seq2seq.EncoderDecoder(seq2seq.Encoder(2, 4), seq2seq.Decoder(2, 4))
    with pytest.raises(AttributeError, match="EncoderDecoder has no alphas: course_lib's"):
        _ = seq2seq.EncoderDecoder(seq2seq.Encoder(2, 4), seq2seq.Decoder(2, 4), 3).alphas
    default = inspect.signature(decoding.translate).parameters["decode"].default
    assert default is decoding.greedy_decode


def _module_with(source: str, tables: dict):
    """A module made of ``source``, its ``tables`` applied as a teaching module's are."""
    import sys
    import types

    from course_lib._foreign_names import apply_name_tables

    module = types.ModuleType("course_lib._tables_probe")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, module.__name__, "exec"), vars(module))
        apply_name_tables(module, tables)
    finally:
        del sys.modules[module.__name__]
    return module


_STACKED = """
import functools


def area(width, height):
    return width * height


ALIAS = area


class Base:
    def __init__(self, size):
        self.size = size

    @classmethod
    def of(cls, size):
        return cls(size)

    @staticmethod
    @functools.lru_cache(maxsize=8)
    def cached(n):
        return n + 1

    def scaled(self, factor=2, *, fn=area):
        return fn(self.size, factor)


class Sub(Base):
    pass
"""


def test_apply_name_tables_decorates_as_the_decorators_would():
    """Under classmethod, staticmethod and lru_cache; bases before subclasses, methods before
    their class; default arguments and aliases bound to the decorated function."""
    from course_lib._foreign_names import answers_attributes, covers_calls

    m = _module_with(
        _STACKED,
        {
            "Sub": explains_class(shape="Sub has no shape: say size"),  # listed first
            "Base": explains_class(dims="Base has no dims: say size"),
            "Base.__init__": explains_bad_calls(width="course_lib calls it size="),
            "Base.of": explains_bad_calls(length="course_lib calls it size="),
            "Base.cached": explains_bad_calls(k="course_lib calls it n="),
            "area": explains_bad_calls(w="course_lib calls it width="),
        },
    )
    assert covers_calls(m.area) and m.ALIAS is m.area
    assert inspect.signature(m.Base.scaled).parameters["fn"].default is m.area
    assert isinstance(vars(m.Base)["of"], classmethod) and isinstance(
        vars(m.Base)["cached"], staticmethod
    )
    assert m.Base.cached(1) == 2 and m.Base.cached.cache_info().maxsize == 8
    assert m.Sub.of(3).scaled() == 6 and answers_attributes(m.Sub)
    for call, hint in [
        (lambda: m.Base(width=2), "size="),
        (lambda: m.Sub.of(length=2), "size="),
        (lambda: m.Base.cached(k=1), "n="),
        (lambda: m.area(w=1, height=2), "width="),
        (lambda: m.Base(1).scaled(fact=3), "did you mean factor="),
    ]:
        with pytest.raises(TypeError, match=hint):
            call()
    with pytest.raises(AttributeError, match="Base has no dims"):
        _ = m.Sub(1).dims  # the base's hint, merged into the subclass's
    with pytest.raises(AttributeError, match="Sub has no shape"):
        _ = m.Sub(1).shape


def test_apply_name_tables_refuses_what_the_module_does_not_define():
    with pytest.raises(LookupError, match="Base.forward"):
        _module_with(_STACKED, {"Base.forward": explains_bad_calls()})
    with pytest.raises(LookupError, match="nowhere"):
        _module_with(_STACKED, {"nowhere": explains_bad_calls()})
    with pytest.raises(TypeError, match="ALIAS"):
        _module_with("X = 3\nALIAS = 'text'\n", {"ALIAS": explains_bad_calls()})
