"""The grader runs the cells the checks need, and keeps every cell that could matter."""

import pytest

from course_lib.grading.slicing import binds_anywhere, needed_cells


def test_the_function_its_helpers_and_their_imports_are_kept():
    cells = [
        "import torch\nimport numpy as np",  # read by the helper
        "SCALE = 2.0",  # read by the helper
        "def helper(x):\n    return torch.tanh(x) * SCALE",
        "def answer(x):\n    return helper(x) + 1",
        "trainers = [answer(torch.ones(3)) for _ in range(8)]",  # an experiment
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])",  # a figure
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, True, False, False]


def test_a_cell_that_cannot_be_parsed_is_kept_and_magics_are_read_past():
    cells = ["%matplotlib inline\nimport torch", "def answer(:", "def answer(x):\n    return x"]
    assert needed_cells(cells, {"answer"}) == [False, True, True]
    assert needed_cells(cells, {"torch"}) == [True, True, False]


def test_every_cell_that_binds_a_needed_name_is_kept_wherever_it_is():
    cells = ["def answer(x):\n    return x", "answer = None", "del answer", "x = 1"]
    assert needed_cells(cells, {"answer"}) == [True, True, True, False]


# A notebook as students write it: the experiments read the answer (call it, train with it,
# plot it) and bind or change nothing the answer reads, so they are never run again.
EXPERIMENTS = [
    "losses = [answer(x) for x in xs]",
    "import matplotlib.pyplot as plt\nplt.plot(losses)\nplt.show()",
    "model = Model()\nmodel.fit(xs)\nhistory.append(model.score(xs))",
    "for epoch in range(100):\n    loss = answer(torch.ones(3)).sum()\n    history.append(loss)",
    "print(np.mean([answer(x) for x in xs]), table['a'], len(table))",
    "y = torch.tanh(torch.ones(2))\nprobe = table.get('a')",
    "torch.manual_seed(0)\nresult = answer(torch.zeros(2))",  # the checks draw their own cases
]
SETUP = [
    "import torch\nimport numpy as np",
    "table = {'a': 1}",
    "def answer(x):\n    return torch.tanh(x) * table['a'] + np.pi",
    "xs, history = [1, 2], []",
    "class Model:\n    def fit(self, xs):\n        self.n = len(xs)\n"
    "    def score(self, xs):\n        return 0",
]


def _kept(cells, names=frozenset({"answer"})):
    return [c for c, k in zip(cells, needed_cells(cells, set(names)), strict=True) if k]


def test_experiments_that_only_read_the_answer_are_still_skipped():
    assert _kept(SETUP + EXPERIMENTS) == SETUP[:3]


def test_a_star_import_is_always_kept():
    cells = ["from helpers import *", "def answer(x):\n    return scale(x)", "answer(2)"]
    assert needed_cells(cells, {"answer"}) == [True, True, False]
    assert needed_cells(["from math import *", "x = 1"], set()) == [True, False]


@pytest.mark.parametrize(
    "dynamic",
    [
        "exec('def answer(x): return x')",
        "eval(compile('scale = 2', 'f', 'exec'))",
        "globals()['scale'] = 2",
        "globals().update(scale=2)",
        "import sys\nsetattr(sys.modules[__name__], 'scale', 2)",
        "vars()['scale'] = 2",
        "locals().update(scale=2)",
        "get_ipython().push({'scale': 2})",
        "import __main__\n__main__.scale = 2",
        "for name in ['scale']:\n    globals()[name] = 2",
        "%run helpers.py",
        "%store -r scale",
    ],
)
def test_a_cell_that_can_bind_names_dynamically_is_kept(dynamic):
    cells = [dynamic, "def answer(x):\n    return x * scale"]
    assert needed_cells(cells, {"answer"}) == [True, True]


def test_look_alikes_of_dynamic_binding_are_skipped():
    cells = [
        "model.eval()",  # a method, not the built-in
        "fields = vars(config)",  # vars of an object
        "namespace = {}\nnamespace['scale'] = 2",  # a dictionary of the cell's own
        "def answer(x):\n    return x",
    ]
    assert needed_cells(cells, {"answer"}) == [False, False, False, True]


def test_a_function_that_binds_dynamically_makes_its_callers_kept():
    cells = [
        "def load():\n    globals().update(scale=2)",
        "load()",
        "def answer(x):\n    return x * scale",
        "answer(1)",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, False]


def test_imports_under_try_are_kept_when_the_name_is_needed():
    cells = [
        "try:\n    import torch\nexcept ImportError:\n    torch = None",
        "try:\n    import seaborn as sns\nexcept ImportError:\n    pass",
        "try:\n    pass\nexcept ImportError:\n    pass\nelse:\n    import numpy.linalg as la\n"
        "finally:\n    from math import pi",
        "def answer(x):\n    return torch.tanh(x) * pi + la.norm(x)",
    ]
    assert needed_cells(cells, {"answer"}) == [True, False, True, True]


def test_definitions_under_if_with_for_and_while_are_kept():
    cells = [
        "if torch.cuda.is_available():\n    def helper(x):\n        return x\n"
        "else:\n    def helper(x):\n        return -x",
        "with open('f') as f:\n    class Scaler:\n        pass",
        "for i in range(1):\n    import math",
        "while True:\n    from os import path\n    break",
        "with torch.no_grad():\n    unused = 1",
        "def answer(x):\n    return helper(x), Scaler, math.pi, path",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, True, False, True]


def test_names_bound_by_loops_walrus_match_and_except_are_bound_comprehensions_do_not_leak():
    cells = [
        "for scale in [1, 2]:\n    pass",
        "if (offset := 3):\n    pass",
        "[bias := b for b in [1]]",  # the walrus binds in the cell's scope
        "match 1:\n    case width:\n        pass",
        "try:\n    1 / 0\nexcept ZeroDivisionError as err:\n    pass",
        "squares = [depth for depth in range(3)]",  # `depth` stays in the comprehension
        "with open('f') as handle:\n    pass",
    ]
    answer = "def answer():\n    return scale, offset, bias, width, err, depth, handle"
    assert needed_cells([*cells, answer], {"answer"}) == [True] * 5 + [False, True, True]


def test_a_function_that_declares_a_global_binds_it_where_it_is_called():
    cells = [
        "def setup():\n    global weights\n    weights = [1, 2]",
        "def prepare():\n    setup()",  # binds `weights` when called, too
        "prepare()",
        "setup()",
        "def answer(x):\n    return x * weights[0]",
        "def unrelated():\n    return 1",
        "unrelated()",
        "def later():\n    prepare()",  # defined, never called
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, True, True, False, False, False]


def test_nonlocal_binds_no_global():
    cells = [
        "def outer():\n    scale = 1\n    def inner():\n        nonlocal scale\n        scale = 2\n"
        "    inner()\n    return scale",
        "outer()",
        "scale = 3",
        "def answer():\n    return scale",
    ]
    assert needed_cells(cells, {"answer"}) == [False, False, True, True]


@pytest.mark.parametrize(
    "change",
    [
        "table['b'] = 2",
        "table['a'] += 1",
        "del table['a']",
        "table.update(b=2)",
        "table.setdefault('b', 2)",
        "for k in 'xyz':\n    table[k] = 0",
        "if True:\n    table.clear()",
        "first = table.pop('a')",  # a changing method, even with its result used
        "setattr(table, 'b', 2)",
    ],
)
def test_a_cell_that_changes_a_needed_global_is_kept_and_one_that_does_not_is_skipped(change):
    cells = ["table = {'a': 1}", "def answer(k):\n    return table[k]", change]
    assert needed_cells(cells, {"answer"}) == [True, True, True]
    other = change.replace("table", "scratch")  # the same change to a name nobody needs
    cells = ["table = {'a': 1}", "def answer(k):\n    return table[k]", "scratch = {}", other]
    assert needed_cells(cells, {"answer"}) == [True, True, False, False]


def test_attribute_assignment_and_method_calls_on_a_needed_object_are_kept():
    cells = [
        "import torch",
        "model = torch.nn.Linear(2, 2)",
        "model.weight.data[:] = 0",
        "model.load_state_dict(torch.load('w.pt'))",
        "model.train()",
        "history = model.fit(data)",  # `fit` changes the object, whatever it returns
        "weights = torch.nn.init.zeros_(model.bias)",  # an in-place function
        "torch.nn.Linear.extra = 1",  # `torch` is read by a needed cell
        "out = model(torch.ones(2))\nprint(model.weight.shape)",  # reads only
        "def answer(x):\n    return model(x)",
    ]
    assert needed_cells(cells, {"answer"}) == [True] * 8 + [False, True]


def test_an_in_place_function_changes_its_first_argument_only():
    cells = [
        "import random",
        "xs, ys = [3, 1], [1]",
        "random.shuffle(xs)",
        "xs2 = list(xs)",
        "model.fit(ys, xs)",  # changes `model`, not its arguments
        "table.pop(ys[0], None)",
        "def answer():\n    return xs[0] + ys[0]",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, False, False, False, True]


def test_module_state_setters_are_kept_other_module_calls_are_not():
    cells = [
        "import torch\nimport numpy as np\nimport sys",
        "torch.set_default_dtype(torch.float64)",
        "torch.backends.cudnn.deterministic = True",
        "np.set_printoptions(precision=3)",
        "torch.use_deterministic_algorithms(True)",
        "torch.save(torch.ones(2), 'x.pt')\nnp.mean([1, 2])",
        "torch.manual_seed(0)",
        "def answer(x):\n    return torch.tanh(torch.as_tensor(np.asarray(x)))",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, True, True, False, False, True]


def test_what_changes_how_imports_and_files_resolve_is_kept():
    cells = [
        "import sys\nsys.path.append('..')",
        "import os\nos.chdir('data')",
        "os.environ['MODE'] = 'fast'",
        "%cd data",
        "from helpers import scale",
        "def answer(x):\n    return scale(x)",
    ]
    assert needed_cells(cells, {"answer"}) == [True] * 6


def test_del_and_augmented_assignment_bind():
    cells = [
        "total = 0",
        "total += 1",
        "del total",
        "totals = 1",
        "def answer():\n    return total",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, False, True]


def test_dotted_imports_bind_their_first_name_or_their_alias():
    cells = [
        "import os.path",
        "import torch.nn.functional as F",
        "import xml.etree.ElementTree",
        "from collections import abc as cabc",
        "def answer():\n    return os.path, F, cabc",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, False, True, True]


def test_decorators_defaults_annotations_and_bases_are_read():
    cells = [
        "from functools import lru_cache",
        "DEFAULT = 3",
        "from typing import Sequence",
        "class Base:\n    pass",
        "RETURNED = int",
        "@lru_cache\ndef answer(x: Sequence = DEFAULT) -> RETURNED:\n    return x",
        "class Child(Base):\n    pass",
    ]
    assert needed_cells(cells, {"answer", "Child"}) == [True] * 7


def test_a_class_body_binds_its_attributes_not_globals():
    cells = [
        "class Config:\n    scale = 2\n    def helper(self):\n        return 1\n    import math",
        "scale = 3",
        "def answer():\n    return scale",
    ]
    assert needed_cells(cells, {"answer"}) == [False, True, True]


def test_a_lambda_assigned_to_a_name_binds_it_and_reads_its_body():
    cells = [
        "def helper(x):\n    return x",
        "answer = lambda x: helper(x) + OFFSET",
        "OFFSET = 1",
        "other = lambda: 0",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, True, False]


def test_cell_magics():
    cells = [
        "%%time\ndef answer(x):\n    return helper(x)",  # the body is Python
        "%%capture captured\nhelper = abs",  # binds `captured` and `helper`
        "%%html\n<b>answer = 1</b>",  # shown, never run as Python
        "%%writefile helpers.py\nscale = 2",  # cannot tell: kept
        "%%timeit\nanswer(2)",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, False, True, False]
    assert needed_cells(cells, {"captured"}) == [False, True, False, True, False]


def test_line_magics_that_bind():
    cells = [
        "files = !ls data",
        "%time weights = [1, 2]",
        "%timeit -n 1 -r 1 unused = 1",
        "answer?",
        "def answer():\n    return files, weights",
    ]
    assert needed_cells(cells, {"answer"}) == [True, True, False, False, True]


@pytest.mark.parametrize(
    "source",
    [
        "answer = 1",
        "import answer",
        "import numpy as answer",
        "try:\n    from m import answer\nexcept ImportError:\n    pass",
        "if flag:\n    def answer():\n        pass",
        "with ctx:\n    class answer:\n        pass",
        "for answer in range(3):\n    pass",
        "print(answer := 2)",
        "del answer",
        "answer += 1",
        "def setup():\n    global answer\n    answer = 1",
        "exec(code)",
        "from m import *",
        "def answer(:",
        "%%writefile answer.py\nx = 1",
        "%%capture answer\nx = 1",
        "answer = !ls",
    ],
)
def test_binds_anywhere(source):
    assert binds_anywhere(source, "answer")


@pytest.mark.parametrize(
    "source",
    [
        "answer(1)",
        "answers = 1",
        "def f():\n    answer = 1",  # a local
        "class C:\n    answer = 1",  # an attribute
        "squares = [answer for answer in range(3)]",  # stays in the comprehension
        "table.answer = 1",
        "table['answer'] = 1",
        "def outer():\n    answer = 0\n    def inner():\n        nonlocal answer\n        answer = 1",
        "%%html\n<p>answer = 1</p>",
        "model.eval()",
    ],
)
def test_binds_anywhere_not(source):
    assert not binds_anywhere(source, "answer")


def test_a_check_that_misses_a_key_a_left_out_cell_fills_is_graded_again_with_every_cell(
    tmp_path,
):
    """What no static slice sees (a function that fills a global dict, called from a cell
    of its own) still gets its marks: the grader runs every cell and says so."""
    import csv

    import grading_fixtures as fx
    from course_lib.grading.__main__ import main

    right = {"masked_softmax": None, "scaled_dot_product_attention": None, "general_scores": None}
    nb = fx.with_answers("02b", right)
    fx.append_to(
        nb,
        "masked_softmax",
        "_solution = masked_softmax\n\n\n"
        "def masked_softmax(scores, mask):\n"
        '    return _solution(scores, mask) * TABLE["one"]\n',
    )
    fx.insert_after(nb, "masked_softmax", 'TABLE = {}\n\n\ndef fill():\n    TABLE["one"] = 1.0\n')
    fx.insert_after(nb, "fill", "fill()")
    fx.write(nb, tmp_path / "class" / "ada.ipynb")
    out = tmp_path / "out"
    args = ["--chapter", "02b", "--submissions", str(tmp_path / "class"), "--out", str(out)]
    assert main([*args, "--timeout", "15", *fx.isolation_args()]) == 0
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        (row,) = csv.DictReader(f)
    assert [row["ex1"], row["ex2"], row["ex3"]] == ["1", "1", "1"]
    assert row["status"] == "graded; every cell run"
    assert "graded with every cell" in (out / "review.md").read_text()
