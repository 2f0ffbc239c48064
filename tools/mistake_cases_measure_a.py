"""Measurement probe, part A: mistakes with Chapters 1, 2a, 2b, 2c, 3 and 4 and their exercises.

Written, with their expected answers and keywords, by going through the code cells of
``chapters/01_*`` ... ``chapters/04_*`` and ``exercises/01_*`` ... ``exercises/04_*`` in order
(a fixed sampling frame) and writing, for every cell that a student runs or adapts with a
public name of course_lib (or a ``check_*`` self-check), the zero to two slips a student most
likely makes there: shapes, kinds of objects, another library's words (PyTorch, Hugging Face,
Keras, D2L, seaborn, matplotlib, the lecture's code), arguments in the wrong place, stale
notebook state, plausible wrong answers to a self-check. Sources: the notebooks, ``api.md``
and the public signatures and docstrings of the modules' ``__all__`` only -- not
the library's private checking code, nor any earlier probe's results -- and none of the cases
ran before they were fixed here. None repeats a case of the earlier catalogues
(``tools/mistake_cases_*.py``, whose slip texts were searched) nor a mistake the issue names.

Each slip names its notebook and code cell, counted from 0 over the code cells alone:
``[Ch. 2c, cell 20]`` for a chapter, ``[Ch. 3 exercises, cell 4]`` for an exercise notebook.

Ready-made (see ``mistake_cases.namespace``): ``points`` ``(16, 4, 2)`` and ``directions``;
``source``, ``target`` ``(16, 2, 2)``; ``encoder`` / ``decoder`` / ``attn_decoder`` (2 features,
hidden 4); ``seq2seq``; ``sa_model``; ``train_set``, ``val_set``, ``train_loader``; ``optimizer``
and ``trainer`` (for ``seq2seq``); ``scores`` ``(2, 3, 5)``; ``q`` ``(2, 3, 4)``, ``k``
``(2, 5, 4)``, ``v`` ``(2, 5, 6)``; ``x`` ``(2, 5, 8)``; ``mha`` (8 wide, 2 heads); ``lengths``
``[2, 4]``.
"""

from __future__ import annotations

from mistake_cases import case

# -- answers to the exercises, with a blank to fill in -----------------------------------------

#: Chapter 1's exercise 3, scheduled sampling, with ``{steps}`` (the body of the loop over the
#: steps) to fill in.
_SCHEDULED = """
def decode_scheduled(encoder, decoder, source, target, p, generator):
    batch, steps = target.shape[:2]
    _, hidden = encoder(source)
    x = source[:, -1:]
    outputs = []
    for t in range(steps):
{steps}
        out, hidden, _ = decoder(x, hidden)
        outputs.append(out)
    return torch.cat(outputs, dim=1)

check_scheduled_decode(decode_scheduled)
"""

#: Chapter 1's exercise 4 with ``{build}`` (the seed and the model) and ``{loaders}`` to fill in.
_TRAIN_WIDTH = """
def train_width(hidden_dim):
    loader = DataLoader(
        train_set, batch_size=16, shuffle=True, generator=torch.Generator()
    )
{build}
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    width_trainer = Trainer(model, nn.MSELoss(), opt)
    width_trainer.fit({loaders}, epochs=100, seed=42, progress=False)
    return width_trainer

check_train_width(train_width, train_set, val_set)
"""

#: The model line of Chapter 1's exercise 4.
_WIDTH_MODEL = "model = EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=hidden_dim))"

#: Chapter 2c's exercise 1 with ``{context}`` and ``{joined}`` to fill in.
_ATTENTION_STEP = """
def attention_step(decoder, x, hidden, memory, memory_key_padding_mask):
    query, hidden = decoder.gru(x, hidden)
    q = decoder.attention.q_proj(query)
    k = decoder.attention.k_proj(memory)
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    blocked = memory_key_padding_mask[:, None, :]
    weights = scores.masked_fill(blocked, float("-inf")).softmax(dim=-1)
    context = {context}
    out = decoder.output(torch.cat({joined}, dim=-1))
    return out, hidden, weights

check_attention_step(attention_step)
"""

#: Chapter 3's exercise 1 with ``{mask}`` and ``{merge}`` to fill in.
_MULTI_HEAD = """
def multi_head_attention(query, key, value, mha, key_padding_mask):
    B, T, D = query.shape
    S, Nh = key.shape[1], mha.num_heads
    Dh = D // Nh
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.chunk(3)

    def heads(x, length):
        return x.view(B, length, Nh, Dh).transpose(1, 2)

    q = heads(F.linear(query, w_q, b_q), T)
    k = heads(F.linear(key, w_k, b_k), S)
    v = heads(F.linear(value, w_v, b_v), S)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    if key_padding_mask is not None:
        scores = scores.masked_fill({mask}, float("-inf"))
    weights = scores.softmax(dim=-1)
    context = {merge}
    return mha.out_proj(context), weights.mean(dim=1)

check_multi_head_attention(multi_head_attention)
"""

#: Chapter 3's exercise 2 with ``{attend}`` and ``{second_norm}`` to fill in.
_ENCODER_LAYER = """
def encoder_layer(x, layer, src_key_padding_mask):
    def self_attention(y):
{attend}

    def feed_forward(y):
        return layer.linear2(F.relu(layer.linear1(y)))

    if layer.norm_first:
        x = x + self_attention(layer.norm1(x))
        return x + feed_forward(layer.{second_norm}(x))
    x = layer.norm1(x + self_attention(x))
    return layer.norm2(x + feed_forward(x))

check_encoder_layer(encoder_layer)
"""

#: Chapter 3's exercise 3 with ``{config}`` (the SelfAttentionConfig's arguments) to fill in.
_TRAIN_ADD_NORM = """
def train_add_norm(model_seed):
    config = SelfAttentionConfig({config})
    loader = DataLoader(
        train_set, batch_size=16, shuffle=True, generator=torch.Generator()
    )
    torch.manual_seed(model_seed)
    model = SelfAttentionEncoderDecoder(config)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    add_norm_trainer = Trainer(model, nn.MSELoss(), opt)
    add_norm_trainer.fit(loader, DataLoader(val_set, batch_size=16), epochs=60,
                         seed=42, progress=False)
    return add_norm_trainer

check_train_add_norm(train_add_norm, train_set, val_set)
"""

#: Chapter 4's exercise 2 with ``{embedding}`` and ``{added}`` to fill in.
_LEARNED_POSITIONS = """
class LearnedPositions(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = {embedding}

    def forward(self, x):
        positions = torch.arange(x.shape[1], device=x.device)
        return x * math.sqrt(self.d_model) + {added}

check_learned_positions(LearnedPositions)
"""

#: Chapter 4's exercise 4 with ``{seed}`` and ``{loss}`` to fill in.
_PLATEAU = """
def train_on_plateau(model_seed, epochs=60):
    loader = DataLoader(
        train_set, batch_size=16, shuffle=True, generator=torch.Generator()
    )
    val_batches = DataLoader(val_set, batch_size=16)
    torch.manual_seed(model_seed)
    config = SelfAttentionConfig(positional=True, start="last", add_norm=None)
    model = SelfAttentionEncoderDecoder(config)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.3, patience=5)
    plateau_trainer = Trainer(model, nn.MSELoss(), opt)
    for epoch in range(epochs):
        plateau_trainer.fit(loader, val_batches, 1, seed={seed}, progress=False)
        plateau.step({loss})
    return plateau_trainer

check_train_on_plateau(train_on_plateau, train_set, val_set)
"""

CASES = [
    # == Chapter 1 =============================================================================
    case(
        "squares.m_plot_n_cols_positional",
        "[Ch. 1, cell 2] plot_squares(walks, walk_directions, 4): the four columns passed "
        "positionally, as the third argument, which is predicted=",
        """
        walks, walk_directions = square_walks()
        plot_squares(walks, walk_directions, 4)
        """,
        ["predicted", r"n_cols|keyword|tensor|array|int"],
    ),
    case(
        "squares.m_seed_generator",
        "[Ch. 1, cell 3] make_squares(8, seed=np.random.default_rng(13)): a NumPy Generator "
        "passed as the seed, where the module says to pass it as rng=",
        "make_squares(8, seed=np.random.default_rng(13))",
        ["seed", "rng"],
    ),
    case(
        "squares.m_seed_and_rng",
        "[Ch. 1, cell 3] make_squares(8, seed=17, rng=np.random.default_rng(17)): both given, "
        "expecting the seed to seed the generator; one of them is ignored",
        "make_squares(8, seed=17, rng=np.random.default_rng(17))",
        ["seed", "rng"],
        expect="warn",
    ),
    case(
        "seq2seq.m_encoder_gru_names",
        "[Ch. 1, cell 15] Encoder(input_size=2, hidden_size=2): nn.GRU's argument names on the "
        "library's encoder (n_features, hidden_dim)",
        "Encoder(input_size=2, hidden_size=2)",
        ["input_size", "n_features"],
    ),
    case(
        "seq2seq.m_forward_teacher_forcing_ratio",
        "[Ch. 1, cell 16] model(source, target, teacher_forcing_ratio=0.5): the PyTorch seq2seq "
        "tutorials' forward argument, where the course fixes teacher_forcing_prob on the model",
        """
        seq2seq.train()
        seq2seq(source, target, teacher_forcing_ratio=0.5)
        """,
        ["teacher_forcing_ratio", "teacher_forcing_prob"],
    ),
    case(
        "train.m_cross_entropy_for_points",
        "[Ch. 1, cell 19] Trainer(model, nn.CrossEntropyLoss(), ...) on the squares: a "
        "classification loss for coordinates in [-1, 1] (read as class probabilities)",
        """
        model = EncoderDecoder.from_config(Seq2SeqConfig())
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        ce_trainer = Trainer(model, nn.CrossEntropyLoss(), opt, "cpu")
        ce_trainer.fit(train_loader, epochs=1, progress=False)
        """,
        [r"cross.?entropy", r"mse|regression|float|probabilit|class"],
    ),
    case(
        "squares.m_plot_source_as_points",
        "[Ch. 1, cell 22] plot_squares(source[:4], directions[:4], predicted=...): the split "
        "source (N, 2, 2) where the full sequences go",
        """
        predicted = trainer.predict(source)
        plot_squares(source[:4], directions[:4], predicted=predicted[:4])
        """,
        ["points", r"full|whole|source_len|target|\(n, ?4, ?2\)|length"],
    ),
    case(
        "seq2seq.m_config_width_positional",
        "[Ch. 1, cell 24] Seq2SeqConfig(4) meaning hidden_dim=4: the first field is n_features, "
        "so the model expects 4 features per point",
        """
        model = EncoderDecoder.from_config(Seq2SeqConfig(4))
        model(source)
        """,
        ["n_features", r"\b4\b"],
    ),
    case(
        "plots.m_losses_final_values",
        "[Ch. 1, cell 35] plot_losses(width_losses): the dict of each width's final validation "
        "loss (one float each) where per-epoch curves go",
        """
        width_losses = {2: 0.3127, 3: 0.0204, 8: 0.0117}
        plot_losses(width_losses, title="Validation loss of three widths")
        """,
        [
            r"curve|list|sequence|per epoch|history",
            r"float|number|single|one value|scalar|val_losses",
        ],
    ),
    case(
        "checks.m_gru_cell_bias_outside_reset",
        "[Ch. 1 exercises, cell 2] gru_cell adding the hidden candidate bias after the reset "
        "gate, n = tanh(x_n + r * (W_hn h) + b_hn) (Cho's form), where nn.GRUCell keeps b_hn "
        "inside r * (...)",
        """
        def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
            x_r, x_z, x_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
            w_hr, w_hz, w_hn = weight_hh.chunk(3, dim=0)
            b_hr, b_hz, b_hn = bias_hh.chunk(3)
            r = torch.sigmoid(x_r + h @ w_hr.T + b_hr)
            z = torch.sigmoid(x_z + h @ w_hz.T + b_hz)
            n = torch.tanh(x_n + r * (h @ w_hn.T) + b_hn)
            return (1 - z) * n + z * h

        check_gru_cell(gru_cell)
        """,
        [r"bias_hh|b_hn|bias"],
    ),
    case(
        "checks.m_decoder_inputs_cat_default_dim",
        "[Ch. 1 exercises, cell 4] decoder_inputs with torch.cat's default axis, dim=0 (the "
        "batch), dim=1 forgotten",
        """
        def decoder_inputs(source, target):
            return torch.cat([source[:, -1:], target[:, :-1]])

        check_decoder_inputs(decoder_inputs)
        """,
        [r"dim ?= ?1|dim 1|dimension 1|axis 1|time axis|steps? axis|\(b, ?t, ?f\)"],
    ),
    case(
        "checks.m_scheduled_coins_at_step0",
        "[Ch. 1 exercises, cell 6] decode_scheduled drawing the coins at the top of every step, "
        "step 0 included, and using them only from step 1: one draw too many",
        _SCHEDULED.format(
            steps="""\
        coins = torch.rand(batch, generator=generator) < p
        if t > 0:
            truth = target[:, t - 1 : t]
            x = torch.where(coins[:, None, None], truth, outputs[-1])"""
        ),
        [
            r"coin|draw|generator|torch\.rand",
            r"step 0|t ?= ?0|first step|extra|before each step|t ?= ?1|every step|no other",
        ],
    ),
    case(
        "checks.m_scheduled_truth_current_step",
        "[Ch. 1 exercises, cell 6] decode_scheduled feeding the true point of the current step, "
        "target[:, t], instead of the previous one: the model reads what it must predict",
        _SCHEDULED.format(
            steps="""\
        if t > 0:
            coins = torch.rand(batch, generator=generator) < p
            truth = target[:, t : t + 1]
            x = torch.where(coins[:, None, None], truth, outputs[-1])"""
        ),
        [r"previous|t ?- ?1|shift|peek|current|the point it (must )?predict"],
    ),
    case(
        "checks.m_train_width_seed_after_model",
        "[Ch. 1 exercises, cell 9] train_width calling torch.manual_seed(23) after building the "
        "model (just before the optimizer): the initial weights are not the recipe's",
        _TRAIN_WIDTH.format(
            build=f"    {_WIDTH_MODEL}\n    torch.manual_seed(23)",
            loaders="loader, DataLoader(val_set, batch_size=16)",
        ),
        [r"manual_seed|seed", r"before|initial|build"],
    ),
    case(
        "checks.m_train_width_no_validation",
        "[Ch. 1 exercises, cell 9] train_width fitting without a validation loader: the "
        "returned Trainer has no validation losses to compare",
        _TRAIN_WIDTH.format(
            build=f"    torch.manual_seed(23)\n    {_WIDTH_MODEL}", loaders="loader"
        ),
        [r"val_set|val_loader|validation"],
    ),
    # == Chapter 2a ============================================================================
    case(
        "train.m_dataset_target_not_last",
        "[Ch. 2a, cell 13] TensorDataset(x_train, y_train, keys, values): the (X, y) habit puts "
        "the target second, but the Trainer takes the last tensor of a batch as the target",
        """
        class NWKernelRegression(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.ones(1))

            def forward(self, queries, keys, values):
                diffs = queries[:, None] - keys
                weights = torch.softmax(-((diffs * self.w) ** 2) / 2, dim=-1)
                out = torch.bmm(weights.unsqueeze(1), values.unsqueeze(-1))
                return out.reshape(-1)

        x_train = torch.sort(torch.rand(20) * 5).values
        y_train = 2 * torch.sin(x_train) + x_train**0.8
        keys, values = x_train.expand(20, -1), y_train.expand(20, -1)
        nw_set = TensorDataset(x_train, y_train, keys, values)
        nw_loader = DataLoader(nw_set, batch_size=10, shuffle=True, generator=torch.Generator())
        model = NWKernelRegression()
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        Trainer(model, nn.MSELoss(), opt, "cpu").fit(nw_loader, epochs=1, seed=0, progress=False)
        """,
        ["target", r"last|\(\*inputs, ?target\)|inputs"],
    ),
    case(
        "plots.m_losses_yscale",
        "[Ch. 2a, cell 14] plot_losses(..., yscale='linear'): matplotlib's word for the axis "
        "scale, where the function takes logy=False",
        """
        plot_losses({"training (leave one out)": [0.9, 0.5, 0.45]}, yscale="linear")
        """,
        ["yscale", "logy"],
    ),
    case(
        "plots.m_losses_logy_positional",
        "[Ch. 2a, cell 14] plot_losses(curves, 'title', False): logy passed third, "
        "positionally, where the third argument is ylabel",
        """
        plot_losses({"training (leave one out)": [0.9, 0.5, 0.45]}, "Kernel width", False)
        """,
        ["ylabel", r"logy|str"],
    ),
    case(
        "checks.m_kernel_laplace_sign",
        "[Ch. 2a exercises, cell 3] laplace_weights as the softmax of |diffs|, the minus sign "
        "forgotten: the farthest training points get the most weight",
        """
        def laplace_weights(diffs):
            return torch.softmax(diffs.abs(), dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(dim=-1, keepdim=True).clamp(min=1)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        [r"sign|negative|minus|-\|diff|closer|nearer|farthest|further"],
    ),
    case(
        "checks.m_kernel_laplace_halved",
        "[Ch. 2a exercises, cell 3] laplace_weights as softmax(-|diffs| / 2): the Gaussian's "
        "/ 2 kept when its square was replaced by the absolute value",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs() / 2, dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(dim=-1, keepdim=True).clamp(min=1)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        [r"laplace", r"/ ?2|scale|halv|factor|-\|diff|width|too (flat|wide|smooth)"],
    ),
    # == Chapter 2b ============================================================================
    case(
        "masking.m_padding_mask_lengths_keyword",
        "[Ch. 2b, cell 5] padding_mask(lengths=..., total_length=4): the docstring's word for "
        "the first argument used as its keyword (the parameter is x)",
        "padding_mask(lengths=torch.tensor([2, 3]), total_length=4)",
        ["lengths", r"positional|first argument|\bx\b"],
    ),
    case(
        "masking.m_padding_mask_total_length_positional",
        "[Ch. 2b, cell 5] padding_mask(torch.tensor([2, 3]), 4): the padded length passed "
        "positionally, where the second argument is pad_id",
        "padding_mask(torch.tensor([2, 3]), 4)",
        ["total_length", r"pad_id|keyword"],
    ),
    case(
        "masking.m_masked_softmax_dim",
        "[Ch. 2b, cell 5] masked_softmax(scores, mask=..., dim=-1): torch.softmax's dim "
        "argument, which masked_softmax does not take (always the last axis)",
        """
        mask = padding_mask(torch.tensor([2, 4]), total_length=5)[:, None, :]
        masked_softmax(scores, mask=mask, dim=-1)
        """,
        [r"\bdim\b", r"last"],
    ),
    case(
        "attention.m_additive_d2l_arguments",
        "[Ch. 2b, cell 8] AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, "
        "dropout=0.1): D2L's constructor, where the course takes query_dim, key_dim, attn_dim",
        "AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)",
        [r"key_size|query_size|num_hiddens", r"key_dim|query_dim|attn_dim"],
    ),
    case(
        "attention.m_additive_valid_lens",
        "[Ch. 2b, cell 8] additive(queries, keys, values, valid_lens=...): D2L's lengths "
        "argument, where the module takes key_padding_mask=padding_mask(lengths, ...)",
        """
        additive = AdditiveAttention(query_dim=20, key_dim=2, attn_dim=8)
        queries = torch.randn(2, 1, 20)
        keys = torch.randn(2, 10, 2)
        values = torch.arange(40.0).reshape(1, 10, 4).repeat(2, 1, 1)
        additive(queries, keys, values, valid_lens=torch.tensor([2, 6]))
        """,
        ["valid_lens", r"key_padding_mask|padding_mask"],
    ),
    case(
        "plots.m_heatmap_seaborn_ticklabels",
        "[Ch. 2b, cell 9] attention_heatmap(w, xticklabels=..., yticklabels=...): seaborn's "
        "heatmap keywords, where the course takes x_labels and y_labels",
        """
        weights = torch.softmax(torch.randn(2, 10), dim=-1)
        attention_heatmap(
            weights, xticklabels=[str(i) for i in range(10)],
            yticklabels=["sequence 1", "sequence 2"],
        )
        """,
        ["xticklabels", "x_labels"],
    ),
    case(
        "attention.m_sdpa_dropout_name",
        "[Ch. 2b, cell 13] scaled_dot_product_attention(..., dropout=0.1): the Annotated "
        "Transformer's attention(..., dropout=) keyword, where the course says dropout_p",
        """
        mask = padding_mask(lengths, total_length=5)[:, None, :]
        scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout=0.1)
        """,
        [r"dropout(?!_p)", "dropout_p"],
    ),
    case(
        "attention.m_sdpa_mask_query_axis_last",
        "[Ch. 2b, cell 13] attn_mask=padding_mask(...)[:, :, None]: the padding mask given its "
        "new axis at the end, (B, S, 1), where the query axis goes in the middle, (B, 1, S)",
        """
        mask = padding_mask(lengths, total_length=5)[:, :, None]
        scaled_dot_product_attention(q, k, v, attn_mask=mask)
        """,
        [
            "attn_mask",
            r"\(b, ?1, ?s\)|\(2, ?1, ?5\)|\[:, ?none(, ?:)?\]|unsqueeze\(1\)|query axis|broadcast",
        ],
    ),
    case(
        "checks.m_masked_softmax_fill_zero",
        "[Ch. 2b exercises, cell 2] masked_softmax setting the blocked scores to 0 (not -inf) "
        "before the softmax: the blocked keys still get weight",
        """
        def masked_softmax(scores, mask):
            return torch.softmax(scores.masked_fill(mask, 0.0), dim=-1)

        check_masked_softmax(masked_softmax)
        """,
        [r"-inf|blocked|masked (position|key)|zero weight|weight (of )?0|exactly (0|zero)"],
    ),
    case(
        "checks.m_sdpa_times_sqrt",
        "[Ch. 2b exercises, cell 4] attention multiplying the scores by sqrt(E) instead of "
        "dividing by it",
        """
        def attention(query, key, value, attn_mask=None):
            scores = query @ key.transpose(-2, -1) * math.sqrt(query.shape[-1])
            if attn_mask is None:
                weights = torch.softmax(scores, dim=-1)
            else:
                weights = masked_softmax(scores, attn_mask)
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        [r"scale|sqrt", r"divid|1 ?/ ?sqrt|multipl"],
    ),
    case(
        "checks.m_general_scores_without_weight",
        "[Ch. 2b exercises, cell 6] general_scores returning the plain dot product q k^T, the "
        "weight W never used",
        """
        def general_scores(query, key, weight):
            return query @ key.transpose(-2, -1)

        check_general_scores(general_scores)
        """,
        [r"\bweight\b|\bw\b|bilinear"],
    ),
    # == Chapter 2c ============================================================================
    case(
        "plots.m_query_keys_alphas_as_context",
        "[Ch. 2c, cell 13] plot_query_keys(..., context=alphas.squeeze()): the three weights "
        "where the 2-D context vector goes",
        """
        q1 = torch.tensor([0.55, 0.95]).view(1, 1, 2)
        k3 = torch.tensor([[0.65, 0.2], [0.85, -0.4], [-0.95, -0.75]]).view(1, 3, 2)
        alphas = F.softmax(torch.bmm(q1, k3.permute(0, 2, 1)), dim=-1)
        plot_query_keys(q1.squeeze(), k3.squeeze(0), context=alphas.squeeze())
        """,
        ["context", r"\(2,\)|2-d|two|weights|alphas|\(3,\)"],
    ),
    case(
        "attention.m_attention_lecture_hidden_dim",
        "[Ch. 2c, cell 20] Attention(hidden_dim=2): LectureAttention's argument name on the "
        "library's module (proj_dim)",
        "Attention(hidden_dim=2)",
        ["hidden_dim", "proj_dim"],
    ),
    case(
        "attention.m_attention_lecture_source_mask",
        "[Ch. 2c, cell 20] attention(query_1, keys_padded, key_padding_mask=source_mask): the "
        "lecture's (B, 1, S) mask of cell 18 (True = keep) reused as the (B, S) key padding mask",
        """
        attention = Attention(proj_dim=2)
        source_padded = torch.tensor([[-1.0, 1.0], [0.0, 0.0]])
        keys_padded = torch.tensor([[-0.38, 0.44], [0.85, -0.05]]).view(1, 2, 2)
        query_1 = torch.tensor([[-1.0, 1.0]]).view(1, 1, 2)
        source_mask = (source_padded != 0).all(axis=1).view(1, 1, 2)
        attention(query_1, keys_padded, key_padding_mask=source_mask)
        """,
        ["key_padding_mask", r"\(b, ?s\)|\(1, ?2\)|\(1, ?1, ?2\)|shape|3-d|polarity"],
    ),
    case(
        "attention.m_attention_alphas",
        "[Ch. 2c, cell 20] attention.alphas after a call: LectureAttention's stored weights "
        "read from the library's Attention, which returns them instead",
        """
        attention = Attention(proj_dim=2)
        keys_padded = torch.tensor([[-0.38, 0.44], [0.85, -0.05]]).view(1, 2, 2)
        query_1 = torch.tensor([[-1.0, 1.0]]).view(1, 1, 2)
        kpm = padding_mask(torch.tensor([1]), total_length=2)
        attention(query_1, keys_padded, key_padding_mask=kpm)
        attention.alphas
        """,
        ["alphas", r"return|weights"],
    ),
    case(
        "seq2seq.m_output_attentions",
        "[Ch. 2c, cell 27] lib_model(test_source, output_attentions=True): Hugging Face's flag "
        "where the course says need_weights=True",
        """
        model = EncoderDecoder(Encoder(2, 4), AttentionDecoder(2, 4), target_len=2).eval()
        model(source, output_attentions=True)
        """,
        ["output_attentions", "need_weights"],
    ),
    case(
        "seq2seq_attention.m_instance_called_with_sizes",
        "[Ch. 2c, cell 29] DECODERS holding a built AttentionDecoder(2, 2), so that "
        "train_squares' decoder_cls(2, 2) calls the module on two ints",
        """
        decoder_cls = AttentionDecoder(2, 2)
        EncoderDecoder(Encoder(2, 2), decoder_cls(2, 2), target_len=2)
        """,
        [r"tensor", r"\bint\b|number|class|instance|already built"],
    ),
    case(
        "squares.m_accuracy_of_predict_pair",
        "[Ch. 2c, cell 33] corner_accuracy(predictions, test_target) where predictions is the "
        "(predictions, weights) pair that predict(..., need_weights=True) returned, not unpacked",
        """
        model = EncoderDecoder(encoder, attn_decoder, target_len=2)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        attn_trainer = Trainer(model, nn.MSELoss(), opt, "cpu")
        predictions = attn_trainer.predict(source, need_weights=True)
        corner_accuracy(predictions, target)
        """,
        [r"tuple|pair", r"need_weights|unpack|predictions, ?weights|weights"],
    ),
    case(
        "plots.m_heatmaps_ncols",
        "[Ch. 2c, cell 34] attention_heatmaps(..., ncols=4): plt.subplots' keyword, where the "
        "function takes n_cols",
        """
        weights = torch.softmax(torch.randn(8, 2, 2), dim=-1)
        attention_heatmaps(
            weights, titles=[f"#{i}" for i in range(8)],
            x_labels=["point 1", "point 2"], y_labels=["point 3", "point 4"], ncols=4,
        )
        """,
        [r"\bncols\b", "n_cols"],
    ),
    case(
        "train.m_predict_need_weights_positional",
        "[Ch. 2c, cell 36] trainer.predict(test_source, True): need_weights passed "
        "positionally, so True reaches the model as its target",
        "trainer.predict(source, True)",
        ["need_weights"],
    ),
    case(
        "seq2seq_attention.m_bahdanau_mask_positional",
        "[Ch. 2c, cell 39] library(x, hidden, memory, mask): the padding mask passed as a "
        "fourth positional argument, where it is keyword-only (memory_key_padding_mask=)",
        """
        library = BahdanauDecoder(n_features=2, hidden_dim=2)
        x3, hidden, memory = torch.randn(3, 2, 2), torch.randn(1, 3, 2), torch.randn(3, 4, 2)
        library(x3, hidden, memory, padding_mask(torch.tensor([4, 3, 2]), total_length=4))
        """,
        ["memory_key_padding_mask", r"keyword"],
    ),
    case(
        "train.m_evaluate_keras_xy",
        "[Ch. 2c, cell 42] trainer.evaluate(val_source, val_target): Keras' evaluate(x, y), "
        "where the Trainer takes one loader of (inputs, target) batches",
        "trainer.evaluate(source, target)",
        [r"loader", r"tensordataset|batch|\(source, ?target\)"],
    ),
    case(
        "checks.m_attention_step_projected_values",
        "[Ch. 2c exercises, cell 2] attention_step averaging the projected keys, weights @ "
        "k_proj(memory), where the values are the raw encoder states",
        _ATTENTION_STEP.format(context="weights @ k", joined="[context, query]"),
        [r"values|raw memory|unprojected|k_proj|projected key|encoder states"],
    ),
    case(
        "checks.m_attention_step_cat_order",
        "[Ch. 2c exercises, cell 2] attention_step joining [query, context] for the output "
        "layer, where the decoder's Linear(2H, F) reads [context, query]",
        _ATTENTION_STEP.format(context="weights @ memory", joined="[query, context]"),
        [r"order|\[context, ?query\]|concat|torch\.cat|swap"],
    ),
    case(
        "checks.m_context_only_output_of_query",
        "[Ch. 2c exercises, cell 5] ContextOnlyDecoder whose output layer reads the GRU's "
        "queries, not the context (the two names mixed up)",
        """
        class ContextOnlyDecoder(AttentionDecoder):
            def __init__(self, n_features, hidden_dim):
                super().__init__(n_features, hidden_dim)
                self.output = nn.Linear(hidden_dim, n_features)

            def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
                queries, hidden = self.gru(x, hidden)
                context, weights = self.attention(
                    queries, memory, key_padding_mask=memory_key_padding_mask
                )
                return self.output(queries), hidden, weights

        check_context_only_decoder(ContextOnlyDecoder)
        """,
        [r"output\(context\)|context vector|context alone|quer(y|ies)"],
    ),
    # == Chapter 3 =============================================================================
    case(
        "multihead.m_src_key_padding_mask_name",
        "[Ch. 3, cell 4] mha(x, x, x, src_key_padding_mask=...): the Transformer layers' name "
        "on the attention module, which says key_padding_mask",
        "mha(x, x, x, src_key_padding_mask=padding_mask(lengths, total_length=5))",
        ["src_key_padding_mask", r"(?<!src_)key_padding_mask"],
    ),
    case(
        "multihead.m_lecture_subsequent_mask",
        "[Ch. 3, cell 11] attn_mask=subsequent_mask(5): the lecture's causal mask (1, T, T), "
        "True = may look, given to the library, whose masks are True = blocked",
        """
        from course_lib.lecture.self_attention import subsequent_mask

        mha(x, x, x, attn_mask=subsequent_mask(5))
        """,
        [r"subsequent_mask|polarity|true ?= ?blocked|opposite|causal_mask|invert|~"],
    ),
    case(
        "masking.m_merge_padding_mask_keyword",
        "[Ch. 3, cell 17] merge_masks(attn_mask=..., padding_mask=...): the padding mask passed "
        "under the function's name that made it, where merge_masks says key_padding_mask",
        """
        padding = padding_mask(torch.tensor([4, 2]), total_length=4)
        merge_masks(attn_mask=causal_mask(4), padding_mask=padding)
        """,
        [r"(?<!key_)padding_mask", r"key_padding_mask"],
    ),
    case(
        "lecture.m_loaders_directions_as_val",
        "[Ch. 3, cell 18] lecture_loaders(points, directions): the second value make_squares "
        "returned where the validation points go",
        "lecture_loaders(points, directions)",
        ["val_points", r"\(n, ?l, ?f\)|directions|shape|3-d|\(16,\)"],
    ),
    case(
        "lecture.m_train_with_loss",
        "[Ch. 3, cell 19] lecture_train(model, nn.MSELoss(), optimizer, ...): the Trainer's "
        "(model, loss, optimizer) habit, where lecture_train takes no loss (always the MSE)",
        """
        from course_lib.lecture.seq2seq import (
            LectureDecoder,
            LectureEncoder,
            LectureEncoderDecoder,
        )

        model = LectureEncoderDecoder(
            LectureEncoder(2, 2), LectureDecoder(2, 2), input_len=2, target_len=2
        )
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        train_l, val_l = lecture_loaders(points, points[:8])
        lecture_train(model, nn.MSELoss(), opt, train_l, val_l, 1)
        """,
        [r"loss", r"optimizer"],
    ),
    case(
        "transformer.m_layer_is_causal",
        "[Ch. 3, cell 25] layer(x, is_causal=True): nn.TransformerEncoderLayer's causal flag, "
        "where the course's layer takes src_mask=causal_mask(T)",
        """
        layer = EncoderLayer(d_model=8, num_heads=2, d_ff=16)
        layer(x, is_causal=True)
        """,
        ["is_causal", r"src_mask|causal_mask"],
    ),
    case(
        "points_transformer.m_config_n_heads",
        "[Ch. 3, cell 26] SelfAttentionConfig(n_heads=3, ...): the lecture's name for the "
        "number of heads, where the config says num_heads",
        """
        SelfAttentionConfig(n_heads=3, positional=False, start="origin", add_norm=None)
        """,
        ["n_heads", "num_heads"],
    ),
    case(
        "transformer.m_layer_activation",
        "[Ch. 3, cell 32] EncoderLayer(..., activation='gelu'): nn.TransformerEncoderLayer's "
        "activation switch on the course's layer, whose feed-forward block is ReLU only",
        """
        EncoderLayer(d_model=32, num_heads=4, d_ff=64, add_norm="pre", activation="gelu")
        """,
        ["activation", r"relu|feedforward|feed-forward|ffn|not (supported|available)"],
    ),
    case(
        "checks.m_multi_head_merge_untransposed",
        "[Ch. 3 exercises, cell 2] multi_head_attention splitting the heads correctly but "
        "merging them with reshape(B, T, D) straight from (B, Nh, T, Dh), no transpose back",
        _MULTI_HEAD.format(
            mask="key_padding_mask[:, None, None, :]", merge="(weights @ v).reshape(B, T, D)"
        ),
        [r"transpose|merg|\(b, ?t, ?nh, ?dh\)|heads? back|concatenat"],
    ),
    case(
        "checks.m_multi_head_mask_three_dims",
        "[Ch. 3 exercises, cell 2] multi_head_attention broadcasting key_padding_mask[:, None, "
        ":] (B, 1, S), Chapter 2's single-head habit, onto the (B, Nh, T, S) scores",
        _MULTI_HEAD.format(
            mask="key_padding_mask[:, None, :]",
            merge="(weights @ v).transpose(1, 2).reshape(B, T, D)",
        ),
        [
            r"key_padding_mask|mask",
            r"\(b, ?1, ?1, ?s\)|\[:, ?none, ?none|per head|heads axis|broadcast|4-d|four",
        ],
    ),
    case(
        "checks.m_encoder_layer_norm1_twice",
        "[Ch. 3 exercises, cell 4] encoder_layer normalising both pre-norm sublayers with "
        "layer.norm1, norm2 never used",
        _ENCODER_LAYER.format(
            attend=(
                "        out, _ = layer.self_attn(\n"
                "            y, y, y, key_padding_mask=src_key_padding_mask, need_weights=False\n"
                "        )\n"
                "        return out"
            ),
            second_norm="norm1",
        ),
        ["norm2"],
    ),
    case(
        "checks.m_encoder_layer_self_attn_pair",
        "[Ch. 3 exercises, cell 4] encoder_layer adding layer.self_attn(...)'s (output, "
        "weights) pair to x, the unpacking forgotten",
        _ENCODER_LAYER.format(
            attend=(
                "        return layer.self_attn(y, y, y, key_padding_mask=src_key_padding_mask)"
            ),
            second_norm="norm2",
        ),
        [r"tuple|\(output, ?weights\)|\[0\]|pair|need_weights|unpack"],
    ),
    case(
        "checks.m_train_add_norm_with_positions",
        "[Ch. 3 exercises, cell 7] train_add_norm with SelfAttentionConfig(start='origin', "
        "add_norm='post'): positional=False forgotten, so the model gets positions",
        _TRAIN_ADD_NORM.format(config='start="origin", add_norm="post"'),
        ["positional"],
    ),
    case(
        "checks.m_train_add_norm_none",
        "[Ch. 3 exercises, cell 7] train_add_norm copying the chapter's configs['start: origin'] "
        "with add_norm=None: the model without Add & Norm that the exercise compares against",
        _TRAIN_ADD_NORM.format(config='positional=False, start="origin", add_norm=None'),
        ["add_norm", r"post"],
    ),
    # == Chapter 4 =============================================================================
    case(
        "positional.m_sinusoidal_of_positions",
        "[Ch. 4, cell 17] sinusoidal_encoding(torch.arange(10), 8): the tensor of positions "
        "(the TensorFlow tutorial's positional_encoding(positions, d_model)) where the number "
        "of positions goes",
        "sinusoidal_encoding(torch.arange(10), 8)",
        ["max_len", r"\bint|integer|number"],
    ),
    case(
        "positional.m_encoding_one_sequence",
        "[Ch. 4, cell 26] positional(x[0]): one sequence (T, D) without its batch axis",
        "PositionalEncoding(max_len=5, d_model=8)(x[0])",
        [r"\(b, ?t, ?d\)|batch|3-d|three dim|unsqueeze|\[none\]"],
    ),
    case(
        "points_transformer.m_config_ff_units",
        "[Ch. 4, cell 33] SelfAttentionConfig(..., ff_units=10): the lecture's name for the "
        "feed-forward width, where the config says d_ff",
        """
        SelfAttentionConfig(positional=True, start="last", add_norm=None, ff_units=10)
        """,
        ["ff_units", "d_ff"],
    ),
    case(
        "train.m_scheduler_positional",
        "[Ch. 4, cell 38] Trainer(model, loss, optimizer, StepLR(...)): the scheduler passed "
        "fourth, positionally, where the fourth argument is device",
        """
        step = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.3)
        Trainer(seq2seq, nn.MSELoss(), optimizer, step)
        """,
        ["device", r"scheduler"],
    ),
    case(
        "checks.m_learned_positions_whole_table",
        "[Ch. 4 exercises, cell 3] LearnedPositions adding the whole table, "
        "self.embedding.weight (max_len, D), instead of the rows of the T positions",
        _LEARNED_POSITIONS.format(
            embedding="nn.Embedding(max_len, d_model)", added="self.embedding.weight"
        ),
        [r"positions|\[:t\]|arange|first t|shape\[1\]|length|max_len"],
    ),
    case(
        "checks.m_learned_positions_embedding_swapped",
        "[Ch. 4 exercises, cell 3] LearnedPositions building nn.Embedding(d_model, max_len): "
        "the table's two sizes swapped",
        _LEARNED_POSITIONS.format(
            embedding="nn.Embedding(d_model, max_len)", added="self.embedding(positions)"
        ),
        [r"embedding\(max_len, ?d_model\)|max_len|order|swap|\(max_len, ?d"],
    ),
    case(
        "checks.m_shift_matrix_four_dials",
        "[Ch. 4 exercises, cell 5] shift_matrix looping over range(4), the four dials of the "
        "chapter's d_model = 8, whatever d_model it is given",
        """
        def shift_matrix(k, d_model):
            M = torch.zeros(d_model, d_model)
            for i in range(4):
                speed = 1 / 10000 ** (2 * i / d_model)
                c, s = math.cos(k * speed), math.sin(k * speed)
                M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor([[c, s], [-s, c]])
            return M

        check_shift_matrix(shift_matrix)
        """,
        [r"d_model|every pair|all pairs|block|dial"],
    ),
    case(
        "checks.m_plateau_training_loss",
        "[Ch. 4 exercises, cell 7] train_on_plateau stepping ReduceLROnPlateau with the epoch's "
        "training loss, trainer.losses[-1], not its validation loss",
        _PLATEAU.format(seed="42 if epoch == 0 else None", loss="plateau_trainer.losses[-1]"),
        [r"val_losses|validation"],
    ),
    case(
        "checks.m_plateau_seed_every_epoch",
        "[Ch. 4 exercises, cell 7] train_on_plateau passing seed=42 to every one-epoch fit: "
        "every epoch re-seeds and shuffles the batches the same way",
        _PLATEAU.format(seed="42", loss="plateau_trainer.val_losses[-1]"),
        ["seed", r"first|once|every|each"],
    ),
]
