"""Mistakes with the exercises' self-checks (a student) and with the grader (an instructor).

A check takes the student's function; the slips here are those of calling a check (the
result instead of the function, arguments swapped or missing) and the common wrong answers
the checks promise to name. The grader's command line runs in-process through
``run_cli(argv)``, which raises ``CliError`` with what the command printed when it fails.
"""

from __future__ import annotations

from mistake_cases import POSITIVE, case

_EXERCISES = "Path(__import__('course_lib').__file__).resolve().parents[1] / 'exercises'"
_CHAPTERS = "Path(__import__('course_lib').__file__).resolve().parents[1] / 'chapters'"

CASES = [
    # -- checks: calling a check --------------------------------------------------------------
    case(
        "checks.result_not_function",
        "check_masked_softmax given the result of the student's function",
        "check_masked_softmax(masked_softmax(scores))",
        ["function", "itself|not|instead"],
    ),
    case(
        "checks.dict_not_function",
        "check_models given the models' dict, not the function that builds it",
        "check_models({'GRU': seq2seq})",
        ["function", "itself|not|instead"],
    ),
    case(
        "checks.number_not_function",
        "check_stay_floor given the estimated number",
        "check_stay_floor(98.9)",
        ["function", "itself|not|instead"],
    ),
    case(
        "checks.kernel_missing",
        "check_kernel_weights(laplace_weights) without boxcar_weights",
        "check_kernel_weights(lambda d: torch.softmax(-d.abs(), -1))",
        ["boxcar_weights"],
    ),
    case(
        "checks.kernel_swapped",
        "check_kernel_weights(boxcar_weights, laplace_weights): the two swapped",
        """
        def laplace_weights(diffs):
            return torch.softmax(-diffs.abs(), dim=-1)

        def boxcar_weights(diffs, half_width=0.5):
            inside = (diffs.abs() < half_width).float()
            return inside / inside.sum(-1, keepdim=True).clamp(min=1)

        check_kernel_weights(boxcar_weights, laplace_weights)
        """,
        ["laplace", "boxcar", "swap|order"],
    ),
    case(
        "checks.plot_missing_data",
        "check_plot_trajectories(plot_trajectories) without the data",
        "check_plot_trajectories(lambda observed, future, n: plt.figure())",
        ["observed", "future"],
    ),
    case(
        "checks.train_width_missing_sets",
        "check_train_width(train_width) without the datasets",
        "check_train_width(lambda hidden_dim: None)",
        ["train_set", "val_set"],
    ),
    case(
        "checks.train_width_returns_model",
        "train_width returning the model instead of the Trainer",
        """
        def train_width(hidden_dim):
            return EncoderDecoder.from_config(Seq2SeqConfig(hidden_dim=hidden_dim))

        check_train_width(train_width, train_set, val_set)
        """,
        ["trainer", "model"],
    ),
    case(
        "checks.context_only_instance",
        "check_context_only_decoder given an instance, not the class",
        """
        class ContextOnlyDecoder(AttentionDecoder):
            def __init__(self, n_features, hidden_dim):
                super().__init__(n_features, hidden_dim)
                self.output = nn.Linear(hidden_dim, n_features)

        check_context_only_decoder(ContextOnlyDecoder(2, 4))
        """,
        ["class", "instance"],
    ),
    case(
        "checks.unseen_variant_zero",
        "unseen_cases(0)",
        "with unseen_cases(0):\n    pass",
        ["variant", POSITIVE],
    ),
    # -- checks: answers that return the wrong thing ------------------------------------------
    case(
        "checks.masked_softmax_one_argument",
        "masked_softmax written with one parameter (the mask forgotten)",
        """
        def my_masked_softmax(scores):
            return torch.softmax(scores, dim=-1)

        check_masked_softmax(my_masked_softmax)
        """,
        ["masked_softmax", "argument|mask"],
    ),
    case(
        "checks.masked_softmax_polarity",
        "masked_softmax keeping the positions where the mask is True",
        """
        def my_masked_softmax(scores, mask):
            return masked_softmax(scores, ~mask)

        check_masked_softmax(my_masked_softmax)
        """,
        ["true", "blocked"],
    ),
    case(
        "checks.sdpa_context_only",
        "attention returning the context alone",
        """
        def attention(query, key, value, attn_mask=None):
            return scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)[0]

        check_scaled_dot_product_attention(attention)
        """,
        ["pair|tuple", "context", "weights"],
    ),
    case(
        "checks.sdpa_swapped_pair",
        "attention returning (weights, context)",
        """
        def attention(query, key, value, attn_mask=None):
            context, weights = scaled_dot_product_attention(query, key, value, attn_mask=attn_mask)
            return weights, context

        check_scaled_dot_product_attention(attention)
        """,
        ["context", "weights", "swap|order"],
    ),
    case(
        "checks.sdpa_unscaled",
        "attention without the 1/sqrt(E) scale",
        """
        def attention(query, key, value, attn_mask=None):
            weights = masked_softmax(query @ key.transpose(-2, -1), attn_mask)
            return weights @ value, weights

        check_scaled_dot_product_attention(attention)
        """,
        ["sqrt|scale"],
    ),
    case(
        "checks.general_scores_transposed",
        "general_scores using the weight transposed",
        """
        def general_scores(query, key, weight):
            return query @ weight.T @ key.transpose(-2, -1)

        check_general_scores(general_scores)
        """,
        ["transposed"],
    ),
    case(
        "checks.decoder_inputs_numpy",
        "decoder_inputs returning a NumPy array",
        """
        def decoder_inputs(source, target):
            return torch.cat([source[:, -1:], target[:, :-1]], dim=1).numpy()

        check_decoder_inputs(decoder_inputs)
        """,
        ["tensor", "ndarray|numpy"],
    ),
    case(
        "checks.haversine_km",
        "haversine returning kilometres",
        """
        def my_haversine(a, b):
            return haversine(a, b) / 1000

        check_haversine(my_haversine)
        """,
        ["kilometre|km|1000", "metre"],
    ),
    case(
        "checks.ade_fde_swapped",
        "ade_fde returning (fde, ade)",
        """
        def my_ade_fde(predicted, true):
            ade, fde = ade_fde(predicted, true)
            return fde, ade

        check_ade_fde(my_ade_fde)
        """,
        ["ade", "fde", "swap|order"],
    ),
    case(
        "checks.repeat_kv_tiled",
        "repeat_kv with repeat (tiled) instead of repeat_interleave",
        """
        def repeat_kv(kv, num_heads):
            return kv.repeat(1, num_heads // kv.shape[1], 1, 1)

        check_repeat_kv(repeat_kv)
        """,
        ["repeat_interleave"],
    ),
    case(
        "checks.cache_bytes_keys_only",
        "cache_bytes counting the keys alone",
        """
        def cache_bytes(num_layers, num_kv_heads, head_dim, bytes_per_number, tokens):
            return num_layers * num_kv_heads * head_dim * bytes_per_number * tokens

        check_cache_bytes(cache_bytes)
        """,
        ["key", "value"],
    ),
    case(
        "checks.token_positions_list",
        "token_positions returning the ids as a list",
        """
        def token_positions(sentence, vocab, d_model):
            ids = vocab.encode(sentence)
            return ids, sinusoidal_encoding(len(ids), d_model)

        check_token_positions(token_positions)
        """,
        ["ids", "tensor"],
    ),
    case(
        "checks.label_smoothing_per_sample",
        "label_smoothed_loss returning one loss per prediction, not their mean",
        """
        def label_smoothed_loss(logits, target, epsilon):
            return F.cross_entropy(logits, target, label_smoothing=epsilon, reduction="none")

        check_label_smoothed_loss(label_smoothed_loss)
        """,
        ["scalar|one number|mean|average"],
    ),
    case(
        "checks.cached_step_prepended",
        "cached_attention_step putting the new key and value at the front of the cache",
        """
        def cached_attention_step(q, k, v, cache_k, cache_v):
            cache_k, cache_v = torch.cat([k, cache_k], 1), torch.cat([v, cache_v], 1)
            context, _ = scaled_dot_product_attention(q, cache_k, cache_v)
            return context, cache_k, cache_v

        check_cached_attention_step(cached_attention_step)
        """,
        ["end|front|append"],
    ),
    case(
        "checks.self_mask_causal_only",
        "decoder_self_attention_mask without the padding",
        """
        def decoder_self_attention_mask(tgt_in):
            B, T = tgt_in.shape
            return causal_mask(T)[None].expand(B, T, T)

        check_decoder_self_attention_mask(decoder_self_attention_mask)
        """,
        ["pad"],
    ),
    case(
        "checks.attention_shapes_tensors",
        "attention_shapes returning the tensors instead of their shapes",
        """
        def attention_shapes(B, Lq, Lk, D, H):
            mha = MultiHeadAttention(D, H)
            q, kv = torch.randn(B, Lq, D), torch.randn(B, Lk, D)
            out, avg = mha(q, kv, kv)
            _, per_head = mha(q, kv, kv, average_attn_weights=False)
            return out, avg, per_head

        check_attention_shapes(attention_shapes)
        """,
        ["shape", "tensor"],
    ),
    # -- grading ------------------------------------------------------------------------------
    case(
        "grading.chapter_unpadded",
        "make grade CHAPTER=5 (not 05)",
        "run_cli(['--chapter', '5', '--submissions', str(tmp), '--out', str(tmp / 'out')])",
        ["chapter", "05"],
    ),
    case(
        "grading.no_submissions",
        "the grader run without --submissions",
        "run_cli(['--chapter', '05'])",
        ["--submissions|submissions"],
    ),
    case(
        "grading.submissions_missing",
        "--submissions naming a folder that does not exist",
        "run_cli(['--chapter', '05', '--submissions', str(tmp / 'nope'), "
        "'--out', str(tmp / 'out')])",
        ["submissions", "does not exist"],
    ),
    case(
        "grading.submissions_one_notebook",
        "--submissions naming one notebook, not the folder of them",
        """
        (tmp / "alice.ipynb").write_text("{}")
        run_cli(['--chapter', '05', '--submissions', str(tmp / 'alice.ipynb'),
                 '--out', str(tmp / 'out')])
        """,
        ["submissions", "folder|zip"],
    ),
    case(
        "grading.out_is_file",
        "--out naming a file",
        """
        (tmp / "grades.txt").write_text("")
        run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'grades.txt')])
        """,
        ["out", "file|folder"],
    ),
    case(
        "grading.out_used",
        "--out naming the folder of an earlier run",
        """
        (tmp / "out").mkdir()
        (tmp / "out" / "grades.csv").write_text("")
        run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out')])
        """,
        ["out", "already|earlier"],
    ),
    case(
        "grading.jobs_zero",
        "--jobs 0",
        "run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out'), "
        "'--jobs', '0'])",
        ["jobs", POSITIVE],
    ),
    case(
        "grading.timeout_zero",
        "--timeout 0",
        "run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out'), "
        "'--timeout', '0'])",
        ["timeout", POSITIVE],
    ),
    case(
        "grading.variant_zero",
        "--variant 0 (the students' own cases)",
        "run_cli(['--chapter', '05', '--submissions', str(tmp), '--out', str(tmp / 'out'), "
        "'--variant', '0'])",
        ["variant", POSITIVE],
    ),
    case(
        "grading.no_chapter",
        "the grader run without --chapter",
        "run_cli(['--submissions', str(tmp), '--out', str(tmp / 'out')])",
        ["--chapter", "required"],
    ),
    case(
        "grading.exercises_folder",
        "--exercises naming the chapters' folder",
        f"run_cli(['--chapter', '05', '--exercises', str({_CHAPTERS}), '--submissions', "
        "str(tmp), '--out', str(tmp / 'out')])",
        ["exercises"],
    ),
    case(
        "grading.options_timeout_string",
        "Options(timeout_s='60'): the seconds as a string",
        "from course_lib.grading.grade import Options\nOptions(timeout_s='60')",
        ["timeout_s", "number|seconds"],
    ),
    case(
        "grading.assignment_from_chapter",
        "load_assignment of the chapter notebook, not the student notebook",
        "from course_lib.grading.assignment import load_assignment\n"
        f"load_assignment({_CHAPTERS} / '01_seq2seq.ipynb')",
        ["student", "make student|exercises"],
    ),
    case(
        "grading.submission_path",
        "grade_submission given a notebook's path, not a Submission",
        f"""
        from course_lib.grading.assignment import load_assignment
        from course_lib.grading.grade import grade_submission
        assignment = load_assignment({_EXERCISES} / '01_seq2seq_exercises.ipynb')
        (tmp / "alice.ipynb").write_text("{{}}")
        grade_submission(tmp / "alice.ipynb", assignment)
        """,
        ["submission", r"submission\(|student"],
    ),
]
