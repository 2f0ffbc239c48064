"""Self-checks for the exercises: run your answer on several cases and explain what is off.

Each ``check_*`` function takes the function you wrote, calls it on a few cases, compares
the result with the library's own implementation and either prints a one-line success or
raises :class:`CheckFailed` whose message says, in words, what differs -- and, for the
common mistakes, what the likely cause is. A function that still raises
``NotImplementedError`` fails with a message saying so.

The grader runs the same checks on cases the student never saw: see ``unseen_cases``.

A module or two per chapter, none over a few hundred lines; everything is importable from
``course_lib.checks``.
"""

from course_lib.checks._core import CheckFailed, unseen_cases
from course_lib.checks.attention import (
    check_general_scores,
    check_kernel_weights,
    check_masked_softmax,
    check_scaled_dot_product_attention,
)
from course_lib.checks.attention_decoder import (
    check_attention_step,
    check_context_only_decoder,
)
from course_lib.checks.decoding import check_cached_attention_step, check_label_smoothed_loss
from course_lib.checks.experiments import (
    check_train_add_norm,
    check_train_on_plateau,
    check_train_width,
)
from course_lib.checks.gps import (
    check_ade_fde,
    check_constant_velocity,
    check_datasets,
    check_haversine,
    check_inverse_transform,
)
from course_lib.checks.gps_pipeline import (
    check_models,
    check_plot_predictions,
    check_plot_trajectories,
    check_stay_floor,
    check_training,
)
from course_lib.checks.modern import (
    check_cache_bytes,
    check_prefix_mask,
    check_repeat_kv,
    check_rotate_pairs,
)
from course_lib.checks.seq2seq import (
    check_decoder_inputs,
    check_gru_cell,
    check_scheduled_decode,
)
from course_lib.checks.transformer import (
    check_encoder_layer,
    check_learned_positions,
    check_multi_head_attention,
    check_shift_matrix,
)
from course_lib.checks.translation import (
    check_attention_shapes,
    check_chapter_vocabulary,
    check_decoder_self_attention_mask,
    check_token_positions,
)

__all__ = [
    "CheckFailed",
    "unseen_cases",
    # Chapter 1
    "check_gru_cell",
    "check_decoder_inputs",
    "check_scheduled_decode",
    # Chapter 2
    "check_kernel_weights",
    "check_masked_softmax",
    "check_scaled_dot_product_attention",
    "check_general_scores",
    "check_attention_step",
    "check_context_only_decoder",
    # Chapters 3 and 4
    "check_multi_head_attention",
    "check_encoder_layer",
    "check_learned_positions",
    "check_shift_matrix",
    # Chapters 1, 3 and 4: experiments
    "check_train_width",
    "check_train_add_norm",
    "check_train_on_plateau",
    # Chapter 5
    "check_token_positions",
    "check_chapter_vocabulary",
    "check_attention_shapes",
    "check_decoder_self_attention_mask",
    "check_cached_attention_step",
    "check_label_smoothed_loss",
    # Chapter 7
    "check_rotate_pairs",
    "check_repeat_kv",
    "check_cache_bytes",
    "check_prefix_mask",
    # Chapter 6
    "check_plot_trajectories",
    "check_datasets",
    "check_models",
    "check_training",
    "check_inverse_transform",
    "check_haversine",
    "check_ade_fde",
    "check_constant_velocity",
    "check_plot_predictions",
    "check_stay_floor",
]
