"""The bug-report form GitHub shows (.github/ISSUE_TEMPLATE): valid, and in step with the book.

GitHub rejects an issue form with a malformed body silently -- the form just disappears from
the "New issue" page -- so the fields it requires are checked here, and the chapter list is
compared with _toc.yml: a chapter added to the book without the form fails this test.
"""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
FORMS = ROOT / ".github" / "ISSUE_TEMPLATE"
TYPES = {"markdown", "input", "textarea", "dropdown", "checkboxes"}


@pytest.fixture(scope="module")
def form() -> dict:
    return yaml.safe_load((FORMS / "bug_report.yml").read_text(encoding="utf-8"))


def element(form: dict, id_: str) -> dict:
    (found,) = [e for e in form["body"] if e.get("id") == id_]
    return found


def toc_chapters() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [
        entry["file"]
        for part in toc["parts"]
        for entry in part.get("chapters", [])
        if entry["file"].startswith("chapters/")
    ]


def test_the_form_has_the_top_level_keys_github_requires(form):
    for key in ("name", "description", "body"):
        assert isinstance(form.get(key), str if key != "body" else list) and form[key], key
    assert isinstance(form.get("labels", []), list)
    assert any(e["type"] != "markdown" for e in form["body"]), "a form needs one input"


def test_every_body_element_is_valid(form):
    ids = []
    for i, e in enumerate(form["body"]):
        assert e.get("type") in TYPES, f"body[{i}] has type {e.get('type')!r}"
        attributes = e.get("attributes")
        assert isinstance(attributes, dict), f"body[{i}] has no attributes"
        if e["type"] == "markdown":
            assert attributes.get("value"), f"body[{i}]: markdown needs a value"
            continue
        assert re.fullmatch(r"[A-Za-z0-9_-]+", e.get("id", "")), f"body[{i}] needs an id"
        ids.append(e["id"])
        assert isinstance(attributes.get("label"), str) and attributes["label"].strip()
        assert set(e.get("validations", {})) <= {"required"}
        if e["type"] == "dropdown":
            options = attributes.get("options")
            assert options and all(isinstance(o, str) and o.strip() for o in options)
            assert len(set(options)) == len(options), f"{e['id']}: duplicate options"
    assert len(set(ids)) == len(ids), f"duplicate ids: {ids}"


def test_the_chapter_list_is_the_books(form):
    options = element(form, "chapter")["attributes"]["options"]
    listed = [m.group(1) for o in options if (m := re.search(r"\((chapters/[^)]+)\)$", o))]
    assert listed == toc_chapters(), "update the Chapter dropdown to the chapters in _toc.yml"
    rest = [o for o in options if "(chapters/" not in o]
    assert [o.split()[0] for o in rest] == ["Exercises", "Library"]


def test_the_doctor_output_is_required_and_says_how_to_get_it(form):
    doctor = element(form, "doctor")
    assert doctor["type"] == "textarea"
    assert doctor["validations"]["required"] is True
    assert "!python -m course_lib.doctor" in doctor["attributes"]["description"]
    for id_ in ("cell", "error", "where", "expected"):
        assert element(form, id_)["validations"]["required"] is True
    assert element(form, "error")["attributes"]["render"] == "shell"


def test_the_template_chooser_config_is_valid():
    config = yaml.safe_load((FORMS / "config.yml").read_text(encoding="utf-8"))
    assert isinstance(config.get("blank_issues_enabled"), bool)
    for link in config.get("contact_links", []):
        assert {"name", "url", "about"} <= set(link)
