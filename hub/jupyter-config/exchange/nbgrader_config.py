"""nbgrader's configuration in every user's server on the class's hub (prepare.py copies it into
HUB_DIR/etc/exchange/, with language_fetch.py; the exchange's place is in nbgrader_config.json
beside it): Fetch takes the release in the language of the student's Lab (hub/language_fetch.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from language_fetch import LanguageFetch  # noqa: E402

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (nbgrader provides get_config)
c.ExchangeFactory.fetch_assignment = LanguageFetch
