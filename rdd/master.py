"""The master URL, parsed once into a value.

What this module owns
---------------------
The accepted master forms and their meaning, and the default master (``local[*]``) used
when none is given anywhere:

============  =====================================================================
``local``     tasks run inline in the driver (no worker process)
``local[N]``  N worker processes, N >= 1
``local[*]``  one worker process per core (``os.cpu_count()``, read when parsed)
``ray``       executors are Ray actors, one per CPU the cluster offers
``ray[N]``    N Ray executors, N >= 1
============  =====================================================================

Invariants
----------
* :meth:`Master.parse` is the only parser of a master string. ``SparkContext`` parses
  its ``spark.master`` once, before it takes the one-active-context slot, and hands the
  :class:`Master` to everything that needs to know how tasks run; nothing re-reads the
  string.
* A new kind of master (a cluster backend) is a new :class:`MasterKind` member and a
  branch of :meth:`Master.parse`; the executor backend is chosen from the kind.
"""

from __future__ import annotations

import enum
import os
import re
from dataclasses import dataclass

__all__ = ["ACCEPTED_MASTERS", "DEFAULT_MASTER", "Master", "MasterKind"]

DEFAULT_MASTER = "local[*]"
ACCEPTED_MASTERS = ("'local' (tasks inline in the driver), 'local[N]' (N worker processes, "
                    "N >= 1), 'local[*]' (one worker per core), 'ray' (Ray executors, one per CPU "
                    "of the cluster) or 'ray[N]' (N Ray executors)")

# A second bracket (``local[2][4]``) has always been accepted, and its number ignored.
_LOCAL_N = re.compile(r"local\[([0-9]+|\*)\](?:\[[0-9]+\])?")
_RAY_N = re.compile(r"ray\[([0-9]+)\]")


class MasterKind(enum.Enum):
    """How a master runs tasks."""

    #: ``local``: inline, in the driver's own process.
    LOCAL = "local"
    #: ``local[N]``: a pool of N worker processes on this machine.
    LOCAL_N = "local[N]"
    #: ``local[*]``: a pool of one worker process per core.
    LOCAL_STAR = "local[*]"
    #: ``ray`` / ``ray[N]``: executors are actors of a Ray cluster.
    RAY = "ray"


@dataclass(frozen=True, slots=True)
class Master:
    """A parsed master URL.

    Attributes
    ----------
    url : str
        The URL as given (blanks around it removed).
    kind : MasterKind
        How tasks run.
    workers : int
        Worker processes (Ray executors for ``ray[N]``); 0 means tasks run inline in the
        driver for ``local``, and one executor per CPU of the cluster for ``ray``.

    Examples
    --------
    >>> Master.parse("local[2]").workers
    2
    >>> Master.parse("local").inline
    True
    """

    url: str
    kind: MasterKind
    workers: int

    @property
    def inline(self) -> bool:
        """Whether tasks run in the driver's process (no worker process)."""
        return self.kind is MasterKind.LOCAL

    @classmethod
    def parse(cls, url: object) -> Master:
        """Parse a master URL.

        Parameters
        ----------
        url : str
            ``local``, ``local[N]`` (N >= 1), ``local[*]``, ``ray`` or ``ray[N]`` (N >= 1).

        Raises
        ------
        TypeError
            If ``url`` is not a string.
        ValueError
            For any other form; the message lists the accepted ones.
        """
        if not isinstance(url, str):
            raise TypeError(f"master must be a string such as 'local[2]', got {url!r} "
                            f"({type(url).__name__})")
        text = url.strip()
        if text == "local":
            return cls(text, MasterKind.LOCAL, 0)
        if text == "ray":
            return cls(text, MasterKind.RAY, 0)
        ray_match = _RAY_N.fullmatch(text)
        if ray_match is not None and int(ray_match.group(1)) >= 1:
            return cls(text, MasterKind.RAY, int(ray_match.group(1)))
        match = _LOCAL_N.fullmatch(text)
        if match is not None:
            count = match.group(1)
            if count == "*":
                return cls(text, MasterKind.LOCAL_STAR, os.cpu_count() or 1)
            if int(count) >= 1:
                return cls(text, MasterKind.LOCAL_N, int(count))
        raise ValueError(f"Could not parse master URL {url!r}: use {ACCEPTED_MASTERS}")
