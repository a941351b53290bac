#!/usr/bin/env python3
"""Writes Tests/PolicyEngineTests/Vectors/brainpool-jwe/brainpool_jwe_test.json: compact JWEs
with ECDH-ES and ECDH-ES+A128KW/A192KW/A256KW on brainpoolP256r1, P384r1 and P512r1 (JWK curve
names BP-256, BP-384, BP-512, as gematik's IDP encrypts to its BP256R1 key puk_idp_enc), made by
python3-cryptography through reference_jose.py, not by the engine.

Each valid case records the recipient's private JWK, the ephemeral private key, the content key
and the IV, so a test can both decrypt the token and reproduce its encrypted key and ciphertext.
The invalid cases are attacks on the recipient's private key and malformed ephemeral keys:
- InvalidCurveOrder2 / InvalidCurveOrder3: `epk` is a point of order 2 or 3 on another curve
  with the same `a` (y^2 = x^3 + ax + b'), and the JWE is encrypted with the shared secret a
  recipient that skips point validation computes for half (two thirds) of all private keys, so
  such a recipient decrypts it and leaks its key's residue modulo 2 (3);
- OffCurve, ZeroPoint, CoordinateNotReduced (x + p), NistPointRelabelled (a P-256 point named
  BP-256), OtherCurve (a point of another brainpool curve), NistCurve (crv P-256),
  ShortCoordinate, PrivateEphemeralKey (`epk` with `d`);
- ModifiedTag, EncryptedKeyWithDirect (ECDH-ES carries no encrypted key).
Brainpool curves have cofactor 1: the only small subgroups an attacker can reach are on other
curves, which is what point validation refuses.

Usage: python3 Scripts/make-brainpool-jwe-vectors.py   (the output changes on every run)
"""
import json
import os
import sys

import cryptography
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_jose as jose  # noqa: E402

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "PolicyEngineTests", "Vectors",
                      "brainpool-jwe", "brainpool_jwe_test.json")
ALGORITHMS = ["ECDH-ES", "ECDH-ES+A128KW", "ECDH-ES+A192KW", "ECDH-ES+A256KW"]
ENCRYPTIONS = ["A128GCM", "A256GCM", "A128CBC-HS256", "A256CBC-HS512"]


def square_root(value, p):
    """A square root modulo the prime p, or None (Tonelli-Shanks)."""
    value %= p
    if value == 0:
        return 0
    if pow(value, (p - 1) // 2, p) != 1:
        return None
    if p % 4 == 3:
        return pow(value, (p + 1) // 4, p)
    q, s = p - 1, 0
    while q % 2 == 0:
        q, s = q // 2, s + 1
    z = 2
    while pow(z, (p - 1) // 2, p) != p - 1:
        z += 1
    m, c, t, r = s, pow(z, q, p), pow(value, q, p), pow(value, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2, i = t2 * t2 % p, i + 1
        b = pow(c, 1 << (m - i - 1), p)
        m, c, t, r = i, b * b % p, t * b * b % p, r * b % p
    return r


def add(first, second, a, p):
    """Affine addition on y^2 = x^3 + ax + b (b is not needed); None is the point at infinity."""
    if first is None:
        return second
    if second is None:
        return first
    (x1, y1), (x2, y2) = first, second
    if x1 == x2 and (y1 + y2) % p == 0:
        return None
    if first == second:
        slope = (3 * x1 * x1 + a) * pow(2 * y1, -1, p) % p
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, p) % p
    x3 = (slope * slope - x1 - x2) % p
    return x3, (slope * (x1 - x3) - y1) % p


def order_of(point, a, p, limit):
    multiple, n = point, 1
    while multiple is not None and n <= limit:
        multiple, n = add(multiple, point, a, p), n + 1
    return n if multiple is None else None


def small_order_point(crv, order):
    """A point of `order` (2 or 3) on y^2 = x^3 + ax + b' for some b' != b."""
    _, _, p, a, b = jose.CURVES[crv]
    x = 5
    while True:
        x += 1
        if order == 2:
            b_other, y = (-(x ** 3) - a * x) % p, 0
        else:
            # x is a root of the 3-division polynomial 3x^4 + 6ax^2 + 12b'x - a^2.
            b_other = (a * a - 3 * x ** 4 - 6 * a * x * x) * pow(12 * x, -1, p) % p
            y = square_root(x ** 3 + a * x + b_other, p)
            if y is None or y == 0:
                continue
        if b_other == b:
            continue
        point = (x, y)
        assert (y * y - x ** 3 - a * x - b) % p != 0, "the point must be off the real curve"
        assert order_of(point, a, p, 3) == order, (crv, order)
        return point


def main():
    jose.check_parameters()
    groups, next_id = [], [1]

    def record(**case):
        groups[-1]["tests"].append({"tcId": next_id[0], **case})
        next_id[0] += 1

    for crv in ["BP-256", "BP-384", "BP-512"]:
        curve, size, p, a, b = jose.CURVES[crv]
        recipient = ec.generate_private_key(curve())
        recipient_jwk = jose.private_jwk(recipient, crv)
        groups.append({"curve": crv, "recipient": recipient_jwk, "tests": []})
        for alg in ALGORITHMS:
            for enc in ENCRYPTIONS:
                with_party_info = alg == "ECDH-ES+A256KW" and enc == "A256GCM"
                apu, apv = (b"Alice", b"Bob") if with_party_info else (b"", b"")
                plaintext = f"{crv} {alg} {enc}: the signed challenge".encode()
                token, ephemeral, cek, iv = jose.encrypt_ecdh(plaintext, recipient.public_key(), crv, alg, enc, apu=apu, apv=apv)
                record(comment=f"{alg} with {enc}" + (" and apu/apv" if with_party_info else ""), flags=[], result="valid",
                       jwe=token, plaintext=plaintext.decode(), ephemeral=jose.private_jwk(ephemeral, crv)["d"],
                       cek=cek.hex(), iv=iv.hex())

        def attack(comment, flag, epk, shared, error="invalid_ephemeral_key"):
            token, _, _ = jose.encrypt_agreed(b"attack", epk, shared, "ECDH-ES", "A256GCM")
            record(comment=comment, flags=[flag], result="invalid", error=error, jwe=token)

        for order in (2, 3):
            x, y = small_order_point(crv, order)
            # d·P is P or -P (same x) unless order divides d: the x coordinate is the guess.
            attack(f"epk of order {order} on an invalid curve; encrypted for Z = its x", f"InvalidCurveOrder{order}",
                   jose.coordinates_jwk(crv, x, y), x.to_bytes(size, "big"))
        honest = ec.generate_private_key(curve()).public_key().public_numbers()
        while honest.x + p >= 1 << (8 * size):  # so that x + p still fits the coordinate's length
            honest = ec.generate_private_key(curve()).public_key().public_numbers()
        attack("epk off the curve (y + 1)", "OffCurve", jose.coordinates_jwk(crv, honest.x, (honest.y + 1) % p), b"\x01" * size)
        attack("epk (0, 0), the point at infinity in some encodings", "ZeroPoint", jose.coordinates_jwk(crv, 0, 0), b"\x00" * size)
        attack("epk with x + p, not reduced modulo p", "CoordinateNotReduced", jose.coordinates_jwk(crv, honest.x + p, honest.y), b"\x02" * size)
        other_crv = {"BP-256": "BP-384", "BP-384": "BP-512", "BP-512": "BP-256"}[crv]
        other = ec.generate_private_key(jose.CURVES[other_crv][0]())
        attack(f"epk on {other_crv}", "OtherCurve", jose.public_jwk(other.public_key(), other_crv), b"\x03" * size)
        nist = ec.generate_private_key(ec.SECP256R1())
        attack("epk with crv P-256", "NistCurve", jose.public_jwk(nist.public_key(), "P-256"), b"\x04" * 32)
        if size == 32:
            relabelled = jose.public_jwk(nist.public_key(), "P-256")
            relabelled["crv"] = crv
            attack("a P-256 point named BP-256", "NistPointRelabelled", relabelled, b"\x05" * 32)
        short = jose.public_jwk(ec.generate_private_key(curve()).public_key(), crv)
        short["x"] = jose.b64u(jose.b64u_decode(short["x"])[1:])
        attack("epk with a coordinate one byte short", "ShortCoordinate", short, b"\x06" * size)
        private_epk = jose.private_jwk(ec.generate_private_key(curve()), crv)
        attack("epk carrying its private scalar d", "PrivateEphemeralKey", private_epk, b"\x07" * size)

        token, _, _, _ = jose.encrypt_ecdh(b"tampered", recipient.public_key(), crv, "ECDH-ES+A128KW", "A128GCM")
        parts = token.split(".")
        tag = bytearray(jose.b64u_decode(parts[4]))
        tag[0] ^= 1
        parts[4] = jose.b64u(bytes(tag))
        record(comment="a modified tag", flags=["ModifiedTag"], result="invalid", error="decryption_failed", jwe=".".join(parts))
        token, _, _, _ = jose.encrypt_ecdh(b"direct", recipient.public_key(), crv, "ECDH-ES", "A128GCM")
        parts = token.split(".")
        parts[1] = jose.b64u(os.urandom(24))
        record(comment="ECDH-ES with an encrypted key", flags=["EncryptedKeyWithDirect"], result="invalid", error="decryption_failed",
               jwe=".".join(parts))

    document = {
        "algorithm": "ECDH-ES on brainpool curves (RFC 7518 §4.6, RFC 5639 curves)",
        "generatorVersion": f"Scripts/make-brainpool-jwe-vectors.py, python3-cryptography {cryptography.__version__}",
        "numberOfTests": next_id[0] - 1,
        "notes": __doc__.strip().split("\n\n")[1],
        "testGroups": groups,
    }
    os.makedirs(os.path.dirname(OUTPUT), exist_ok=True)
    with open(OUTPUT, "w") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
    print(f"{document['numberOfTests']} cases written to {os.path.relpath(OUTPUT)}")


if __name__ == "__main__":
    main()
