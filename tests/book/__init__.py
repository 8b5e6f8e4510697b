"""The book: its sources, its Sphinx extension (book/_ext), the tools (tools/) and the built site."""
