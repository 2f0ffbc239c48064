"""The benchmarks' shared machinery (``benchmarks/recipe.py``): runs that take turns by epoch
give the results they give alone, and a record keeps what a run printed."""

import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
recipe = pytest.importorskip("recipe")


def fake_run(name, epochs, events, draws, seed):
    """A run of ``epochs`` 'epochs', each drawing a random number as dropout would."""

    def run(turns):
        turns.wait(name)
        torch.manual_seed(seed)
        for epoch in range(epochs):
            draws.setdefault(name, []).append(torch.rand(1).item())
            events.append((name, epoch))
            finished = epoch == epochs - 1
            turns.done(name, finished=finished)
            if not finished:
                turns.wait(name)

    return run


def test_runs_take_turns_by_epoch_and_keep_their_own_random_state():
    events, draws = [], {}
    recipe.interleaved(
        {
            "a": fake_run("a", 3, events, draws, seed=0),
            "b": fake_run("b", 1, events, draws, seed=1),
            "c": fake_run("c", 2, events, draws, seed=0),
        }
    )
    # one epoch each in turn; a finished run leaves the rotation
    assert events == [("a", 0), ("b", 0), ("c", 0), ("a", 1), ("c", 1), ("a", 2)]
    alone = {}
    fake_run("a", 3, [], alone, seed=0)(recipe.TakeTurns(["a"]))
    assert draws["a"] == alone["a"]  # interleaving changed nothing in run a
    assert draws["c"] == alone["a"][:2]  # the same seed draws the same numbers


def test_an_error_in_one_run_is_raised_and_the_others_finish():
    events, draws = [], {}

    def broken(turns):
        turns.wait("broken")
        raise RuntimeError("out of memory, say")

    with pytest.raises(RuntimeError, match="out of memory"):
        recipe.interleaved({"broken": broken, "a": fake_run("a", 2, events, draws, seed=0)})
    assert events == [("a", 0), ("a", 1)]


def test_a_record_holds_what_was_printed(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(recipe, "RESULTS", tmp_path)
    with recipe.Record("demo") as record:
        print("test BLEU 44.0")
    text = record.path.read_text()
    assert record.path.parent == tmp_path and record.path.name.endswith("_demo.txt")
    assert text.startswith("# python") and "torch" in text.splitlines()[1]
    assert "load average" in text.splitlines()[2] and "at the end" in text.splitlines()[-1]
    assert "test BLEU 44.0" in text and "test BLEU 44.0" in capsys.readouterr().out
    with recipe.Record("off", enabled=False) as record:
        print("nothing kept")
    assert not record.path.exists()
