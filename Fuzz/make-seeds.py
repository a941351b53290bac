#!/usr/bin/env python3
"""Writes the seed inputs of Fuzz/corpus/<target>/ (seed-*.bin; the campaign adds the rest).

Needs python3-cryptography. Tokens are signed with the test keys of fuzz-keys.json and the HS256
secret of TokenFuzzing.swift, so the fuzzer starts from inputs that pass every check.
"""
import base64
import gzip
import hashlib
import hmac
import json
import os
import pathlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ROOT = pathlib.Path(__file__).resolve().parent
PROJECT = ROOT.parent


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def es256_key(jwk):
    return ec.derive_private_key(int.from_bytes(unb64(jwk["d"]), "big"), ec.SECP256R1())


def sign_es256(header, claims, key):
    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def sign_hs256(header, claims, secret):
    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def write(target, name, data):
    folder = ROOT / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"seed-{name}.bin").write_bytes(data if isinstance(data, bytes) else data.encode())


keys = json.loads((ROOT / "fuzz-keys.json").read_text())
signer, other = es256_key(keys["signer"]), es256_key(keys["other"])
secret = bytes([0x42] * 32)
claims = {"iss": "https://issuer.example", "aud": ["client-1"], "scope": "read write", "tenant": "acme", "nonce": "n-1",
          "exp": 1795255200, "iat": 1795251600}

# token
write("token", "es256-valid", sign_es256({"alg": "ES256", "kid": "k1", "typ": "JWT"}, claims, signer))
write("token", "es256-other", sign_es256({"alg": "ES256", "kid": "k1"}, claims, other))
write("token", "es256-admin", sign_es256({"alg": "ES256", "kid": "k1"}, dict(claims, role="admin"), signer))
write("token", "hs256-valid", sign_hs256({"alg": "HS256", "typ": "JWT", "crit": ["exp"], "exp": 1}, claims, secret))
inner = sign_es256({"alg": "ES256", "kid": "k1"}, claims, signer)
jwe_header = b64(json.dumps({"alg": "dir", "enc": "A256GCM", "cty": "JWT"}).encode())
iv = bytes(12)
sealed = AESGCM(secret).encrypt(iv, inner.encode(), jwe_header.encode())
write("token", "nested-dir", ".".join([jwe_header, "", b64(iv), b64(sealed[:-16]), b64(sealed[-16:])]))
for sample in (PROJECT / "Policies" / "examples").glob("*.jwt"):
    write("token", sample.stem, sample.read_bytes().strip())

# jwks
for sample in (PROJECT / "Policies" / "keys").glob("*.jwks.json"):
    write("jwks", sample.stem, sample.read_bytes())
write("jwks", "fuzz-keys", json.dumps({"keys": list(keys.values())}))
wycheproof = json.loads((PROJECT / "Tests" / "PolicyEngineTests" / "Vectors" / "wycheproof" / "json_web_key_test.json").read_text())
for group in wycheproof.get("testGroups", [])[:6]:
    for case in group.get("tests", [])[:3]:
        for field in ("private", "public", "jwk", "key"):
            if isinstance(case.get(field), dict):
                write("jwks", f"wycheproof-{case['tcId']}-{field}", json.dumps(case[field]))

# json
for name, text in {"object": '{"a":[1,2.5e3,-0.0,true,false,null],"b":{"c":"\\u00e9\\ud83d\\ude00"}}', "string": '"x\\n\\"y"',
                   "number": "123456789012345678901234567890", "deep": "[" * 40 + "]" * 40, "empty": "{}"}.items():
    write("json", name, text)

# policy
for sample in (PROJECT / "Policies").glob("*.yaml"):
    write("policy", sample.stem, sample.read_bytes())

# request
for sample in (PROJECT / "Policies" / "examples").glob("*.request.json"):
    write("request", sample.stem, sample.read_bytes())
write("request", "admin-walk", json.dumps({"method": "GET", "url": "/public/%2e%2e/admin?tenant=acme", "headers": {"Content-Type": "application/json"},
                                           "body": {"user": {"name": "alice"}}}))

# callback
for sample in (PROJECT / "Policies" / "examples").glob("*.url"):
    write("callback", sample.stem, sample.read_bytes().strip())
write("callback", "good", "https://app.example.com/cb?code=c&state=af0ifjsldkj&iss=https%3A%2F%2Fidp.example.com")

# batch
lines = "\n".join(json.dumps({"token": sign_es256({"alg": "ES256", "kid": "k1"}, claims, signer), "ts": 1795253400 + i}) for i in range(3))
write("batch", "jsonl", lines + "\nnot json\n\n")
write("batch", "gzip", gzip.compress(lines.encode() + b"\n"))
write("batch", "crlf", "a\r\nb\r\n" + "x" * 5000 + "\nlast")
