"""Sphinx configuration for the dstreams documentation (``make docs``).

The guides are Markdown (MyST); the API reference is generated from the numpydoc
docstrings by autodoc + napoleon. ``make docs`` builds with warnings as errors, so a
broken cross-reference or a malformed docstring fails the build.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

from rdd.version import __version__  # noqa: E402

project = "dstreams"
author = "the dstreams authors"
copyright = "the dstreams authors, Apache License 2.0"  # noqa: A001
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# Attributes sections as fields of their class: a documented attribute that is also a
# property would otherwise be described twice.
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"dstreams {release}"
