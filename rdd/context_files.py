"""ContextFiles: ``SparkContext.addFile``, ``addPyFile``, ``addArchive``, ``listFiles``, ``listArchives``,
and the process-wide ``setSystemProperty``/``getSystemProperty``.

What this module owns
---------------------
The driver's side of shipping files to the workers (PySpark's names and semantics); where
the files go and how a worker finds them is :mod:`rdd.user_files`. A ``SparkContext``
mixes this in; ``_shipped_files`` and ``_shipped_archives`` (name -> source path) are
created by its constructor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import conf_defaults, user_files

if TYPE_CHECKING:
    from .env import Env

__all__ = ["ContextFiles"]


class ContextFiles:
    """The file-shipping methods of ``SparkContext``; mixed into :class:`rdd.context.SparkContext`."""

    #: What ``addPyFile`` and ``--py-files`` take as packages (PySpark's constant).
    PACKAGE_EXTENSIONS: tuple[str, ...] = (".zip", ".egg", ".jar")

    _env: Env
    _shipped_files: dict[str, str]
    _shipped_archives: dict[str, str]

    if TYPE_CHECKING:
        def _check_alive(self) -> None: ...  # SparkContext's

    def addFile(self, path: str, recursive: bool = False) -> None:  # noqa: N802 - PySpark's name
        """Ship a file (or, with ``recursive``, a directory) to every task's working set.

        Tasks find it with ``SparkFiles.get(os.path.basename(path))``. The file is copied
        now: later changes to ``path`` are not seen.

        Parameters
        ----------
        path : str
            A local file, or a directory with ``recursive=True``.
        recursive : bool
            Ship a directory with its contents.
        """
        self._check_alive()
        user_files.add_file(self._env.local_dir, path, recursive, self._shipped_files, self._shipped_archives)
        user_files.sync_python_path(self._env.local_dir)  # a .zip or .egg is importable, as in the workers

    def addPyFile(self, path: str) -> None:  # noqa: N802 - PySpark's name
        """Ship a ``.py``, ``.zip`` or ``.egg`` file and make it importable in the driver and every task."""
        self._check_alive()
        if not path.lower().endswith(user_files.PYTHON_SUFFIXES):
            raise ValueError(f"addPyFile takes a .py, .zip or .egg file, got {path!r}; ship other files with "
                             "addFile and read them with SparkFiles.get")
        user_files.add_file(self._env.local_dir, path, False, self._shipped_files, self._shipped_archives)
        user_files.sync_python_path(self._env.local_dir)

    def addArchive(self, path: str) -> None:  # noqa: N802 - PySpark's name
        """Ship an archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``, ...), unpacked into a directory
        named after it: ``SparkFiles.get("data.zip")`` is that directory in every task."""
        self._check_alive()
        user_files.add_archive(self._env.local_dir, path, self._shipped_archives, self._shipped_files)

    @property
    def listFiles(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The files shipped with :meth:`addFile` and :meth:`addPyFile`, as ``file:`` URIs."""
        return ["file:" + source for source in self._shipped_files.values()]

    @property
    def listArchives(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The archives shipped with :meth:`addArchive`, as ``file:`` URIs."""
        return ["file:" + source for source in self._shipped_archives.values()]

    @classmethod
    def setSystemProperty(cls, key: str, value: str) -> None:  # noqa: N802 - PySpark's name
        """Set a system property of the process, such as ``spark.executor.memory``: a ``spark.*``
        one is a default of every ``SparkConf`` made afterwards (call it before making the context).

        Parameters
        ----------
        key : str
            The property's name.
        value : str
            Its value.
        """
        conf_defaults.set_system_property(key, value)

    @classmethod
    def getSystemProperty(cls, key: str) -> str | None:  # noqa: N802 - PySpark's name
        """A system property :meth:`setSystemProperty` set, or ``None`` (there is no JVM to ask for
        ``java.home`` and its other properties)."""
        return conf_defaults.get_system_property(key)
