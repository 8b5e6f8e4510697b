"""rooflinekit: the library, its command line and its explorers."""
