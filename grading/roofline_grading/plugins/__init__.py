"""The course's nbgrader plug-ins, each named in ``nbgrader_config.py``, one a module, each knowing
nothing of the others (a contract):

- :mod:`.export` (``c.ExportApp.plugin_class``): ``make grades``, nbgrader's CSV sorted by
  student id, safe to open in a spreadsheet;
- :mod:`.feedback` (``c.GenerateFeedback.exporter_class``): the feedback pages, their math as MathML;
- :mod:`.grades` (``c.GenerateFeedback.preprocessors``): the feedback pages' scores and comments,
  read from the gradebook a notebook at a time;
- :mod:`.formgrader` (``c.ExchangeFactory.list`` and ``formgrader.install()``): formgrader with
  the course's assignments, no exchange, no button that grades outside the sandbox, inert pages.

The LMS collector plugins (``c.ZipCollectApp.collector_plugin``) are with the command that uses
them, :mod:`roofline_grading.collect.lms`.
"""
