"""course_lib: the small, tested library behind "Attention, step by step".

One idea per module; import what you need, e.g. ``from course_lib.seq2seq import Encoder``.
Importing the package does no work: no printing, no seeding, no style changes.

The modules, grouped as the reference page (``api.md``) groups them:

* attention core -- ``masking`` (one mask polarity: True = blocked), ``attention``,
  ``multihead`` (grouped-query attention too), ``positional``, ``rotary``, ``modern_block``
  (RMSNorm, SwiGLU);
* recurrent models -- ``seq2seq``, ``seq2seq_attention``;
* Transformer -- ``transformer`` (layers, stacks, the decoding cache);
* task, squares -- ``squares``, ``points_transformer``;
* task, translation -- ``datafiles`` -> ``tatoeba`` -> ``vocab`` -> ``translation`` /
  ``recurrent_translation`` / ``decoder_only`` -> ``decoding``;
* task, trajectories -- ``geo``, ``gps`` (generators), ``trajectories`` (features, metrics,
  baselines);
* training and evaluation -- ``train`` (the one loop), ``ensemble`` (several runs of one
  model trained together), ``schedules``, ``metrics``,
  ``multiple_comparisons``, ``plots``;
* exercises and the lecture's code -- ``checks``, ``grading`` (a class's notebooks graded
  with the checks: ``make grade``), ``lecture``.

``_validate`` holds the input checks the modules share, with ``_validate_basics`` and
``_validate_attention`` (package-private).
"""

__version__ = "0.1.0"
