"""A token log with a key rotation and a failure spike, for the HTML report's tests and benchmark.

Writes into DIR: keys.jwks.json (two HS256 keys, kid `2026-a` and `2026-b`), policy.yaml (the
policy that judges the log) and log.jsonl (N records over two days from 2026-11-20T00:00:00Z,
in time order, each `{"token": ..., "ts": ...}`). Tokens are signed with `2026-a` before
2026-11-21T00:00:00Z and with `2026-b` after; from 2026-11-20T18:00:00Z to 19:00 one in two
records carries a signature made with a key nobody holds (signature_invalid); one record in
fifty is expired, one in a hundred and fifty is from another issuer, and the log starts with one
record stamped 1970 (a stray) and one line that is not JSON. Deterministic: the same N gives the
same files. Uses the standard library only.

    python3 make_rotation_log.py DIR N
"""
import base64
import hashlib
import hmac
import json
import os
import sys

START = 1_795_132_800  # 2026-11-20T00:00:00Z
SPAN = 2 * 86_400
ROTATION = START + 86_400
SPIKE = (START + 18 * 3600, START + 19 * 3600)
ISSUER = "https://login.example"
OTHER_ISSUER = "https://partner.example"
SECRETS = {"2026-a": b"a" * 32, "2026-b": b"b" * 32}
NOBODY = b"x" * 32


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(header: dict, claims: dict, secret: bytes) -> str:
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
    return signing_input + "." + b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def records(count: int):
    """The log's records after its first two lines: (ts, kid, claims, secret) for each."""
    for index in range(count):
        ts = START + index * SPAN // count
        kid = "2026-a" if ts < ROTATION else "2026-b"
        claims = {"iss": ISSUER, "aud": "api://orders", "sub": f"user-{index % 997}", "iat": ts - 60, "exp": ts + 3600}
        secret = SECRETS[kid]
        if index % 50 == 7:
            claims["exp"] = ts - 30
        if index % 150 == 11:
            claims["iss"] = OTHER_ISSUER
        if SPIKE[0] <= ts < SPIKE[1] and index % 2 == 0:
            secret = NOBODY
        yield ts, kid, claims, secret


def main() -> None:
    folder, count = sys.argv[1], int(sys.argv[2])
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "keys.jwks.json"), "w") as file:
        json.dump({"keys": [{"kty": "oct", "kid": kid, "alg": "HS256", "k": b64(secret)} for kid, secret in SECRETS.items()]}, file)
    with open(os.path.join(folder, "policy.yaml"), "w") as file:
        file.write(f"""policy: rotation-report
token:
  algorithms: [HS256]
  keys: {{jwks_file: keys.jwks.json}}
  issuer: {ISSUER}
  audience: api://orders
  leeway: 0
""")
    with open(os.path.join(folder, "log.jsonl"), "w") as file:
        stray = token({"alg": "HS256", "kid": "2026-a"}, {"iss": ISSUER, "aud": "api://orders", "sub": "stray", "exp": 60}, SECRETS["2026-a"])
        file.write(json.dumps({"token": stray, "ts": 0}) + "\n")
        file.write("this line is not a record\n")
        for ts, kid, claims, secret in records(count):
            file.write(json.dumps({"token": token({"alg": "HS256", "kid": kid, "typ": "JWT"}, claims, secret), "ts": ts}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
