"""The version of dstreams, written once: packaging, ``SparkContext.version``,
``rdd.__version__``, ``dstream.__version__`` and ``dstreams --version`` all read it here."""

__version__ = "0.1.0"
