"""aes_encrypt / aes_decrypt / try_aes_decrypt: the bytes PySpark 4.0.1 gives for the same calls."""

from __future__ import annotations

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import SparkRuntimeException


def one(spark: SparkSession, sql: str) -> object:
    return spark.sql(sql).collect()[0][0]


@pytest.mark.parametrize(("call", "expected"), [
    # Each hex string is what PySpark 4.0.1 returned for the same SQL.
    ("aes_encrypt('Spark', '0000111122223333', 'GCM', 'DEFAULT', unhex('000000000000000000000000'))",
     "00000000000000000000000046C4EF1C6A7041A6BEAD289645459AF972E4153D03"),
    ("aes_encrypt('Spark', '0000111122223333', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), "
     "'This is an AAD mixed into the input')",
     "00000000000000000000000046C4EF1C6A51487FED3CAC184086329C72D48C83F7"),
    ("aes_encrypt('Spark', '0000111122223333', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000'))",
     "00000000000000000000000000000000348FF37EBDE05B7880BA339068FBDA5E"),
    ("aes_encrypt('Spark SQL', '1234567890abcdef', 'ECB', 'PKCS')", "DE59B0BBE330D07DDF8B9343BDCBBD96"),
    ("aes_encrypt('Spark SQL', 'abcdefghijklmnop12345678ABCDEFGH', 'ECB')", "57C7DEBFF699BFD10F30567988D40FB7"),
])
def test_encryption_gives_sparks_bytes(spark: SparkSession, call: str, expected: str) -> None:
    assert one(spark, f"SELECT hex({call})") == expected


def test_round_trips_lengths_nulls_and_names(spark: SparkSession) -> None:
    for mode in ("GCM", "CBC", "ECB"):
        assert one(spark, f"SELECT cast(aes_decrypt(aes_encrypt('Spark', 'abcdefghijklmnop', '{mode}'), "
                          f"'abcdefghijklmnop', '{mode}') AS string)") == "Spark"
    # A random IV each time (GCM: 12 bytes + the 16-byte tag; CBC: 16 bytes); ECB has none.
    assert tuple(spark.sql("SELECT length(aes_encrypt('Spark', 'abcdefghijklmnop')), "
                           "length(aes_encrypt('Spark', 'abcdefghijklmnop', 'CBC')), "
                           "length(aes_encrypt('Spark', 'abcdefghijklmnop', 'ECB'))").collect()[0]) == (33, 32, 16)
    assert one(spark, "SELECT aes_encrypt('Spark', 'abcdefghijklmnop')") != \
        one(spark, "SELECT aes_encrypt('Spark', 'abcdefghijklmnop')")
    assert tuple(spark.sql("SELECT aes_encrypt(NULL, 'abcdefghijklmnop'), "
                           "aes_decrypt(NULL, 'abcdefghijklmnop')").collect()[0]) == (None, None)
    df = spark.range(1)
    assert df.select(F.aes_encrypt(F.lit("a"), F.lit("abcdefghijklmnop"))).columns == [
        "aes_encrypt(a, abcdefghijklmnop, GCM, DEFAULT, , )"]
    assert df.select(F.aes_decrypt(F.lit("a"), F.lit("abcdefghijklmnop"))).columns == [
        "aes_decrypt(a, abcdefghijklmnop, GCM, DEFAULT, )"]
    encrypted = df.select(F.aes_encrypt(F.lit("Spark"), F.lit("0000111122223333"), F.lit("GCM"), F.lit("DEFAULT"),
                                        F.unhex(F.lit("000000000000000000000000"))).alias("x"))
    assert encrypted.select(F.hex("x")).collect()[0][0] == \
        "00000000000000000000000046C4EF1C6A7041A6BEAD289645459AF972E4153D03"
    assert encrypted.select(F.aes_decrypt("x", F.lit("0000111122223333")).cast("string")).collect()[0][0] == "Spark"


def test_bad_keys_modes_and_input(spark: SparkSession) -> None:
    with pytest.raises(SparkRuntimeException, match=r"AES_KEY_LENGTH\] The value of parameter\(s\) `key` in "
                                                    r"`aes_encrypt`/`aes_decrypt` is invalid: expects a binary value "
                                                    r"with 16, 24 or 32 bytes, but got 5 bytes"):
        spark.sql("SELECT aes_encrypt('Spark', 'short')").collect()
    with pytest.raises(SparkRuntimeException, match="AES-XTS with the padding DEFAULT"):
        spark.sql("SELECT aes_encrypt('Spark', 'abcdefghijklmnop', 'XTS')").collect()
    with pytest.raises(SparkRuntimeException, match="AES-GCM with the padding PKCS"):
        spark.sql("SELECT aes_encrypt('Spark', 'abcdefghijklmnop', 'GCM', 'PKCS')").collect()
    with pytest.raises(SparkRuntimeException, match="AES_CRYPTO_ERROR"):
        spark.sql("SELECT aes_decrypt(unhex('00'), 'abcdefghijklmnop')").collect()
    with pytest.raises(SparkRuntimeException, match="Tag mismatch"):
        spark.sql("SELECT aes_decrypt(aes_encrypt('Spark', 'abcdefghijklmnop'), 'ponmlkjihgfedcba')").collect()
    assert one(spark, "SELECT try_aes_decrypt(unhex('00'), 'abcdefghijklmnop')") is None
    assert one(spark, "SELECT try_aes_decrypt(aes_encrypt('Spark', 'abcdefghijklmnop'), 'ponmlkjihgfedcba')") is None
