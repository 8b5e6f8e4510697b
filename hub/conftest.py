"""pytest in hub/: the modules' doctests, not JupyterHub's configuration file (it runs inside JupyterHub)."""

collect_ignore = ["jupyterhub_config.py"]
