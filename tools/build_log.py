"""What ``make book`` prints: its progress and every problem, without the tools' routine chatter.

tools/build_book.py runs the build (``--verbose``, Jupyter Book's and Sphinx's whole output) in
a process of its own and passes each line of that output through :class:`BuildLog`. A line is

- progress, shortened: a chapter being run (``running book/chapters/09-serving.md``), and how
  many pages each edition reads and writes;
- known noise, left out (:data:`NOISE`): Sphinx's steps and its ``[ 38%]`` lines, the
  extensions' configuration dumps (``myst v3: MdParserConfig(...)``), Jupyter Book's banners,
  each kernel's "Kernel is running over TCP without encryption" (the build's kernels run on this
  machine and talk to it alone), myst-nb's cache bookkeeping;
- anything else, shown as it is: a warning, an error, a failing cell's traceback, a claim of the
  prose that no longer holds, and any line nobody thought of. The build's strictness is untouched
  (``-W -n --keep-going``: a warning still fails it); only the noise is named here, never the
  problems, so no problem is ever hidden by a pattern that missed it.

``python tools/build_book.py --verbose`` (``make book VERBOSE=1``) prints everything.

>>> log = BuildLog(Path("/course"))
>>> lines = ["Running Sphinx v7.4.7", "myst v3.0.1: MdParserConfig(commonmark_only=False)",
...     "updating environment: [new config] 26 added, 0 changed, 0 removed",
...     "reading sources... [  4%] book/chapters/01-x",
...     "/course/book/chapters/01-x.md: Executing notebook using local CWD [mystnb]",
...     "[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All communication...",
...     "/course/book/chapters/01-x.md:12: WARNING: undefined label: 'fig-x'",
...     "\x1b[01mwriting output... \x1b[39;49;00m[ 50%] book/chapters/01-x", "build succeeded."]
>>> print("\\n".join(shown for line in lines for shown in log.feed(line)))
  reading 26 pages
  running book/chapters/01-x.md
/course/book/chapters/01-x.md:12: WARNING: undefined label: 'fig-x'
  writing pages
"""

from __future__ import annotations

import re
from pathlib import Path

NOISE = tuple(re.compile(pattern) for pattern in (
    # each kernel the build starts, on this machine, for this machine (ipykernel 7)
    r"\[IPKernelApp\] WARNING \| Kernel is running over TCP without encryption\..*",
    # the extensions' configuration, dumped whole at every start
    r"(myst|myst-nb) v[\w.]+: \w*Config\(.*\)",
    r"sphinx-multitoc-numbering v[\w.]+: Loaded",
    # Sphinx's steps (its progress lines are counted instead)
    r"Running Sphinx v.*",
    r"loading (translations \[\w+\]|pickled environment)\.\.\. .*",
    r"(making output directory|pickling environment|checking consistency|preparing documents)\.\.\. .*",
    r"(copying (assets|static files|extra files)|generating indices|writing additional pages)(\.\.\.|:).*",
    r"(dumping (search index in .*|object inventory)|looking for now-outdated files)\.\.\. .*",
    r"(reading sources|writing output|copying (images|downloadable files))\.\.\. .*",
    r"building \[\w+\]: .*",
    r"build succeeded\.",
    r"The HTML pages are in .*",
    # Jupyter Book's banners and sphinx-external-toc's notes
    r"Running Jupyter-Book v.*",
    r"(Source Folder|Config Path|Output Path): .*",
    r"=+",
    r"(Finished generating HTML for book\.|Your book's HTML pages are here:)",
    r"You can look at your book by opening this file in a browser:",
    r"Or paste this line directly into your browser bar:",
    r"\s+(file://)?\S*_build/html/\S*\s*",
    # a download written again (the student environment's zip, when the code it holds changed)
    r"Copying the source path .* will overwrite data, as a file already exists at the destination path .*",
    r"\[etoc\] (missing index\.html written as redirect|Excluded \d+ extra file|Changing master_doc).*",
    # myst-nb's execution cache at work (a chapter being run is progress, below)
    r"Using jupyter-cache at: .*",
    r".*: (Using cached notebook|Cached executed notebook): ID=\d+ \[mystnb\]",
    r".*: Executed notebook in [\d.]+ seconds \[mystnb\]",
    r".*: Excluded from execution by pattern: .* \[mystnb\]",
    r"\s*",
))
"""Lines left out: each the whole of a line a tool prints on every build, whatever happens."""

RUNNING = re.compile(r"(?P<path>.*): Executing notebook using (local|temporary) CWD \[mystnb\]")
READING = re.compile(
    r"updating environment: (\[[^]]*\] )?(?P<added>\d+) added, (?P<changed>\d+) changed, \d+ removed")
WRITING = "writing output... ["
COLOURS = re.compile(r"\x1b\[[0-9;]*m")
"""Sphinx's colours, which Jupyter Book leaves on whatever the output is."""


class BuildLog:
    """The lines to show for each line of the build's output (see the module's docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.writing = False

    def feed(self, line: str) -> list[str]:
        line = COLOURS.sub("", line.rstrip("\n"))
        if line.startswith(WRITING):
            started, self.writing = not self.writing, True
            return ["  writing pages"] if started else []
        if (reading := READING.fullmatch(line)) is not None:
            self.writing = False
            count = int(reading["added"]) + int(reading["changed"])
            return [f"  reading {count} page{'s' if count != 1 else ''}"] if count else []
        if (running := RUNNING.fullmatch(line)) is not None:
            return [f"  running {self._relative(running['path'])}"]
        if any(pattern.fullmatch(line) for pattern in NOISE):
            return []
        return [line]

    def _relative(self, path: str) -> str:
        try:
            return Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return path
