"""The distribution's metadata says what is true: the licence, the files it ships."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PROJECT["tool"]["setuptools"]


def test_the_licence_is_an_spdx_expression_with_its_files_shipped() -> None:
    project = PROJECT["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    assert not any(c.startswith("License ::") for c in project["classifiers"])


def test_every_package_is_typed_and_ships_its_marker() -> None:
    for pattern in SETUPTOOLS["packages"]["find"]["include"]:
        package = pattern.rstrip("*")
        assert (ROOT / package / "py.typed").is_file(), package
        assert "py.typed" in SETUPTOOLS["package-data"][package], package


def test_every_package_data_pattern_matches_a_file() -> None:
    for package, patterns in SETUPTOOLS["package-data"].items():
        for pattern in patterns:
            assert list((ROOT / package).glob(pattern)), f"{package}/{pattern} matches nothing"
