"""Held-out mistakes with the exercises' self-checks and the grader (see
``tools/probe_heldout.py``).

A self-check case is a plausible wrong answer: the check must fail (``CheckFailed``) with a
message that points at the cause. A grading case is an instructor's slip with ``make grade``
(``run_cli`` runs ``python -m course_lib.grading`` in-process; ``tmp`` is an empty folder).
"""

from __future__ import annotations

from mistake_cases import case

CASES = [
    # -- checks: Chapters 1-2 ------------------------------------------------------------------
    case(
        "checks.gru_cell_gate_order",
        "gru_cell reading the stacked gates in the order (z, r, n), not PyTorch's (r, z, n)",
        """
        def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
            i_z, i_r, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
            h_z, h_r, h_n = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)
            r = torch.sigmoid(i_r + h_r)
            z = torch.sigmoid(i_z + h_z)
            n = torch.tanh(i_n + r * h_n)
            return (1 - z) * n + z * h

        check_gru_cell(gru_cell)
        """,
        [r"reset|update|r, z, n|order"],
    ),
    case(
        "checks.decoder_inputs_first_point",
        "decoder_inputs starting from the first source point instead of the last",
        """
        def decoder_inputs(source, target):
            return torch.cat([source[:, :1], target[:, :-1]], dim=1)

        check_decoder_inputs(decoder_inputs)
        """,
        [r"last source|source\[:, ?-1"],
    ),
    case(
        "checks.kernel_boxcar_empty_rows",
        "boxcar_weights dividing by the count: a query with no training point gets NaN",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs(), dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(dim=-1, keepdim=True)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        [r"nan|all[- ]zero|no (training )?point"],
    ),
    case(
        "checks.masked_softmax_in_place",
        "masked_softmax filling the scores in place (masked_fill_)",
        """
        def my_masked_softmax(scores, mask):
            scores.masked_fill_(mask, float("-inf"))
            return torch.nan_to_num(torch.softmax(scores, dim=-1))

        check_masked_softmax(my_masked_softmax)
        """,
        ["scores", "in place|in-place|unchanged|modif|changed"],
    ),
    case(
        "checks.masked_softmax_nan_rows",
        "masked_softmax with -inf and softmax only: a fully masked row gives NaN",
        """
        def my_masked_softmax(scores, mask):
            return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)

        check_masked_softmax(my_masked_softmax)
        """,
        [r"nan|fully masked|all (positions )?masked|all zeros"],
    ),
    case(
        "checks.sdpa_mask_ignored",
        "attention that never applies attn_mask",
        """
        def attention(query, key, value, attn_mask=None):
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
            weights = torch.softmax(scores, dim=-1)
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        ["mask"],
    ),
    case(
        "checks.general_scores_scaled",
        "general_scores divided by sqrt(d), as in scaled dot-product attention",
        """
        def general_scores(query, key, weight):
            return query @ weight @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])

        check_general_scores(general_scores)
        """,
        ["scale|sqrt"],
    ),
    # -- checks: Chapters 3-4 ------------------------------------------------------------------
    case(
        "checks.multi_head_no_out_proj",
        "multi_head_attention without the output projection",
        """
        def multi_head_attention(query, key, value, mha, key_padding_mask):
            D, H = mha.embed_dim, mha.num_heads
            B, T, _ = query.shape
            S = key.shape[1]
            w_q, w_k, w_v = mha.in_proj_weight.chunk(3)
            b_q, b_k, b_v = mha.in_proj_bias.chunk(3)
            q = (query @ w_q.T + b_q).view(B, T, H, D // H).transpose(1, 2)
            k = (key @ w_k.T + b_k).view(B, S, H, D // H).transpose(1, 2)
            v = (value @ w_v.T + b_v).view(B, S, H, D // H).transpose(1, 2)
            scores = q @ k.transpose(-2, -1) / math.sqrt(D // H)
            if key_padding_mask is not None:
                scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
            w = torch.softmax(scores, dim=-1)
            out = (w @ v).transpose(1, 2).reshape(B, T, D)
            return out, w.mean(dim=1)

        check_multi_head_attention(multi_head_attention)
        """,
        ["out_proj"],
    ),
    case(
        "checks.encoder_layer_post_norm_only",
        "encoder_layer always post-norm, ignoring layer.norm_first",
        """
        def encoder_layer(x, layer, src_key_padding_mask):
            attn, _ = layer.self_attn(x, x, x, key_padding_mask=src_key_padding_mask,
                                      need_weights=False)
            x = layer.norm1(x + attn)
            return layer.norm2(x + layer.linear2(torch.relu(layer.linear1(x))))

        check_encoder_layer(encoder_layer)
        """,
        ["norm_first|pre-norm|prenorm"],
    ),
    case(
        "checks.learned_positions_unscaled",
        "LearnedPositions adding the embedding without scaling x by sqrt(d_model)",
        """
        class LearnedPositions(nn.Module):
            def __init__(self, max_len, d_model):
                super().__init__()
                self.d_model = d_model
                self.embedding = nn.Embedding(max_len, d_model)

            def forward(self, x):
                return x + self.embedding(torch.arange(x.shape[1], device=x.device))

        check_learned_positions(LearnedPositions)
        """,
        ["sqrt|scale"],
    ),
    case(
        "checks.shift_matrix_transposed",
        "shift_matrix with each 2x2 rotation transposed (it shifts by -k)",
        """
        def shift_matrix(k, d_model):
            M = torch.zeros(d_model, d_model)
            for i in range(d_model // 2):
                w = 1 / 10000 ** (2 * i / d_model)
                c, s = math.cos(k * w), math.sin(k * w)
                M[2 * i, 2 * i], M[2 * i, 2 * i + 1] = c, -s
                M[2 * i + 1, 2 * i], M[2 * i + 1, 2 * i + 1] = s, c
            return M

        check_shift_matrix(shift_matrix)
        """,
        ["transpos|-k|minus|backward|sign"],
    ),
    # -- checks: Chapters 5-7 ------------------------------------------------------------------
    case(
        "checks.token_positions_without_eos",
        "token_positions encoding the sentence with eos=False",
        """
        def token_positions(sentence, vocab, d_model):
            ids = torch.tensor(vocab.encode(sentence, eos=False))
            return ids, sinusoidal_encoding(len(ids), d_model)

        check_token_positions(token_positions)
        """,
        ["eos"],
    ),
    case(
        "checks.label_smoothing_summed",
        "label_smoothed_loss summed over the predictions instead of averaged",
        """
        def label_smoothed_loss(logits, target, epsilon):
            return F.cross_entropy(logits, target, label_smoothing=epsilon, reduction="sum")

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        ["mean|average|sum"],
    ),
    case(
        "checks.rotate_pairs_ignores_start",
        "rotate_pairs counting positions from 0 whatever start is",
        """
        def rotate_pairs(x, start):
            L, Dh = x.shape
            pos = torch.arange(L, dtype=x.dtype)[:, None]
            speed = 1 / 10000 ** (torch.arange(0, Dh, 2, dtype=x.dtype) / Dh)
            angle = pos * speed
            x1, x2 = x[:, 0::2], x[:, 1::2]
            out = torch.empty_like(x)
            out[:, 0::2] = x1 * torch.cos(angle) - x2 * torch.sin(angle)
            out[:, 1::2] = x1 * torch.sin(angle) + x2 * torch.cos(angle)
            return out

        check_rotate_pairs(rotate_pairs)
        """,
        ["start"],
    ),
    case(
        "checks.prefix_mask_all_causal",
        "prefix_mask returning a plain causal mask (the source cannot look ahead)",
        """
        def prefix_mask(S, T):
            return causal_mask(S + T)

        check_prefix_mask(prefix_mask)
        """,
        ["source|prefix"],
    ),
    # -- checks: Chapter 6 --------------------------------------------------------------------
    case(
        "checks.inverse_transform_no_mean",
        "inverse_transform multiplying by std but forgetting to add the mean",
        """
        def inverse_transform(predicted, observed, mean, std):
            metres = np.asarray(predicted) * std
            return from_local(metres, observed[:, -1:, :2])

        check_inverse_transform(inverse_transform)
        """,
        ["mean"],
    ),
    case(
        "checks.plot_trajectories_unequal_axes",
        "plot_trajectories without equal axes (metres east and north drawn at other scales)",
        """
        def plot_trajectories(observed, future, n):
            fig, ax = plt.subplots()
            for k in range(n):
                seen = to_local(observed[k, :, :2], FLORENCE)
                ahead = to_local(future[k, :, :2], FLORENCE)
                ax.plot(*seen.T, "o-")
                ax.plot(*ahead.T, "x--")
            return fig

        check_plot_trajectories(plot_trajectories, observed, future, 3)
        """,
        ["equal|aspect"],
    ),
    case(
        "checks.datasets_own_statistics",
        "make_datasets standardising the validation split with its own mean and std",
        """
        def make_datasets(train, valid):
            def one(observed, future):
                seen, ahead = relative_metres(observed, future)
                scaler = Standardizer.fit(np.concatenate([seen, ahead], axis=1))
                return TensorDataset(
                    torch.tensor(scaler.transform(seen), dtype=torch.float32),
                    torch.tensor(scaler.transform(ahead), dtype=torch.float32))
            return one(*train), one(*valid)

        check_datasets(make_datasets)
        """,
        ["valid", "train"],
    ),
    # -- grading ------------------------------------------------------------------------------
    case(
        "grading.chapter_unknown",
        "make grade CHAPTER=08: a chapter the book does not have",
        "run_cli(['--chapter', '08', '--submissions', str(tmp), '--out', str(tmp / 'out')])",
        ["08", "02a|01|07"],
    ),
    case(
        "grading.chapter_ambiguous",
        "make grade CHAPTER=02: Chapter 2 has three notebooks, 02a, 02b and 02c",
        "run_cli(['--chapter', '02', '--submissions', str(tmp), '--out', str(tmp / 'out')])",
        ["02a"],
    ),
    case(
        "grading.submissions_empty",
        "--submissions naming an empty folder (the class's files not unpacked yet); what the "
        "grader prints counts as its warning",
        """
        import warnings
        (tmp / "subs").mkdir()
        printed = run_cli(['--chapter', '02b', '--submissions', str(tmp / 'subs'),
                           '--out', str(tmp / 'out')])
        if printed.strip():
            warnings.warn(printed)
        """,
        ["no .*ipynb|no notebook|empty|0 submissions|no submissions"],
        expect="warn",
    ),
    case(
        "grading.submissions_not_a_zip",
        "--submissions naming a .zip that is not a zip archive (a failed download)",
        """
        (tmp / "class.zip").write_text("<html>login</html>")
        run_cli(['--chapter', '02b', '--submissions', str(tmp / 'class.zip'),
                 '--out', str(tmp / 'out')])
        """,
        [r"class\.zip", "not a (valid )?zip|corrupt|damaged|bad zip|could not|invalid"],
    ),
    case(
        "grading.assignment_missing",
        "load_assignment of a notebook path with the wrong folder",
        """
        from course_lib.grading.assignment import load_assignment
        load_assignment(tmp / '05_translation_exercises.ipynb')
        """,
        ["05_translation_exercises", "not found|no such|does not exist|missing|no file"],
    ),
]
