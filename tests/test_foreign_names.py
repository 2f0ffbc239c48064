"""The mechanism that rewrites calls in another library's words (course_lib._foreign_names)."""

from __future__ import annotations

import inspect
import pydoc
from dataclasses import dataclass

import pytest

from course_lib._foreign_names import explain_config, explains_bad_calls


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


def test_foreign_attribute_gets_its_hint_and_others_keep_pythons_message():
    from torch import nn

    from course_lib._foreign_names import explains_foreign_attributes

    @explains_foreign_attributes(in_proj_weight="course_lib keeps q_proj, k_proj and v_proj")
    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(2, 2)

    layer = Layer()
    assert isinstance(layer.q_proj, nn.Linear)  # the module's own lookup still runs first
    with pytest.raises(AttributeError, match="Layer has no in_proj_weight: course_lib keeps q_"):
        _ = layer.in_proj_weight
    with pytest.raises(AttributeError, match="no attribute 'other'"):
        _ = layer.other
    assert not hasattr(layer, "in_proj_weight")


def test_foreign_attribute_on_a_plain_class():
    from course_lib._foreign_names import explains_foreign_attributes

    @explains_foreign_attributes(predict="call it: model(observed)")
    class Plain:
        pass

    with pytest.raises(AttributeError, match="Plain has no predict: call it"):
        _ = Plain().predict
    with pytest.raises(AttributeError, match="'Plain' object has no attribute 'fit'"):
        _ = Plain().fit


def test_not_subscriptable_refuses_indexing_and_unpacking_with_the_hint():
    from course_lib._foreign_names import not_subscriptable

    class Holder:
        __getitem__ = not_subscriptable("Holder", "read holder.train")

    with pytest.raises(TypeError, match=r"Holder is not indexed, so \['train'\].*holder\.train"):
        Holder()["train"]
    with pytest.raises(TypeError, match="read holder.train"):
        a, b = Holder()
