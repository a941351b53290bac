#!/usr/bin/env python3
"""Writes Tests/PolicyEngineTests/Vectors/dpop/vectors.json: DPoP proofs (RFC 9449) and
DPoP-bound access tokens made by two implementations that share no code with the engine nor with
each other, Python's jwcrypto and joserfc (pinned in Scripts/install-dependencies.sh), with the
malformed variants a resource server must refuse, each with the finding code it is refused with.

Every vector is one request to https://api.example.com/orders/42 judged at NOW by a policy whose
token section trusts ISSUER_KEY and whose request section has `dpop: {}` (the test,
DPoPVectorTests, builds it). RFC 9449's own examples are tested beside these, from the RFC text.

Usage: python3 Scripts/make-dpop-vectors.py   (regenerates with fresh keys)
"""
import base64
import hashlib
import json
import os
import uuid

from jwcrypto import jwk as cjwk, jws as cjws, jwt as cjwt
from joserfc import jwt as rjwt
from joserfc.jwk import ECKey, OKPKey, RSAKey

NOW = 1_795_253_400
ISSUER = "https://auth.example.com"
AUDIENCE = "https://api.example.com"
METHOD = "GET"
URL = "https://api.example.com/orders/42?fields=all"
HTU = "https://api.example.com/orders/42"
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "PolicyEngineTests", "Vectors", "dpop", "vectors.json")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def ath(token):
    return b64(hashlib.sha256(token.encode()).digest())


def compact(header, claims, key):
    """A JWS made by jwcrypto with exactly `header` protected."""
    signed = cjws.JWS(json.dumps(claims, separators=(",", ":")).encode())
    signed.add_signature(key, alg=header["alg"], protected=json.dumps(header, separators=(",", ":")))
    return signed.serialize(compact=True)


def main():
    issuer_key = cjwk.JWK.generate(kty="RSA", size=2048, kid="as-1")
    client_ec = ECKey.generate_key("P-256")          # joserfc
    client_ed = cjwk.JWK.generate(kty="OKP", crv="Ed25519")
    client_rsa = cjwk.JWK.generate(kty="RSA", size=2048)
    other_ec = cjwk.JWK.generate(kty="EC", crv="P-256")

    def access_token(jkt, maker="jwcrypto"):
        claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "user-1", "client_id": "client-1", "iat": NOW - 600, "exp": NOW + 3000,
                  "jti": str(uuid.uuid4())}
        if jkt is not None:
            claims["cnf"] = {"jkt": jkt}
        if maker == "joserfc":
            return rjwt.encode({"alg": "RS256", "typ": "at+jwt", "kid": "as-1"}, claims, RSAKey.import_key(json.loads(issuer_key.export_private())))
        token = cjwt.JWT(header={"alg": "RS256", "typ": "at+jwt", "kid": "as-1"}, claims=claims)
        token.make_signed_token(issuer_key)
        return token.serialize()

    ec_public = client_ec.as_dict(private=False)
    ec_thumbprint = client_ec.thumbprint()
    ed_public = json.loads(client_ed.export_public())
    rsa_public = json.loads(client_rsa.export_public())

    def proof_claims(token, **changes):
        claims = {"jti": str(uuid.uuid4()), "htm": METHOD, "htu": HTU, "iat": NOW - 2}
        if token is not None:
            claims["ath"] = ath(token)
        for name, value in changes.items():
            if value is None:
                claims.pop(name, None)
            else:
                claims[name] = value
        return claims

    def joserfc_proof(token, **changes):
        return rjwt.encode({"typ": "dpop+jwt", "alg": "ES256", "jwk": ec_public}, proof_claims(token, **changes), client_ec)

    vectors = []

    def vector(name, maker, token, proof, expect, scheme="DPoP", method=METHOD, url=URL):
        headers = {"DPoP": proof} if proof is not None else {}
        if token is not None:
            headers["Authorization"] = f"{scheme} {token}"
        vectors.append({"name": name, "maker": maker, "request": {"method": method, "url": url, "headers": headers}, "expect": expect})

    bound_ec = access_token(ec_thumbprint, maker="joserfc")
    vector("ES256 proof and bound token made by joserfc", "joserfc", bound_ec, joserfc_proof(bound_ec), "valid")
    bound_ed = access_token(client_ed.thumbprint())
    vector("EdDSA (Ed25519) proof made by jwcrypto", "jwcrypto", bound_ed,
           compact({"typ": "dpop+jwt", "alg": "EdDSA", "jwk": ed_public}, proof_claims(bound_ed), client_ed), "valid")
    bound_rsa = access_token(client_rsa.thumbprint())
    vector("PS256 proof made by jwcrypto", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "PS256", "jwk": rsa_public}, proof_claims(bound_rsa), client_rsa), "valid")
    vector("RS256 proof made by jwcrypto", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "RS256", "jwk": rsa_public}, proof_claims(bound_rsa), client_rsa), "valid")
    vector("the proof's htu with the default https port written", "joserfc", bound_ec,
           joserfc_proof(bound_ec, htu="https://API.example.com:443/orders/42"), "valid")

    vector("htm of another method", "joserfc", bound_ec, joserfc_proof(bound_ec, htm="POST"), "dpop_htm_mismatch")
    vector("htm in lower case", "joserfc", bound_ec, joserfc_proof(bound_ec, htm="get"), "dpop_htm_mismatch")
    vector("htu with a query", "joserfc", bound_ec, joserfc_proof(bound_ec, htu=HTU + "?fields=all"), "dpop_htu_mismatch")
    vector("htu of another host", "joserfc", bound_ec, joserfc_proof(bound_ec, htu="https://evil.example.com/orders/42"), "dpop_htu_mismatch")
    vector("htu of another path", "joserfc", bound_ec, joserfc_proof(bound_ec, htu="https://api.example.com/orders/43"), "dpop_htu_mismatch")
    vector("htu over http", "joserfc", bound_ec, joserfc_proof(bound_ec, htu="http://api.example.com/orders/42"), "dpop_htu_mismatch")
    vector("iat ten minutes old", "joserfc", bound_ec, joserfc_proof(bound_ec, iat=NOW - 600), "dpop_proof_too_old")
    vector("iat a minute in the future", "joserfc", bound_ec, joserfc_proof(bound_ec, iat=NOW + 60), "dpop_iat_in_future")
    vector("no jti", "joserfc", bound_ec, joserfc_proof(bound_ec, jti=None), "dpop_proof_malformed")
    vector("jti a number", "joserfc", bound_ec, joserfc_proof(bound_ec, jti=7), "dpop_proof_malformed")
    vector("no iat", "joserfc", bound_ec, joserfc_proof(bound_ec, iat=None), "dpop_proof_malformed")
    vector("no ath with an access token", "joserfc", bound_ec, joserfc_proof(bound_ec, ath=None), "dpop_ath_missing")
    vector("ath of another token", "joserfc", bound_ec, joserfc_proof(bound_ec, ath=ath(bound_ed)), "dpop_ath_mismatch")
    vector("typ JWT", "jwcrypto", bound_rsa,
           compact({"typ": "JWT", "alg": "PS256", "jwk": rsa_public}, proof_claims(bound_rsa), client_rsa), "dpop_typ_invalid")
    vector("no typ", "jwcrypto", bound_rsa,
           compact({"alg": "PS256", "jwk": rsa_public}, proof_claims(bound_rsa), client_rsa), "dpop_typ_invalid")
    vector("a private jwk in the header", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "PS256", "jwk": json.loads(client_rsa.export_private())}, proof_claims(bound_rsa), client_rsa),
           "dpop_key_invalid")
    vector("no jwk in the header", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "PS256"}, proof_claims(bound_rsa), client_rsa), "dpop_key_invalid")
    secret = cjwk.JWK.generate(kty="oct", size=256)
    vector("alg HS256 with a symmetric key", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "HS256", "jwk": rsa_public}, proof_claims(bound_rsa), secret), "dpop_alg_not_allowed")
    unsigned = b64(json.dumps({"typ": "dpop+jwt", "alg": "none", "jwk": ed_public}).encode()) + "." + \
        b64(json.dumps(proof_claims(bound_ed)).encode()) + "."
    vector("alg none", "jwcrypto", bound_ed, unsigned, "dpop_alg_not_allowed")
    vector("ES256 header with an RSA jwk", "jwcrypto", bound_rsa,
           compact({"typ": "dpop+jwt", "alg": "ES256", "jwk": rsa_public}, proof_claims(bound_rsa), other_ec), "dpop_key_invalid")
    vector("signed by a key other than its jwk", "jwcrypto", bound_ec,
           compact({"typ": "dpop+jwt", "alg": "ES256", "jwk": ec_public}, proof_claims(bound_ec), other_ec), "dpop_signature_invalid")
    vector("a token bound to another key", "jwcrypto", bound_ed,
           compact({"typ": "dpop+jwt", "alg": "PS256", "jwk": rsa_public}, proof_claims(bound_ed), client_rsa), "dpop_binding_mismatch")
    unbound = access_token(None)
    vector("a token bound to no key", "joserfc", unbound, joserfc_proof(unbound), "dpop_token_unbound")
    vector("a bound token sent as a bearer token", "joserfc", bound_ec, joserfc_proof(bound_ec), "dpop_proof_missing", scheme="Bearer")
    vector("a bound token with no proof", "joserfc", bound_ec, None, "dpop_proof_missing")

    document = {
        "about": "DPoP proofs and bound access tokens from jwcrypto and joserfc; see Scripts/make-dpop-vectors.py",
        "now": NOW, "issuer": ISSUER, "audience": AUDIENCE,
        "issuer_keys": {"keys": [json.loads(issuer_key.export_public())]},
        "vectors": vectors,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as out:
        json.dump(document, out, indent=1)
        out.write("\n")
    print(f"{len(vectors)} vectors written to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
