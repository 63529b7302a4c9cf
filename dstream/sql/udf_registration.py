"""``spark.udf``: Python functions registered by name for SQL (PySpark's ``UDFRegistration``).

What this module owns
---------------------
:class:`UDFRegistration` (``spark.udf.register(name, f, returnType)``), the session's
table of registered functions, and :func:`sql_functions`, the namespace SQL text is
built against: the registered functions first, then ``dstream.sql.functions``. Both
``spark.sql`` and ``F.expr`` (and so ``selectExpr``, ``filter("...")``) use it, with the
active session's registrations.

Invariants
----------
* A name is case-insensitive and belongs to one session (Spark's temporary functions);
  registering it again replaces it, and it takes precedence over a built-in function of
  that name, as in Spark.
* ``register`` returns the UDF, callable on Columns like the one ``udf`` makes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import PySparkTypeError

if TYPE_CHECKING:
    from .session import SparkSession

__all__ = ["UDFRegistration", "active_registered_udf", "active_sql_functions", "sql_column", "sql_functions"]


class UDFRegistration:
    """The session's registered Python functions (``spark.udf``)."""

    def __init__(self, session: SparkSession) -> None:
        self._session = session
        self._functions: dict[str, Any] = {}

    def register(self, name: str, f: Callable[..., Any], returnType: Any = None) -> Any:  # noqa: N803
        """Register ``f`` as the SQL function ``name``; return it as a UDF.

        Parameters
        ----------
        name : str
            The name SQL calls it by.
        f : callable or UserDefinedFunction
            A Python function (then ``returnType`` is its result type, string by default),
            or a UDF made by ``udf``/``pandas_udf`` (which has its own type).
        returnType : DataType or str, optional
            The result type of a plain function.

        Examples
        --------
        >>> squared = spark.udf.register("squared", lambda x: x * x, "long")
        >>> spark.sql("SELECT squared(3) AS s").first().s
        9
        """
        from .functions_udf import UserDefinedFunction  # noqa: PLC0415 - functions import the session's modules

        if not isinstance(name, str) or not name:
            raise PySparkTypeError(f"Argument `name` should be a non-empty str, got {name!r}.", "NOT_STR",
                                   {"arg_name": "name", "arg_type": type(name).__name__})
        if hasattr(f, "evalType") or isinstance(f, UserDefinedFunction):
            if returnType is not None:
                raise PySparkTypeError(
                    "Invalid return type: data type can not be specified when f is a user-defined function, but got "
                    f"{returnType!r}. Register it without returnType.", "CANNOT_SPECIFY_RETURN_TYPE_FOR_UDF",
                    {"arg_name": "f", "return_type": str(returnType)})
            registered = f
        elif callable(f):
            registered = UserDefinedFunction(f, returnType, name=name)
        else:
            raise PySparkTypeError(f"Argument `f` should be a function or a UDF, got {type(f).__name__}.",
                                   "NOT_CALLABLE", {"arg_name": "f", "arg_type": type(f).__name__})
        self._functions[name.lower()] = registered
        return registered

    def registerJavaFunction(self, name: str, javaClassName: str, returnType: Any = None) -> None:  # noqa: N802,N803
        """Not available: there is no JVM. Register a Python function with :meth:`register`."""
        raise PySparkTypeError(
            f"registerJavaFunction({name!r}, {javaClassName!r}): there is no JVM here to load Java classes from; "
            "write the function in Python and use spark.udf.register.", "NOT_SUPPORTED", {"name": name})

    def lookup(self, name: str) -> Any:
        """The UDF registered as ``name`` (any case), or ``None``."""
        return self._functions.get(name.lower())

    def names(self) -> list[str]:
        """The registered names (lower case)."""
        return sorted(self._functions)


class _WithUDFs(ModuleType):
    """``dstream.sql.functions`` with a session's registered functions in front of it."""

    def __init__(self, functions: ModuleType, registry: UDFRegistration) -> None:
        super().__init__(functions.__name__)
        self._functions = functions
        self._registry = registry
        self.__all__ = sorted(set(getattr(functions, "__all__", [])) | set(registry.names()))

    def __getattr__(self, name: str) -> Any:
        registered = self._registry.lookup(name) if not name.startswith("_") else None
        if registered is not None:
            return _caller(registered)
        return getattr(self._functions, name)


def _caller(registered: Any) -> Callable[..., Any]:
    # A function of this package (the SQL builder takes only those), calling the UDF.
    return lambda *cols: registered(*cols)


def sql_functions(session: SparkSession | None, functions: ModuleType) -> ModuleType:
    """What SQL text is built against: ``functions``, behind ``session``'s registered UDFs if any."""
    registry = None if session is None else getattr(session, "_udf_registration", None)
    if registry is None or not registry.names():
        return functions
    return _WithUDFs(functions, registry)


def active_registered_udf(name: str) -> Any | None:
    """The UDF the active session registered as ``name`` (any case), or ``None``."""
    session_module = sys.modules.get("dstream.sql.session")  # looked up, not imported: see below
    session = None if session_module is None else session_module.SparkSession.getActiveSession()
    registry = None if session is None else getattr(session, "_udf_registration", None)
    return None if registry is None else registry.lookup(name)


def active_sql_functions(functions: ModuleType) -> ModuleType:
    """:func:`sql_functions` of the active session (``F.expr`` has no session of its own)."""
    # Looked up, not imported: the session module imports the functions, which call this.
    session_module = sys.modules.get("dstream.sql.session")
    session = None if session_module is None else session_module.SparkSession.getActiveSession()
    return sql_functions(session, functions)


def sql_column(text: str) -> Any:
    """The Column an SQL expression string describes, built against the active session's functions.

    What ``F.expr`` returns; also for modules the functions module imports, which cannot
    import it back.
    """
    from .parser import parse_expression  # noqa: PLC0415 - the parser loads on first use

    return parse_expression(text, active_sql_functions(sys.modules["dstream.sql.functions"]))
