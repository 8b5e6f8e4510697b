"""Helpers the tests share: what the book consists of, a file lock the test processes share, the
browser, make targets, crafted slips, a formgrader server, and the scripts node runs (*.js)."""
