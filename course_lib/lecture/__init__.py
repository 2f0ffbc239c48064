"""The lecture's teaching classes, kept as the chapters build them.

The chapters first build the lecture's own code, cell by cell, so that its worked examples
and training runs reproduce number for number; a later chapter that needs the same classes
imports them from here instead of retyping them. A test checks that every class a chapter
builds is, statement for statement, the one kept here.

These classes keep the lecture's design *on purpose*, and it is not the library's:

* state is **set** on a module before it is called (``init_hidden``, ``init_keys``) and
  overwritten by every call;
* attention weights are **stored** on the module (``alphas``) instead of being returned;
* masks use the lecture's polarity, **True = may attend** (the library, like PyTorch,
  uses True = blocked), and are passed as ``mask``, not under PyTorch's mask names.

Use the rest of ``course_lib`` for anything new. Modules:

* :mod:`course_lib.lecture.seq2seq` -- GRU encoder, decoder and encoder-decoder (Chapter 1)
* :mod:`course_lib.lecture.attention` -- one attention head and the attention decoder
  (Chapter 2)
* :mod:`course_lib.lecture.self_attention` -- multi-head attention and the self-attention
  encoder-decoder (Chapter 3)
* :mod:`course_lib.lecture.training` -- the lecture's data loaders and training loop
"""
