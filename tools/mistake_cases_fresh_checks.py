"""Fresh mistakes with the exercises' self-checks and the grader (see
``tools/probe_fresh.py``).

A self-check case is a plausible wrong answer to an exercise (or a check used the wrong
way): the check must fail (``CheckFailed``) with a message that points at the cause. A grading
case is an instructor's slip with ``make grade`` (``run_cli`` runs ``python -m
course_lib.grading`` in-process; ``tmp`` is an empty folder).
"""

from __future__ import annotations

from mistake_cases import case

_EXERCISES = "Path(__import__('course_lib').__file__).resolve().parents[1] / 'exercises'"

CASES = [
    # -- checks: Chapter 1 --------------------------------------------------------------------
    case(
        "checks.gru_cell_mix_swapped",
        "gru_cell mixing the candidate and the old state the other way: z * n + (1 - z) * h",
        """
        def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
            i_r, i_z, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)
            h_r, h_z, h_n = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)
            r = torch.sigmoid(i_r + h_r)
            z = torch.sigmoid(i_z + h_z)
            n = torch.tanh(i_n + r * h_n)
            return z * n + (1 - z) * h

        check_gru_cell(gru_cell)
        """,
        [r"1 ?- ?z|update gate|interpolat|\bz\b"],
    ),
    case(
        "checks.decoder_inputs_extra_step",
        "decoder_inputs keeping every target point: T + 1 inputs",
        """
        def decoder_inputs(source, target):
            return torch.cat([source[:, -1:], target], dim=1)

        check_decoder_inputs(decoder_inputs)
        """,
        [r"\(b, ?t, ?f\)|shape|one (step|point) too many|length"],
    ),
    case(
        "checks.scheduled_one_coin_per_batch",
        "decode_scheduled drawing one coin for the whole batch, not one per sequence",
        """
        def decode_scheduled(encoder, decoder, source, target, p, generator):
            _, hidden = encoder(source)
            x = source[:, -1:]
            outs = []
            for t in range(target.shape[1]):
                if t > 0:
                    coin = torch.rand(1, generator=generator) < p
                    x = target[:, t - 1 : t] if coin else outs[-1]
                out, hidden, _ = decoder(x, hidden)
                outs.append(out)
            return torch.cat(outs, dim=1)

        check_scheduled_decode(decode_scheduled)
        """,
        ["coin|each sequence|per sequence|own"],
    ),
    case(
        "checks.scheduled_decode_no_grad",
        "decode_scheduled run under torch.no_grad() (the predictions cannot be trained)",
        """
        def decode_scheduled(encoder, decoder, source, target, p, generator):
            with torch.no_grad():
                _, hidden = encoder(source)
                x = source[:, -1:]
                outs = []
                for t in range(target.shape[1]):
                    if t > 0:
                        coins = torch.rand(source.shape[0], generator=generator) < p
                        x = torch.where(coins[:, None, None], target[:, t - 1 : t], outs[-1])
                    out, hidden, _ = decoder(x, hidden)
                    outs.append(out)
                return torch.cat(outs, dim=1)

        check_scheduled_decode(decode_scheduled)
        """,
        ["grad"],
    ),
    # -- checks: Chapter 2 --------------------------------------------------------------------
    case(
        "checks.kernel_laplace_gaussian",
        "laplace_weights with a Gaussian kernel (squared differences) instead of |diffs|",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs**2 / 2, dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(dim=-1, keepdim=True).clamp(min=1)

        check_kernel_weights(laplace_weights, boxcar_weights)
        """,
        ["laplace", r"softmax|abs|absolute|gaussian|square"],
    ),
    case(
        "checks.masked_softmax_large_negative",
        "masked_softmax with masked_fill(-1e9): a fully masked row gets uniform weights",
        """
        def my_masked_softmax(scores, mask):
            return torch.softmax(scores.masked_fill(mask, -1e9), dim=-1)

        check_masked_softmax(my_masked_softmax)
        """,
        [r"fully masked|all zeros|all-zero|zero weights|no allowed"],
    ),
    case(
        "checks.sdpa_softmax_over_queries",
        "attention with the softmax over the queries (dim=-2), not the keys",
        """
        def attention(query, key, value, attn_mask=None):
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
            if attn_mask is not None:
                scores = scores.masked_fill(attn_mask, float("-inf"))
            weights = torch.nan_to_num(torch.softmax(scores, dim=-2))
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        [r"axis|dim=|over the keys|sum to (1|one)|rows? sum"],
    ),
    case(
        "checks.general_scores_key_untransposed",
        "general_scores multiplying by key without transposing it",
        """
        def general_scores(query, key, weight):
            return query @ weight @ key

        check_general_scores(general_scores)
        """,
        ["general_scores", "transpos|raised|shape"],
    ),
    case(
        "checks.general_scores_softmax",
        "general_scores returning softmax weights instead of the raw scores",
        """
        def general_scores(query, key, weight):
            return torch.softmax(query @ weight @ key.transpose(-2, -1), dim=-1)

        check_general_scores(general_scores)
        """,
        ["softmax|raw|not normali"],
    ),
    case(
        "checks.attention_step_mask_ignored",
        "attention_step that never applies memory_key_padding_mask",
        """
        def attention_step(decoder, x, hidden, memory, memory_key_padding_mask):
            query, hidden = decoder.gru(x, hidden)
            q = decoder.attention.q_proj(query)
            k = decoder.attention.k_proj(memory)
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            weights = torch.softmax(scores, dim=-1)
            context = weights @ memory
            out = decoder.output(torch.cat([context, query], dim=-1))
            return out, hidden, weights

        check_attention_step(attention_step)
        """,
        ["mask|padding"],
    ),
    case(
        "checks.context_only_returns_pair",
        "ContextOnlyDecoder.forward returning (out, hidden) without the weights",
        """
        class ContextOnlyDecoder(AttentionDecoder):
            def __init__(self, n_features, hidden_dim):
                super().__init__(n_features, hidden_dim)
                self.output = nn.Linear(hidden_dim, n_features)

            def forward(self, x, hidden, memory=None, *, memory_key_padding_mask=None):
                query, hidden = self.gru(x, hidden)
                context, weights = self.attention(
                    query, memory, key_padding_mask=memory_key_padding_mask
                )
                return self.output(context), hidden

        check_context_only_decoder(ContextOnlyDecoder)
        """,
        [r"\(out, ?hidden, ?weights\)|three|weights"],
    ),
    # -- checks: Chapters 3-4 -----------------------------------------------------------------
    case(
        "checks.multi_head_per_head_weights",
        "multi_head_attention returning the weights of every head, not their average",
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
            out = mha.out_proj((w @ v).transpose(1, 2).reshape(B, T, D))
            return out, w

        check_multi_head_attention(multi_head_attention)
        """,
        [r"average|mean|\(b, ?t, ?s\)|over the heads"],
    ),
    case(
        "checks.encoder_layer_gelu",
        "encoder_layer with a GELU between the linear layers instead of the ReLU",
        """
        def encoder_layer(x, layer, src_key_padding_mask):
            def attend(h):
                return layer.self_attn(h, h, h, key_padding_mask=src_key_padding_mask,
                                       need_weights=False)[0]

            if layer.norm_first:
                x = x + attend(layer.norm1(x))
                return x + layer.linear2(F.gelu(layer.linear1(layer.norm2(x))))
            x = layer.norm1(x + attend(x))
            return layer.norm2(x + layer.linear2(F.gelu(layer.linear1(x))))

        check_encoder_layer(encoder_layer)
        """,
        ["relu|activation|gelu"],
    ),
    case(
        "checks.learned_positions_other_name",
        "LearnedPositions storing its table as self.pos, not self.embedding",
        """
        class LearnedPositions(nn.Module):
            def __init__(self, max_len, d_model):
                super().__init__()
                self.d_model = d_model
                self.pos = nn.Embedding(max_len, d_model)

            def forward(self, x):
                positions = torch.arange(x.shape[1], device=x.device)
                return x * math.sqrt(self.d_model) + self.pos(positions)

        check_learned_positions(LearnedPositions)
        """,
        ["embedding"],
    ),
    case(
        "checks.shift_matrix_one_speed",
        "shift_matrix turning every pair by k, without the pair's speed 1 / 10000^(2i / D)",
        """
        def shift_matrix(k, d_model):
            M = torch.zeros(d_model, d_model)
            for i in range(d_model // 2):
                c, s = math.cos(k), math.sin(k)
                M[2 * i, 2 * i], M[2 * i, 2 * i + 1] = c, s
                M[2 * i + 1, 2 * i], M[2 * i + 1, 2 * i + 1] = -s, c
            return M

        check_shift_matrix(shift_matrix)
        """,
        ["speed|frequenc|10000|wavelength"],
    ),
    # -- checks: Chapters 5 and 7 -------------------------------------------------------------
    case(
        "checks.attention_shapes_keys_queries_swapped",
        "attention_shapes giving the weights as (B, Lk, Lq)",
        """
        def attention_shapes(B, Lq, Lk, D, H):
            return (B, Lq, D), (B, Lk, Lq), (B, H, Lk, Lq)

        check_attention_shapes(attention_shapes)
        """,
        [r"\(b, ?lq, ?lk\)|\blq\b|\blk\b|quer"],
    ),
    case(
        "checks.cached_step_old_cache",
        "cached_attention_step returning the cache it was given, without the new key and value",
        """
        def cached_attention_step(q, k, v, cache_k, cache_v):
            keys = torch.cat([cache_k, k], dim=1)
            values = torch.cat([cache_v, v], dim=1)
            w = torch.softmax(q @ keys.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
            return w @ values, cache_k, cache_v

        check_cached_attention_step(cached_attention_step)
        """,
        ["cache", r"append|t ?\+ ?1|new (key|step)|grow"],
    ),
    case(
        "checks.label_smoothing_over_others",
        "label_smoothed_loss spreading epsilon over the V - 1 wrong classes only",
        """
        def label_smoothed_loss(logits, target, epsilon):
            V = logits.shape[-1]
            q = torch.full_like(logits, epsilon / (V - 1))
            q.scatter_(1, target[:, None], 1 - epsilon)
            return -(q * F.log_softmax(logits, dim=-1)).sum(-1).mean()

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        [r"all v|every class|true (one|class)|v - 1|v-1|included|epsilon ?/ ?v"],
    ),
    case(
        "checks.rotate_pairs_halves",
        "rotate_pairs rotating the two halves (GPT-NeoX layout), not adjacent pairs",
        """
        def rotate_pairs(x, start):
            L, Dh = x.shape
            pos = torch.arange(start, start + L, dtype=x.dtype)[:, None]
            speed = 1 / 10000 ** (torch.arange(0, Dh, 2, dtype=x.dtype) / Dh)
            angle = pos * speed
            x1, x2 = x[:, : Dh // 2], x[:, Dh // 2 :]
            return torch.cat([x1 * torch.cos(angle) - x2 * torch.sin(angle),
                              x1 * torch.sin(angle) + x2 * torch.cos(angle)], dim=-1)

        check_rotate_pairs(rotate_pairs)
        """,
        [r"adjacent|2i|interleav|halves|half|neighbou|x\[2i\]"],
    ),
    case(
        "checks.repeat_kv_wrong_axis",
        "repeat_kv repeating along the positions (dim=2) instead of the heads",
        """
        def repeat_kv(kv, num_heads):
            return kv.repeat_interleave(num_heads // kv.shape[1], dim=2)

        check_repeat_kv(repeat_kv)
        """,
        [r"shape|\(b, ?nh, ?s, ?dh\)|axis|dim"],
    ),
    case(
        "checks.cache_bytes_one_layer",
        "cache_bytes forgetting the number of layers",
        """
        def cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens):
            return 2 * num_kv_heads * head_dim * bytes_per_number * tokens

        check_cache_bytes(cache_bytes)
        """,
        ["layer"],
    ),
    case(
        "checks.prefix_mask_float",
        "prefix_mask returning an additive float mask (0 / -inf) instead of booleans",
        """
        def prefix_mask(S, T):
            n = S + T
            mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
            mask[:S, :S] = 0.0
            return mask

        check_prefix_mask(prefix_mask)
        """,
        ["bool|dtype"],
    ),
    # -- checks: Chapter 6 --------------------------------------------------------------------
    case(
        "checks.haversine_degrees",
        "my_haversine taking sines and cosines of degrees (np.radians forgotten)",
        """
        def my_haversine(a, b):
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            lat1, lon1, lat2, lon2 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
            h = (np.sin((lat2 - lat1) / 2) ** 2
                 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2)
            return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(h))

        check_haversine(my_haversine)
        """,
        ["radian|degree"],
    ),
    case(
        "checks.inverse_transform_first_fix",
        "inverse_transform measuring from the first observed fix instead of the last",
        """
        def inverse_transform(predicted, observed, mean, std):
            metres = np.asarray(predicted) * std + mean
            return from_local(metres, observed[:, :1, :2])

        check_inverse_transform(inverse_transform)
        """,
        [r"last observed|last fix|observed\[:, ?-1|origin"],
    ),
    case(
        "checks.constant_velocity_first_fixes",
        "my_constant_velocity taking the velocity of the first two fixes, not the last two",
        """
        def my_constant_velocity(observed, times):
            first, second, last = observed[:, 0], observed[:, 1], observed[:, -1]
            step = to_local(second[:, None, :2], first[:, None, :2])
            velocity = step / (second[:, 2] - first[:, 2])[:, None, None]
            dt = times - last[:, None, 2]
            return from_local(velocity * dt[..., None], last[:, None, :2])

        check_constant_velocity(my_constant_velocity)
        """,
        ["last two|last fixes|two last|most recent"],
    ),
    case(
        "checks.stay_floor_stored_number",
        "stay_ade returning the number printed in the notebook, graded inside unseen_cases",
        """
        with unseen_cases():
            check_stay_floor(lambda n, rng: 98.9)
        """,
        ["stored|constant|same (number|value|answer)|must differ|does not (depend|change)"],
    ),
    case(
        "checks.models_wrong_keys",
        "build_models with keys of its own ('gru', 'attention', 'transformer')",
        """
        def build_models():
            return {
                "gru": EncoderDecoder(Encoder(2, 16), Decoder(2, 16), target_len=3),
                "attention": EncoderDecoder(Encoder(2, 16), AttentionDecoder(2, 16), target_len=3),
                "transformer": SelfAttentionEncoderDecoder(SelfAttentionConfig(target_len=3)),
            }

        check_models(build_models)
        """,
        [r"gru \+ attention|self-attention"],
    ),
    case(
        "checks.datasets_unstandardised",
        "make_datasets returning metres, never standardised",
        """
        def make_datasets(train, valid):
            def one(observed, future):
                seen, ahead = relative_metres(observed, future)
                return TensorDataset(torch.tensor(seen, dtype=torch.float32),
                                     torch.tensor(ahead, dtype=torch.float32))
            return one(*train), one(*valid)

        check_datasets(make_datasets)
        """,
        ["standardi|mean|std|scal"],
    ),
    # -- grading ------------------------------------------------------------------------------
    case(
        "grading.jobs_word",
        "--jobs all (make's -j habit)",
        "run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out'), "
        "'--jobs', 'all'])",
        ["jobs", "int|number"],
    ),
    case(
        "grading.timeout_minutes",
        "--timeout 2m: minutes with a unit where seconds go",
        "run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out'), "
        "'--timeout', '2m'])",
        ["timeout", "second|number"],
    ),
    case(
        "grading.gradescope_not_zip",
        "--gradescope naming a .tar.gz file (Gradescope takes a .zip)",
        "run_cli(['--chapter', '02b', '--gradescope', str(tmp / 'autograder.tar.gz')])",
        ["gradescope", r"\.zip"],
    ),
    case(
        "grading.out_is_submissions",
        "--out naming the submissions folder itself",
        """
        (tmp / "subs").mkdir()
        (tmp / "subs" / "alice.ipynb").write_text("{}")
        run_cli(['--chapter', '02b', '--submissions', str(tmp / 'subs'),
                 '--out', str(tmp / 'subs')])
        """,
        ["out", "submissions"],
    ),
    case(
        "grading.options_dict",
        "grade_submission(..., {'timeout_s': 60}): a dict where an Options goes",
        f"""
        import json
        from course_lib.grading.assignment import load_assignment
        from course_lib.grading.grade import Submission, grade_submission
        assignment = load_assignment({_EXERCISES} / '02b_scoring_functions_exercises.ipynb')
        notebook = {{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}
        (tmp / "alice.ipynb").write_text(json.dumps(notebook))
        grade_submission(Submission("alice", tmp / "alice.ipynb"), assignment, {{"timeout_s": 60}})
        """,
        ["options", r"options\("],
    ),
    case(
        "grading.chapter_notebook_path",
        "--chapter given the path of the student notebook",
        "run_cli(['--chapter', 'exercises/05_translation_exercises.ipynb', '--submissions', "
        "str(tmp), '--out', str(tmp / 'out')])",
        ["chapter", r"\b05\b|01, 02a"],
    ),
]
