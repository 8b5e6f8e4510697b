"""nbgrader's fetch in the student's language, on the class's hub (``make hub``).

``make hub-release`` puts the English release where nbgrader's ``release_assignment`` does
(``<exchange>/<course>/outbound/<assignment>``: what the Assignment List lists, and what each
submission's file names are checked against) and each translated release (``exercises/<lang>/``,
the same notebooks under the same file names) beside it, in ``<course>/outbound-<lang>/``, a
folder nbgrader does not list. A student whose Lab is in a translated language (chosen on the
hub's spawn page) fetches with :class:`LanguageFetch`, which that Lab's nbgrader configuration
names (``HUB_DIR/etc/<lang>/nbgrader_config.json``, written by hub/prepare.py): the notebooks of
their language, and the English one of any exercise not released in it. Submit and collect are
nbgrader's own. Each notebook records its language, and the grading driver restores a submission
from its language's release and writes its feedback in that language, as for the LMS.

prepare.py copies this file into ``HUB_DIR/etc/exchange/``, beside the ``nbgrader_config.py``
that imports it (hub/jupyter-config/exchange/): it runs in each user's server, in the student
environment, which has nbgrader and not the course's grading package.
"""

from __future__ import annotations

import os
import shutil

from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from traitlets import Unicode


def translated_outbound(course_path: str, language: str, assignment: str) -> str:
    """Where the hub keeps ``assignment``'s release in ``language`` (see the module's docstring).

    >>> translated_outbound("/srv/nbgrader/exchange/roofline", "ko", "roofline")
    '/srv/nbgrader/exchange/roofline/outbound-ko/roofline'
    """
    return os.path.join(course_path, f"outbound-{language}", assignment)


class LanguageFetch(ExchangeFetchAssignment):  # type: ignore[misc]  # nbgrader is not typed
    """nbgrader's fetch, from the release in :attr:`language` where the hub has one."""

    src_path: str  # nbgrader's: where the fetch copies from
    english_path: str
    language = Unicode("en", help="The language of the student's Lab (a code of the course).").tag(
        config=True
    )

    def init_src(self) -> None:
        super().init_src()
        self.english_path = self.src_path
        translated = translated_outbound(self.course_path, self.language, self.coursedir.assignment_id)
        if self.language != "en" and os.path.isdir(translated):
            self.src_path = translated

    def do_copy(self, src: str, dest: str) -> None:
        super().do_copy(src, dest)
        if src != self.english_path:  # an exercise not released in the language: the English one
            ignore = shutil.ignore_patterns(*self.coursedir.ignore)
            self.copy_if_missing(self.english_path, dest, ignore=ignore)
