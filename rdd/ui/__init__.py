"""The web UI of an application: its HTTP server, tabs and pages (``rdd.ui``).

:mod:`rdd.ui.server` binds the listening socket and serves on a daemon thread,
:mod:`rdd.ui.web_ui` holds :class:`~rdd.ui.web_ui.SparkUI` (tabs, the REST API, the
server) that a ``SparkContext`` creates, :mod:`rdd.ui.handlers` the HTTP routes and
``static/`` the pages' scripts and styles. Tornado is imported only by ``handlers``, on the
serving thread.
"""
