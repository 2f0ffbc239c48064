"""The grader runs the cells the checks need, and keeps every cell that could matter."""

from course_lib.grading.slicing import needed_cells


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
