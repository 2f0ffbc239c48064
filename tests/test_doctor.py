"""`python -m course_lib.doctor`: a description of the machine that never raises.

Versions and ranges are injected (the doctor's functions take them as arguments); the data
folder is a temporary one named by COURSE_DATA_DIR; nothing touches the network.
"""

import dataclasses
import gzip
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import course_lib
from course_lib import _versions, datafiles, doctor, train

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ["course_lib", "Python and packages", "devices", "make test", "data", "platform"]


@pytest.fixture
def data(tmp_path, monkeypatch):
    """An empty data folder, named by COURSE_DATA_DIR."""
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("COURSE_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def device_env(monkeypatch):
    # through the module: a test elsewhere reloads course_lib.train, replacing the function
    train.default_device.cache_clear()
    yield monkeypatch
    train.default_device.cache_clear()


def test_the_report_names_every_section_under_the_summary(data, device_env):
    device_env.setenv("COURSE_DEVICE", "cpu")
    text = doctor.report()
    lines = text.splitlines()
    assert "nothing was sent anywhere" in lines[0]
    assert lines[1].startswith(f"course_lib {course_lib.__version__} | Python ")
    assert "| torch " in lines[1] and "| device cpu" in lines[1] and "| make test: " in lines[1]
    headers = [line for line in lines if line.startswith("== ")]
    assert [h.strip("= ").split(" (")[0] for h in headers] == SECTIONS
    for expected in ("torch ", "CUDA: ", "Apple MPS: ", "CPU: ", "course device: cpu "):
        assert expected in text
    assert "fingerprint:" in text and "01_seq2seq.ipynb" in text
    assert f"folder: {data} (COURSE_DATA_DIR)" in text


def test_summary_line_is_one_line():
    line = doctor.summary_line()
    assert "\n" not in line and line.startswith("course_lib ") and "CPU " in line


@pytest.mark.parametrize(
    "version, spec, expected",
    [
        ("2.0.1", ">=2.1", "OUTSIDE the tested range >=2.1"),
        ("2.13.0+cpu", ">=2.1", "ok (>=2.1)"),
        ("2.7.0", ">=2.3,<2.7", "OUTSIDE the tested range >=2.3,<2.7"),
        ("2.6.0rc1", ">=2.1", "ok (>=2.1)"),
        (None, ">=2.1", "missing"),
    ],
)
def test_version_status(version, spec, expected):
    assert _versions.version_status(version, spec) == expected


def test_package_lines_flag_versions_outside_the_range_and_missing_packages():
    versions = {"torch": "2.0.1", "numpy": None, "tqdm": "4.70.1"}
    ranges = {"torch": ">=2.1", "numpy": ">=1.24", "tqdm": ">=4.60"}
    lines = doctor.package_lines(versions, ranges)
    (torch_line,) = [line for line in lines if line.startswith("torch ")]
    assert "2.0.1" in torch_line and "OUTSIDE the tested range >=2.1" in torch_line
    assert any(line.startswith("numpy ") and line.endswith("missing") for line in lines)
    assert any(line.startswith("tqdm ") and line.endswith("ok (>=4.60)") for line in lines)
    assert lines[-1] == "requirements.txt: not a checkout, no pins to compare"
    no_metadata = doctor.package_lines({"torch": "2.0.1"}, {})
    assert "no tested range known" in no_metadata[1]


@pytest.mark.parametrize(
    "spec, version",
    [
        (">=2.1", "2.0.1"),
        (">=2.1", "2.1"),
        (">=2.3,<2.7", "2.6.9"),
        (">=2.3,<2.7", "2.7.0"),
        ("==2.1.*", "2.1.5"),
        ("==2.1.*", "2.10.0"),
        ("!=1.0", "1.0.0"),
        (">=4.60", "4.7.0"),
    ],
)
def test_the_fallback_without_packaging_agrees_with_packaging(spec, version):
    from packaging.specifiers import SpecifierSet

    assert _versions._fallback_contains(spec, version) == SpecifierSet(spec).contains(version)


def test_the_declared_ranges_are_course_libs_own():
    ranges = _versions.declared_ranges()
    assert set(ranges) == set(_versions.PACKAGES)
    assert ranges["torch"].startswith(">=")


def test_pins_compare_public_versions_and_list_what_differs(tmp_path):
    path = tmp_path / "requirements.txt"
    path.write_text("# comment\ntorch==2.13.0\nPyYAML==6.0.3\nnumpy>=1\n", encoding="utf-8")
    pins = _versions.read_pins(path)
    assert pins == {"torch": "2.13.0", "pyyaml": "6.0.3"}
    same = _versions.pin_lines(pins, {"torch": "2.13.0+cu121", "pyyaml": "6.0.3"})
    assert same == ["requirements.txt: matches the book's pins (all 2)"]
    (differ,) = _versions.pin_lines(pins, {"torch": "2.5.1", "pyyaml": None})
    assert differ == (
        "requirements.txt: 2 of 2 pins differ: torch 2.5.1 (book: 2.13.0); "
        "pyyaml missing (book: 6.0.3)"
    )


def test_a_missing_data_folder_is_reported_not_raised(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path / "nowhere"))
    (line,) = doctor.data_lines()
    assert line.startswith("folder: PROBLEM -- COURSE_DATA_DIR=") and "not a folder" in line


def test_a_missing_data_file_is_reported(data):
    lines = doctor.data_lines()
    assert lines == [
        f"folder: {data} (COURSE_DATA_DIR)",
        "eng-fra.txt.gz: missing (the translation chapter downloads it on first use)",
    ]


def test_a_damaged_data_file_is_reported_and_a_good_one_passes(data, monkeypatch):
    text = "Go.\tVa !\n"
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    spec = dataclasses.replace(datafiles.ENG_FRA, filename="tiny.txt.gz", sha256=sha256)
    monkeypatch.setattr(datafiles, "ENG_FRA", spec)
    with gzip.open(data / spec.filename, "wt", encoding="utf-8") as f:
        f.write("Go.\tPars !\n")
    damaged = doctor.data_lines()[1]
    assert damaged.startswith("tiny.txt.gz: DAMAGED -- ") and "SHA-256" in damaged
    (data / spec.filename).write_bytes(b"not gzip")
    assert "not a readable gzip file" in doctor.data_lines()[1]
    with gzip.open(data / spec.filename, "wt", encoding="utf-8") as f:
        f.write(text)
    assert doctor.data_lines()[1].startswith("tiny.txt.gz: present, checksum ok")


def test_the_checkout_is_found_from_the_package_folder(tmp_path):
    assert doctor.checkout_root() == ROOT
    package = tmp_path / "course_lib" / "__init__.py"
    package.parent.mkdir()
    package.touch()
    assert doctor.checkout_root(package) is None
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "verification.py").touch()
    assert doctor.checkout_root(package) is None  # no chapters/
    (tmp_path / "chapters").mkdir()
    assert doctor.checkout_root(package) == tmp_path.resolve()


def test_outside_a_checkout_make_test_does_not_apply(tmp_path, monkeypatch):
    installed = tmp_path / "lib" / "site-packages" / "course_lib" / "__init__.py"
    monkeypatch.setattr(course_lib, "__file__", str(installed))
    assert doctor.verification_lines(doctor.checkout_root()) == (
        ["not a checkout: make test does not apply"],
        None,
    )
    lines = doctor.course_lib_lines()
    assert "which: an installed wheel (site-packages), not a checkout" in lines
    assert "requirements.txt: not a checkout, no pins to compare" in doctor._packages()


def test_broken_checks_are_reported_in_their_section(data, device_env, monkeypatch):
    device_env.setenv("COURSE_DEVICE", "mps")
    monkeypatch.setenv("COURSE_VERIFY", "sometimes")

    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(doctor, "platform_lines", broken)
    text = doctor.report()
    assert "device refused (COURSE_DEVICE='mps')" in text.splitlines()[1]
    assert "course device: none -- COURSE_DEVICE='mps' asks for Apple's GPU (MPS)" in text
    assert "check failed (ValueError: COURSE_VERIFY='sometimes'" in text
    assert "== platform ==\ncheck failed (RuntimeError: boom)" in text


def test_python_m_course_lib_doctor_prints_the_report_and_exits_0(tmp_path, data):
    env = {**os.environ, "COURSE_DATA_DIR": str(data), "OMP_NUM_THREADS": "1"}
    env.pop("COURSE_DEVICE", None)
    result = subprocess.run(
        [sys.executable, "-m", "course_lib.doctor"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[1].startswith(f"course_lib {course_lib.__version__} | Python ")
    assert "== data ==" in lines and result.stderr == ""


def test_the_gpus_are_listed_with_their_memory(device_env):
    import torch

    props = {0: SimpleNamespace(name="Fake H100", total_memory=80 * 2**30)}
    props[1] = SimpleNamespace(name="Fake L4", total_memory=24 * 2**30)
    device_env.setattr(torch.cuda, "is_available", lambda: True)
    device_env.setattr(torch.cuda, "device_count", lambda: 2)
    device_env.setattr(torch.cuda, "get_device_properties", lambda i: props[i])
    device_env.setattr(torch.version, "cuda", "12.8")
    device_env.setenv("COURSE_DEVICE", "cuda:1")
    lines = doctor.device_lines()
    assert "CUDA: cuda:0 Fake H100, 80.0 GiB; cuda:1 Fake L4, 24.0 GiB (CUDA 12.8)" in lines
    assert "course device: cuda:1 (COURSE_DEVICE=cuda:1)" in lines
