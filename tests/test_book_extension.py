"""The book's Sphinx extension numbers exercises per chapter, as the student notebooks do."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


def load_extension():
    spec = importlib.util.spec_from_file_location("course_book", ROOT / "_ext" / "course_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_exercises_restart_at_one_in_every_document():
    ext = load_extension()
    env = SimpleNamespace(
        toc_fignumbers={
            "chapters/01": {"exercise": {"a": (2,), "b": (1,)}, "figure": {"f": (1,)}},
            "chapters/03": {"exercise": {"c": (15,), "d": (17,), "e": (16,)}},
            "intro": {},
        }
    )
    assert ext._number_exercises_per_chapter(None, env) == []
    assert env.toc_fignumbers["chapters/01"]["exercise"] == {"b": (1,), "a": (2,)}
    assert env.toc_fignumbers["chapters/03"]["exercise"] == {"c": (1,), "e": (2,), "d": (3,)}
    assert env.toc_fignumbers["chapters/01"]["figure"] == {"f": (1,)}  # other kinds untouched
