"""Access tokens for the bundled rfc9068 policy, signed with its test key, valid for an hour.

Usage: python3 Benchmarks/access-tokens.py COUNT > tokens.txt (one token a line). Needs the
`cryptography` module (pip install cryptography).
"""
import base64
import json
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

key = serialization.load_pem_private_key(open("Policies/keys/test-rs256.key.pem", "rb").read(), None)
now = int(time.time())


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


header = b64(json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": "test-rs256"}).encode())
for i in range(int(sys.argv[1])):
    claims = {"iss": "https://auth.example.com/", "sub": f"user-{i}", "aud": "https://api.example.com", "client_id": "s6BhdRkqt3",
              "scope": "openid orders:read", "jti": f"jti-{i}", "iat": now - 60, "exp": now + 3600}
    signing_input = header + "." + b64(json.dumps(claims).encode())
    print(signing_input + "." + b64(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())))
