"""Final-probe mistakes with the training loop, the learning-rate schedules and the figures
(see ``tools/probe_final.py``).

Written, with their expected answers and keywords, from the chapters' training cells,
``api.md`` and the public signatures and docstrings alone, before any of them ran; none
repeats a case of the three earlier catalogues, nor a mistake the issue names.

Ready-made (see ``mistake_cases.namespace``): ``points`` and ``directions``; ``source``,
``target``; ``train_set`` (16 items ``(source, target, target)``), ``val_set``,
``train_loader``, ``val_loader``; ``optimizer`` and ``trainer`` (the GRU encoder-decoder);
``transformer`` and ``ids`` (eight encoded sentence pairs).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- train --------------------------------------------------------------------------------
    case(
        "train.fit_verbose_kwarg",
        "[Ch. 1, cell 36/44] trainer.fit(..., verbose=False): Keras' switch where the course "
        "says progress=False",
        "trainer.fit(train_loader, val_loader, epochs=1, seed=42, verbose=False)",
        ["verbose", "progress"],
    ),
    case(
        "train.fit_num_epochs",
        "[Ch. 1, cell 36] trainer.fit(train_loader, val_loader, num_epochs=2): the number of "
        "epochs under another name",
        "trainer.fit(train_loader, val_loader, num_epochs=2, progress=False)",
        ["num_epochs", r"\bepochs\b"],
    ),
    case(
        "train.dataset_without_target_multi_input",
        "[Ch. 2a, cell 27] TensorDataset(x_train, loo_keys, loo_values) for a model of three "
        "inputs, the target y_train forgotten: the values become the target",
        """
        class NW(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(1))

            def forward(self, queries, keys, values):
                scores = -(((queries[:, None] - keys) * self.w) ** 2) / 2
                return (torch.softmax(scores, dim=-1) * values).sum(-1)

        x_train = torch.rand(20) * 5
        keys = x_train.expand(20, -1).clone()
        loader = DataLoader(TensorDataset(x_train, keys, keys.clone()), batch_size=10)
        model = NW()
        nw_trainer = Trainer(model, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.5))
        nw_trainer.fit(loader, epochs=1, progress=False)
        """,
        ["target", r"last|final"],
    ),
    case(
        "train.hook_without_parameter",
        "[Ch. 5, cell 38] on_epoch_end=end_of_epoch with a hook written without its trainer "
        "parameter",
        """
        def end_of_epoch():
            return {"loss": f"{trainer.losses[-1]:.3f}"}

        trainer.fit(train_loader, epochs=1, progress=False, on_epoch_end=end_of_epoch)
        """,
        ["on_epoch_end", r"trainer|argument|parameter"],
    ),
    case(
        "train.onecycle_total_too_short",
        "[Ch. 4, cell 77] OneCycleLR(total_steps=EPOCHS * (len(train_set) // batch)): the last, "
        "partial batch of each epoch not counted, so the schedule runs out",
        """
        model = EncoderDecoder.from_config(Seq2SeqConfig())
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        loader = DataLoader(train_set, batch_size=5, shuffle=True, generator=torch.Generator())
        EPOCHS, STEPS_PER_EPOCH = 2, len(train_set) // 5
        schedule = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.01, total_steps=EPOCHS * STEPS_PER_EPOCH
        )
        Trainer(model, nn.MSELoss(), opt, scheduler=schedule).fit(
            loader, epochs=EPOCHS, seed=0, progress=False
        )
        """,
        [r"total_steps|total steps", r"len\(|batches|\b8\b|\b6\b"],
    ),
    case(
        "train.cross_entropy_3d_logits",
        "[Ch. 5, cell 38] Trainer(transformer, nn.CrossEntropyLoss(ignore_index=PAD), ...): "
        "PyTorch's loss on (B, T, V) logits, which it reads as (B, C, ...)",
        """
        opt = torch.optim.Adam(transformer.parameters(), lr=1e-3)
        ce_trainer = Trainer(transformer, nn.CrossEntropyLoss(ignore_index=PAD), opt)
        ce_trainer.fit(PairBatches(ids, 4), epochs=1, progress=False)
        """,
        [
            r"crossentropyloss|cross_entropy|cross-entropy|loss",
            r"translation_loss|flatten|reshape|view|dim(ension)? 1|\(n, ?v\)|\(b, ?v, ?t\)"
            r"|permute|transpose",
        ],
    ),
    case(
        "train.fit_empty_loader",
        "[Ch. 1, cell 35] training on a selection that kept nothing (points[directions == 2]: "
        "the labels are 0 and 1)",
        """
        chosen = points[directions == 2]
        chosen_train, chosen_val = seq2seq_datasets(chosen, points[:8])
        loader = DataLoader(chosen_train, batch_size=8, shuffle=True, generator=torch.Generator())
        trainer.fit(loader, epochs=1, progress=False)
        """,
        [
            r"empty|no (batches|items|sequences|points|data)|\b0 (batches|items|sequences|points)|"
            r"nothing"
        ],
    ),
    # -- schedules ----------------------------------------------------------------------------
    case(
        "schedules.cosine_in_lambdalr",
        "[Ch. 4, cell 77] LambdaLR(optimizer, warmup_cosine): the library's warmup_cosine (which "
        "builds a scheduler) where the chapter's step -> factor function of the same name goes",
        "torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine)",
        ["warmup_cosine", "optimizer"],
    ),
    # -- plots --------------------------------------------------------------------------------
    case(
        "plots.heatmaps_fewer_titles",
        "[Ch. 2c, cell 58] attention_heatmaps(weights, titles=titles): every test sequence's "
        "weights, [picked] forgotten, with the titles of the picked few",
        """
        weights = torch.rand(16, 2, 2).softmax(-1)
        attention_heatmaps(
            weights, titles=["a", "b", "c", "d"], x_labels=["point 1", "point 2"],
            y_labels=["point 3", "point 4"], n_cols=4,
        )
        """,
        ["titles", r"\b(4|16)\b"],
    ),
]
