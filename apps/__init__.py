"""The applications: play President in a terminal or a browser (``python -m apps.play``,
``--web``: :mod:`apps.web`, which needs the ``[web]`` extra)."""
