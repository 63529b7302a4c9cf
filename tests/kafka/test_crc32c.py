"""kafka-python checks record-batch checksums with the compiled ``crc32c`` package.

kafka-python verifies the CRC-32C of every record batch it reads (and computes it for
every batch it writes) with ``crc32c.crc32c`` when that module imports, and otherwise
with a pure-Python loop over every byte, which dominated the time of reading a topic.
``crc32c`` is a dependency of dstreams for that reason; these tests fail when it goes
missing, or when kafka-python stops picking it up, instead of the Kafka streams quietly
becoming several times slower.
"""

from __future__ import annotations

from tests.kafka.utils import KAFKA_PYTHON_WARNINGS

pytestmark = KAFKA_PYTHON_WARNINGS

#: CRC-32C of b"123456789": the check value of the Castagnoli polynomial (RFC 3720).
CHECK_INPUT = b"123456789"
CHECK_VALUE = 0xE3069283


def test_crc32c_is_installed_and_compiled() -> None:
    import crc32c  # a missing dependency is a failure, never a skip

    assert crc32c.crc32c(CHECK_INPUT) == CHECK_VALUE
    assert type(crc32c.crc32c).__name__ == "builtin_function_or_method", (
        f"crc32c.crc32c is {crc32c.crc32c!r}, not a compiled function: reinstall the "
        "crc32c package (pip install crc32c) from a wheel or with a C compiler")


def test_kafka_record_code_uses_the_compiled_crc32c() -> None:
    import crc32c
    from kafka.record import default_records, util

    # util chooses once, at import, and binds the choice as calc_crc32c's default argument.
    assert util.crc32c_c is crc32c.crc32c, "kafka.record.util did not import crc32c.crc32c"
    assert util.calc_crc32c.__defaults__ == (crc32c.crc32c,), (
        f"kafka.record.util.calc_crc32c computes with {util.calc_crc32c.__defaults__!r}, "
        "not crc32c.crc32c: the record batches' checksums run in pure Python")
    assert default_records.calc_crc32c is util.calc_crc32c
    assert default_records.calc_crc32c(memoryview(CHECK_INPUT)) == CHECK_VALUE
