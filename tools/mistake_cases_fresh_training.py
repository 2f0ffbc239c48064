"""Fresh mistakes with training and its figures: the Trainer, checkpoints, learning-rate
schedules and the plots (see ``tools/probe_fresh.py``).

Ready-made (see ``mistake_cases.namespace``): ``seq2seq``, its ``optimizer`` and ``trainer``
(``Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu")``); ``train_loader``, ``val_loader``
(batches of 8); ``source``, ``target`` ``(16, 2, 2)``; ``src`` ``(2, 4)``; ``tmp`` (an empty
folder).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- train --------------------------------------------------------------------------------
    case(
        "train.epochs_scientific",
        "trainer.fit(epochs=1e2): the epochs written as 1e2, a float",
        "trainer.fit(train_loader, val_loader, epochs=1e2, progress=False)",
        ["epochs", "int|whole"],
    ),
    case(
        "train.loss_name_string",
        "Trainer(model, 'mse', optimizer): a loss named by a string (Keras' habit)",
        "Trainer(seq2seq, 'mse', optimizer, 'cpu')",
        ["loss_fn", r"nn\.mseloss\(\)|callable|function"],
    ),
    case(
        "train.scheduler_function",
        "Trainer(scheduler=warmup_inverse_sqrt): the schedule's function, not a scheduler",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, 'cpu', scheduler=warmup_inverse_sqrt)",
        ["scheduler", r"warmup_inverse_sqrt\(optimizer|call|instance|lrscheduler"],
    ),
    case(
        "train.load_text_file",
        "trainer.load_checkpoint of a CSV file (the wrong file of the run's folder)",
        """
        (tmp / "run.csv").write_text("epoch,loss\\n1,0.5\\n")
        trainer.load_checkpoint(tmp / "run.csv")
        """,
        [r"run\.csv|path", r"save_checkpoint|not a (trainer )?checkpoint|torch\.save|not .*saved"],
    ),
    case(
        "train.ignore_index_regression",
        "Trainer(ignore_index=0) on the squares' regression targets (floats, not token ids)",
        """
        Trainer(seq2seq, nn.MSELoss(), optimizer, "cpu", ignore_index=0).fit(
            train_loader, epochs=1, progress=False
        )
        """,
        ["ignore_index", "token|integer|class|float"],
        expect="warn",
    ),
    case(
        "train.nan_target",
        "training on targets holding a NaN (a missing value in the data): the loss is NaN",
        """
        bad = target.clone()
        bad[0, 0, 0] = float("nan")
        loader = DataLoader(TensorDataset(source, bad, bad), batch_size=8)
        trainer.fit(loader, epochs=1, progress=False)
        """,
        ["nan", "loss|target|data|batch"],
        expect="warn",
    ),
    case(
        "train.predict_batch",
        "trainer.predict(batch): the (source, target) batch where the inputs go",
        "trainer.predict(next(iter(val_loader)))",
        [r"inputs?|predict", r"\*batch|\bsource\b|batch\[0\]|unpack"],
    ),
    case(
        "train.optimizer_class",
        "Trainer(model, loss, torch.optim.Adam): the optimizer class, not one built",
        "Trainer(seq2seq, nn.MSELoss(), torch.optim.Adam, 'cpu')",
        ["optimizer", r"adam\(|instance|parameters\(\)"],
    ),
    case(
        "train.clip_grad_norm_true",
        "Trainer(clip_grad_norm=True): a switch where the maximum norm goes",
        "Trainer(seq2seq, nn.MSELoss(), optimizer, 'cpu', clip_grad_norm=True)",
        ["clip_grad_norm", r"number|max(imum)? norm|float|1\.0"],
    ),
    # -- schedules ----------------------------------------------------------------------------
    case(
        "schedules.optimizer_class",
        "warmup_inverse_sqrt(torch.optim.Adam, 300): the optimizer class",
        "warmup_inverse_sqrt(torch.optim.Adam, 300)",
        ["optimizer", r"adam\(|instance|parameters"],
    ),
    # -- plots --------------------------------------------------------------------------------
    case(
        "plots.losses_trainer_as_curve",
        "plot_losses({'gru': trainer}): a Trainer as a curve",
        "plot_losses({'gru': trainer})",
        ["gru", r"\.losses"],
    ),
    case(
        "plots.heatmap_id_labels",
        "attention_heatmap labelled with token ids, not words",
        """
        w = torch.softmax(torch.randn(4, 4), dim=-1)
        attention_heatmap(w, x_labels=src[0].tolist(), y_labels=src[1].tolist())
        """,
        ["labels", "word|str|decode"],
        expect="warn",
    ),
    case(
        "plots.query_keys_batched_query",
        "plot_query_keys with the query kept as (1, 2)",
        "plot_query_keys(torch.randn(1, 2), torch.randn(4, 2))",
        ["query", r"\(2,\)"],
    ),
    case(
        "plots.heatmap_figsize_number",
        "attention_heatmap(figsize=6): one number where (width, height) goes",
        "attention_heatmap(torch.softmax(torch.randn(3, 4), dim=-1), figsize=6)",
        ["figsize", r"\(width, ?height\)|tuple|pair|two numbers"],
    ),
    case(
        "plots.losses_validation_without_val_loader",
        "plot_losses with a validation curve after fit without a validation loader",
        """
        trainer.fit(train_loader, epochs=2, progress=False)
        plot_losses({"training": trainer.losses, "validation": trainer.val_losses})
        """,
        ["validation", "empty|no values|val_loader|without values"],
    ),
]
