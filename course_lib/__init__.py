"""course_lib: the small, tested library behind "Attention, step by step".

One idea per module; import what you need, e.g. ``from course_lib.seq2seq import Encoder``.
Importing the package does no work: no printing, no seeding, no style changes.
"""

__version__ = "0.1.0"
