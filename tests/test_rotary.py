"""Rotary position embedding: rotations that make attention scores depend on offsets only."""

import pytest
import torch

from course_lib.positional import sinusoidal_encoding
from course_lib.rotary import apply_rotary, rotary_angles


def test_scores_depend_only_on_the_offset():
    """Shifting both the query's and the key's position by the same amount changes nothing."""
    g = torch.Generator().manual_seed(0)
    q, k = (
        torch.randn(8, generator=g, dtype=torch.float64),
        torch.randn(8, generator=g, dtype=torch.float64),
    )

    def score(m, n):
        rq = apply_rotary(q[None, None], start=m)[0, 0]
        rk = apply_rotary(k[None, None], start=n)[0, 0]
        return rq @ rk

    for m, n in ((3, 1), (10, 4), (0, 7)):
        for shift in (1, 5, 40):
            torch.testing.assert_close(score(m + shift, n + shift), score(m, n), rtol=0, atol=1e-10)
    assert not torch.isclose(score(3, 1), score(3, 2))  # the offset itself does matter


def test_a_rotation_keeps_lengths_and_position_zero_is_the_identity():
    x = torch.randn(2, 3, 6, 8, dtype=torch.float64)  # (B, Nh, L, Dh)
    rotated = apply_rotary(x, start=5)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1), rtol=0, atol=1e-12)
    torch.testing.assert_close(apply_rotary(x[:, :, :1])[..., :], x[:, :, :1], rtol=0, atol=0)
    assert rotated.shape == x.shape and rotated.dtype == x.dtype


def test_it_is_multiplication_by_a_unit_complex_number_per_pair():
    x = torch.randn(1, 1, 4, 6, dtype=torch.float64)
    angles = rotary_angles(4, 6, start=2, dtype=torch.float64)  # (L, Dh / 2)
    as_complex = torch.view_as_complex(x.reshape(1, 1, 4, 3, 2).contiguous())
    expected = torch.view_as_real(as_complex * torch.polar(torch.ones_like(angles), angles))
    torch.testing.assert_close(apply_rotary(x, start=2), expected.flatten(-2), rtol=0, atol=1e-12)


def test_the_speeds_are_chapter_4s():
    """Rotating the pair (0, 1) -- cosine 1 at angle 0 -- by position p's angles gives the
    (sin, cos) pairs of Chapter 4's sinusoidal table at p, with sin and cos swapped in sign
    convention: (-sin, cos)."""
    pair = torch.zeros(1, 5, 8)
    pair[..., 1::2] = 1.0  # every pair (0, 1)
    rotated = apply_rotary(pair)[0]  # (L, Dh)
    table = sinusoidal_encoding(5, 8)
    torch.testing.assert_close(-rotated[:, 0::2], table[:, 0::2], rtol=0, atol=1e-6)
    torch.testing.assert_close(rotated[:, 1::2], table[:, 1::2], rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: apply_rotary(torch.randn(2, 5, 7)), "must be even"),
        (lambda: apply_rotary(torch.randn(4)), r"\(\.\.\., L, Dh\)"),
        (lambda: apply_rotary(torch.randn(2, 5, 8), start=-1), "start"),
    ],
)
def test_bad_input_says_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_per_row_positions_equal_per_row_starts():
    x = torch.randn(3, 2, 4, 8, dtype=torch.float64)  # (B, Nh, L, Dh)
    starts = [0, 5, 2]
    positions = torch.tensor([[s + i for i in range(4)] for s in starts])  # (B, L)
    got = apply_rotary(x, positions=positions)
    for b, s in enumerate(starts):
        torch.testing.assert_close(got[b], apply_rotary(x[b], start=s), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"positions must be \(B, L\)"):
        apply_rotary(x, positions=positions[:, :3])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_input_is_rotated_at_float32_angles(dtype):
    """Angles in bfloat16 would be off by a quarter radian below position 128; the rotation
    is computed in float32 and only the result rounded, so a score still depends on the
    offset only (to the input's precision) at positions far apart."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 2, 200, 64, generator=g)  # (B, Nh, L, Dh)
    half = apply_rotary(x.to(dtype))
    assert half.dtype == dtype
    torch.testing.assert_close(half.float(), apply_rotary(x), rtol=0, atol=2e-2)
    q, k = torch.randn(2, 64, generator=g).to(dtype)

    def score(m):  # query at m, key at m - 3
        rq = apply_rotary(q[None], start=m)[0].float()
        rk = apply_rotary(k[None], start=m - 3)[0].float()
        return (rq @ rk).item()

    scores = [score(m) for m in (3, 20, 60, 120, 1000)]
    assert max(scores) - min(scores) < 0.1, scores  # 2.3 with bfloat16 angles


# -- the slips a notebook makes, each with an error that names it ------------------------


def test_an_odd_width_is_named_as_xs():
    with pytest.raises(ValueError, match=r"x's last dimension Dh=5 must be even"):
        apply_rotary(torch.randn(1, 2, 3, 5))


def test_a_list_is_not_a_tensor():
    with pytest.raises(TypeError, match=r"x must be a tensor .*torch\.as_tensor"):
        apply_rotary([[1.0, 2.0]])


def test_start_and_positions_together_are_refused():
    with pytest.raises(ValueError, match="give start or positions, not both"):
        apply_rotary(torch.randn(1, 2, 3, 4), start=2, positions=torch.zeros(1, 3))


def test_positions_must_be_a_tensor():
    with pytest.raises(TypeError, match=r"positions must be a \(B, L\) tensor"):
        apply_rotary(torch.randn(1, 2, 3, 4), positions=[[0, 1, 2]])


def test_the_base_must_be_a_number_above_one():
    with pytest.raises(ValueError, match="base must be above 1"):
        rotary_angles(4, 8, base=0.5)


def test_start_passed_positionally_is_named():
    with pytest.raises(TypeError, match=r"keyword-only.*start=3"):
        apply_rotary(torch.tensor([1.0, 0.0])[None], 3)
