"""Mistakes with training, learning-rate schedules, figures and the lecture's training loop.

Ready-made (see ``mistake_cases.namespace``): ``points, directions``; ``source, target``;
``seq2seq`` (an ``EncoderDecoder``) with its ``optimizer`` and ``trainer``; ``train_set,
val_set``; ``train_loader, val_loader``; ``scores``, ``x``, ``mha`` for the heatmaps; ``tmp``.
"""

from __future__ import annotations

from mistake_cases import NON_NEGATIVE, POSITIVE, case

CASES = [
    # -- train --------------------------------------------------------------------------------
    case(
        "train.device_gpu",
        "Trainer(device='gpu')",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, device='gpu')",
        ["device", "cpu|cuda"],
    ),
    case(
        "train.device_missing_gpu",
        "Trainer(device='cuda:7') on a machine without an eighth GPU",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, device='cuda:7')",
        ["cuda", "available|gpu"],
    ),
    case(
        "train.epochs_zero",
        "trainer.fit(..., epochs=0)",
        "trainer.fit(train_loader, epochs=0, progress=False)",
        ["epochs", POSITIVE],
    ),
    case(
        "train.epochs_as_val_loader",
        "trainer.fit(train_loader, 10): the epochs passed where the validation loader goes",
        "trainer.fit(train_loader, 10, progress=False)",
        ["val_loader", "epochs"],
    ),
    case(
        "train.optimizer_loss_swapped",
        "Trainer(model, optimizer, loss_fn): the optimizer and the loss swapped",
        """
        swapped = Trainer(seq2seq, optimizer, nn.MSELoss(), "cpu")
        swapped.fit(train_loader, epochs=1, progress=False)
        """,
        ["optimizer", "loss"],
    ),
    case(
        "train.clip_zero",
        "Trainer(clip_grad_norm=0)",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, 'cpu', clip_grad_norm=0)",
        ["clip_grad_norm", POSITIVE],
    ),
    case(
        "train.scheduler_other_optimizer",
        "a scheduler built on a fresh optimizer, not the Trainer's",
        """
        other = torch.optim.Adam(seq2seq.parameters(), lr=0.01)
        Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu",
                scheduler=warmup_inverse_sqrt(other, 10))
        """,
        ["scheduler", "optimizer"],
    ),
    case(
        "train.batch_without_target",
        "a loader of 1-tuples (TensorDataset(source)): no target",
        "trainer.fit(DataLoader(TensorDataset(source), batch_size=8), progress=False)",
        ["batch", "target"],
    ),
    case(
        "train.output_shape",
        "a model returning (B, 1) for targets (B,)",
        """
        net = nn.Linear(3, 1)
        data = DataLoader(TensorDataset(torch.randn(8, 3), torch.randn(8)), batch_size=4)
        Trainer(net, nn.MSELoss(), torch.optim.SGD(net.parameters(), lr=0.1), "cpu").fit(
            data, progress=False)
        """,
        ["output", "target", "shape"],
    ),
    case(
        "train.predict_loader",
        "trainer.predict(val_loader): a loader where a batch of inputs is expected",
        "trainer.predict(val_loader)",
        ["loader", "tensor"],
    ),
    case(
        "train.checkpoint_missing_folder",
        "save_checkpoint into a folder that does not exist",
        "trainer.save_checkpoint(tmp / 'runs' / 'ch1' / 'model.pt')",
        ["exist", "folder|directory"],
    ),
    case(
        "train.checkpoint_other_model",
        "load_checkpoint of another model's checkpoint",
        """
        trainer.save_checkpoint(tmp / "gru.pt")
        other = SelfAttentionEncoderDecoder(SelfAttentionConfig())
        Trainer(other, nn.MSELoss(), torch.optim.Adam(other.parameters()), "cpu").load_checkpoint(
            tmp / "gru.pt")
        """,
        [r"gru\.pt|checkpoint", "another model|missing|unexpected"],
    ),
    case(
        "train.seed_negative",
        "trainer.fit(seed=-1)",
        "trainer.fit(train_loader, seed=-1, progress=False)",
        ["seed", NON_NEGATIVE],
    ),
    case(
        "train.loss_not_reduced",
        "nn.MSELoss(reduction='none'): a loss per element, not a scalar",
        """
        Trainer(seq2seq, nn.MSELoss(reduction="none"), optimizer, "cpu").fit(
            train_loader, progress=False)
        """,
        ["loss", "scalar|reduction"],
    ),
    case(
        "train.model_returns_pair",
        "a model whose forward returns (output, weights) trained directly",
        """
        class WithWeights(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = seq2seq
            def forward(self, source, target=None):
                return self.inner(source, target, need_weights=True)
        model = WithWeights()
        Trainer(model, nn.MSELoss(), optimizer, "cpu").fit(train_loader, progress=False)
        """,
        ["output", "tuple"],
    ),
    case(
        "train.course_device_mps",
        "COURSE_DEVICE=mps on a Mac",
        """
        os.environ["COURSE_DEVICE"] = "mps"
        default_device.cache_clear()
        try:
            default_device()
        finally:
            default_device.cache_clear()
        """,
        ["course_device", "mps"],
    ),
    # -- schedules ----------------------------------------------------------------------------
    case(
        "schedules.warmup_zero",
        "warmup_inverse_sqrt(optimizer, warmup=0)",
        "warmup_inverse_sqrt(optimizer, warmup=0)",
        ["warmup", POSITIVE],
    ),
    case(
        "schedules.total_before_warmup",
        "warmup_cosine with total shorter than warmup",
        "warmup_cosine(optimizer, warmup=100, total=50)",
        ["total", "warmup"],
    ),
    case(
        "schedules.floor_above_one",
        "warmup_cosine(floor=1.5)",
        "warmup_cosine(optimizer, 10, 100, floor=1.5)",
        ["floor", r"\[0, 1\)|between 0 and 1"],
    ),
    case(
        "schedules.warmup_float",
        "warmup given as a float (a fraction of the steps times their number)",
        "warmup_inverse_sqrt(optimizer, warmup=0.1 * 3000)",
        ["warmup", "int|whole"],
    ),
    case(
        "schedules.missing_total",
        "warmup_cosine(optimizer, 100) without total",
        "warmup_cosine(optimizer, 100)",
        ["total"],
    ),
    # -- plots --------------------------------------------------------------------------------
    case(
        "plots.losses_list",
        "plot_losses(trainer.losses): a list where a dict of curves is expected",
        """
        trainer.fit(train_loader, progress=False)
        plot_losses(trainer.losses)
        """,
        ["curves", r"dict|\{"],
    ),
    case(
        "plots.losses_trainer",
        "plot_losses(trainer): the Trainer itself",
        "plot_losses(trainer)",
        ["curves", r"dict|\{|trainer\.losses"],
    ),
    case(
        "plots.losses_empty",
        "plot_losses({}) before any curve",
        "plot_losses({})",
        ["curves", "empty"],
    ),
    case(
        "plots.losses_untrained",
        "plot_losses of a Trainer that has not trained yet",
        "plot_losses({'training': trainer.losses})",
        ["training", "epoch|no values"],
    ),
    case(
        "plots.heatmap_batch",
        "attention_heatmap given a batch of weights (B, T, S)",
        "attention_heatmap(torch.softmax(scores, -1))",
        ["weights", r"\(t, s\)"],
    ),
    case(
        "plots.heatmap_labels",
        "attention_heatmap with one key label too few",
        "attention_heatmap(torch.softmax(scores[0], -1), x_labels=['a', 'b', 'c', 'd'])",
        ["x_labels", "5"],
    ),
    case(
        "plots.heatmap_pair",
        "attention_heatmap given the (output, weights) pair an attention returns",
        "attention_heatmap(mha(x[:1], x[:1], x[:1]))",
        ["weights", "tuple|pair|output"],
    ),
    case(
        "plots.heatmap_layer_list",
        "attention_heatmap given the per-layer list need_weights returns",
        """
        enc = TransformerEncoder(8, 2, 16, 2)
        _, weights = enc(x[:1], need_weights=True)
        attention_heatmap(weights)
        """,
        ["weights", "list|layer"],
    ),
    case(
        "plots.heatmaps_per_head",
        "attention_heatmaps given (B, Nh, T, S) per-head weights",
        "attention_heatmaps(torch.softmax(torch.randn(2, 2, 5, 5), -1))",
        ["weights", r"\(n, t, s\)"],
    ),
    case(
        "plots.heatmaps_titles",
        "attention_heatmaps with more titles than matrices",
        "attention_heatmaps(torch.softmax(scores, -1), titles=['a', 'b', 'c'])",
        ["titles", "2|3"],
    ),
    case(
        "plots.query_keys_transposed",
        "plot_query_keys given keys as (2, S)",
        "plot_query_keys(torch.tensor([1.0, 0.0]), torch.randn(2, 4))",
        ["keys", r"\(s, 2\)"],
    ),
    case(
        "plots.label_every_zero",
        "attention_heatmap(label_every=0)",
        "attention_heatmap(torch.softmax(scores[0], -1), label_every=0)",
        ["label_every", POSITIVE],
    ),
    # -- lecture ------------------------------------------------------------------------------
    case(
        "lecture.loaders_missing_val",
        "lecture_loaders(points) without the validation points",
        "lecture_loaders(points)",
        ["val_points"],
    ),
    case(
        "lecture.loaders_source_len",
        "lecture_loaders(source_len=4) for sequences of 4 points",
        "lecture_loaders(points, points, source_len=4)",
        ["source_len", "4"],
    ),
    case(
        "lecture.train_no_generator",
        "lecture_train with a loader built without a generator",
        """
        loader = DataLoader(TensorDataset(torch.as_tensor(points).float(), target), batch_size=4)
        lecture_train(seq2seq, optimizer, loader, loader, 1)
        """,
        ["train_loader", "generator"],
    ),
    case(
        "lecture.train_swapped",
        "lecture_train(model, train_loader, optimizer, ...): loader and optimizer swapped",
        """
        train, val = lecture_loaders(points, points)
        lecture_train(seq2seq, train, optimizer, val, 1)
        """,
        ["optimizer", "train_loader"],
    ),
]
