"""course_lib.ensemble: members trained together equal the same runs trained one by one.

Every comparison runs in float64 on the CPU, with gradient clipping and a one-cycle
learning-rate schedule on, for every model kind the chapters train in ensembles.
"""

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course_lib.ensemble import EnsembleTrainer, UnrolledGRU
from course_lib.points_transformer import SelfAttentionConfig, SelfAttentionEncoderDecoder
from course_lib.seq2seq import Decoder, Encoder, EncoderDecoder
from course_lib.seq2seq_attention import AttentionDecoder, BahdanauDecoder
from course_lib.train import Trainer

EPOCHS, BATCH = 4, 8
SEEDS = (3, 4, 5)


@pytest.fixture(autouse=True)
def float64():
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def data():
    g = torch.Generator().manual_seed(0)
    source, target = torch.randn(72, 4, 2, generator=g), torch.randn(72, 2, 2, generator=g)
    return TensorDataset(source, target, target), TensorDataset(source[:24], target[:24])


def build(kind, seed):
    torch.manual_seed(seed)
    if kind == "GRU":
        return EncoderDecoder(Encoder(2, 5), Decoder(2, 5), target_len=2)
    if kind == "GRU + attention":
        return EncoderDecoder(Encoder(2, 5), AttentionDecoder(2, 5), target_len=2)
    if kind == "Bahdanau":
        return EncoderDecoder(Encoder(2, 5), BahdanauDecoder(2, 5), target_len=2)
    add_norm = None if kind == "self-attention" else "post"
    config = SelfAttentionConfig(positional=True, start="origin", add_norm=add_norm)
    return SelfAttentionEncoderDecoder(config)


KINDS = ["GRU", "GRU + attention", "Bahdanau", "self-attention", "self-attention, Add & Norm"]


def optimizer(params):
    return torch.optim.Adam(params, lr=0.01)


def scheduler(opt):
    return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.02, total_steps=EPOCHS * 9)


def loader(train_set):
    return DataLoader(train_set, batch_size=BATCH, shuffle=True, generator=torch.Generator())


def separately(kind, fit_seeds):
    train_set, val_set = data()
    trainers = []
    for seed, fit_seed in zip(SEEDS, fit_seeds, strict=True):
        model = build(kind, seed)
        opt = optimizer(model.parameters())
        trainer = Trainer(
            model, nn.MSELoss(), opt, "cpu", clip_grad_norm=0.5, scheduler=scheduler(opt)
        )
        trainer.fit(loader(train_set), DataLoader(val_set, batch_size=12), EPOCHS,
                    seed=fit_seed, progress=False)  # fmt: skip
        trainers.append(trainer)
    return trainers


def together(kind, per_member):
    train_set, val_set = data()
    models = [build(kind, seed) for seed in SEEDS]
    ensemble = EnsembleTrainer(
        models, nn.MSELoss(), optimizer, "cpu", clip_grad_norm=0.5, scheduler=scheduler
    )
    val_loader = DataLoader(val_set, batch_size=12)
    if per_member:
        loaders = [loader(train_set) for _ in SEEDS]
        return ensemble.fit(loaders, val_loader, EPOCHS, seed=list(SEEDS), progress=False)
    return ensemble.fit(loader(train_set), val_loader, EPOCHS, seed=42, progress=False)


def assert_same(a: Trainer, b: Trainer) -> None:
    for name in ("losses", "val_losses", "learning_rates"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-9, abs=1e-12), name
    for (name, p), q in zip(a.model.named_parameters(), b.model.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-8, atol=1e-10, msg=name)


@pytest.mark.parametrize("kind", KINDS)
def test_members_sharing_fits_seed_equal_the_separate_runs(kind):
    """One loader, one seed (the chapters' seed=42 runs): teacher-forcing coins included."""
    for a, b in zip(separately(kind, [42] * 3), together(kind, False), strict=True):
        assert_same(a, b)


@pytest.mark.parametrize("kind", ["GRU + attention", "self-attention, Add & Norm"])
def test_members_with_their_own_data_order_equal_the_separate_runs(kind):
    """One loader and one seed per member; the GRU here draws no coins (probability 0)."""
    alone, joint = separately(kind, SEEDS), together(kind, True)
    if kind.startswith("GRU"):  # with coins, only the first member's stream is its own
        for trainers in (alone, joint):
            assert trainers[0].model.teacher_forcing_prob == 0.5
        assert_same(alone[0], joint[0])
        return
    for a, b in zip(alone, joint, strict=True):
        assert_same(a, b)


def test_members_without_coins_and_their_own_order_equal_the_separate_runs(monkeypatch):
    monkeypatch.setattr(EncoderDecoder, "__init__", _no_coins(EncoderDecoder.__init__))
    for a, b in zip(separately("GRU", SEEDS), together("GRU", True), strict=True):
        assert_same(a, b)


def _no_coins(init):
    def without(self, encoder, decoder, target_len, teacher_forcing_prob=0.5):
        init(self, encoder, decoder, target_len, 0.0)

    return without


def test_a_member_goes_on_training_alone_as_if_it_had_always_been_alone():
    """The member's Trainer gets its optimizer and scheduler state: two more epochs alone
    equal two more epochs of the separate run."""
    train_set, val_set = data()
    alone, joint = separately("GRU + attention", [42] * 3), together("GRU + attention", False)
    for a, b in ((alone[1], joint[1]),):
        for trainer in (a, b):
            trainer.scheduler.total_steps += 2 * 9
            trainer.fit(loader(train_set), epochs=2, seed=7, progress=False)
        assert_same(a, b)


def test_unrolled_gru_is_nn_gru():
    torch.manual_seed(0)
    gru = nn.GRU(3, 4, batch_first=True)
    unrolled = UnrolledGRU(3, 4, batch_first=True)
    unrolled.load_state_dict(gru.state_dict())
    x, h = torch.randn(5, 6, 3), torch.randn(1, 5, 4)
    for hidden in (None, h):
        for a, b in zip(gru(x, hidden), unrolled(x, hidden), strict=True):
            torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_members_keep_their_own_gradient_norm():
    """Clipping is per member: a member whose gradient is small is not scaled down because
    another member's is large."""
    train_set, _ = data()
    models = [build("GRU", 0), build("GRU", 1)]
    with torch.no_grad():
        for p in models[1].parameters():
            p.mul_(30)  # a member far from the others: larger gradients
    ensemble = EnsembleTrainer(models, nn.MSELoss(), optimizer, "cpu", clip_grad_norm=1e-3)
    batch = next(iter(DataLoader(train_set, batch_size=BATCH)))
    ensemble.optimizer.zero_grad()
    ensemble._losses(batch, shared=True)[0].sum().backward()
    before = [g.grad.clone() for g in ensemble.params.values()]
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in before]).norm(dim=0)
    ensemble._clip()
    after = torch.stack([g.grad.flatten(1).norm(dim=1) for g in ensemble.params.values()])
    assert norms.min() > 1e-3
    torch.testing.assert_close(after.norm(dim=0), torch.full((2,), 1e-3), rtol=1e-5, atol=0)


# --- clear errors ------------------------------------------------------------------------


def test_members_of_different_widths_are_refused():
    torch.manual_seed(0)
    small = EncoderDecoder(Encoder(2, 2), Decoder(2, 2), target_len=2)
    wide = EncoderDecoder(Encoder(2, 3), Decoder(2, 3), target_len=2)
    with pytest.raises(ValueError, match=r"models\[1\]'s parameters differ in shape"):
        EnsembleTrainer([small, wide], nn.MSELoss(), optimizer)


def test_members_with_other_settings_are_refused():
    a = SelfAttentionEncoderDecoder(SelfAttentionConfig(start="last", add_norm=None))
    b = SelfAttentionEncoderDecoder(SelfAttentionConfig(start="origin", add_norm=None))
    with pytest.raises(ValueError, match=r"models\[1\]\.config = .*differ only in their"):
        EnsembleTrainer([a, b], nn.MSELoss(), optimizer)


def test_an_optimizer_instance_or_a_non_elementwise_one_is_refused():
    models = [build("GRU", 0), build("GRU", 1)]
    with pytest.raises(TypeError, match="optimizer must build an optimizer from parameters"):
        EnsembleTrainer(models, nn.MSELoss(), optimizer(models[0].parameters()))
    with pytest.raises(TypeError, match="LBFGS: the ensemble needs one that acts element"):
        EnsembleTrainer(models, nn.MSELoss(), lambda p: torch.optim.LBFGS(p))


def test_a_stacked_gru_must_be_one_layer_batch_first():
    class Deep(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(2, 3, num_layers=2, batch_first=True)

    with pytest.raises(ValueError, match="num_layers=2"):
        EnsembleTrainer([Deep(), Deep()], nn.MSELoss(), optimizer)


def test_loaders_and_seeds_must_match_the_members():
    train_set, _ = data()
    ensemble = EnsembleTrainer([build("GRU", s) for s in SEEDS], nn.MSELoss(), optimizer)
    with pytest.raises(ValueError, match="a list of 2 loaders for 3 members"):
        ensemble.fit([loader(train_set)] * 2, progress=False)
    with pytest.raises(ValueError, match="2 seeds for 3 train loaders"):
        ensemble.fit([loader(train_set) for _ in SEEDS], seed=[1, 2], progress=False)
    with pytest.raises(TypeError, match="models must be a non-empty list"):
        EnsembleTrainer(build("GRU", 0), nn.MSELoss(), optimizer)


def test_members_loaders_must_give_batches_of_one_shape():
    train_set, _ = data()
    short = TensorDataset(*(t[:60] for t in train_set.tensors))  # a last batch of 4, not 8
    ensemble = EnsembleTrainer([build("GRU", s) for s in SEEDS[:2]], nn.MSELoss(), optimizer)
    with pytest.raises(ValueError, match=r"train_loader\[1\] gave a batch of shapes"):
        ensemble.fit([loader(train_set), loader(short)], seed=[1, 2], progress=False)
