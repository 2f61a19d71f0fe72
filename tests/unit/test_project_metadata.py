"""pyproject.toml against what the rest of the project says about it: the
version scheme, the extras that errors and docs tell users to install, the
Python versions claimed and tested, and no placeholder URLs."""

from __future__ import annotations

import pathlib
import re

import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_version_follows_the_scheme() -> None:
    """PEP 440's MAJOR.MINOR.PATCH, optionally a pre-release or .devN."""
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", PROJECT["version"])


def test_uninstalled_fallback_version_is_the_same() -> None:
    from purezmq.sugar import version

    assert PROJECT["version"] == version._FALLBACK_VERSION


def _mentions() -> dict[str, set[str]]:
    """Every extra named in an install hint: purezmq[x], '.[x,y]', PUREZMQ_EXTRAS="x"."""
    files = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder, pattern in (("docs", "*.md"), ("src", "*.py"), ("examples", "*.py"),
                            ("scripts", "*.sh"), ("tests", "*.py")):  # fmt: skip
        files += sorted((ROOT / folder).rglob(pattern))
    found: dict[str, set[str]] = {}
    hint = re.compile(r"""purezmq\[([\w,-]+)\]|["'$]\.\[([\w,-]+)\]|PUREZMQ_EXTRAS="([\w,-]+)\"""")
    for path in files:
        if path == pathlib.Path(__file__):
            continue
        for match in hint.finditer(path.read_text(errors="replace")):
            names = next(g for g in match.groups() if g)
            for name in names.split(","):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_extra_named_anywhere_exists() -> None:
    mentions = _mentions()
    assert {"curve", "journal", "spark", "cli", "test"} <= set(mentions)  # the scan works
    unknown = {n: sorted(where) for n, where in mentions.items()
               if n not in PROJECT["optional-dependencies"]}  # fmt: skip
    assert unknown == {}


def test_no_placeholder_urls() -> None:
    for url in PROJECT.get("urls", {}).values():
        host = url.split("/")[2]
        assert not host.endswith((".invalid", ".example", ".test", "example.com")), url


def test_python_versions_claimed_are_the_ones_tested() -> None:
    """requires-python starts at the lowest classifier version, the classifier
    versions are consecutive, and scripts/versions.sh reads them from there."""
    listed = [c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"]
              if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]  # fmt: skip
    minors = [int(v.split(".")[1]) for v in listed]
    assert minors == list(range(minors[0], minors[0] + len(minors))), listed
    assert PROJECT["requires-python"] == f">={listed[0]}"
    assert "Programming Language :: Python ::" in (ROOT / "scripts" / "versions.sh").read_text()
