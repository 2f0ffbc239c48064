"""The Chapter 6 self-checks accept the reference answers and name the classic mistakes."""

import numpy as np
import pytest
import torch
from torch.utils.data import TensorDataset

from course_lib.checks import (
    CheckFailed,
    check_ade_fde,
    check_constant_velocity,
    check_datasets,
    check_haversine,
    check_inverse_transform,
)
from course_lib.geo import EARTH_RADIUS_M, from_local, haversine, to_local
from course_lib.trajectories import (
    Standardizer,
    TrajectoryFeatures,
    ade_fde,
    constant_velocity,
    relative_metres,
    trajectory_datasets,
)


def right_datasets(train, valid):
    return trajectory_datasets(TrajectoryFeatures.fit(*train), train, valid)


def right_inverse(predicted, observed, mean, std):
    return TrajectoryFeatures(Standardizer(mean, std)).to_latlon(predicted, observed)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (check_datasets, right_datasets),
        (check_inverse_transform, right_inverse),
        (check_haversine, haversine),
        (check_ade_fde, ade_fde),
        (check_constant_velocity, constant_velocity),
    ],
)
def test_the_reference_answers_pass(check, answer, capsys):
    check(answer)
    assert "✓" in capsys.readouterr().out


def test_unimplemented_answers_say_so():
    def todo(*args):
        raise NotImplementedError

    for check in (
        check_datasets,
        check_inverse_transform,
        check_haversine,
        check_ade_fde,
        check_constant_velocity,
    ):
        with pytest.raises(CheckFailed, match="not implemented yet"):
            check(todo)


def test_datasets_scaled_on_all_splits_are_caught():
    def leaky(train, valid):
        both = [np.concatenate(p) for p in zip(train, valid, strict=True)]
        return trajectory_datasets(TrajectoryFeatures.fit(*both), train, valid)

    with pytest.raises(CheckFailed, match="training split only"):
        check_datasets(leaky)


def test_unscaled_metres_and_timestamps_are_caught():
    def metres(train, valid):
        return [
            TensorDataset(*(torch.tensor(a, dtype=torch.float32) for a in relative_metres(*s)))
            for s in (train, valid)
        ]

    def with_time(train, valid):
        return [
            TensorDataset(
                torch.tensor(s[0], dtype=torch.float32), torch.tensor(s[1], dtype=torch.float32)
            )
            for s in (train, valid)
        ]

    with pytest.raises(CheckFailed, match="not standardised"):
        check_datasets(metres)
    with pytest.raises(CheckFailed, match="drop the timestamp"):
        check_datasets(with_time)


def test_inverse_transform_mistakes_are_named():
    def unscaled(predicted, observed, mean, std):
        return from_local(predicted, observed[:, -1:, :2])

    def first_fix(predicted, observed, mean, std):
        return from_local(predicted * std + mean, observed[:, :1, :2])

    with pytest.raises(CheckFailed, match="standardisation was not undone"):
        check_inverse_transform(unscaled)
    with pytest.raises(CheckFailed, match="FIRST"):
        check_inverse_transform(first_fix)


def test_haversine_mistakes_are_named():
    def degrees(a, b):
        h = (
            np.sin((b - a)[:, 0] / 2) ** 2
            + np.cos(a[:, 0]) * np.cos(b[:, 0]) * np.sin((b - a)[:, 1] / 2) ** 2
        )
        return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(h))

    with pytest.raises(CheckFailed, match="radians"):
        check_haversine(degrees)
    with pytest.raises(CheckFailed, match="kilometres"):
        check_haversine(lambda a, b: haversine(a, b) / 1000)
    with pytest.raises(CheckFailed, match="cos\\(latitude\\)"):
        check_haversine(lambda a, b: EARTH_RADIUS_M * np.radians(np.linalg.norm(b - a, axis=-1)))
    with pytest.raises(CheckFailed, match="rounded to 6,371 km"):
        check_haversine(lambda a, b: haversine(a, b) * 6_371_000 / EARTH_RADIUS_M)
    with pytest.raises(CheckFailed, match="off by up to"):
        check_haversine(lambda a, b: haversine(a, b) + 0.01)  # a centimetre everywhere


def test_ade_fde_mistakes_are_named():
    with pytest.raises(CheckFailed, match="LAST step only"):
        check_ade_fde(lambda p, t: (ade_fde(p, t)[0], ade_fde(p, t)[0]))
    with pytest.raises(CheckFailed, match="not their sum"):
        check_ade_fde(lambda p, t: (haversine(p, t).sum(1).mean(), ade_fde(p, t)[1]))


def test_constant_velocity_mistakes_are_named():
    def backwards(observed, times):
        en = to_local(observed[..., :2], observed[:, -1:, :2])
        step = en[:, -1] - en[:, -2]
        k = np.arange(1, times.shape[1] + 1)[None, :, None]
        return from_local(-step[:, None] * k, observed[:, -1:, :2])

    with pytest.raises(CheckFailed, match="backwards"):
        check_constant_velocity(backwards)
    with pytest.raises(CheckFailed, match="'stay' baseline"):
        check_constant_velocity(lambda o, t: np.repeat(o[:, -1:, :2], t.shape[1], axis=1))

    def one_interval(observed, times):  # right on regular fixes, blind to the timestamps
        en = to_local(observed[..., :2], observed[:, -1:, :2])
        step = en[:, -1] - en[:, -2]
        k = np.arange(1, times.shape[1] + 1)[None, :, None]
        return from_local(step[:, None] * k, observed[:, -1:, :2])

    with pytest.raises(CheckFailed, match="one sampling interval.*irregular sampling"):
        check_constant_velocity(one_interval)


def test_checks_leave_the_random_state_alone():
    torch.manual_seed(0)
    np.random.seed(0)
    check_haversine(haversine)
    check_datasets(right_datasets)
    assert torch.rand(1).item() == pytest.approx(0.4962566, abs=1e-6)
    assert np.random.rand() == pytest.approx(0.5488135, abs=1e-6)
