"""Final-probe mistakes with the exercises' self-checks and the grader (see
``tools/probe_final.py``).

A self-check case is a plausible wrong answer to an exercise (or a check called the wrong
way): the check must fail (``CheckFailed``) with a message that points at the cause. A grading
case is an instructor's slip with ``make grade`` (``run_cli`` runs ``python -m
course_lib.grading`` in-process; ``tmp`` is an empty folder). Written, with their expected
answers and keywords, from the exercises, the checks' docstrings and the README before any of
them ran; none repeats a case of the three earlier catalogues, nor a mistake the issue names.
"""

from __future__ import annotations

from mistake_cases import case

_EXERCISES = "Path(__import__('course_lib').__file__).resolve().parents[1] / 'exercises'"

#: Chapter 1's scheduled sampling, with ``{coins}`` and ``{ret}`` left to fill in.
_SCHEDULED = """
def decode_scheduled(encoder, decoder, source, target, p, generator):
    batch, steps = target.shape[:2]
    _, hidden = encoder(source)
    x = source[:, -1:]
    outputs = []
    for t in range(steps):
        if t > 0:
            coins = {coins}
            truth = target[:, t - 1 : t]
            x = torch.where(coins[:, None, None], truth, outputs[-1])
        out, hidden, _ = decoder(x, hidden)
        outputs.append(out)
    return {ret}

check_scheduled_decode(decode_scheduled)
"""

#: Chapter 1's exercise 4, the recipe (on the namespace's small ``train_set``).
_TRAIN_WIDTH = """
def train_width(hidden_dim):
    loader = DataLoader(train_set, batch_size=16, shuffle=True, generator=torch.Generator())
    torch.manual_seed(23)
    model = EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim={width}))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    width_trainer = Trainer(model, nn.MSELoss(), opt)
    width_trainer.fit(loader, DataLoader(val_set, batch_size=16), epochs=100, seed=42,
                      progress=False)
    return width_trainer
"""

#: Chapter 2c's exercise 1 with ``{query}``, ``{context_query}`` and ``{weights}`` to fill in.
_ATTENTION_STEP = """
def attention_step(decoder, x, hidden, memory, memory_key_padding_mask):
    before = hidden.transpose(0, 1)
    query, hidden = decoder.gru(x, hidden)
    q = decoder.attention.q_proj({query})
    k = decoder.attention.k_proj(memory)
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    blocked = memory_key_padding_mask[:, None, :]
    weights = scores.masked_fill(blocked, float("-inf")).softmax(dim=-1)
    context = weights @ memory
    out = decoder.output(torch.cat([context, query], dim=-1))
    return out, hidden, {weights}

check_attention_step(attention_step)
"""

#: Chapter 3's exercise 1 with ``{heads}``, ``{scale}`` and ``{merge}`` to fill in.
_MULTI_HEAD = """
def multi_head_attention(query, key, value, mha, key_padding_mask):
    B, T, D = query.shape
    S, Nh = key.shape[1], mha.num_heads
    Dh = D // Nh
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
    b_q, b_k, b_v = mha.in_proj_bias.chunk(3)

    def heads(x, length):
        return {heads}

    q = heads(F.linear(query, w_q, b_q), T)
    k = heads(F.linear(key, w_k, b_k), S)
    v = heads(F.linear(value, w_v, b_v), S)
    scores = q @ k.transpose(-2, -1) / math.sqrt({scale})
    if key_padding_mask is not None:
        scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    weights = scores.softmax(dim=-1)
    context = {merge}
    return mha.out_proj(context), weights.mean(dim=1)

check_multi_head_attention(multi_head_attention)
"""

#: Chapter 6's exercise 2, the solution, with ``{tensor}`` and ``{ret}`` to fill in.
_DATASETS = """
def make_datasets(train, valid):
    def metres(observed, future):
        origin = observed[:, -1:, :2]
        return to_local(observed[..., :2], origin), to_local(future[..., :2], origin)

    src, tgt = metres(*train)
    both = np.concatenate([src, tgt], axis=1).reshape(-1, 2)
    mean, std = both.mean(axis=0), both.std(axis=0)

    def dataset(split):
        s, t = ({tensor} for x in metres(*split))
        return TensorDataset(s, t)

    return {ret}
"""

#: Chapter 6's exercise 1, the solution.
_PLOT_TRAJECTORIES = """
def plot_trajectories(observed, future, n):
    fig, ax = plt.subplots(figsize=(6, 6))
    for k in range(n):
        seen = to_local(observed[k, :, :2], FLORENCE)
        ahead = to_local(future[k, :, :2], FLORENCE)
        ax.plot(seen[:, 0], seen[:, 1], "o-", color="tab:blue",
                label="observed" if k == 0 else None)
        ax.plot(ahead[:, 0], ahead[:, 1], "s--", color="tab:green",
                label="future" if k == 0 else None)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("east of the centre (m)")
    ax.set_ylabel("north of the centre (m)")
    ax.legend()
    return fig

ex_train = city_trajectories(50, rng=np.random.default_rng([7, 0]))
"""

#: A copy of the untouched Chapter 2b student notebook in ``tmp / "subs"``.
_SUBMISSIONS = f"""
import shutil

subs = tmp / "subs"
subs.mkdir()
shutil.copy({_EXERCISES} / "02b_scoring_functions_exercises.ipynb", subs / "alice.ipynb")
"""

CASES = [
    # -- checks: Chapter 1 --------------------------------------------------------------------
    case(
        "checks.gru_cell_untransposed",
        "[Ch. 1, exercise 1] gru_cell multiplying by weight_ih and weight_hh untransposed (they "
        "are stored (3H, F) and (3H, H))",
        """
        def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
            gates_x = x @ weight_ih + bias_ih
            gates_h = h @ weight_hh + bias_hh
            x_r, x_z, x_n = gates_x.chunk(3, dim=-1)
            h_r, h_z, h_n = gates_h.chunk(3, dim=-1)
            r = torch.sigmoid(x_r + h_r)
            z = torch.sigmoid(x_z + h_z)
            n = torch.tanh(x_n + r * h_n)
            return (1 - z) * n + z * h

        check_gru_cell(gru_cell)
        """,
        ["gru_cell", r"weight_ih|weight_hh|transpos|\.t\b|shape"],
    ),
    case(
        "checks.gru_cell_no_reset",
        "[Ch. 1, exercise 1] gru_cell without the reset gate in the candidate: n = tanh(x_n + h_n)",
        """
        def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
            x_r, x_z, x_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
            h_r, h_z, h_n = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)
            z = torch.sigmoid(x_z + h_z)
            n = torch.tanh(x_n + h_n)
            return (1 - z) * n + z * h

        check_gru_cell(gru_cell)
        """,
        [r"reset|\br\b"],
    ),
    case(
        "checks.decoder_inputs_unshifted",
        "[Ch. 1, exercise 2] decoder_inputs returning the target itself: each step reads the "
        "point it must predict",
        """
        def decoder_inputs(source, target):
            return target.clone()

        check_decoder_inputs(decoder_inputs)
        """,
        [r"shift|last source|previous|source\[:, ?-1"],
    ),
    case(
        "checks.decoder_inputs_target_only",
        "[Ch. 1, exercise 2] decoder_inputs returning target[:, :-1] without the last source "
        "point in front: T - 1 inputs",
        """
        def decoder_inputs(source, target):
            return target[:, :-1]

        check_decoder_inputs(decoder_inputs)
        """,
        [r"last source|source\[:, ?-1|\(b, ?t, ?f\)|one (step|point)|shape|length"],
    ),
    case(
        "checks.scheduled_ignores_generator",
        "[Ch. 1, exercise 3] decode_scheduled drawing its coins from the global generator, not "
        "the generator it is given",
        _SCHEDULED.format(coins="torch.rand(batch) < p", ret="torch.cat(outputs, dim=1)"),
        ["generator"],
    ),
    case(
        "checks.scheduled_coin_inverted",
        "[Ch. 1, exercise 3] decode_scheduled reading the true point when the coin is >= p: p "
        "taken as the chance of the model's own prediction",
        _SCHEDULED.format(
            coins="torch.rand(batch, generator=generator) >= p", ret="torch.cat(outputs, dim=1)"
        ),
        [r"\bp\b|probab|teacher forcing|true previous"],
    ),
    case(
        "checks.scheduled_returns_list",
        "[Ch. 1, exercise 3] decode_scheduled returning the list of step outputs, torch.cat "
        "forgotten",
        _SCHEDULED.format(coins="torch.rand(batch, generator=generator) < p", ret="outputs"),
        [r"list|torch\.cat|\(b, ?t, ?f\)"],
    ),
    case(
        "checks.train_width_ignores_width",
        "[Ch. 1, exercise 4] train_width building Seq2SeqConfig() without hidden_dim: every "
        "width trains the default model",
        _TRAIN_WIDTH.format(width="2") + "\ncheck_train_width(train_width, train_set, val_set)",
        ["hidden_dim"],
    ),
    case(
        "checks.train_width_sets_swapped",
        "[Ch. 1, exercise 4] check_train_width(train_width, val_set, train_set): the two datasets "
        "swapped",
        _TRAIN_WIDTH.format(width="hidden_dim")
        + "\ncheck_train_width(train_width, val_set, train_set)",
        [
            r"train_set|val_set",
            r"swap|order|\(source, ?target, ?target\)|three tensors|target twice",
        ],
    ),
    # -- checks: Chapter 2a -------------------------------------------------------------------
    case(
        "checks.kernel_laplace_dim0",
        "[Ch. 2a, exercise 1] laplace_weights normalising over the queries (softmax dim=0), not "
        "over each query's training points",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs(), dim=0)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(dim=-1, keepdim=True).clamp(min=1)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        [r"row|sum|dim=-1|over the training points|each query"],
    ),
    case(
        "checks.kernel_boxcar_unnormalised",
        "[Ch. 2a, exercise 1] boxcar_weights returning the 0/1 window, not divided by the count",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs(), dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            return (diffs.abs() < half_width).float()

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        [r"sum|normali|equal|divid|count|spread"],
    ),
    case(
        "checks.kernel_boxcar_fixed_width",
        "[Ch. 2a, exercise 1] boxcar_weights with the window 0.5 written in, half_width ignored",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs(), dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < 0.5).float()
            return inside / inside.sum(dim=-1, keepdim=True).clamp(min=1)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        ["half_width"],
    ),
    # -- checks: Chapter 2b -------------------------------------------------------------------
    case(
        "checks.masked_softmax_zero_after",
        "[Ch. 2b, exercise 1] masked_softmax zeroing the blocked weights after a plain softmax: "
        "the rows no longer sum to 1",
        """
        def masked_softmax(scores, mask):
            return torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)

        check_masked_softmax(masked_softmax)
        """,
        [r"sum|normali|before the softmax|-inf|renormal"],
    ),
    case(
        "checks.sdpa_scale_by_length",
        "[Ch. 2b, exercise 2] attention scaled by 1 / sqrt(key.shape[1]) (the number of keys), "
        "not by the width E",
        """
        def attention(query, key, value, attn_mask=None):
            scores = query @ key.transpose(-2, -1) / math.sqrt(key.shape[1])
            if attn_mask is None:
                weights = torch.softmax(scores, dim=-1)
            else:
                weights = masked_softmax(scores, attn_mask)
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        [r"scale|sqrt|width|\be\b|last (axis|dim)"],
    ),
    case(
        "checks.sdpa_key_dot_t",
        "[Ch. 2b, exercise 2] attention transposing the batched keys with key.T (which reverses "
        "every axis)",
        """
        def attention(query, key, value, attn_mask=None):
            scores = query @ key.T / math.sqrt(query.shape[-1])
            if attn_mask is None:
                weights = torch.softmax(scores, dim=-1)
            else:
                weights = masked_softmax(scores, attn_mask)
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        ["raised", "key"],
    ),
    case(
        "checks.general_scores_result_transposed",
        "[Ch. 2b, exercise 3] general_scores returning W k q^T, (B, S, T): keys on the rows",
        """
        def general_scores(query, key, weight):
            projected = key @ weight.T
            return projected @ query.transpose(-2, -1)

        check_general_scores(general_scores)
        """,
        [r"\(b, ?t, ?s\)|shape|transpos|order"],
    ),
    # -- checks: Chapter 2c -------------------------------------------------------------------
    case(
        "checks.attention_step_query_before_gru",
        "[Ch. 2c, exercise 1] attention_step scoring with the state before the GRU step "
        "(Bahdanau's query), not the GRU's new output",
        _ATTENTION_STEP.format(query="before", weights="weights"),
        [r"after|gru|query|before"],
    ),
    case(
        "checks.attention_step_weights_squeezed",
        "[Ch. 2c, exercise 1] attention_step returning the weights squeezed to (B, S)",
        _ATTENTION_STEP.format(query="query", weights="weights.squeeze(1)"),
        ["weights", r"\(b, ?1, ?s\)|shape"],
    ),
    case(
        "checks.context_only_output_not_replaced",
        "[Ch. 2c, exercise 3] ContextOnlyDecoder keeping AttentionDecoder's output layer "
        "Linear(2H, F) while feeding it the context alone",
        """
        class ContextOnlyDecoder(AttentionDecoder):
            def __init__(self, n_features, hidden_dim):
                super().__init__(n_features, hidden_dim)

            def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
                queries, hidden = self.gru(x, hidden)
                context, weights = self.attention(
                    queries, memory, key_padding_mask=memory_key_padding_mask
                )
                return self.output(context), hidden, weights

        check_context_only_decoder(ContextOnlyDecoder)
        """,
        ["output", r"linear\(h, ?f\)|linear\(hidden_dim|in_features|width|\(h, ?f\)"],
    ),
    case(
        "checks.context_only_mask_ignored",
        "[Ch. 2c, exercise 3] ContextOnlyDecoder never passing memory_key_padding_mask to its "
        "attention",
        """
        class ContextOnlyDecoder(AttentionDecoder):
            def __init__(self, n_features, hidden_dim):
                super().__init__(n_features, hidden_dim)
                self.output = nn.Linear(hidden_dim, n_features)

            def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
                queries, hidden = self.gru(x, hidden)
                context, weights = self.attention(queries, memory)
                return self.output(context), hidden, weights

        check_context_only_decoder(ContextOnlyDecoder)
        """,
        [r"memory_key_padding_mask|padding"],
    ),
    # -- checks: Chapter 3 --------------------------------------------------------------------
    case(
        "checks.multi_head_scale_d_model",
        "[Ch. 3, exercise 1] multi_head_attention scaling the scores by sqrt(D), the model's "
        "width, not sqrt(Dh), a head's",
        _MULTI_HEAD.format(
            heads="x.view(B, length, Nh, Dh).transpose(1, 2)",
            scale="D",
            merge="(weights @ v).transpose(1, 2).reshape(B, T, D)",
        ),
        [r"sqrt|scale", r"head|\bdh\b|d_k"],
    ),
    case(
        "checks.multi_head_view_without_transpose",
        "[Ch. 3, exercise 1] multi_head_attention splitting the heads with x.view(B, Nh, L, Dh), "
        "no transpose",
        _MULTI_HEAD.format(
            heads="x.view(B, Nh, length, Dh)", scale="Dh", merge="(weights @ v).reshape(B, T, D)"
        ),
        [r"transpose|view|reshape|split|\(b, ?l, ?nh, ?dh\)|\(b, ?nh"],
    ),
    case(
        "checks.encoder_layer_no_residual",
        "[Ch. 3, exercise 2] encoder_layer without the residual connection around the "
        "feed-forward block",
        """
        def encoder_layer(x, layer, src_key_padding_mask):
            def self_attention(y):
                out, _ = layer.self_attn(
                    y, y, y, key_padding_mask=src_key_padding_mask, need_weights=False
                )
                return out

            def feed_forward(y):
                return layer.linear2(F.relu(layer.linear1(y)))

            if layer.norm_first:
                x = x + self_attention(layer.norm1(x))
                return feed_forward(layer.norm2(x))
            x = layer.norm1(x + self_attention(x))
            return layer.norm2(feed_forward(x))

        check_encoder_layer(encoder_layer)
        """,
        [r"residual|x \+|skip|\badd"],
    ),
    # -- checks: Chapter 4 --------------------------------------------------------------------
    case(
        "checks.learned_positions_batch_axis",
        "[Ch. 4, exercise 2] LearnedPositions counting positions along x.shape[0], the batch, "
        "not x.shape[1]",
        """
        class LearnedPositions(nn.Module):
            def __init__(self, max_len, d_model):
                super().__init__()
                self.d_model = d_model
                self.embedding = nn.Embedding(max_len, d_model)

            def forward(self, x):
                positions = torch.arange(x.shape[0], device=x.device)
                return x * np.sqrt(self.d_model) + self.embedding(positions)

        check_learned_positions(LearnedPositions)
        """,
        [r"batch|length|shape\[1\]|axis 1|dim(ension)? 1"],
    ),
    case(
        "checks.shift_matrix_speed_i",
        "[Ch. 4, exercise 3] shift_matrix with the speeds 1 / 10000^(i / D), i where 2i belongs",
        """
        def shift_matrix(k, d_model):
            M = torch.zeros(d_model, d_model)
            for i in range(d_model // 2):
                speed = 1 / 10000 ** (i / d_model)
                c, s = math.cos(k * speed), math.sin(k * speed)
                M[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.tensor([[c, s], [-s, c]])
            return M

        check_shift_matrix(shift_matrix)
        """,
        [r"2i|2 ?\* ?i|speed|frequenc|10000"],
    ),
    # -- checks: Chapter 5 --------------------------------------------------------------------
    case(
        "checks.token_positions_indexed_by_id",
        "[Ch. 5, exercise D] token_positions taking each token's row of the encoding table by "
        "its id, not by its position",
        """
        def token_positions(sentence, vocab, d_model):
            ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
            return ids, sinusoidal_encoding(len(vocab), d_model)[ids]

        check_token_positions(token_positions)
        """,
        [r"sinusoidal_encoding|row|position \d|token id|\bids\b"],
    ),
    case(
        "checks.token_positions_fixed_width",
        "[Ch. 5, exercise D] token_positions with the chapter's width 256 written in, d_model "
        "ignored",
        """
        def token_positions(sentence, vocab, d_model):
            ids = torch.tensor(vocab.encode(sentence), dtype=torch.long)
            return ids, sinusoidal_encoding(len(ids), 256)

        check_token_positions(token_positions)
        """,
        ["d_model"],
    ),
    case(
        "checks.attention_shapes_weights_order",
        "[Ch. 5, exercise E] attention_shapes giving the per-head weights second and the "
        "averaged ones third",
        """
        def attention_shapes(B, Lq, Lk, D, H):
            return (B, Lq, D), (B, H, Lq, Lk), (B, Lq, Lk)

        check_attention_shapes(attention_shapes)
        """,
        [r"average|mean|per.head|\(b, ?h|heads"],
    ),
    case(
        "checks.self_mask_padding_only",
        "[Ch. 5, exercise 9] decoder_self_attention_mask with the padding but without the causal "
        "part",
        """
        def decoder_self_attention_mask(tgt_in):
            B, T = tgt_in.shape
            return (tgt_in == 0)[:, None, :].expand(B, T, T)

        check_decoder_self_attention_mask(decoder_self_attention_mask)
        """,
        [r"causal|future|later|triu|diagonal|ahead"],
    ),
    case(
        "checks.self_mask_tril_polarity",
        "[Ch. 5, exercise 9] decoder_self_attention_mask in PyTorch's polarity: True where a "
        "query may look (tril & not padding)",
        """
        def decoder_self_attention_mask(tgt_in):
            T = tgt_in.shape[1]
            allowed = torch.ones(T, T, dtype=torch.bool).tril()
            return allowed[None] & (tgt_in != 0)[:, None, :]

        check_decoder_self_attention_mask(decoder_self_attention_mask)
        """,
        [r"block|polarity|invert|~"],
    ),
    case(
        "checks.self_mask_padding_rows",
        "[Ch. 5, exercise 9] decoder_self_attention_mask blocking the padded queries (rows, "
        "(B, T, 1)) instead of the padded keys",
        """
        def decoder_self_attention_mask(tgt_in):
            T = tgt_in.shape[1]
            future = torch.ones(T, T, dtype=torch.bool).triu(1)
            return future[None] | (tgt_in == 0)[:, :, None]

        check_decoder_self_attention_mask(decoder_self_attention_mask)
        """,
        [r"key|column|\(b, ?1, ?t\)"],
    ),
    case(
        "checks.cached_step_concat_features",
        "[Ch. 5, exercise 10] cached_attention_step appending the new key and value along the "
        "features (dim=-1), not the positions",
        """
        def cached_attention_step(q, k, v, cache_k, cache_v):
            keys = torch.cat([cache_k, k], dim=-1)
            values = torch.cat([cache_v, v], dim=-1)
            scores = q @ keys.transpose(1, 2) / q.shape[-1] ** 0.5
            context = torch.softmax(scores, dim=-1) @ values
            return context, keys, values

        check_cached_attention_step(cached_attention_step)
        """,
        [r"dim|axis|length|position|\(b, ?t ?\+ ?1"],
    ),
    case(
        "checks.cached_step_context_only",
        "[Ch. 5, exercise 10] cached_attention_step returning the context alone, not the "
        "grown cache",
        """
        def cached_attention_step(q, k, v, cache_k, cache_v):
            keys = torch.cat([cache_k, k], dim=1)
            values = torch.cat([cache_v, v], dim=1)
            scores = q @ keys.transpose(1, 2) / q.shape[-1] ** 0.5
            return torch.softmax(scores, dim=-1) @ values

        check_cached_attention_step(cached_attention_step)
        """,
        [r"three|keys|values|cache|tuple"],
    ),
    case(
        "checks.label_smoothing_not_spread",
        "[Ch. 5, exercise 11] label_smoothed_loss keeping 1 - epsilon on the true class and "
        "spreading nothing over the classes",
        """
        def label_smoothed_loss(logits, target, epsilon):
            log_p = torch.log_softmax(logits, dim=-1)
            return -(1 - epsilon) * log_p.gather(1, target[:, None]).mean()

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        [r"spread|uniform|every class|all classes|epsilon ?/ ?v|each class"],
    ),
    case(
        "checks.label_smoothing_ignores_epsilon",
        "[Ch. 5, exercise 11] label_smoothed_loss returning the plain cross-entropy, epsilon "
        "unused",
        """
        def label_smoothed_loss(logits, target, epsilon):
            return F.cross_entropy(logits, target)

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        ["epsilon"],
    ),
    # -- checks: Chapter 6 --------------------------------------------------------------------
    case(
        "checks.plot_trajectories_degrees",
        "[Ch. 6, exercise 1] plot_trajectories drawing longitude and latitude in degrees, not "
        "metres east and north",
        """
        def plot_trajectories(observed, future, n):
            fig, ax = plt.subplots(figsize=(6, 6))
            for k in range(n):
                ax.plot(observed[k, :, 1], observed[k, :, 0], "o-", color="tab:blue")
                ax.plot(future[k, :, 1], future[k, :, 0], "s--", color="tab:green")
            ax.set_aspect("equal", adjustable="datalim")
            ax.set_xlabel("longitude")
            ax.set_ylabel("latitude")
            return fig

        ex_train = city_trajectories(50, rng=np.random.default_rng([7, 0]))
        check_plot_trajectories(plot_trajectories, *ex_train, 5)
        """,
        [r"metre|to_local|degree"],
    ),
    case(
        "checks.plot_trajectories_tuple",
        "[Ch. 6, exercise 1] check_plot_trajectories(plot_trajectories, ex_train, 5): the "
        "(observed, future) pair passed whole, * forgotten",
        _PLOT_TRAJECTORIES + "\ncheck_plot_trajectories(plot_trajectories, ex_train, 5)",
        [r"observed|future", r"\*|unpack|tuple|pair"],
    ),
    case(
        "checks.datasets_tensors",
        "[Ch. 6, exercise 2] make_datasets returning the (source, target) tensors of each split, "
        "not datasets",
        _DATASETS.format(
            tensor="torch.tensor((x - mean) / std, dtype=torch.float32)",
            ret="dataset(train).tensors, dataset(valid).tensors",
        )
        + "\ncheck_datasets(make_datasets)",
        [r"dataset"],
    ),
    case(
        "checks.datasets_float64",
        "[Ch. 6, exercise 2] make_datasets keeping NumPy's float64 (torch.tensor without "
        "dtype=torch.float32)",
        _DATASETS.format(
            tensor="torch.tensor((x - mean) / std)", ret="dataset(train), dataset(valid)"
        )
        + "\ncheck_datasets(make_datasets)",
        [r"float32|dtype"],
    ),
    case(
        "checks.models_target_len_default",
        "[Ch. 6, exercise 3] build_models' self-attention model without target_len=3 (the "
        "config's default predicts 2 points)",
        """
        def build_models():
            return {
                "GRU": EncoderDecoder(Encoder(2, 64), Decoder(2, 64), 3, 0.5),
                "GRU + attention": EncoderDecoder(
                    Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5
                ),
                "self-attention": SelfAttentionEncoderDecoder(SelfAttentionConfig(
                    n_features=2, d_model=32, num_heads=4, d_ff=64, num_layers=2
                )),
            }

        check_models(build_models)
        """,
        [r"target_len|3 (steps|points)|\(b, ?3, ?2\)"],
    ),
    case(
        "checks.training_given_datasets",
        "[Ch. 6, exercise 4] check_training(train_attention_gru, ex_train_set, ex_valid_set): the "
        "datasets where the raw (observed, future) splits go",
        _DATASETS.format(
            tensor="torch.tensor((x - mean) / std, dtype=torch.float32)",
            ret="dataset(train), dataset(valid)",
        )
        + """
def train_attention_gru(train_set, valid_set, epochs=15):
    torch.manual_seed(0)
    model = EncoderDecoder(Encoder(2, 64), AttentionDecoder(2, 64), 3, 0.5)
    src, tgt = train_set.tensors
    loader = DataLoader(TensorDataset(src, tgt, tgt), batch_size=64, shuffle=True,
                        generator=torch.Generator())
    gru_trainer = Trainer(model, nn.MSELoss(), torch.optim.Adam(model.parameters(), lr=1e-3),
                          "cpu")
    gru_trainer.fit(loader, DataLoader(valid_set, batch_size=200), epochs=epochs, seed=0,
                    progress=False)
    return gru_trainer

ex_train = city_trajectories(200, rng=np.random.default_rng([7, 0]))
ex_valid = city_trajectories(50, rng=np.random.default_rng([7, 1]))
ex_train_set, ex_valid_set = make_datasets(ex_train, ex_valid)
check_training(train_attention_gru, ex_train_set, ex_valid_set)
""",
        [r"train|valid", r"\(observed, ?future\)|trajector|pair|make_datasets|raw"],
    ),
    case(
        "checks.inverse_transform_metres",
        "[Ch. 6, exercise 5] inverse_transform undoing the standardisation but returning metres, "
        "from_local forgotten",
        """
        def inverse_transform(predicted, observed, mean, std):
            return np.asarray(predicted) * std + mean

        check_inverse_transform(inverse_transform)
        """,
        [r"degree|lat|from_local"],
    ),
    case(
        "checks.haversine_cos_longitude",
        "[Ch. 6, exercise 6] my_haversine taking the cosines of the longitudes where the "
        "latitudes belong",
        """
        def my_haversine(a, b):
            p, q = np.radians(a), np.radians(b)
            dlat, dlon = q[..., 0] - p[..., 0], q[..., 1] - p[..., 1]
            h = (np.sin(dlat / 2) ** 2
                 + np.cos(p[..., 1]) * np.cos(q[..., 1]) * np.sin(dlon / 2) ** 2)
            return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(h))

        check_haversine(my_haversine)
        """,
        [r"lat|cos"],
    ),
    case(
        "checks.ade_fde_max",
        "[Ch. 6, exercise 6] my_ade_fde taking the largest error of each trajectory as its FDE, "
        "not the last step's",
        """
        def my_ade_fde(predicted, true):
            d = haversine(predicted, true)
            return d.mean(), d.max(axis=1).mean()

        check_ade_fde(my_ade_fde)
        """,
        [r"final|last"],
    ),
    case(
        "checks.constant_velocity_per_step",
        "[Ch. 6, exercise 7] my_constant_velocity moving one observed step per future step, the "
        "timestamps unused",
        """
        def my_constant_velocity(observed, times):
            origin = observed[:, -1, :2]
            step = -to_local(observed[:, -2, :2], origin)
            k = np.arange(1, times.shape[1] + 1)
            return from_local(step[:, None] * k[None, :, None], origin[:, None])

        check_constant_velocity(my_constant_velocity)
        """,
        [r"time|second|interval"],
    ),
    case(
        "checks.stay_floor_own_rng",
        "[Ch. 6, exercise 9] stay_ade seeding a generator of its own inside, the rng it is given "
        "unused",
        """
        def stay_ade(n, rng):
            rng = np.random.default_rng(0)
            start = np.broadcast_to(np.asarray(FLORENCE, dtype=float), (n, 1, 2))
            walk = rng.uniform(-0.001, 0.001, (n, 3, 2))
            future = start + np.cumsum(walk, axis=1)
            return haversine(start, future).mean()

        check_stay_floor(stay_ade)
        """,
        ["rng"],
    ),
    # -- checks: Chapter 7 --------------------------------------------------------------------
    case(
        "checks.rotate_pairs_clockwise",
        "[Ch. 7, exercise 1] rotate_pairs turning each pair the other way (clockwise: the sines' "
        "signs swapped)",
        """
        def rotate_pairs(x, start):
            L, Dh = x.shape
            positions = torch.arange(start, start + L, dtype=x.dtype)
            speeds = 10000 ** (-torch.arange(0, Dh, 2, dtype=x.dtype) / Dh)
            angles = positions[:, None] * speeds
            a, b = x[:, 0::2], x[:, 1::2]
            out = torch.empty_like(x)
            out[:, 0::2] = a * angles.cos() + b * angles.sin()
            out[:, 1::2] = -a * angles.sin() + b * angles.cos()
            return out

        check_rotate_pairs(rotate_pairs)
        """,
        [r"direction|sign|clockwise|counter|transpos|negative|-sin"],
    ),
    case(
        "checks.repeat_kv_five_dims",
        "[Ch. 7, exercise 2] repeat_kv expanding a new axis (B, Nkv, G, S, Dh) and never merging "
        "it into the heads",
        """
        def repeat_kv(kv, num_heads):
            B, Nkv, S, Dh = kv.shape
            return kv[:, :, None].expand(B, Nkv, num_heads // Nkv, S, Dh)

        check_repeat_kv(repeat_kv)
        """,
        [r"shape|\(b, ?nh|4-d|four|dimensions"],
    ),
    case(
        "checks.cache_bytes_in_gib",
        "[Ch. 7, exercise 3] cache_bytes returning GiB (divided by 2**30, as the chapter prints "
        "it), not bytes",
        """
        def cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens):
            total = 2 * num_layers * num_kv_heads * head_dim * bytes_per_number * tokens
            return total / 2**30

        check_cache_bytes(cache_bytes)
        """,
        [r"\bbytes\b|gib|unit|2 ?\*\* ?30"],
    ),
    case(
        "checks.prefix_mask_targets_blind",
        "[Ch. 7, exercise 4] prefix_mask also blocking the source for the target rows (mask[S:, "
        ":S] = True)",
        """
        def prefix_mask(S, T):
            mask = causal_mask(S + T)
            mask[:S, :S] = False
            mask[S:, :S] = True
            return mask

        check_prefix_mask(prefix_mask)
        """,
        ["source"],
    ),
    # -- grading (README: make grade) ---------------------------------------------------------
    case(
        "grading.chapter_uppercase",
        "[README, make grade] --chapter 02C, the chapter's letter in capitals (the files say 02c)",
        'run_cli(["--chapter", "02C", "--gradescope", str(tmp / "autograder.zip")])',
        ["chapter", "02c"],
    ),
    case(
        "grading.all_cells_value",
        "[README, make grade ALL_CELLS=1] --all-cells 1: the Makefile's value given to a flag "
        "that takes none",
        _SUBMISSIONS + '\nrun_cli(["--chapter", "02b", "--submissions", str(subs), "--out", '
        'str(tmp / "out"), "--all-cells", "1"])',
        [r"all-cells|all_cells", r"flag|no value|takes no|without a value"],
    ),
    case(
        "grading.jobs_minus_one",
        "[README, make grade JOBS=...] --jobs -1: joblib's 'every core' where the number of "
        "submissions at a time goes",
        _SUBMISSIONS + '\nrun_cli(["--chapter", "02b", "--submissions", str(subs), "--out", '
        'str(tmp / "out"), "--jobs", "-1"])',
        ["jobs", r"positive|at least 1|>= ?1|cores"],
    ),
]
