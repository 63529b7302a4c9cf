"""Spark's VARIANT type: semi-structured values in Spark 4's binary variant encoding.

What this package owns
----------------------
A variant is two byte strings: a *value* (the tree: nulls, booleans, integers, decimals,
doubles, strings, dates, timestamps, binaries, objects and arrays, each tagged by its first
byte) and a *metadata* dictionary of the object keys the value uses. The bytes are the ones
Spark 4 writes, so a variant collected from dstreams and one collected from PySpark hold the
same ``value`` and ``metadata``.

* :mod:`.format`: the encoding itself, a builder that writes it and the readers of one value.
* :mod:`.parse`: ``parse_json``: JSON text to a variant, with Spark's choice of number types.
* :mod:`.python_view`: a variant as Python objects and as JSON text the way PySpark's
  ``VariantVal`` prints it.
* :mod:`.render`: a variant as JSON the way Spark's SQL prints it (``to_json``, ``show``,
  a cast to string).
* :mod:`.paths`: ``variant_get`` paths (``$.a[0]['b']``) and navigation along them.
* :mod:`.schema`: ``schema_of_variant`` and the merge of ``schema_of_variant_agg``.
* :mod:`.convert`: variants to Spark-typed values (``variant_get``, casts) and back.
* :mod:`.arrow`: the Arrow extension type a VARIANT column is stored in.

Invariants
----------
* The package sits under ``dstream.sql.types``: :mod:`.format`, :mod:`.parse` and
  :mod:`.python_view` import no other ``dstream`` module but the errors, so the
  ``VariantVal`` of the types module can use them.
"""
