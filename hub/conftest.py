"""pytest in hub/: the modules' doctests, not JupyterHub's configuration file (it runs inside
JupyterHub) nor nbgrader's (hub/jupyter-config/: it runs inside nbgrader), nor the Helm charts
vendored for hub/k8s/ (their hub configuration is the chart's)."""

collect_ignore = ["jupyterhub_config.py"]
collect_ignore_glob = ["k8s/vendor/*", "jupyter-config/*"]
