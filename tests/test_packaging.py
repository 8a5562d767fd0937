"""pyproject.toml lists every package folder, so `pip install .` ships the whole layout."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]


def _folders(root: str) -> set[str]:
    """Every folder under `root` that is a package (has an __init__.py)."""
    return {
        str(init.parent.relative_to(REPO))
        for init in (REPO / root).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }


def test_every_package_folder_is_listed() -> None:
    config = _setuptools()
    listed = set(config["packages"])
    folders: dict[str, str] = config["package-dir"]
    for name, folder in folders.items():
        assert name in listed, f"{name} is mapped to {folder} but not in packages"
        assert (REPO / folder / "__init__.py").is_file(), f"{folder} is not a package"
    tops = {name: folder for name, folder in folders.items() if "/" not in folder}
    for name, top in tops.items():
        for folder in _folders(top):
            dotted = name + folder.removeprefix(top).replace("/", ".")
            assert dotted in listed, f"package folder {folder} ({dotted}) is not in pyproject"


def test_only_the_memhub_namespace_is_installed() -> None:
    assert all(name.split(".")[0] == "memhub" for name in _setuptools()["packages"])
