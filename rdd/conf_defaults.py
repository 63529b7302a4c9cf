"""Settings from ``spark-defaults.conf`` and the process's system properties: what
``SparkConf(loadDefaults=True)`` starts from.

What this module owns
---------------------
* The process's system properties (``SparkContext.setSystemProperty``/``getSystemProperty``,
  PySpark's handle on the JVM's): their ``spark.*`` entries override the file's defaults
  in every ``SparkConf`` made afterwards, as Java system properties do in Spark.

:func:`default_settings`: the ``spark.*`` properties of ``$SPARK_CONF_DIR/spark-defaults.conf``
(else ``$SPARK_HOME/conf/spark-defaults.conf``), the file PySpark's launcher reads for every
program, so a machine-wide or project-wide default (``spark.ui.enabled false`` on a shared
host, a local directory on a bigger disk) applies without touching the programs.

Invariants
----------
* The file is Java properties as Spark writes it: one ``key value`` (or ``key=value``,
  ``key: value``) per line; blank lines and lines starting with ``#`` or ``!`` are skipped;
  only keys starting with ``spark.`` are kept, as Spark does.
* Settings made in the program (``SparkConf().set``, ``SparkContext(master, appName)``,
  the session builder) always win over the file: it only provides the starting values.
* A missing file means no defaults; an unreadable one is an error naming it. The file is
  read again only when its path or modification time changes.
"""

from __future__ import annotations

import os
import re

__all__ = ["default_settings", "defaults_path", "get_system_property", "set_system_property"]

_SEPARATOR = re.compile(r"\s*[=:]\s*|\s+")
_cache: tuple[str, float, dict[str, str]] | None = None
_system_properties: dict[str, str] = {}


def set_system_property(key: str, value: str) -> None:
    """Set a system property of this process (a ``spark.*`` one seeds later confs)."""
    _system_properties[str(key)] = str(value)


def get_system_property(key: str) -> str | None:
    """A system property set in this process, or ``None`` (Java's ``null`` for an unknown key)."""
    return _system_properties.get(key)


def defaults_path() -> str | None:
    """Where ``spark-defaults.conf`` is looked for, or ``None`` when neither variable is set."""
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if not conf_dir and os.environ.get("SPARK_HOME"):
        conf_dir = os.path.join(os.environ["SPARK_HOME"], "conf")
    return os.path.join(conf_dir, "spark-defaults.conf") if conf_dir else None


def parse_properties(text: str) -> dict[str, str]:
    """The ``spark.*`` properties of a ``spark-defaults.conf`` text."""
    settings: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        parts = _SEPARATOR.split(line, maxsplit=1)
        key, value = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key.startswith("spark."):
            settings[key] = value
    return settings


def default_settings() -> dict[str, str]:
    """The settings of the defaults file, overridden by the ``spark.*`` system properties (a copy)."""
    settings = _file_settings()
    settings.update((k, v) for k, v in _system_properties.items() if k.startswith("spark."))
    return settings


def _file_settings() -> dict[str, str]:
    global _cache
    path = defaults_path()
    if path is None:
        return {}
    try:
        stamp = os.stat(path).st_mtime
    except FileNotFoundError:
        return {}
    if _cache is None or _cache[0] != path or _cache[1] != stamp:
        try:
            with open(path, encoding="utf-8") as f:
                _cache = (path, stamp, parse_properties(f.read()))
        except OSError as exc:
            raise OSError(f"cannot read the Spark defaults file {path} ({exc.strerror}); fix its permissions, "
                          "or unset SPARK_CONF_DIR/SPARK_HOME to run without it") from exc
    return dict(_cache[2])
