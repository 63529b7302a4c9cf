"""``variant_get`` paths: their syntax, following one into a variant, copying out what it finds.

What this module owns
---------------------
A path is ``$`` followed by steps: ``.key`` (any characters up to the next ``.`` or
``[``), ``['key']`` or ``["key"]`` (any characters but the quote), and ``[n]`` (an array
index, digits only). :func:`parse_path` turns the text into steps, or raises Spark's
``INVALID_VARIANT_GET_PATH`` naming the path and the function.

:func:`follow` walks the steps: a key step on an object finds the field, an index step on
an array the element; any other step (a key on an array, an index past the end, a missing
key) finds nothing (``None``), as Spark's ``variant_get`` gives an SQL null then.

:func:`extract` copies the value found into a variant of its own, keys renumbered from zero
in the order met (Spark's rebuild), as ``variant_get(v, path, 'variant')`` returns it.

Invariants
----------
* Steps are ``str`` (keys) or ``int`` (indices); ``$`` alone is no step at all.
"""

from __future__ import annotations

import re

from ..errors import SparkRuntimeException
from . import format as vf

__all__ = ["parse_path", "invalid_path", "follow", "extract", "find_field", "copy_into"]

_STEP = re.compile(r"\.([^.\[]+)|\['([^']*)'\]|\[\"([^\"]*)\"\]|\[(\d+)\]")


def invalid_path(path: str, function: str) -> SparkRuntimeException:
    """Spark's error for a path that is not one."""
    return SparkRuntimeException(
        f"The path `{path}` is not a valid variant extraction path in ``{function}``.\nA valid path should start "
        "with `$` and is followed by zero or more segments like `[123]`, `.name`, `['name']`, or `[\"name\"]`.",
        "INVALID_VARIANT_GET_PATH", {"path": path, "functionName": f"`{function}`"})


def parse_path(path: str, function: str = "variant_get") -> tuple[str | int, ...]:
    """The steps of ``path`` (see the module doc).

    Raises
    ------
    SparkRuntimeException
        ``INVALID_VARIANT_GET_PATH`` when ``path`` is no path.
    """
    if not path.startswith("$"):
        raise invalid_path(path, function)
    steps: list[str | int] = []
    at = 1
    while at < len(path):
        m = _STEP.match(path, at)
        if m is None:
            raise invalid_path(path, function)
        dotted, single, double, index = m.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(dotted if dotted is not None else single if single is not None else double)
        at = m.end()
    return tuple(steps)


def find_field(value: bytes, keys: list[str], pos: int, key: str) -> int | None:
    """The position of field ``key`` of the object at ``pos``, or ``None``."""
    return vf.object_field(value, keys, pos, key)


def follow(value: bytes, keys: list[str], steps: tuple[str | int, ...], pos: int = 0) -> int | None:
    """The position the steps lead to from ``pos``, or ``None`` when they lead nowhere."""
    for step in steps:
        basic, _ = vf.type_info(value, pos)
        if isinstance(step, str):
            if basic != vf.OBJECT:
                return None
            found = find_field(value, keys, pos, step)
        else:
            if basic != vf.ARRAY:
                return None
            elements = vf.array_elements(value, pos)
            found = elements[step] if step < len(elements) else None
        if found is None:
            return None
        pos = found
    return pos


def extract(value: bytes, keys: list[str], pos: int) -> tuple[bytes, bytes]:
    """The part of the variant at ``pos`` as a variant of its own (see the module doc)."""
    builder = vf.VariantBuilder()
    copy_into(builder, value, keys, pos)
    return builder.result()


def copy_into(builder: vf.VariantBuilder, value: bytes, keys: list[str], pos: int) -> None:
    """Append the part of the variant at ``pos`` to ``builder``, its keys added to the builder's."""
    basic, _ = vf.type_info(value, pos)
    start = builder.position
    if basic == vf.OBJECT:
        fields = []
        for key_id, at in vf.object_fields(value, pos):
            if key_id >= len(keys):
                raise vf.malformed()
            key = keys[key_id]
            fields.append((key, builder.add_key(key), builder.position - start))
            copy_into(builder, value, keys, at)
        builder.finish_object(start, fields)
    elif basic == vf.ARRAY:
        offsets = []
        for at in vf.array_elements(value, pos):
            offsets.append(builder.position - start)
            copy_into(builder, value, keys, at)
        builder.finish_array(start, offsets)
    else:
        builder.append_encoded(bytes(value[pos:vf.value_end(value, pos)]))
