import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib import train as train_module
from course_lib.train import Trainer, default_device, seed_everything


def toy_loaders(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(64, 3, generator=g)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    train = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=torch.Generator())
    val = DataLoader(TensorDataset(x[:16], y[:16]), batch_size=8)
    return train, val


def make_trainer(seed=0):
    torch.manual_seed(seed)
    model = nn.Linear(3, 1)
    return Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), device="cpu")


def test_fit_lowers_the_loss_and_records_history(capsys):
    train, val = toy_loaders()
    trainer = make_trainer().fit(train, val, epochs=20, seed=1, desc="toy")
    assert len(trainer.losses) == len(trainer.val_losses) == trainer.epochs == 20
    assert trainer.losses[-1] < 0.01 * trainer.losses[0]
    out = capsys.readouterr().out
    assert "toy" in out and "20/20" in out and "val=" in out


def test_fit_is_deterministic_with_a_seed():
    a = make_trainer().fit(*toy_loaders(), epochs=3, seed=5, progress=False)
    b = make_trainer().fit(*toy_loaders(), epochs=3, seed=5, progress=False)
    assert a.losses == b.losses and a.val_losses == b.val_losses


def test_loss_is_the_per_sample_mean():
    x, y = torch.arange(5.0).view(5, 1), torch.zeros(5, 1)
    trainer = Trainer(nn.Identity(), nn.MSELoss(), torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), "cpu")
    loader = DataLoader(TensorDataset(x, y), batch_size=2)  # uneven last batch
    assert trainer.evaluate(loader) == pytest.approx((x**2).mean().item())


@pytest.mark.parametrize("mode", [True, False])
def test_predict_and_evaluate_restore_the_mode(mode):
    trainer = make_trainer()
    trainer.model.train(mode)
    seen = []
    trainer.model.register_forward_hook(lambda m, i, o: seen.append((m.training, torch.is_grad_enabled())))
    out = trainer.predict(torch.randn(2, 3))
    trainer.evaluate(toy_loaders()[1])
    assert trainer.model.training is mode
    assert all(state == (False, False) for state in seen)
    assert out.device.type == "cpu" and not out.requires_grad


def test_predict_moves_nested_outputs_to_the_cpu():
    class Nested(nn.Module):
        def forward(self, x):
            return x, {"weights": [x * 2], "none": None}

    trainer = Trainer(Nested(), nn.MSELoss(), torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), "cpu")
    out, extra = trainer.predict(torch.ones(2, 3))
    assert out.device.type == "cpu" and extra["weights"][0].device.type == "cpu"
    assert extra["none"] is None


def test_checkpoint_round_trip(tmp_path):
    trainer = make_trainer().fit(*toy_loaders(), epochs=2, seed=0, progress=False)
    path = tmp_path / "ckpt.pt"
    trainer.save_checkpoint(path)
    restored = make_trainer(seed=99)
    restored.load_checkpoint(path)
    assert restored.losses == trainer.losses and restored.val_losses == trainer.val_losses
    for a, b in zip(trainer.model.parameters(), restored.model.parameters(), strict=True):
        assert torch.equal(a, b)
    assert restored.optimizer.state_dict()["param_groups"] == trainer.optimizer.state_dict()["param_groups"]


class NotAllowed:
    pass


def test_checkpoint_loading_refuses_arbitrary_objects(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"model": NotAllowed()}, path)
    with pytest.raises(Exception, match="weights_only|Unsupported|global"):
        make_trainer().load_checkpoint(path)


def test_clear_errors():
    trainer = make_trainer()
    with pytest.raises(ValueError, match=r"\(\*inputs, target\)"):
        trainer.evaluate([torch.randn(2, 3)])
    with pytest.raises(ValueError, match="no batches"):
        trainer.evaluate([])
    with pytest.raises(ValueError, match="epochs"):
        trainer.fit(toy_loaders()[0], epochs=0)


def test_default_device_and_override(monkeypatch):
    default_device.cache_clear()
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert default_device() == torch.device("cpu")
    default_device.cache_clear()
    monkeypatch.delenv("COURSE_DEVICE")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert default_device().type == expected
    default_device.cache_clear()


def test_seed_everything_seeds_all_generators():
    import random

    import numpy as np

    seed_everything(3)
    a = (random.random(), np.random.rand(), torch.rand(1).item())
    seed_everything(3)
    assert a == (random.random(), np.random.rand(), torch.rand(1).item())


def test_module_does_no_global_work_on_import():
    import importlib

    state = torch.get_rng_state()
    importlib.reload(train_module)
    assert torch.equal(state, torch.get_rng_state())
