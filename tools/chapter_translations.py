"""The chapters in another language, as notebooks for JupyterLab, from the English ones and the catalogs.

The site's Korean edition is built by Sphinx from the English chapters and the page catalogs
(``locale/<lang>/LC_MESSAGES/book/chapters/<name>.po``). A student who runs a chapter in
JupyterLab needs it as a file: this writes each chapter with its prose looked up in the same
catalogs (every paragraph, heading, list item and table cell, parsed by MyST's own markdown-it
configuration) and its code cells, front matter, labels and math exactly as in English, so the
chapter runs as the English one does and its numbers come from the same code. ``make lab``
writes them (into ``locale/<lang>/chapters/``, which git ignores) each time it starts JupyterLab,
so they are never older than the catalogs. Without ``--language`` it writes every language's, and
skips, in one line, a language whose catalogs are not complete yet (``make lab`` then starts all the
same); with it, such a language is an error naming each missing message (``make lab-<lang>``).

    python tools/chapter_translations.py [--language LANG] [--out locale/LANG/chapters]  # default: each

>>> chapter_parts("---\\nkernelspec: {}\\n---\\nText.\\n```{code-cell} ipython3\\nx = 1\\n```\\nMore.\\n")
['Text.\\n', '```{code-cell} ipython3\\nx = 1\\n```', '\\nMore.\\n']
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path
from typing import Any

from exercise_translations import MissingTranslations, lookup, translate_markdown

from rooflinekit.languages import TRANSLATED

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = "book/chapters"
CODE_CELL = re.compile(r"(^```\{code-cell\}.*?^```[ \t]*$)", re.DOTALL | re.MULTILINE)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


@functools.cache
def myst_parser() -> Any:
    """MyST's markdown-it parser with the book's extensions (_config.yml's myst_enable_extensions)."""
    import yaml
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


def chapter_parts(text: str) -> list[str]:
    """A chapter's text after its front matter: Markdown and code cells, alternating."""
    return CODE_CELL.split(FRONT_MATTER.sub("", text, count=1))


def _complete(name: str, missing: list[str], catalog: Path) -> None:
    """Raise :class:`MissingTranslations` listing ``missing``, if any."""
    if missing:
        listed = "\n".join(f"  {m[:100]}" for m in dict.fromkeys(missing))
        count = len(set(missing))
        raise MissingTranslations(f"{name}: {count} sentences have no translation in {catalog}:\n{listed}")


def translate_page(path: Path, catalog: Path, *, strict: bool = True) -> str:
    """The MyST page at ``path`` with its prose from ``catalog`` (its code cells, front matter,
    labels and math as they are). ``strict``: raise :class:`MissingTranslations` listing every
    sentence the catalog lacks; otherwise such a sentence stays in English, as the site shows it."""
    text = path.read_text(encoding="utf-8")
    front = FRONT_MATTER.match(text)
    tr = lookup(catalog)
    missing: list[str] = []
    parts = [
        part if CODE_CELL.fullmatch(part) else translate_markdown(part, tr, missing, myst_parser())
        for part in chapter_parts(text)
    ]
    if strict:
        _complete(path.name, missing, catalog)
    return (front.group(0) if front else "") + "".join(parts)


def translate_notebook_prose(
    notebook: dict[str, Any], catalog: Path, *, strict: bool = True
) -> dict[str, Any]:
    """A copy of ``notebook`` (nbformat's JSON: a page as myst-nb executed it) with the prose of
    its Markdown cells from ``catalog``; code cells and their outputs as they are. ``strict`` as
    for :func:`translate_page`.

    >>> note = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Title"]}]}
    >>> translate_notebook_prose(note, Path("none.po"), strict=False)["cells"][0]["source"]
    '# Title'
    """
    import copy

    translated = copy.deepcopy(notebook)
    tr = lookup(catalog)
    missing: list[str] = []
    for cell in translated.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else str(source)
            cell["source"] = translate_markdown(text, tr, missing, myst_parser())
    if strict:
        _complete("the notebook", missing, catalog)
    return translated


def chapter_catalog(name: str, language: str, root: Path = ROOT) -> Path:
    """The catalog of chapter ``name`` (its file's stem) in ``language``."""
    return root / "locale" / language / "LC_MESSAGES" / CHAPTERS / f"{name}.po"


def translate_chapter(path: Path, language: str, root: Path = ROOT) -> str:
    """The chapter at ``path`` with its prose in ``language``; raises :class:`MissingTranslations`
    listing every sentence its catalog lacks."""
    return translate_page(path, chapter_catalog(path.stem, language, root))


def chapters_folder(language: str) -> str:
    """Where ``make lab`` (and Binder's ``binder/postBuild``) writes the chapters in ``language``,
    relative to the repository's root.

    >>> chapters_folder("ko")
    'locale/ko/chapters'
    """
    return f"locale/{language}/chapters"


def write_all(language: str, out: Path, root: Path = ROOT) -> list[Path]:
    """Write every chapter in ``language`` into ``out``; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted((root / CHAPTERS).glob("*.md")):
        target = out / path.name
        target.write_text(translate_chapter(path, language, root), encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/chapter_translations.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--language", choices=TRANSLATED,
                        help="a language of the course (default: each, rooflinekit.languages)")
    parser.add_argument("--out", type=Path, help="where to write (default: locale/<language>/chapters)")
    options = parser.parse_args(argv)
    if options.out and not options.language:
        parser.error("--out: name the chapters' language with --language")
    for language in [options.language] if options.language else TRANSLATED:
        out = options.out or ROOT / chapters_folder(language)
        try:
            written = write_all(language, out)
        except MissingTranslations as error:
            if not options.language:  # every language: one still being translated does not stop the others
                print(f"{language}: the chapters wait for their catalogs ({str(error).splitlines()[0]}); "
                      f"see python tools/translations.py check --language {language}")
                continue
            print(error)
            print("Translate them (python tools/translations.py update, then the .po files) and run this "
                  "again.")
            return 1
        print(f"{len(written)} chapters in {language} in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
