"""Held-out mistakes with training and its figures: the Trainer, checkpoints, schedules and
plots (see ``tools/probe_heldout.py``).

Ready-made (see ``mistake_cases.namespace``): ``seq2seq``, ``optimizer`` (Adam on it),
``trainer = Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu")``; ``train_loader`` (two batches
of 8), ``val_loader``; ``train_set``, ``val_set``; ``points``, ``source``; ``scores``
``(2, 3, 5)``; ``src``, ``batch``, ``src_vocab``, ``tgt_vocab``.
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

CASES = [
    # -- train --------------------------------------------------------------------------------
    case(
        "train.plateau_scheduler",
        "Trainer(scheduler=ReduceLROnPlateau(optimizer)): it needs the validation loss",
        """
        Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu",
                scheduler=torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer))
        """,
        ["reducelronplateau", "validation|step"],
    ),
    case(
        "train.predict_numpy",
        "trainer.predict of NumPy sources",
        "trainer.predict(points[:, :2])",
        ["numpy", "tensor"],
    ),
    case(
        "train.fit_iterator",
        "trainer.fit(iter(train_loader), epochs=2): an iterator, used up after one epoch",
        "trainer.fit(iter(train_loader), epochs=2, progress=False)",
        ["iterator", "dataloader|re-?iterable|once"],
    ),
    case(
        "train.hook_called",
        "fit(on_epoch_end=hook(trainer)): the hook called, not passed",
        """
        def hook(t):
            return {"loss": "0"}

        trainer.fit(train_loader, on_epoch_end=hook(trainer), progress=False)
        """,
        ["on_epoch_end", "callable|function"],
    ),
    case(
        "train.hook_returns_string",
        "an on_epoch_end hook returning a formatted string, not a dict",
        """
        def hook(t):
            return f"{t.losses[-1]:.3f}"

        trainer.fit(train_loader, on_epoch_end=hook, progress=False)
        """,
        ["on_epoch_end", "dict"],
    ),
    case(
        "train.ignore_index_token",
        "Trainer(ignore_index='<pad>'): the token where its id is expected",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, 'cpu', ignore_index='<pad>')",
        ["ignore_index", "int"],
    ),
    case(
        "train.load_missing_checkpoint",
        "load_checkpoint of a file that was never saved (a typo)",
        "trainer.load_checkpoint(tmp / 'nope.pt')",
        [r"nope\.pt", "no file|not found|does not exist|missing|no such"],
    ),
    case(
        "train.load_bare_state_dict",
        "load_checkpoint of a model's bare state_dict saved with torch.save",
        """
        torch.save(seq2seq.state_dict(), tmp / "weights.pt")
        trainer.load_checkpoint(tmp / "weights.pt")
        """,
        ["state_dict", "save_checkpoint|load_state_dict"],
    ),
    case(
        "train.save_into_folder",
        "save_checkpoint(folder): the run's folder, without a file name",
        "trainer.save_checkpoint(tmp)",
        ["folder|directory", r"file|\.pt"],
    ),
    case(
        "train.model_made_double",
        "trainer.model.double() (as Chapter 3 does for a comparison), then fit on float32 batches",
        """
        trainer.model.double()
        trainer.fit(train_loader, progress=False)
        """,
        ["float64|double", "float32|dtype"],
    ),
    case(
        "train.mixed_precision_string",
        "Trainer(mixed_precision='bf16'): a dtype name where a bool is expected",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, 'cpu', mixed_precision='bf16')",
        ["mixed_precision", "bool|true|false"],
    ),
    case(
        "train.loss_item",
        "a loss function returning loss.item(), a float without gradient",
        """
        Trainer(seq2seq, lambda out, y: F.mse_loss(out, y).item(), optimizer, "cpu").fit(
            train_loader, progress=False)
        """,
        ["loss", "tensor|item|gradient"],
    ),
    # -- schedules ----------------------------------------------------------------------------
    case(
        "schedules.trainer_as_optimizer",
        "warmup_inverse_sqrt(trainer, 300): the Trainer where its optimizer is expected",
        "warmup_inverse_sqrt(trainer, 300)",
        ["optimizer", "trainer"],
    ),
    case(
        "schedules.learning_rate_zero",
        "warmup_cosine on an optimizer built with lr=0",
        "warmup_cosine(torch.optim.Adam(seq2seq.parameters(), lr=0), 10, 100)",
        ["lr|learning rate", POSITIVE],
    ),
    case(
        "schedules.total_in_epochs",
        "warmup_cosine(total=...) counted too short (epochs, not steps): the rate reaches 0",
        """
        schedule = warmup_cosine(optimizer, warmup=1, total=2)
        Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu", scheduler=schedule).fit(
            train_loader, epochs=3, progress=False)
        """,
        ["total", "learning rate|lr"],
        expect="warn",
    ),
    # -- plots --------------------------------------------------------------------------------
    case(
        "plots.losses_nan",
        "plot_losses of a run that diverged (a NaN loss)",
        "plot_losses({'training': [1.0, float('nan'), 0.5]})",
        ["nan|diverg"],
        expect="warn",
    ),
    case(
        "plots.losses_negative_log_axis",
        "plot_losses of a curve with negative values on the default log axis",
        "plot_losses({'difference': [0.5, -0.1, 0.2]})",
        ["logy", "negative|zero|<= ?0"],
        expect="warn",
    ),
    case(
        "plots.heatmap_scores",
        "attention_heatmap of the scores, before the softmax",
        "attention_heatmap(scores[0])",
        ["softmax|scores"],
        expect="warn",
    ),
    case(
        "plots.heatmap_labels_sentence",
        "attention_heatmap(x_labels='a b c d e'): a sentence, not a list of words",
        "attention_heatmap(torch.softmax(scores[0], -1), x_labels='a b c d e')",
        ["x_labels", "split|str"],
    ),
    case(
        "plots.heatmap_no_weights",
        "attention_heatmap of the weights of a GRU translator without attention (None)",
        """
        cfg = RecurrentConfig(len(src_vocab), len(tgt_vocab), embed_dim=8, hidden_dim=8,
                              attention="none", dropout=0.0)
        _, w = RecurrentTranslator(cfg)(src, batch.tgt_in, need_weights=True)
        attention_heatmap(w)
        """,
        ["weights", "none"],
    ),
    case(
        "plots.query_keys_labels",
        "plot_query_keys with two labels for four keys",
        "plot_query_keys(torch.tensor([1.0, 0.0]), torch.randn(4, 2), key_labels=['a', 'b'])",
        ["key_labels", "4"],
    ),
    case(
        "plots.heatmaps_one_matrix",
        "attention_heatmaps of a single (T, S) matrix",
        "attention_heatmaps(torch.softmax(scores[0], -1))",
        ["weights", r"\(n, t, s\)|attention_heatmap|\[none\]"],
    ),
]
