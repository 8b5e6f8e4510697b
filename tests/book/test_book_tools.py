"""The book's configuration and tooling: toc, _config.yml, exercises listing, caches, assets."""

from __future__ import annotations

import doctest
import json
import re
import subprocess
from pathlib import Path

import book_cache
import build_book
import pytest
import roofline_book
import vendor_assets
from roofline_book import exercises as exercises_module
from roofline_book.exercises import find_exercises, listing_markdown

from tests.book.test_chapters import NAMES as CHAPTERS
from tests.support.book_build import make_book
from tests.support.book_site import ROOT, config, is_text_notebook, source_of, toc_docnames


def test_toc_has_the_chapters_in_order() -> None:
    names = toc_docnames()
    chapters = [n for n in names if n.startswith("book/chapters/")]
    assert chapters == [f"book/chapters/{c}" for c in CHAPTERS]
    assert "book/explorer" in names and "book/exercises" in names


def test_every_page_under_book_is_in_the_toc() -> None:
    # Only pages in _toc.yml are built: one left out would silently vanish from the site.
    listed = set(toc_docnames())
    pages = {
        p.relative_to(ROOT).with_suffix("").as_posix()
        for p in (ROOT / "book").rglob("*")
        if p.suffix in {".md", ".ipynb"} and not any(part.startswith("_") for part in p.parts)
    }
    assert not pages - listed, f"add to _toc.yml: {sorted(pages - listed)}"


@pytest.mark.parametrize("docname", toc_docnames())
def test_every_page_exists_and_chapters_are_notebooks(docname: str) -> None:
    path = source_of(docname)
    if "chapters" in path.parts:
        assert is_text_notebook(path), f"{path} needs a jupytext/kernelspec header"
        header = path.read_text(encoding="utf-8").split("\n---", 1)[0]
        assert "format_name: myst" in header and "name: python3" in header


def test_config_fails_builds_on_errors_and_caches_execution() -> None:
    c = config()
    assert c["execute"]["execute_notebooks"] == "cache"
    assert isinstance(c["execute"]["timeout"], int) and c["execute"]["timeout"] > 0
    assert c["execute"]["allow_errors"] is False
    assert c["only_build_toc_files"] is True
    assert "solutions" in c["exclude_patterns"]
    assert c["launch_buttons"]["binderhub_url"]  # the launch button, once the course has a home
    assert {"-W", "-n", "--keep-going"} <= set(build_book.BUILD_ARGS)
    makefile = (ROOT / "Makefile").read_text()
    build = re.search(r"^BOOK_BUILD := (.*)$", makefile, re.M)
    assert build and "tools/build_book.py" in build.group(1)
    recipe = makefile.split("\n$(BOOK_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert "\t@$(BOOK_BUILD)" in recipe and "$(VENDOR_STAMP)" in recipe
    assert re.search(r"^book: \$\(BOOK_STAMP\)", makefile, re.M)


def test_vendored_assets_cover_what_the_config_loads() -> None:
    targets = {asset.target for asset in vendor_assets.ASSETS}
    sphinx = config()["sphinx"]["config"]
    loaded = [sphinx["mathjax_path"], *sphinx["nb_ipywidgets_js"]]
    for path in loaded:
        if path.startswith("vendor/"):
            relative = path.removeprefix("vendor/")
            assert relative in targets or any(
                relative.startswith(t + "/") for t in targets
            ), f"{path} is loaded but never vendored"
        else:
            assert (ROOT / "book" / "_static" / path).is_file()
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for name, version in {**package["dependencies"], **package["devDependencies"]}.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned exactly"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


def test_the_tests_axe_core_is_a_dev_dependency_kept_out_of_the_site() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    assert "axe-core" in package["devDependencies"] and "axe-core" not in package["dependencies"]
    assert vendor_assets.AXE.is_relative_to(vendor_assets.TESTS_VENDOR)
    assert not vendor_assets.TESTS_VENDOR.is_relative_to(ROOT / "book")
    for asset in vendor_assets.TEST_ASSETS:
        assert asset.source.startswith("axe-core/") and asset.into == vendor_assets.TESTS_VENDOR


@pytest.mark.slow  # imports Sphinx and runs the extension's examples (seconds)
def test_the_extensions_docstring_examples_run() -> None:
    import importlib
    import pkgutil

    inside = [f"roofline_book.{m.name}" for m in pkgutil.iter_modules(roofline_book.__path__)]
    modules = ["roofline_book", *inside]
    for module in modules:  # each module of the extension has examples, and they hold
        failures, tried = doctest.testmod(importlib.import_module(module))
        assert tried > 0 and failures == 0, module


def test_buttons_to_the_course_home_appear_only_once_it_is_set() -> None:
    from roofline_book.home import course_home

    unset = {"repository_url": "", "use_repository_button": True,
             "launch_buttons": {"notebook_interface": "jupyterlab", "binderhub_url": "https://mybinder.org",
                                "jupyterhub_url": "https://hub.example.edu"}}
    assert course_home(unset) == ""
    assert not unset["use_repository_button"] and not unset["use_issues_button"]
    assert unset["launch_buttons"] == {"notebook_interface": "jupyterlab", "binderhub_url": "",
                                       "jupyterhub_url": ""}
    home = "https://github.com/your-org/roofline-course"
    published = {"repository_url": home + "/", "launch_buttons": {"binderhub_url": "https://mybinder.org"}}
    assert course_home(published) == home
    assert published["use_repository_button"] and published["use_issues_button"]
    assert published["launch_buttons"] == {"binderhub_url": "https://mybinder.org"}


@pytest.mark.parametrize(("home", "provider", "issues"), [
    ("https://github.com/org/course", "github", True),
    ("https://gitlab.com/group/course", "gitlab", True),
    ("https://gitlab.example.edu/teaching/course", "gitlab", True),  # a self-hosted GitLab
    ("https://bitbucket.org/org/course", "bitbucket", False),  # the theme has no issues link for it
    ("https://codeberg.org/org/course", "bitbucket", False),  # any other host: a plain link
    ("https://example.org/course", "bitbucket", False),
])
def test_an_address_on_any_host_gets_the_buttons_its_host_has(home: str, provider: str, issues: bool) -> None:
    from roofline_book.home import course_home

    options: dict[str, object] = {"repository_url": home}
    assert course_home(options) == home
    assert (options["repository_provider"], options["use_issues_button"]) == (provider, issues)


def test_an_address_that_is_no_repositorys_is_refused_in_one_line() -> None:
    from roofline_book.home import course_home
    from sphinx.errors import ConfigError

    for wrong in ("https://example.org", "git@example.org:org/course.git", "https://example.org/x?y=1"):
        with pytest.raises(ConfigError) as refused:
            course_home({"repository_url": wrong})
        said = str(refused.value)
        assert "\n" not in said and wrong in said and "http(s)://host/path" in said, said


def test_a_translated_pages_launch_buttons_open_the_page_in_its_language() -> None:
    from roofline_book.launch import translated_source

    exercise = sorted((ROOT / "exercises" / "roofline").glob("*.ipynb"))[0]
    assert translated_source(ROOT, exercise, "ko") == (f"exercises/ko/roofline/{exercise.name}", True)
    chapter = ROOT / "book" / "chapters" / f"{CHAPTERS[0]}.md"
    # a chapter in Korean is written by binder/postBuild, which Binder alone runs: the chapters in
    # every language of the course, the tool's default
    assert translated_source(ROOT, chapter, "ko") == (f"locale/ko/chapters/{CHAPTERS[0]}.md", False)
    assert (ROOT / "binder" / "postBuild").read_text().endswith("\npython tools/chapter_translations.py\n")
    assert translated_source(ROOT, chapter, "fr") is None  # no catalog: the English page's buttons
    assert translated_source(ROOT, ROOT / "book" / "intro.md", "ko") is None


def test_the_site_loads_no_extension_it_does_not_use() -> None:
    extensions = config()["sphinx"]["config"]["extensions"]
    # sphinx-thebe would put its CDN's address on every page for live code the site never runs.
    assert not {"sphinx_thebe", "sphinx_design"} & set(extensions)
    assert config()["launch_buttons"]["thebe"] is False
    assert "roofline_book" in extensions and "myst_nb" in extensions
    # Nothing in the book uses the directives of the extensions left out.
    used = [path for path in (ROOT / "book").rglob("*.md")
            if re.search(r"^[`:]{3,}\{(tab-set|grid|card|dropdown|button-\w+|thebe-button)\}",
                         path.read_text(encoding="utf-8"), re.M)]
    assert not used


def test_exercises_docstring_examples_run() -> None:
    failures, tried = doctest.testmod(exercises_module)
    assert tried > 0 and failures == 0


def _notebook(path: Path, cells: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _markdown(text: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def _graded(points: float) -> dict[str, object]:
    return {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "points": points}},
            "source": "", "outputs": [], "execution_count": None}


def test_exercises_are_found_in_the_release_directory_only(tmp_path: Path) -> None:
    title = _markdown("intro\n\n# Weights | int8")
    _notebook(tmp_path / "exercises" / "ex2" / "b.ipynb", [title, _graded(1)])
    _notebook(tmp_path / "exercises" / "ex1" / "a.ipynb", [_graded(2), _graded(0.5)])
    _notebook(tmp_path / "exercises" / "ex1" / ".ipynb_checkpoints" / "a-checkpoint.ipynb", [])
    _notebook(tmp_path / "solutions" / "ex1" / "a.ipynb", [_graded(2)])
    found = find_exercises(tmp_path)
    assert [(e.docname, e.title, e.graded_parts, e.points) for e in found] == [
        ("exercises/ex1/a", "a", 2, 2.5),
        ("exercises/ex2/b", "Weights | int8", 1, 1.0),
    ]
    listing = listing_markdown(found)
    assert "{doc}`Weights \\| int8 </exercises/ex2/b>`" in listing
    assert "{download}`a.ipynb </exercises/ex1/a.ipynb>`" in listing
    assert "solutions" not in listing
    assert find_exercises(tmp_path / "nowhere") == []


def test_cache_fingerprint_follows_the_package(tmp_path: Path) -> None:
    (tmp_path / "rooflinekit").mkdir()
    module = tmp_path / "rooflinekit" / "costs.py"
    module.write_text("A = 1\n")
    (tmp_path / "requirements.lock").write_text("numpy==2\n")
    (tmp_path / "pyproject.toml").write_text("")
    before = book_cache.fingerprint(tmp_path)
    (tmp_path / "rooflinekit" / "__pycache__").mkdir()
    (tmp_path / "rooflinekit" / "__pycache__" / "costs.cpython-311.pyc").write_bytes(b"x")
    assert book_cache.fingerprint(tmp_path) == before
    module.write_text("A = 2\n")
    assert book_cache.fingerprint(tmp_path) != before


# --- `make book`: its inputs, its last lines, and a second run that does nothing -----------------

def _book_inputs() -> list[str]:
    """The Makefile's BOOK_INPUTS as make computes them in this checkout."""
    printed = subprocess.run(
        ["make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "-", "book-inputs"],
        input="book-inputs: ; @echo $(sort $(BOOK_INPUTS))\n", cwd=ROOT, capture_output=True,
        text=True, check=True,
    )
    return printed.stdout.split()


def test_no_book_input_is_a_file_the_tools_write() -> None:
    # A file the build (or npm, or `make lab`) writes is ignored by git. Listed as an input, it is
    # newer than the last build or lengthens the list, and the next `make book` starts again: in
    # a fresh clone the 130 vendored assets did, so the second build rebuilt both editions.
    inputs = _book_inputs()
    assert "book/chapters/01-where-the-time-goes.md" in inputs and "_config.yml" in inputs
    assert any(path.endswith(".po") for path in inputs)
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(inputs),
                             cwd=ROOT, capture_output=True, text=True, check=False)
    assert ignored.returncode in (0, 1), ignored.stderr
    assert ignored.stdout.split() == [], "inputs of `make book` that a tool writes: add a -prune"


@pytest.mark.book
def test_a_second_make_book_does_nothing(built_site: Path) -> None:
    # In a fresh clone (CI) the fixture's `make book` is the first build; a second must do nothing.
    # (make -q cannot tell: the inputs' list is compared by a recipe that always runs.)
    stamp = built_site / ".built"
    before = stamp.stat().st_mtime_ns
    again = make_book()  # under the lock the other test processes take (tests/support/book_build.py)
    assert again.returncode == 0, again.stderr[-3000:]
    assert stamp.stat().st_mtime_ns == before, "`make book` built again:\n" + again.stdout[-3000:]
    assert "build_book" not in again.stdout + again.stderr


def test_the_build_ends_by_saying_where_to_open_the_site_as_the_readme_does() -> None:
    failures, tried = doctest.testmod(build_book)
    assert tried > 0 and failures == 0
    last = build_book.where_to_open(build_book.TRANSLATIONS)
    pages = re.findall(r"_build/html/\S*index\.html", last)
    assert pages == ["_build/html/index.html"] + [f"_build/html/{lang}/index.html"
                                                 for lang in build_book.TRANSLATIONS]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for page in pages:
        assert f"`{page}`" in quick_start, page
    # The server it names, as every README names it, answers this machine alone.
    assert f"{build_book.SERVE}," in last
    for readme_file in (ROOT / "README.md", ROOT / "public" / "README.md"):
        servers = re.findall(r"http\.server[^`\n#]*", readme_file.read_text(encoding="utf-8"))
        assert servers and all("-b 127.0.0.1" in server for server in servers), (readme_file, servers)
    assert all((ROOT / page).parent.name for page in pages)
    # The Makefile says nothing after the build's own last lines.
    recipe = (ROOT / "Makefile").read_text().split("\n$(BOOK_STAMP):", 1)[1].split("\n\n", 1)[0]
    assert recipe.splitlines()[-1].strip() == "@touch $@"


def test_the_quick_start_names_every_tool_make_book_needs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    makefile = (ROOT / "Makefile").read_text()
    assert "npm ci" in makefile
    for tool in ("Python 3.11", "`make`", "Node.js", "npm", "npm ci"):
        assert tool in quick_start, tool


@pytest.mark.parametrize("tool", sorted(p.stem for p in (ROOT / "tools").glob("*.py")))
def test_every_tools_examples_hold(tool: str) -> None:
    """A tool's docstring examples run and hold (tools/ is on the path, as conftest puts it)."""
    import importlib

    failures, _ = doctest.testmod(importlib.import_module(tool))
    assert failures == 0, tool
