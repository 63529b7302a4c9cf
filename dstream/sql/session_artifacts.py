"""Artifacts and the Spark Connect-only members of a session, as PySpark Classic has them.

What this module owns
---------------------
:class:`SessionArtifacts`, mixed into ``SparkSession``:

* ``addArtifacts(*path, pyfile=False, archive=False, file=False)`` (and ``addArtifact``):
  with one of the flags, the paths ship to the executors as ``sc.addPyFile``,
  ``sc.addArchive`` or ``sc.addFile`` ship them; without one nothing ships (PySpark
  Classic's behaviour). A path whose name is already shipped with other contents is
  ``DUPLICATED_ARTIFACT``; two flags at once ``INVALID_MULTIPLE_ARGUMENT_CONDITIONS``.
* ``registerProgressHandler``, ``removeProgressHandler``, ``clearProgressHandlers``,
  ``copyFromLocalToFs`` and ``client``: Spark Connect only; they raise PySpark Classic's
  ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, so a program written for Connect fails as it
  would on PySpark Classic, naming the member.

Invariants
----------
* Nothing here changes the session's state but the files it ships.
* ``is_remote()`` is false: a program that asks takes the Classic path.
"""

from __future__ import annotations

import filecmp
import os
from typing import TYPE_CHECKING, Any, NoReturn

from rdd import SparkFiles

from .errors import PySparkRuntimeError, PySparkValueError

if TYPE_CHECKING:
    from rdd import SparkContext

__all__ = ["SessionArtifacts", "is_remote"]


def is_remote() -> bool:
    """Whether the program runs against Spark Connect (``pyspark.sql.is_remote``): never here."""
    return False


def _connect_only(member: str) -> NoReturn:
    raise PySparkRuntimeError(
        f"{member} is only supported with Spark Connect; however, the current Spark session does not use Spark "
        "Connect.", "ONLY_SUPPORTED_WITH_SPARK_CONNECT", {"feature": member})


class SessionArtifacts:
    """Artifacts and Connect-only members of ``SparkSession`` (see the module doc)."""

    _sc: SparkContext

    def addArtifacts(self, *path: str, pyfile: bool = False, archive: bool = False,  # noqa: N802 - PySpark's name
                     file: bool = False) -> None:
        """Ship local files to the executors (see the module doc).

        Parameters
        ----------
        *path : str
            Local paths.
        pyfile, archive, file : bool
            What the paths are: Python files (on the workers' import path), archives
            (unpacked) or plain files; at most one.
        """
        if sum([file, pyfile, archive]) > 1:
            raise PySparkValueError(
                "[{arg_names}] cannot be True together.", "INVALID_MULTIPLE_ARGUMENT_CONDITIONS",  # PySpark's text
                {"arg_names": "'pyfile', 'archive' and/or 'file'", "condition": "True together"})
        for p in path:
            normalized = os.path.abspath(p)
            shipped = os.path.join(SparkFiles.getRootDirectory(), os.path.basename(normalized))
            if os.path.exists(shipped) and not filecmp.cmp(normalized, shipped, shallow=False):
                raise PySparkRuntimeError(
                    f"Duplicate Artifact: {normalized}. Artifacts cannot be overwritten.", "DUPLICATED_ARTIFACT",
                    {"normalized_path": normalized})
        ship = self._sc.addArchive if archive else self._sc.addPyFile if pyfile else \
            self._sc.addFile if file else None
        if ship is not None:
            for p in path:
                ship(p)

    addArtifact = addArtifacts  # noqa: N815 - PySpark's name

    def registerProgressHandler(self, handler: Any) -> None:  # noqa: N802 - PySpark's name
        """Spark Connect only: raises ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, as on PySpark Classic."""
        _connect_only("SparkSession.registerProgressHandler")

    def removeProgressHandler(self, handler: Any) -> None:  # noqa: N802 - PySpark's name
        """Spark Connect only: raises ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, as on PySpark Classic."""
        _connect_only("SparkSession.removeProgressHandler")

    def clearProgressHandlers(self) -> None:  # noqa: N802 - PySpark's name
        """Spark Connect only: raises ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, as on PySpark Classic."""
        _connect_only("SparkSession.clearProgressHandlers")

    def copyFromLocalToFs(self, local_path: str, dest_path: str) -> None:  # noqa: N802 - PySpark's name
        """Spark Connect only: raises ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, as on PySpark Classic."""
        _connect_only("SparkSession.copyFromLocalToFs")

    @property
    def client(self) -> NoReturn:
        """Spark Connect only: raises ``ONLY_SUPPORTED_WITH_SPARK_CONNECT``, as on PySpark Classic."""
        _connect_only("SparkSession.client")
