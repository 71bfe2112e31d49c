"""JSON Web Token helpers for the shop's session layer."""

import base64
import hashlib
import hmac
import json


class TokenError(ValueError):
    """Raised when a token is malformed or its signature does not match."""


class JwtCodec:
    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def sign(self, claims: dict) -> str:
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = _b64(json.dumps(claims, sort_keys=True).encode())
        signature = _b64(self._mac(f"{header}.{payload}".encode()))
        return f"{header}.{payload}.{signature}"

    def verify_token(self, token: str) -> dict:
        try:
            header, payload, signature = token.split(".")
        except ValueError as exc:
            raise TokenError("token must have three parts") from exc
        expected = _b64(self._mac(f"{header}.{payload}".encode()))
        if not hmac.compare_digest(expected, signature):
            raise TokenError("bad signature")
        return json.loads(base64.urlsafe_b64decode(payload + "=="))

    def _mac(self, data: bytes) -> bytes:
        return hmac.new(self._secret, data, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
