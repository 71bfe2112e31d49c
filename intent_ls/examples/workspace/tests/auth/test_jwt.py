from src.auth.jwt import JwtCodec


def test_round_trip():
    codec = JwtCodec(b"secret")
    assert codec.verify_token(codec.sign({"sub": "42"})) == {"sub": "42"}
