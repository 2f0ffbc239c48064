import warnings
from typing import NamedTuple

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib import train as train_module
from course_lib.schedules import warmup_cosine, warmup_inverse_sqrt
from course_lib.train import Trainer, clock, default_device


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
    trainer = Trainer(
        nn.Identity(), nn.MSELoss(), torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), "cpu"
    )
    loader = DataLoader(TensorDataset(x, y), batch_size=2)  # uneven last batch
    assert trainer.evaluate(loader) == pytest.approx((x**2).mean().item())


@pytest.mark.parametrize("mode", [True, False])
def test_predict_and_evaluate_restore_the_mode(mode):
    trainer = make_trainer()
    trainer.model.train(mode)
    seen = []
    trainer.model.register_forward_hook(
        lambda m, i, o: seen.append((m.training, torch.is_grad_enabled()))
    )
    out = trainer.predict(torch.randn(2, 3))
    trainer.evaluate(toy_loaders()[1])
    assert trainer.model.training is mode
    assert all(state == (False, False) for state in seen)
    assert out.device.type == "cpu" and not out.requires_grad


def test_predict_moves_nested_outputs_to_the_cpu():
    class Nested(nn.Module):
        def forward(self, x):
            return x, {"weights": [x * 2], "none": None}

    trainer = Trainer(
        Nested(), nn.MSELoss(), torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1), "cpu"
    )
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
    assert (
        restored.optimizer.state_dict()["param_groups"]
        == trainer.optimizer.state_dict()["param_groups"]
    )


def scheduled_trainer(seed=0):
    trainer = make_trainer(seed)
    trainer.scheduler = warmup_inverse_sqrt(trainer.optimizer, warmup=20)
    return trainer


def test_a_resumed_run_continues_its_learning_rate_schedule(tmp_path):
    """Two epochs, a checkpoint, two more epochs == four epochs in one go."""
    straight = scheduled_trainer().fit(*toy_loaders(), epochs=4, seed=0, progress=False)
    first = scheduled_trainer().fit(*toy_loaders(), epochs=2, seed=0, progress=False)
    first.save_checkpoint(tmp_path / "ckpt.pt")
    resumed = scheduled_trainer(seed=99)
    resumed.load_checkpoint(tmp_path / "ckpt.pt")
    assert resumed.learning_rates == first.learning_rates and resumed.seconds == first.seconds
    train, val = toy_loaders()
    train.generator.manual_seed(0)
    for _ in range(2):  # the batch order the first run drew, so the continuation matches
        list(train)
    torch.manual_seed(0)
    resumed.fit(train, val, epochs=2, progress=False)
    assert resumed.learning_rates == straight.learning_rates  # the warm-up did not restart
    assert resumed.losses[:2] == straight.losses[:2]
    assert resumed.losses[2:] == pytest.approx(straight.losses[2:], rel=1e-6)
    with pytest.raises(ValueError, match="saved with a scheduler"):
        make_trainer().load_checkpoint(tmp_path / "ckpt.pt")


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


@pytest.fixture
def course_device(monkeypatch):
    """``set(value)`` -> ``default_device()`` under ``COURSE_DEVICE=value``, uncached."""

    def pick(value):
        monkeypatch.setenv("COURSE_DEVICE", value)
        default_device.cache_clear()
        return default_device()

    yield pick
    default_device.cache_clear()


def fake_gpus(monkeypatch, count):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)


@pytest.mark.parametrize("value", ["cpu", " CPU ", "cpu:0"])
def test_course_device_cpu_is_kept(course_device, value):
    assert course_device(value).type == "cpu"


def test_course_device_cuda_and_cuda_n_work_where_the_gpus_exist(course_device, monkeypatch):
    fake_gpus(monkeypatch, 2)
    assert course_device("cuda") == torch.device("cuda")
    assert course_device("cuda:1") == torch.device("cuda:1")


def test_course_device_mps_is_refused_with_the_reason_and_the_fix(course_device):
    with pytest.raises(ValueError) as info:
        course_device("mps")
    message = str(info.value)
    assert "COURSE_DEVICE='mps'" in message
    assert "verified on the CPU and on CUDA" in message and "float64" in message
    assert "COURSE_DEVICE=cpu or unset it" in message and "nothing else" in message


@pytest.mark.parametrize("value", ["gpu", "cuda:x", "cuda:-1", "cpu,cuda"])
def test_course_device_unparseable_names_the_variable_and_the_value(course_device, value):
    with pytest.raises(ValueError, match=f"COURSE_DEVICE={value!r} is not a device name"):
        course_device(value)


def test_course_device_other_device_types_are_refused(course_device):
    with pytest.raises(ValueError, match="COURSE_DEVICE='meta' names a 'meta' device"):
        course_device("meta")


def test_course_device_cuda_without_a_gpu_is_refused(course_device, monkeypatch):
    fake_gpus(monkeypatch, 0)
    with pytest.raises(ValueError, match=r"COURSE_DEVICE='cuda' asks for a CUDA GPU, but none"):
        course_device("cuda")


def test_course_device_cuda_n_out_of_range_is_refused(course_device, monkeypatch):
    fake_gpus(monkeypatch, 2)
    with pytest.raises(ValueError, match=r"COURSE_DEVICE='cuda:2' .* has 2 \(cuda:0 to cuda:1\)"):
        course_device("cuda:2")


def test_the_end_of_epoch_hook_sees_every_epoch_and_can_stop_the_run(capsys):
    seen = []

    def hook(trainer):
        seen.append((trainer.epochs, trainer.model.training, len(trainer.seconds)))
        trainer.model.eval()  # e.g. after a validation pass: fit puts train mode back
        if trainer.epochs == 3:
            trainer.stop_training = True
        return {"epoch": str(trainer.epochs)}

    trainer = make_trainer().fit(*toy_loaders(), epochs=10, seed=0, on_epoch_end=hook)
    assert seen == [(1, True, 1), (2, True, 2), (3, True, 3)]
    assert trainer.epochs == 3 and trainer.model.training
    assert trainer.seconds == sorted(trainer.seconds) and trainer.seconds[0] >= 0
    out = capsys.readouterr().out
    assert "epoch=3" in out and "val=" not in out  # the hook's dict replaces the default
    # a later fit starts again (the flag is reset) and the clock keeps adding up
    trainer.fit(toy_loaders()[0], epochs=2, progress=False)
    assert trainer.epochs == 5 and trainer.seconds[-1] >= trainer.seconds[2]


def test_the_clock_counts_cpu_seconds_on_the_cpu():
    start = clock("cpu")
    sum(i * i for i in range(200_000))
    assert clock(torch.device("cpu")) > start


def test_module_does_no_global_work_on_import():
    import importlib

    state = torch.get_rng_state()
    importlib.reload(train_module)
    assert torch.equal(state, torch.get_rng_state())


# -- options: clipping, schedules, per-token losses, mixed precision, input checks -----------


def test_gradient_clipping_bounds_the_update():
    model = nn.Linear(1, 1, bias=False)
    nn.init.zeros_(model.weight)
    x, y = torch.ones(4, 1), torch.full((4, 1), 100.0)  # a huge gradient
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    trainer = Trainer(
        model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=1.0), "cpu", clip_grad_norm=0.5
    )
    trainer.fit(loader, epochs=1, progress=False)
    assert model.weight.item() == pytest.approx(0.5)  # lr x clipped norm
    with pytest.raises(ValueError, match="clip_grad_norm must be positive"):
        Trainer(
            model,
            nn.MSELoss(),
            torch.optim.SGD(model.parameters(), lr=1.0),
            "cpu",
            clip_grad_norm=0,
        )


def test_the_scheduler_steps_once_per_optimiser_step():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    trainer = Trainer(
        model, nn.MSELoss(), optimizer, "cpu", scheduler=warmup_inverse_sqrt(optimizer, warmup=4)
    )
    train, _ = toy_loaders()  # 8 batches per epoch
    trainer.fit(train, epochs=2, progress=False)
    assert len(trainer.learning_rates) == 16
    assert trainer.learning_rates[:4] == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert trainer.learning_rates[15] == pytest.approx((4 / 16) ** 0.5)
    other = torch.optim.SGD(model.parameters(), lr=1.0)
    with pytest.raises(ValueError, match="same optimizer"):
        Trainer(model, nn.MSELoss(), optimizer, "cpu", scheduler=warmup_inverse_sqrt(other, 4))


def test_warmup_cosine_shape_and_errors():
    optimizer = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=2.0)
    scheduler = warmup_cosine(optimizer, warmup=2, total=6, floor=0.1)
    rates = []
    for _ in range(8):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates[:2] == pytest.approx([1.0, 2.0])
    assert rates[2] > rates[3] > rates[4] > rates[5] == pytest.approx(0.2) == rates[7]
    for kwargs in (
        {"warmup": 0, "total": 5},
        {"warmup": 5, "total": 5},
        {"warmup": 2, "total": 5, "floor": 1.0},
    ):
        with pytest.raises(ValueError):
            warmup_cosine(optimizer, **kwargs)


class Tokens(NamedTuple):
    inputs: torch.Tensor
    target: torch.Tensor


def test_ignore_index_averages_per_token_and_namedtuple_batches_work():
    # two batches: one with 1 real token of loss 2, one with 3 real tokens of loss 0
    logits = torch.tensor([[[0.0, 2.0], [0.0, 2.0]], [[5.0, 0.0], [5.0, 0.0]]])
    target = torch.tensor([[1, -1], [0, 0]])

    def loss_fn(output, tgt):
        return F.cross_entropy(output.flatten(0, 1), tgt.flatten(), ignore_index=-1)

    batches = [Tokens(logits[:1], target[:1]), Tokens(logits[1:], target[1:])]
    trainer = Trainer(
        nn.Identity(),
        loss_fn,
        torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1),
        "cpu",
        ignore_index=-1,
    )
    per_token = F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=-1)
    assert trainer.evaluate(batches) == pytest.approx(per_token.item())


@pytest.mark.parametrize("value", ["bf16", "float16", 1, torch.bfloat16, None])
def test_mixed_precision_must_be_a_bool(value):
    model = nn.Linear(3, 1)
    with pytest.raises(TypeError, match=r"mixed_precision must be True or False \(a bool\)"):
        Trainer(
            model,
            nn.MSELoss(),
            torch.optim.SGD(model.parameters(), lr=0.1),
            "cpu",
            mixed_precision=value,
        )


def test_mixed_precision_is_inert_on_the_cpu():
    model = nn.Linear(3, 1)
    trainer = Trainer(
        model,
        nn.MSELoss(),
        torch.optim.SGD(model.parameters(), lr=0.1),
        "cpu",
        mixed_precision=True,
    )
    assert trainer.mixed_precision is False
    trainer.fit(*toy_loaders(), epochs=1, progress=False)


def test_outputs_that_would_broadcast_against_the_target_are_refused():
    x, y = torch.randn(8, 3), torch.randn(8, 3)
    model = nn.Linear(3, 1)
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(ValueError, match=r"output \(8, 1\) and the target \(8, 3\)"):
        trainer.evaluate(DataLoader(TensorDataset(x, y), batch_size=8))


def test_a_missing_dimension_that_would_broadcast_is_refused():
    # (B, 1) against (B,): MSELoss would broadcast to (B, B) with only a warning
    x, y = torch.randn(8, 3), torch.randn(8)
    model = nn.Linear(3, 1)
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(ValueError, match=r"squeeze"):
        trainer.fit(DataLoader(TensorDataset(x, y), batch_size=8), epochs=1, progress=False)


def test_class_index_targets_need_one_more_output_dimension():
    x, y = torch.randn(8, 3), torch.randint(0, 4, (8,))
    good, bad = nn.Linear(3, 4), nn.Sequential(nn.Linear(3, 4), nn.Flatten(0))
    for model in (good, bad):
        trainer = Trainer(
            model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu"
        )
        loader = DataLoader(TensorDataset(x, y), batch_size=8)
        if model is good:
            trainer.fit(loader, epochs=1, progress=False)
        else:
            with pytest.raises(ValueError, match="class indices"):
                trainer.fit(loader, epochs=1, progress=False)


@pytest.mark.parametrize(
    "seed, error", [(1.5, TypeError), ("0", TypeError), (True, TypeError), (-1, ValueError)]
)
def test_seeds_must_be_integers(seed, error):
    with pytest.raises(error, match="seed"):
        make_trainer().fit(*toy_loaders(), epochs=1, seed=seed, progress=False)


def test_the_bar_shows_the_running_loss(capsys):
    make_trainer().fit(*toy_loaders(), epochs=1, seed=0, desc="bar")
    out = capsys.readouterr().out
    assert "loss=" in out and "val=" in out


# -- the wrong kind of object, each named with its fix ---------------------------------------


def linear_parts():
    model = nn.Linear(3, 1)
    return model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1)


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda m, f, o: (make_trainer(), f, o), r"model must be .* got Trainer. Pass its model"),
        (lambda m, f, o: (nn.Linear, f, o), r"the class Linear \(not an instance.*Build one"),
        (lambda m, f, o: (m, nn.MSELoss, o), r"the class MSELoss.*Create one: nn.MSELoss\(\)"),
        (lambda m, f, o: (m, o, f), r"loss_fn must be .* got SGD. The order is Trainer\(model"),
        (lambda m, f, o: (m, "mse", o), r"got str 'mse'. Pass e.g. nn.MSELoss\(\)"),
        (lambda m, f, o: (m, f, m), r"optimizer must be .* got Linear. The order is"),
        (lambda m, f, o: (m, f, torch.optim.Adam), r"the class Adam.*Adam\(model.parameters\(\)\)"),
        (
            lambda m, f, o: (m, f, warmup_inverse_sqrt(o, 5)),
            r"got LambdaLR. This is a scheduler: pass its optimizer",
        ),
    ],
    ids=[
        "a Trainer as model",
        "a model class",
        "a loss class",
        "optimizer and loss swapped",
        "a loss name",
        "a model as optimizer",
        "an optimizer class",
        "a scheduler as optimizer",
    ],
)
def test_trainer_names_the_wrong_kind_of_argument(build, message):
    with pytest.raises(TypeError, match=message):
        Trainer(*build(*linear_parts()), device="cpu")


def test_the_optimizer_of_another_model_is_refused():
    """The model's cell run again, the optimizer's not: the old optimizer holds the old
    model's weights, and training would leave the new model's unchanged."""
    old_model, loss, optimizer = linear_parts()
    model = nn.Linear(3, 1)  # the model's cell, run again
    with pytest.raises(ValueError, match=r"none of the model's parameters.*Re-create the optim"):
        Trainer(model, loss, optimizer, "cpu")


def test_an_optimizer_over_some_of_the_models_parameters_is_accepted():
    model = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 1))
    model[0].weight.requires_grad_(False)  # a frozen embedding
    trainable = (p for p in model.parameters() if p.requires_grad)
    Trainer(model, nn.MSELoss(), torch.optim.Adam(trainable), "cpu")
    groups = [{"params": model[0].parameters(), "lr": 0.1}, {"params": model[1].parameters()}]
    Trainer(model, nn.MSELoss(), torch.optim.Adam(groups, lr=0.01), "cpu")
    Trainer(nn.Identity(), nn.MSELoss(), torch.optim.SGD([nn.Parameter(torch.zeros(1))]), "cpu")


@pytest.mark.parametrize(
    "scheduler, error, message",
    [
        (lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o), ValueError, r"step it yourself"),
        (
            lambda o: warmup_inverse_sqrt,
            TypeError,
            r"got function warmup_inverse_sqrt\. Build the scheduler.*not the function: "
            r"scheduler=warmup_inverse_sqrt\(optimizer, warmup\)",
        ),
        (lambda o: warmup_cosine, TypeError, r"scheduler=warmup_cosine\(optimizer, warmup, total"),
        (lambda o: lambda step: 1.0, TypeError, r"LambdaLR\(optimizer, lr_lambda\)"),
        (lambda o: torch.optim.lr_scheduler.StepLR, TypeError, r"the class StepLR.*Create it"),
    ],
    ids=["on plateau", "a function", "the cosine function", "a lambda", "a class"],
)
def test_trainer_checks_its_scheduler(scheduler, error, message):
    model, loss, optimizer = linear_parts()
    with pytest.raises(error, match=message):
        Trainer(model, loss, optimizer, "cpu", scheduler=scheduler(optimizer))


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"device": "gpu"}, ValueError, r"device such as 'cpu', 'cuda' or 'cuda:1', got 'gpu'"),
        ({"device": nn.MSELoss()}, TypeError, "device must be a device"),
        ({"device": "cpu", "clip_grad_norm": "1"}, TypeError, "clip_grad_norm must be a number"),
        ({"device": "cpu", "ignore_index": 0.5}, TypeError, r"ignore_index must be .* got float"),
    ],
    ids=["no such device", "a loss as device", "clip as a string", "a float ignore_index"],
)
def test_trainer_checks_its_options(kwargs, error, message):
    with pytest.raises(error, match=message):
        Trainer(*linear_parts(), **kwargs)


def test_a_gpu_that_is_not_there_is_refused_with_the_fix(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"device='cuda' asks for a CUDA GPU.*device='cpu'"):
        Trainer(*linear_parts(), "cuda")


def test_a_scheduler_passed_as_the_device_is_named():
    model, loss, optimizer = linear_parts()
    with pytest.raises(TypeError, match=r"got LambdaLR: pass the scheduler as scheduler="):
        Trainer(model, loss, optimizer, warmup_inverse_sqrt(optimizer, 5))


@pytest.mark.parametrize(
    "loaders, kwargs, message",
    [
        (lambda tl, vl: (tl.dataset,), {}, r"got TensorDataset. Wrap it.*DataLoader\(dataset"),
        (lambda tl, vl: (tl.dataset.tensors[0],), {}, r"got Tensor \(64, 3\).*TensorDataset"),
        (lambda tl, vl: (tl.dataset.tensors,), {}, r"that is one batch; pass a list of batches"),
        (lambda tl, vl: (tl, 10), {}, r"val_loader must be a DataLoader, got int. Did you mean"),
        (lambda tl, vl: (iter(tl),), {"epochs": 2}, "an iterator.*used up after one pass"),
        (lambda tl, vl: (tl, vl), {"on_epoch_end": "print"}, "on_epoch_end must be a function"),
    ],
    ids=["a dataset", "a tensor", "one batch", "epochs as val_loader", "an iterator", "hook"],
)
def test_fit_names_what_it_got_instead_of_batches(loaders, kwargs, message):
    with pytest.raises(TypeError, match=message):
        make_trainer().fit(*loaders(*toy_loaders()), progress=False, **kwargs)


def test_an_iterator_of_batches_serves_one_epoch():
    train, _ = toy_loaders()
    make_trainer().fit(iter(train), epochs=1, progress=False)


def test_evaluate_of_a_dataset_says_wrap_it():
    with pytest.raises(TypeError, match=r"loader must be a DataLoader, got TensorDataset"):
        make_trainer().evaluate(toy_loaders()[1].dataset)


def test_the_end_of_epoch_hook_must_return_a_dict_or_none():
    with pytest.raises(TypeError, match=r"on_epoch_end must return None or a dict.*got list"):
        make_trainer().fit(toy_loaders()[0], progress=False, on_epoch_end=lambda t: ["bleu"])


@pytest.mark.parametrize(
    "loss_fn, error, message",
    [
        (nn.MSELoss(reduction="none"), ValueError, r"shape \(8, 1\), not one number"),
        (lambda o, t: F.mse_loss(o, t).item(), TypeError, r"got float: return the loss itself"),
        (lambda o, t: F.mse_loss(o, t).detach(), ValueError, r"no gradient.*detached it"),
    ],
    ids=["per-sample losses", "a float", "detached"],
)
def test_a_loss_that_cannot_train_is_refused(loss_fn, error, message):
    model = nn.Linear(3, 1)
    trainer = Trainer(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(error, match=message):
        trainer.fit(toy_loaders()[0], progress=False)


def test_batches_of_lists_are_refused_before_the_model_runs():
    batches = [([[1.0, 2.0, 3.0]], [[1.0]])]
    with pytest.raises(TypeError, match=r"input 0 is list of 1 list, not a tensor"):
        make_trainer().fit(batches, progress=False)


@pytest.mark.parametrize(
    "inputs, message",
    [
        (lambda x, loader: (loader,), r"input 0 is DataLoader.*trainer.evaluate\(loader\)"),
        (lambda x, loader: (x.numpy(),), r"NumPy array \(2, 3\).*torch.from_numpy"),
        (lambda x, loader: (x.tolist(),), r"list of 2 list: convert it.*torch.tensor"),
        (lambda x, loader: ((x,),), r"tuple of 1 Tensor: .*trainer.predict\(\*inputs\)"),
        (
            lambda x, loader: (next(iter(loader)),),
            r"list of 2 Tensor: if it is a batch \(\*inputs, target\).*without the target, "
            r"trainer.predict\(\*batch\[:-1\]\)",
        ),
    ],
    ids=["a loader", "an array", "a list", "a tuple", "a batch"],
)
def test_predict_takes_tensors(inputs, message):
    x = torch.randn(2, 3)
    with pytest.raises(TypeError, match=message):
        make_trainer().predict(*inputs(x, toy_loaders()[1]))


def test_a_model_moved_off_the_trainers_device_is_named():
    trainer = make_trainer()
    trainer.model.to("meta")
    for call in (
        lambda: trainer.fit(toy_loaders()[0], progress=False),
        lambda: trainer.evaluate(toy_loaders()[1]),
        lambda: trainer.predict(torch.randn(2, 3)),
    ):
        with pytest.raises(ValueError, match=r"the model is on meta, but this Trainer runs on cpu"):
            call()


def test_steps_at_a_learning_rate_of_0_are_reported():
    train, _ = toy_loaders()  # 8 batches per epoch
    trainer = make_trainer()
    trainer.scheduler = warmup_cosine(trainer.optimizer, warmup=2, total=8)  # one epoch
    with pytest.warns(UserWarning, match=r"17 of this fit's 24 .* total = epochs \* len"):
        trainer.fit(train, epochs=3, progress=False)


def test_a_cosine_that_ends_with_the_training_gives_no_warning():
    import warnings

    trainer = make_trainer()
    trainer.scheduler = warmup_cosine(trainer.optimizer, warmup=2, total=16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trainer.fit(toy_loaders()[0], epochs=2, progress=False)
    assert trainer.learning_rates[-1] == 0.0  # its last step, at 0, is expected


# -- checkpoints: a wrong path or another model's checkpoint destroys nothing ---------------


def test_saving_to_a_folder_or_a_missing_folder_says_which(tmp_path):
    trainer = make_trainer()
    with pytest.raises(IsADirectoryError, match=r"is a folder: pass a file path inside it"):
        trainer.save_checkpoint(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"the folder .*nowhere does not exist: create"):
        trainer.save_checkpoint(tmp_path / "nowhere" / "ckpt.pt")
    with pytest.raises(TypeError, match="path must be a file path"):
        trainer.save_checkpoint(trainer)
    assert list(tmp_path.iterdir()) == []


def test_saving_over_a_file_that_is_no_checkpoint_is_refused(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    with pytest.raises(FileExistsError, match="not a checkpoint.*would overwrite it"):
        make_trainer().save_checkpoint(notes)
    assert notes.read_text() == "my notes"


def test_a_failed_save_leaves_the_earlier_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    make_trainer(seed=1).save_checkpoint(path)
    make_trainer().save_checkpoint(path)  # saving again over a checkpoint is fine
    before = path.read_bytes()

    def full_disk(obj, f, *args, **kwargs):
        f.write(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(OSError, match="No space left"):
        make_trainer(seed=1).save_checkpoint(path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["ckpt.pt"]


def test_loading_a_misspelt_checkpoint_says_the_file_does_not_exist(tmp_path):
    trainer = make_trainer()
    trainer.save_checkpoint(tmp_path / "best.pt")
    with pytest.raises(FileNotFoundError, match="the file does not exist") as info:
        trainer.load_checkpoint(tmp_path / "bset.pt")
    message = str(info.value)
    assert "bset.pt" in message and "its folder holds best.pt" in message
    with pytest.raises(FileNotFoundError, match="does not exist") as info:
        trainer.load_checkpoint(tmp_path / "nowhere" / "best.pt")
    assert "folder holds" not in str(info.value)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda d: d / "missing.pt", FileNotFoundError, r"no checkpoint at .*missing.pt"),
        (lambda d: d, IsADirectoryError, r"is a folder: pass the checkpoint file inside it"),
        (lambda d: d / "notes.txt", ValueError, r"not a checkpoint written by save_checkpoint"),
        (lambda d: d / "weights.pt", ValueError, r"a model's state_dict.*load_state_dict"),
    ],
    ids=["missing", "a folder", "a text file", "a bare state_dict"],
)
def test_loading_what_is_no_checkpoint_says_what_it_is(tmp_path, make, error, message):
    (tmp_path / "notes.txt").write_text("my notes")
    torch.save(nn.Linear(3, 1).state_dict(), tmp_path / "weights.pt")
    trainer = make_trainer()
    before = [p.clone() for p in trainer.model.parameters()]
    with pytest.raises(error, match=message):
        trainer.load_checkpoint(make(tmp_path))
    assert all(torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=True))
    assert (tmp_path / "notes.txt").read_text() == "my notes"


def trained_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    make_trainer().fit(toy_loaders()[0], epochs=1, seed=0, progress=False).save_checkpoint(path)
    return path


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda m: (nn.Linear(3, 2), None), r"another model or configuration.*\(1, 3\) saved"),
        (lambda m: (m, torch.optim.Adam(m.parameters())), r"another optimizer.*Trainer's Adam"),
    ],
    ids=["another width", "another optimizer"],
)
def test_a_checkpoint_of_another_model_loads_nothing(tmp_path, build, message):
    path = trained_checkpoint(tmp_path)
    model, optimizer = build(nn.Linear(3, 1))
    optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.1)
    trainer = Trainer(model, nn.MSELoss(), optimizer, "cpu")
    before = [p.clone() for p in model.parameters()]
    with pytest.raises(ValueError, match=message):
        trainer.load_checkpoint(path)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert trainer.losses == [] and optimizer.state_dict()["state"] == {}


def test_a_scheduler_mismatch_loads_nothing(tmp_path):
    path = trained_checkpoint(tmp_path)
    trainer = scheduled_trainer(seed=5)
    before = [p.clone() for p in trainer.model.parameters()]
    with pytest.raises(ValueError, match="saved without a scheduler.*nothing was loaded"):
        trainer.load_checkpoint(path)
    assert all(torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=True))


# -- schedules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "optimizer, message",
    [
        (lambda: nn.Linear(3, 1), r"got Linear. Pass the optimizer that trains it"),
        (lambda: make_trainer(), r"got Trainer. Pass its optimizer: trainer.optimizer"),
        (lambda: torch.optim.Adam, r"the class Adam.*Create it first"),
    ],
    ids=["a model", "a Trainer", "a class"],
)
def test_schedules_want_an_optimizer(optimizer, message):
    with pytest.raises(TypeError, match=message):
        warmup_inverse_sqrt(optimizer(), warmup=10)
    with pytest.raises(TypeError, match=message):
        warmup_cosine(optimizer(), warmup=10, total=100)


def test_schedules_refuse_a_learning_rate_of_0():
    optimizer = torch.optim.SGD(nn.Linear(3, 1).parameters(), lr=0.0)
    with pytest.raises(ValueError, match=r"learning rate \(group 0\) is 0.0.*peak rate"):
        warmup_inverse_sqrt(optimizer, warmup=10)
    with pytest.raises(ValueError, match=r"is 0.0, but it must be positive"):
        warmup_cosine(optimizer, warmup=10, total=100)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"warmup": 0.1, "total": 100}, ValueError, r"not a share of them.*int\(0.1 \* epochs"),
        ({"warmup": 100, "total": 10}, ValueError, r"the order is warmup_cosine\(optimizer, war"),
        ({"warmup": 10, "total": 100, "floor": "0"}, TypeError, r"floor must be a number"),
        ({"warmup": 0.1 * 3000, "total": 3000}, ValueError, r"a whole number.*warmup=int\(300.0\)"),
    ],
    ids=["a warm-up share", "warmup and total swapped", "a string floor", "a float count"],
)
def test_warmup_cosine_names_the_slip(kwargs, error, message):
    optimizer = torch.optim.SGD(nn.Linear(3, 1).parameters(), lr=0.1)
    with pytest.raises(error, match=message):
        warmup_cosine(optimizer, **kwargs)


def test_evaluating_a_trainer_names_its_model():
    from course_lib.train import evaluating

    with pytest.raises(TypeError, match=r"got Trainer. Pass the Trainer's model"):
        with evaluating(make_trainer()):
            pass


def test_a_model_returning_output_and_weights_is_named():
    class WithWeights(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(3, 1)

        def forward(self, x):
            return self.linear(x), None

    model = WithWeights()
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(TypeError, match=r"returned tuple of 2 Tensor.*\(output, weights\)"):
        trainer.fit(toy_loaders()[0], progress=False)


def test_ignore_index_on_float_targets_is_warned_of_once_per_fit():
    train, _ = toy_loaders()
    model = nn.Linear(3, 1)
    trainer = Trainer(
        model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu", ignore_index=0
    )
    with pytest.warns(
        UserWarning, match=r"Trainer\(ignore_index=0\) is for targets of token"
    ) as seen:
        trainer.fit(train, epochs=3, progress=False)
    ours = [w for w in seen if "ignore_index" in str(w.message)]
    assert len(ours) == 1 and "float regression target" in str(ours[0].message)
    assert ours[0].filename == __file__
    tokens = DataLoader(TensorDataset(torch.randn(8, 3), torch.randint(0, 4, (8,))), batch_size=4)
    classifier = nn.Linear(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Trainer(
            classifier,
            nn.CrossEntropyLoss(ignore_index=0),
            torch.optim.SGD(classifier.parameters(), lr=0.1),
            "cpu",
            ignore_index=0,
        ).fit(tokens, epochs=2, progress=False)


def _with_nan(y):
    bad = y.clone()
    bad[3, 0] = float("nan")
    return bad


def test_a_nan_in_the_targets_stops_the_fit_and_says_so():
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    loader = DataLoader(TensorDataset(x, _with_nan(y)), batch_size=8)
    trainer = make_trainer()
    with pytest.raises(FloatingPointError, match=r"the training loss is NaN at epoch 1") as err:
        trainer.fit(loader, epochs=5, progress=False)
    message = str(err.value)
    assert "the data holds NaN, in the target of a batch" in message
    assert "torch.isnan(target).any()" in message and "rebuild the model" in message
    assert len(trainer.losses) == 1  # stopped at once, the NaN epoch kept


def test_a_nan_validation_loss_names_the_validation_data():
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    val = DataLoader(TensorDataset(x, _with_nan(y)), batch_size=8)
    trainer = make_trainer()
    with pytest.raises(FloatingPointError, match=r"the validation loss is NaN at epoch 1") as err:
        trainer.fit(toy_loaders()[0], val, epochs=3, progress=False)
    assert "the target of a batch" in str(err.value)
    assert "rebuild the model" not in str(err.value)  # training was fine


def test_a_diverging_training_is_told_from_nan_in_the_data():
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    model = nn.Linear(3, 1)
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=1e30), "cpu")
    with pytest.raises(FloatingPointError, match=r"loss is (NaN|inf) at epoch") as err:
        trainer.fit(DataLoader(TensorDataset(x * 1e10, y), batch_size=8), epochs=3, progress=False)
    assert "lower the learning rate" in str(err.value)


def test_keras_style_fit_keywords_are_named():
    from course_lib.train import Trainer

    model = torch.nn.Linear(1, 1)
    trainer = Trainer(model, torch.nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(TypeError, match=r"Trainer.fit\(\).*'num_epochs'.*epochs="):
        trainer.fit([], num_epochs=2)
    with pytest.raises(TypeError, match=r"'verbose'.*progress=False"):
        trainer.fit([], verbose=False)


def test_warmup_cosine_given_to_lambdalr_is_explained():
    from course_lib.schedules import warmup_cosine

    optimizer = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1)
    with pytest.raises(TypeError, match=r"warmup_cosine\(\).*builds the scheduler itself"):
        torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine)


# -- a hook without its parameter, a batch without its target, (B, T, V) scores, no batches


@pytest.mark.parametrize(
    "hook, message",
    [
        (lambda: None, r"but on_epoch_end\(\) takes no argument.*def on_epoch_end\(trainer\)"),
        (lambda trainer, bleu: None, r"on_epoch_end\(trainer, bleu\) cannot be called with one"),
    ],
    ids=["no parameter", "two parameters"],
)
def test_an_end_of_epoch_hook_that_cannot_take_the_trainer_is_refused_before_training(
    hook, message
):
    trainer = make_trainer()
    weight = trainer.model.weight.detach().clone()
    with pytest.raises(TypeError, match=r"^on_epoch_end is called as on_epoch_end\(trainer\)"):
        trainer.fit(toy_loaders()[0], progress=False, on_epoch_end=hook)
    with pytest.raises(TypeError, match=message):
        trainer.fit(toy_loaders()[0], progress=False, on_epoch_end=hook)
    assert trainer.losses == [] and torch.equal(trainer.model.weight, weight)  # nothing ran

    def end_of_epoch():
        return None

    with pytest.raises(TypeError, match=r"end_of_epoch\(\) takes no argument.*def end_of_epoch"):
        trainer.fit(toy_loaders()[0], progress=False, on_epoch_end=end_of_epoch)
    # a hook with defaults beyond the trainer, a bound method and a callable object all fit
    trainer.fit(toy_loaders()[0], progress=False, on_epoch_end=lambda t, every=1: None)
    trainer.fit(toy_loaders()[0], progress=False, on_epoch_end=[].append)


class ThreeInputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))

    def forward(self, queries, keys, values):
        scores = -(((queries[:, None] - keys) * self.w) ** 2) / 2
        return (torch.softmax(scores, dim=-1) * values).sum(-1)


def test_a_dataset_without_its_target_says_the_last_item_is_the_target():
    x = torch.rand(20)
    keys = x.expand(20, -1).clone()
    model = ThreeInputs()
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.5), "cpu")
    loader = DataLoader(TensorDataset(x, keys, keys.clone()), batch_size=10)
    with pytest.raises(
        TypeError,
        match=r"every batch is \(\*inputs, target\).*the last item of the batch as the target.*"
        r"ThreeInputs\.forward\(queries, keys, values\) needs 3: the dataset lacks its target.*"
        r"TensorDataset\(queries, keys, values, target\)",
    ):
        trainer.fit(loader, progress=False)
    trainer.fit(DataLoader(TensorDataset(x, keys, keys, x), batch_size=10), progress=False)


def test_a_batch_with_an_input_too_many_and_errors_inside_forward():
    trainer = make_trainer()  # nn.Linear: forward(input)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    with pytest.raises(TypeError, match=r"Linear\.forward\(input\) takes 1: .* an item too many"):
        trainer.fit([(x, x, y)], progress=False)

    class Raises(nn.Linear):
        def forward(self, x):
            raise TypeError("inside forward")

    model = Raises(3, 1)
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1), "cpu")
    with pytest.raises(TypeError, match=r"^inside forward$"):  # the model's own: untouched
        trainer.fit([(x, y)], progress=False)


def test_pytorch_cross_entropy_on_b_t_v_scores_names_translation_loss_and_the_flattening():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(20, 8), nn.Linear(8, 20))  # (B, T) -> (B, T, V)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 20, (4, 5))
    with pytest.raises(
        ValueError,
        match=r"output \(B, T, V\) = \(4, 5, 20\).*target \(B, T\) = \(4, 5\).*reads the classes "
        r"from dimension 1, \(B, V, T\).*loss_fn=translation_loss.*output\.reshape\(-1, 20\)",
    ):
        Trainer(model, nn.CrossEntropyLoss(), optimizer, "cpu").fit([(tokens, tokens)])
    flat = lambda output, target: F.cross_entropy(output.reshape(-1, 20), target.reshape(-1))  # noqa: E731
    Trainer(model, flat, optimizer, "cpu").fit([(tokens, tokens)], progress=False)


def test_a_loader_without_batches_is_refused_before_training():
    trainer = make_trainer()
    empty = TensorDataset(torch.zeros(0, 3), torch.zeros(0, 1))
    with pytest.raises(
        ValueError, match=r"train_loader has no batches.*its dataset is empty, 0 items"
    ):
        trainer.fit(DataLoader(empty, batch_size=8), progress=False)
    few = TensorDataset(torch.zeros(5, 3), torch.zeros(5, 1))
    with pytest.raises(ValueError, match=r"val_loader has no batches.*5 item\(s\), fewer than "):
        trainer.fit(toy_loaders()[0], DataLoader(few, batch_size=8, drop_last=True))
    with pytest.raises(ValueError, match=r"loader has no batches.*list is empty"):
        trainer.evaluate([])
    assert trainer.losses == []


def test_cross_entropy_given_coordinates_names_the_regression_loss():
    x, y = torch.randn(8, 2), torch.randn(8, 2) * 2  # coordinates, some negative
    model = nn.Linear(2, 2)
    trainer = Trainer(model, nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), 0.1), "cpu")
    before = [p.clone() for p in model.parameters()]
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    with pytest.raises(ValueError, match=r"CrossEntropyLoss\(\) is a classification loss.*MSELoss"):
        trainer.fit(loader, progress=False)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    soft = torch.softmax(torch.randn(8, 2), dim=-1)  # probabilities: soft labels pass
    trainer.fit(DataLoader(TensorDataset(x, soft), batch_size=4), progress=False)


def test_a_shape_error_on_the_first_batch_says_how_the_batch_is_split():
    class Kernel(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(1))

        def forward(self, queries, keys, values):
            weights = torch.softmax(-(((queries[:, None] - keys) * self.w) ** 2), dim=-1)
            return torch.bmm(weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)

    x = torch.rand(20)
    y = torch.sin(x)
    keys, values = x.expand(20, -1), y.expand(20, -1)
    model = Kernel()
    trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), 0.1), "cpu")
    swapped = DataLoader(TensorDataset(x, y, keys, values), batch_size=10)
    with pytest.raises(RuntimeError, match=r"\(\*inputs, target\).*put it last") as info:
        trainer.fit(swapped, progress=False)
    assert isinstance(info.value.__cause__, RuntimeError)  # PyTorch's own error is kept
    assert trainer.losses == []
    trainer.fit(DataLoader(TensorDataset(x, keys, values, y), batch_size=10), progress=False)


def test_predict_names_need_weights_passed_positionally():
    trainer = make_trainer()
    with pytest.raises(TypeError, match=r"input 1 is True.*need_weights=True"):
        trainer.predict(torch.randn(2, 3), True)


def test_a_dataloader_of_encoded_id_pairs_names_pair_batches():
    ids = [([4, 5, 2], [6, 7, 2]), ([5, 4, 2], [7, 6, 2])]
    trainer = make_trainer()
    with pytest.raises(TypeError, match=r"encoded \(source ids, target ids\) pairs.*PairBatches"):
        trainer.fit(DataLoader(ids, batch_size=2), progress=False)


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=10), r"StepLR\(step_size=10\)"),
        (lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [5, 8]), r"MultiStepLR"),
        (lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9), r"ExponentialLR"),
    ],
)
def test_a_schedule_in_epochs_warns_that_the_trainer_steps_per_batch(build, match):
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.warns(UserWarning, match=match + r".*after every optimiser step"):
        Trainer(model, nn.MSELoss(), optimizer, "cpu", scheduler=build(optimizer))
    in_steps = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20 * 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Trainer(model, nn.MSELoss(), optimizer, "cpu", scheduler=in_steps)


def one_cycle_trainer(total_steps):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=total_steps)
    return Trainer(model, nn.MSELoss(), optimizer, "cpu", scheduler=scheduler)


def test_a_one_cycle_counted_in_epochs_is_said_before_the_first_batch():
    train, _ = toy_loaders()  # 8 batches an epoch
    trainer = one_cycle_trainer(total_steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            UserWarning,
            match=r"OneCycleLR's total_steps=3 but this fit makes 3 \* 8 = 24 optimiser steps"
            r".*after every batch.*total_steps=epochs \* len\(train_loader\)",
        ):
            trainer.fit(train, epochs=3, progress=False)
    assert trainer.epochs == 0 and trainer.learning_rates == []  # before any training
    with pytest.warns(UserWarning, match="total_steps=3"):  # then PyTorch's own error
        with pytest.raises(ValueError, match="total steps"):
            one_cycle_trainer(total_steps=3).fit(train, epochs=3, progress=False)


def test_a_one_cycle_counted_in_batches_is_not_warned_about():
    train, _ = toy_loaders()
    trainer = one_cycle_trainer(total_steps=3 * len(train))  # the near miss: exactly right
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trainer.fit(train, epochs=3, progress=False)
    assert len(trainer.learning_rates) == 3 * len(train)


class Unsized:
    """Batches without a length: a fit's steps are at least one per epoch."""

    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        return iter(self.loader)


def test_a_one_cycle_over_a_loader_without_length_warns_only_when_it_is_decided():
    train, _ = toy_loaders()
    with pytest.warns(UserWarning, match=r"total_steps=2 but this fit makes at least 3"):
        with pytest.raises(ValueError, match="total steps"):
            one_cycle_trainer(total_steps=2).fit(Unsized(train), epochs=3, progress=False)
    trainer = one_cycle_trainer(total_steps=3)  # one batch an epoch would fit: undecided
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        trainer.fit(Unsized([next(iter(train))]), epochs=3, progress=False)
    assert len(trainer.learning_rates) == 3
