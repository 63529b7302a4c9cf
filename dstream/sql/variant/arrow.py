"""The Arrow form of a VARIANT column: an extension type over ``struct<value, metadata>``.

What this module owns
---------------------
:data:`VARIANT_ARROW`, the Arrow extension type ``dstreams.variant`` whose storage is a
struct of two binaries, ``value`` and ``metadata`` (the names Spark gives the two parts in
Parquet). The extension keeps a variant column apart from a struct of two binaries in every
schema: shuffles, caches and files carry its name, and the type mapping reads it back as
``VariantType``. Its scalars convert to :class:`~dstream.sql.variant.value.VariantVal`
(``to_pylist()`` of a variant column gives ``VariantVal`` objects).

:func:`variant_array` builds a column from ``(value, metadata)`` pairs, :func:`parts`
reads the pairs back.

Invariants
----------
* The type is registered with Arrow when this module is imported; the type mapping
  (``dstream.sql.arrow_convert``) imports it, so every process that reads a variant column
  from IPC or Parquet knows the type.
* A null variant is a null struct; the storage of a valid one has both parts set. Parquet
  files get :func:`parquet_layout`: the parts as required binaries, as Spark requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .value import VariantVal

__all__ = ["VARIANT_ARROW", "VariantArrowType", "variant_array", "parts", "is_variant", "has_variant", "storage_type",
           "storage_value", "as_storage", "parquet_layout",
           "python_array"]

_NAME = "dstreams.variant"
_STORAGE = pa.struct([pa.field("value", pa.binary()), pa.field("metadata", pa.binary())])
# In Parquet both parts are required, as Spark writes (and insists on reading) them.
_PARQUET = pa.struct([pa.field("value", pa.binary(), nullable=False),
                      pa.field("metadata", pa.binary(), nullable=False)])


class VariantScalar(pa.ExtensionScalar):
    """One variant cell: ``as_py()`` gives a ``VariantVal`` (``None`` when null)."""

    def as_py(self, *args: Any, **kwargs: Any) -> VariantVal | None:
        storage = self.value
        if storage is None or not storage.is_valid:
            return None
        return VariantVal(bytearray(storage["value"].as_py()), bytearray(storage["metadata"].as_py()))


class VariantArrowType(pa.ExtensionType):
    """The Arrow extension type of VARIANT columns (see the module doc)."""

    def __init__(self) -> None:
        super().__init__(_STORAGE, _NAME)

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> VariantArrowType:
        return VARIANT_ARROW

    def __arrow_ext_scalar_class__(self) -> type:
        return VariantScalar

    def __reduce__(self) -> Any:
        return (VariantArrowType, ())


VARIANT_ARROW = VariantArrowType()
try:
    pa.register_extension_type(VARIANT_ARROW)
except pa.ArrowKeyError:  # registered by an earlier import of this module (a reload)
    pass


def is_variant(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is the variant extension type."""
    return isinstance(arrow_type, pa.ExtensionType) and arrow_type.extension_name == _NAME


def has_variant(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is or holds (in a list, map or struct) the variant type."""
    if is_variant(arrow_type):
        return True
    return any(has_variant(arrow_type.field(i).type) for i in range(arrow_type.num_fields))


def storage_type(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with each variant replaced by its storage struct.

    Arrow builds no extension type nested in a list or struct from Python values: build the
    storage form, then ``array.view(arrow_type)`` (the layouts are the same).
    """
    if is_variant(arrow_type):
        return _STORAGE
    t = pa.types
    if t.is_map(arrow_type):
        return pa.map_(storage_type(arrow_type.key_type), arrow_type.item_field.with_type(
            storage_type(arrow_type.item_type)))
    if t.is_list(arrow_type):
        return pa.list_(arrow_type.value_field.with_type(storage_type(arrow_type.value_type)))
    if t.is_large_list(arrow_type):
        return pa.large_list(arrow_type.value_field.with_type(storage_type(arrow_type.value_type)))
    if t.is_struct(arrow_type):
        return pa.struct([f.with_type(storage_type(f.type)) for f in arrow_type])
    return arrow_type


def as_storage(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``array`` with its variants seen as their storage structs (for Arrow kernels that take
    no extension type: ``if_else``, ``coalesce``, hash aggregations); ``view`` restores it."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return array.view(storage_type(array.type)) if has_variant(array.type) else array


def parquet_layout(table: pa.Table) -> pa.Table:
    """``table`` with each variant column as Spark lays it out in Parquet: a plain struct of two
    required binaries (empty under a null variant). The file's Spark schema says they are variants."""
    for index, field in enumerate(table.schema):
        if is_variant(field.type):
            storage = as_storage(table.column(index))
            parts = [pc.fill_null(storage.field(i), b"") for i in range(2)]
            laid = pa.StructArray.from_arrays(parts, fields=list(_PARQUET), mask=storage.is_null())
            table = table.set_column(index, field.with_type(_PARQUET), laid)
    return table


def storage_value(value: Any) -> Any:
    """A Python value with each ``VariantVal`` in it as the dict of its storage struct."""
    if isinstance(value, VariantVal):
        return {"value": bytes(value.value), "metadata": bytes(value.metadata)}
    if isinstance(value, list):
        return [storage_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(storage_value(v) for v in value)
    if isinstance(value, dict):
        return {k: storage_value(v) for k, v in value.items()}
    return value


def python_array(values: Sequence[Any], arrow_type: pa.DataType) -> pa.Array:
    """``pa.array(values, arrow_type)``, also where the type is or holds the variant type: Arrow
    builds no extension type from Python values, so variants (``VariantVal`` objects or their
    storage dicts) are built as their storage, then viewed as variants."""
    if not has_variant(arrow_type):
        return pa.array(values, arrow_type)
    return pa.array([storage_value(v) for v in values], storage_type(arrow_type)).view(arrow_type)


def variant_array(pairs: Sequence[tuple[bytes, bytes] | None]) -> pa.ExtensionArray:
    """A variant column of ``(value, metadata)`` pairs (``None`` for a null cell)."""
    values = [b"" if p is None else bytes(p[0]) for p in pairs]
    metadata = [b"" if p is None else bytes(p[1]) for p in pairs]
    mask = pa.array([p is None for p in pairs], pa.bool_()) if any(p is None for p in pairs) else None
    storage = pa.StructArray.from_arrays([pa.array(values, pa.binary()), pa.array(metadata, pa.binary())],
                                         fields=list(_STORAGE), mask=mask)
    return pa.ExtensionArray.from_storage(VARIANT_ARROW, storage)


def parts(array: pa.Array | pa.ChunkedArray) -> list[tuple[bytes, bytes] | None]:
    """The ``(value, metadata)`` pairs of a variant column (``None`` for a null cell)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if pa.types.is_null(array.type):  # an untyped NULL literal
        return [None] * len(array)
    storage = array.storage if isinstance(array, pa.ExtensionArray) else array
    values = storage.field("value").to_pylist()
    metadata = storage.field("metadata").to_pylist()
    valid = storage.is_valid().to_pylist() if storage.null_count else None
    if valid is None:
        return list(zip(values, metadata))
    return [(v, m) if ok else None for v, m, ok in zip(values, metadata, valid)]
