"""``aes_encrypt``, ``aes_decrypt`` and ``try_aes_decrypt``: Spark's AES functions, bit for bit.

What this module owns
---------------------
The three functions, registered for SQL and ``functions``. The ciphers are the
``cryptography`` package's (never hand-written); this module owns Spark's framing:

* ``GCM`` (the default; padding ``DEFAULT`` or ``NONE``): a 12-byte IV (random unless
  given), then the ciphertext and its 16-byte tag; ``aad`` is authenticated.
* ``CBC`` (padding ``DEFAULT`` or ``PKCS``): a 16-byte IV (random unless given), then the
  PKCS#7-padded ciphertext.
* ``ECB`` (padding ``DEFAULT`` or ``PKCS``): the PKCS#7-padded ciphertext, no IV.

Invariants
----------
* A key is 16, 24 or 32 bytes; anything else raises Spark's ``AES_KEY_LENGTH`` error
  naming the length. A null input or key gives null.
* ``aes_decrypt`` raises on input it cannot decrypt (wrong key, tampered bytes, bad
  framing); ``try_aes_decrypt`` gives null there instead.
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import BinaryType, DataType, StringType
from .function_registry import FunctionSpec, register

__all__: list[str] = []

_MODES = {"GCM": ("DEFAULT", "NONE"), "CBC": ("DEFAULT", "PKCS"), "ECB": ("DEFAULT", "PKCS")}
_IV_BYTES = {"GCM": 12, "CBC": 16}
_TAG_BYTES = 16


def _options(args: list[Any], iv_at: int | None, aad_at: int) -> tuple[str, str, bytes, bytes]:
    """Mode, padding, IV and AAD of a call (``iv_at``: the IV's position, ``None`` for decryption)."""
    mode = str(args[2] if len(args) > 2 and args[2] is not None else "GCM").upper()
    padding = str(args[3] if len(args) > 3 and args[3] is not None else "DEFAULT").upper()
    if padding not in _MODES.get(mode, ()):
        raise SparkRuntimeException(
            f"The feature is not supported: AES-{mode} with the padding {padding} by the `aes_encrypt`/`aes_decrypt` "
            "function. Use GCM (padding DEFAULT or NONE), CBC or ECB (padding DEFAULT or PKCS).",
            "UNSUPPORTED_FEATURE.AES_MODE", {"mode": mode, "padding": padding, "functionName": "`aes_encrypt`"})
    iv = bytes(args[iv_at] or b"") if iv_at is not None and len(args) > iv_at else b""
    aad = bytes(args[aad_at] or b"") if len(args) > aad_at else b""
    if iv and len(iv) != _IV_BYTES.get(mode, -1):
        raise SparkRuntimeException(
            f"The value of parameter(s) `iv` in `aes_encrypt` is invalid: AES-{mode} takes "
            + (f"an IV of {_IV_BYTES[mode]} bytes" if mode in _IV_BYTES else "no IV") + f", got {len(iv)} bytes.",
            "INVALID_PARAMETER_VALUE.AES_IV_LENGTH", {"mode": mode, "actualLength": str(len(iv))})
    if aad and mode != "GCM":
        raise SparkRuntimeException(
            f"The feature is not supported: AES-{mode} does not support additional authenticated data (AAD); "
            "only GCM does.", "UNSUPPORTED_FEATURE.AES_MODE_AAD", {"mode": mode})
    return mode, padding, iv, aad


def _key(key: bytes) -> bytes:
    if len(key) not in (16, 24, 32):
        raise SparkRuntimeException(
            "The value of parameter(s) `key` in `aes_encrypt`/`aes_decrypt` is invalid: expects a binary value with "
            f"16, 24 or 32 bytes, but got {len(key)} bytes.", "INVALID_PARAMETER_VALUE.AES_KEY_LENGTH",
            {"parameter": "`key`", "functionName": "`aes_encrypt`/`aes_decrypt`", "actualLength": str(len(key))})
    return key


def _encrypt_one(data: bytes, key: bytes, mode: str, iv: bytes, aad: bytes) -> bytes:
    from cryptography.hazmat.primitives import padding as sym_padding  # noqa: PLC0415 - loads with first use
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: PLC0415
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

    if mode == "GCM":
        nonce = iv or os.urandom(12)
        return nonce + AESGCM(key).encrypt(nonce, data, aad or None)
    padder = sym_padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    if mode == "CBC":
        vector = iv or os.urandom(16)
        encryptor = Cipher(algorithms.AES(key), modes.CBC(vector)).encryptor()
        return vector + encryptor.update(padded) + encryptor.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()  # noqa: S305 - Spark's ECB mode, on request
    return encryptor.update(padded) + encryptor.finalize()


def _decrypt_one(data: bytes, key: bytes, mode: str, aad: bytes) -> bytes:
    from cryptography.hazmat.primitives import padding as sym_padding  # noqa: PLC0415 - loads with first use
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: PLC0415
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: PLC0415

    if mode == "GCM":
        if len(data) < 12 + _TAG_BYTES:
            raise ValueError(f"{len(data)} bytes are shorter than an IV and a tag")
        return AESGCM(key).decrypt(data[:12], data[12:], aad or None)
    if mode == "CBC":
        if len(data) < 32 or len(data) % 16:
            raise ValueError(f"{len(data)} bytes are not an IV and whole blocks")
        decryptor = Cipher(algorithms.AES(key), modes.CBC(data[:16])).decryptor()
        padded = decryptor.update(data[16:]) + decryptor.finalize()
    else:
        if not data or len(data) % 16:
            raise ValueError(f"{len(data)} bytes are not whole blocks")
        decryptor = Cipher(algorithms.AES(key), modes.ECB()).decryptor()  # noqa: S305 - Spark's ECB mode
        padded = decryptor.update(data) + decryptor.finalize()
    unpadder = sym_padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def _rows(args: list[Any]) -> list[tuple[Any, Any]]:
    return list(zip(args[0].to_pylist(), args[1].to_pylist()))


def _run_encrypt(args: list[Any], types: list[DataType], rt: DataType, ctx: Any) -> pa.Array:
    mode, _, iv, aad = _options(args, 4, 5)
    return pa.array([None if data is None or key is None else _encrypt_one(data, _key(key), mode, iv, aad)
                     for data, key in _rows(args)], pa.binary())


def _decrypting(strict: bool) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: Any) -> pa.Array:
        from cryptography.exceptions import InvalidTag  # noqa: PLC0415 - loads with first use

        mode, _, _, aad = _options(args, None, 4)
        out: list[bytes | None] = []
        for data, key in _rows(args):
            if data is None or key is None:
                out.append(None)
                continue
            try:
                out.append(_decrypt_one(data, _key(key), mode, aad))
            except (InvalidTag, ValueError) as exc:
                if not strict:
                    out.append(None)
                    continue
                detail = "Tag mismatch" if isinstance(exc, InvalidTag) else str(exc)
                raise SparkRuntimeException(
                    f"The value of parameter(s) `expr`, `key` in `aes_decrypt` is invalid: detail message: {detail} "
                    "(the input was not encrypted with this key, mode and AAD, or was changed).",
                    "INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR", {"detailMessage": detail}) from None
        return pa.array(out, pa.binary())
    return run


def _types(count: int) -> Any:
    # input, key, mode, padding, then iv and aad (encrypt) or aad (decrypt): all bytes but the two names.
    wanted: list[DataType | None] = [BinaryType(), BinaryType(), StringType(), StringType(),
                                     *[BinaryType()] * (count - 4)]

    def arg_types(types: list[DataType]) -> list[DataType | None]:
        return wanted[:len(types)]
    return arg_types


def _display(defaults: tuple[str, ...]) -> Any:
    """Spark names the call with every optional argument, its default shown where omitted."""
    def display(name: str) -> Any:
        def shown(sqls: list[str]) -> str:
            return f"{name}({', '.join([*sqls, *defaults[len(sqls) - 2:]])})"
        return shown
    return display


_ENCRYPT_DEFAULTS = ("GCM", "DEFAULT", "", "")
_DECRYPT_DEFAULTS = ("GCM", "DEFAULT", "")

register(FunctionSpec("aes_encrypt", 2, 6, _types(6), lambda ts: BinaryType(), _run_encrypt,
                      scalar_positions=(2, 3, 4, 5), foldable=False,
                      display=_display(_ENCRYPT_DEFAULTS)("aes_encrypt")))
for _name, _strict in (("aes_decrypt", True), ("try_aes_decrypt", False)):
    register(FunctionSpec(_name, 2, 5, _types(5), lambda ts: BinaryType(), _decrypting(_strict),
                          scalar_positions=(2, 3, 4), display=_display(_DECRYPT_DEFAULTS)(_name)))
