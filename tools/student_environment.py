"""The student environment as a download: ``roofline-student.zip``, on the site's exercises page.

A student who has only the site gets the environment a clone gives, with the same one command
(the README's student environment): unzip, then in the folder ``roofline-student/``

    python3 -m venv .venv && .venv/bin/pip install -r requirements.txt

The zip holds what that command reads and nothing else: ``requirements.txt`` (rooflinekit with
its course extra), ``requirements.lock`` (every version), and rooflinekit's source
(``pyproject.toml``, ``rooflinekit/``, the JupyterLab setting it installs), with a ``README.md``
of its own (``student/README.md`` here: what the folder is and how to work in it; the package's
build reads it as its description), not the repository's, which speaks of folders the zip has not.
tools/build_book.py writes it to ``_build/student/`` before each build, where the exercises page's
download link finds it. The same files make the same zip (fixed dates), and an unchanged zip is
not written again: Sphinx would otherwise write the exercises page again on every build.

    python tools/student_environment.py [DEST]   # default: _build/student/roofline-student.zip

>>> import zipfile
>>> names = zipfile.ZipFile(io.BytesIO(archive(ROOT))).namelist()
>>> [n for n in names if not n.startswith(f"{FOLDER}/rooflinekit/")]  # doctest: +NORMALIZE_WHITESPACE
['roofline-student/README.md', 'roofline-student/jupyter-config/jupyter_server_config.d/rooflinekit.json',
 'roofline-student/jupyter-config/labconfig/default_setting_overrides.json',
 'roofline-student/jupyter-config/labconfig/page_config.json',
 'roofline-student/jupyter-config/labextensions/roofline-course/package.json',
 'roofline-student/jupyter-config/labextensions/roofline-course/static/remoteEntry.js',
 'roofline-student/pyproject.toml', 'roofline-student/requirements.lock', 'roofline-student/requirements.txt']
>>> f"{FOLDER}/rooflinekit/exercises.py" in names, any("__pycache__" in n for n in names)
(True, False)
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "roofline-student"
"""The folder the zip unpacks into."""
FILES = (
    "requirements.txt",
    "requirements.lock",
    "pyproject.toml",
    "jupyter-config/labconfig/default_setting_overrides.json",
    "jupyter-config/labconfig/page_config.json",
    "jupyter-config/jupyter_server_config.d/rooflinekit.json",
    "jupyter-config/labextensions/roofline-course/package.json",
    "jupyter-config/labextensions/roofline-course/static/remoteEntry.js",
)
"""What ``pip install -r requirements.txt`` reads besides the package itself and the README."""
README = Path("student") / "README.md"
"""The zip's ``README.md``."""
PACKAGE = "rooflinekit"
SKIPPED = ("__pycache__", ".ipynb_checkpoints")
DOWNLOAD = Path("_build") / "student" / "roofline-student.zip"
"""Where the site's exercises page links it from (``{download}`` in book/exercises.md)."""
DATE = (2026, 1, 1, 0, 0, 0)
"""Every entry's date: the same files make the same bytes."""


def contents(root: Path) -> list[Path]:
    """The files of the environment, relative to ``root``, in a stable order."""
    package = sorted(
        path.relative_to(root)
        for path in (root / PACKAGE).rglob("*")
        if path.is_file() and not set(path.relative_to(root).parts) & set(SKIPPED) and path.suffix != ".pyc"
    )
    return sorted([*(Path(name) for name in FILES), Path("README.md")]) + package


def archive(root: Path) -> bytes:
    """The zip's bytes: every file of :func:`contents` under ``roofline-student/``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for relative in contents(root):
            entry = zipfile.ZipInfo(f"{FOLDER}/{relative.as_posix()}", date_time=DATE)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            source = root / (README if relative == Path("README.md") else relative)
            bundle.writestr(entry, source.read_bytes())
    return buffer.getvalue()


def write(root: Path = ROOT, dest: Path | None = None) -> Path:
    """Write the zip to ``dest`` (default: ``root/_build/student/roofline-student.zip``) unless it
    is there already with the same bytes; return its path."""
    dest = dest or root / DOWNLOAD
    data = archive(root)
    if not (dest.is_file() and dest.read_bytes() == data):
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return dest


if __name__ == "__main__":
    print(write(ROOT, Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None))
