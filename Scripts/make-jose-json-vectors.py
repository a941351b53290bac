#!/usr/bin/env python3
"""Writes Tests/PolicyEngineTests/Vectors/jose-json/vectors.json: JWS and JWE JSON serializations
(general and flattened, RFC 7515 §7.2 and RFC 7516 §7.2) and nested signed JWTs (RFC 7519 §7.2
step 8), made by two implementations that share no code with the engine nor with each other:
Python's jwcrypto and joserfc (pinned in Scripts/install-dependencies.sh), plus the malformed
variants the engine must refuse, derived from their output.

Each vector names the keys a policy uses (public keys verify, private keys decrypt), the token as
presented, and the verdict expected at NOW: `valid`, or the finding code. The Swift test
(JOSEJSONSerializationVectorTests) builds the policy from the vector and checks it.

Usage: python3 Scripts/make-jose-json-vectors.py   (regenerates with fresh keys)
"""
import json
import os
import sys

from jwcrypto import jwe as cjwe, jwk as cjwk, jws as cjws
from joserfc import jwe as rjwe, jws as rjws
from joserfc.jwk import ECKey, RSAKey
from joserfc.jwe import GeneralJSONEncryption

NOW = 1_795_253_400
CLAIMS = {"iss": "https://issuer.example", "sub": "user-1", "aud": "client-1", "iat": 1_795_251_600, "exp": 1_795_255_200}
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "PolicyEngineTests", "Vectors", "jose-json", "vectors.json")


def payload():
    return json.dumps(CLAIMS, separators=(",", ":")).encode()


def public(key):
    return json.loads(key.export_public())


def private(key):
    return json.loads(key.export_private())


def main():
    rsa = cjwk.JWK.generate(kty="RSA", size=2048, kid="rsa-1")
    ec = cjwk.JWK.generate(kty="EC", crv="P-256", kid="ec-1")
    ed = cjwk.JWK.generate(kty="OKP", crv="Ed25519", kid="ed-1")
    enc_rsa = cjwk.JWK.generate(kty="RSA", size=2048, kid="enc-rsa")
    enc_ec = cjwk.JWK.generate(kty="EC", crv="P-256", kid="enc-ec")
    vectors = []

    def jws_vector(name, token, keys, expect, algorithms=("RS256", "ES256"), signatures="any", maker="jwcrypto"):
        vectors.append({"name": name, "maker": maker, "kind": "jws", "token": token, "keys": {"keys": [public(k) for k in keys]},
                        "algorithms": list(algorithms), "signatures": signatures, "expect": expect})

    def jwe_vector(name, token, key, expect, algorithms, encryption, maker="jwcrypto"):
        vectors.append({"name": name, "maker": maker, "kind": "jwe", "token": token, "keys": {"keys": [private(key)]},
                        "key_algorithms": algorithms, "encryption": encryption, "expect": expect})

    # jwcrypto, JWS: flattened with an unprotected kid, general with two signers.
    flat = cjws.JWS(payload())
    flat.add_signature(ec, alg="ES256", protected=json.dumps({"alg": "ES256"}), header=json.dumps({"kid": "ec-1"}))
    flat_text = flat.serialize(compact=False)
    jws_vector("jwcrypto flattened JWS, kid unprotected", flat_text, [ec], "valid")

    general = cjws.JWS(payload())
    general.add_signature(rsa, alg="RS256", protected=json.dumps({"alg": "RS256"}), header=json.dumps({"kid": "rsa-1"}))
    general.add_signature(ec, alg="ES256", protected=json.dumps({"alg": "ES256", "kid": "ec-1"}))
    general_text = general.serialize(compact=False)
    jws_vector("jwcrypto general JWS, any: the second signer is known", general_text, [ec], "valid")
    jws_vector("jwcrypto general JWS, any: the first signer is known", general_text, [rsa], "valid")
    jws_vector("jwcrypto general JWS, all: both signers known", general_text, [rsa, ec], "valid", signatures="all")
    jws_vector("jwcrypto general JWS, all: one signer unknown", general_text, [ec], "kid_unknown", signatures="all")
    jws_vector("jwcrypto general JWS, any: no signer known", general_text, [ed], "kid_unknown", algorithms=("RS256", "ES256", "EdDSA"))
    jws_vector("jwcrypto general JWS, any: RS256 not allowed, ES256 is", general_text, [rsa, ec], "valid", algorithms=("ES256",))
    jws_vector("jwcrypto general JWS, 2 signers required, both known", general_text, [rsa, ec], "valid", signatures=2)
    jws_vector("jwcrypto general JWS, 2 signers required, one known", general_text, [ec], "too_few_signatures", signatures=2)
    jws_vector("jwcrypto flattened JWS, all: one signature is all", flat_text, [ec], "valid", signatures="all")
    jws_vector("jwcrypto flattened JWS, 2 signers required", flat_text, [ec], "too_few_signatures", signatures=2)

    # Malformed variants of jwcrypto's output.
    doc = json.loads(general_text)
    bad = dict(doc, signature=doc["signatures"][0]["signature"])
    jws_vector("both signatures and signature", json.dumps(bad), [ec], "malformed_token")
    jws_vector("empty signatures", json.dumps(dict(doc, signatures=[])), [ec], "malformed_token")
    twice = json.loads(general_text)
    twice["signatures"] = [twice["signatures"][1], twice["signatures"][1]]
    jws_vector("the same signature twice, 2 signers required", json.dumps(twice), [ec], "too_few_signatures", signatures=2)
    jws_vector("nine signatures", json.dumps(dict(doc, signatures=(doc["signatures"] * 5)[:9])), [ec], "malformed_token")
    duplicate = json.loads(flat_text)
    duplicate["protected"] = cjws.base64url_encode(json.dumps({"alg": "ES256", "kid": "ec-1"}).encode())
    jws_vector("kid in both headers", json.dumps(duplicate), [ec], "malformed_token")
    unprotected_alg = json.loads(flat_text)
    unprotected_alg["header"] = {"kid": "ec-1", "typ": "JWT"}
    jws_vector("typ left unprotected", json.dumps(unprotected_alg), [ec], "header_unsupported")
    no_protected = json.loads(flat_text)
    del no_protected["protected"]
    no_protected["header"] = {"alg": "ES256", "kid": "ec-1"}
    jws_vector("alg only unprotected", json.dumps(no_protected), [ec], "malformed_token")
    detached = json.loads(flat_text)
    del detached["payload"]
    jws_vector("detached payload", json.dumps(detached), [ec], "malformed_token")
    tampered = json.loads(flat_text)
    tampered["payload"] = cjws.base64url_encode(json.dumps(dict(CLAIMS, sub="admin"), separators=(",", ":")).encode())
    jws_vector("payload changed", json.dumps(tampered), [ec], "signature_invalid")

    # jwcrypto, JWE: flattened to one recipient, general to two, with aad.
    flat_jwe = cjwe.JWE(payload(), protected=json.dumps({"enc": "A256GCM", "typ": "JWT"}))
    flat_jwe.add_recipient(enc_rsa, header=json.dumps({"alg": "RSA-OAEP-256", "kid": "enc-rsa"}))
    jwe_vector("jwcrypto flattened JWE, RSA-OAEP-256", flat_jwe.serialize(compact=False), enc_rsa, "valid", ["RSA-OAEP-256"], ["A256GCM"])
    multi = cjwe.JWE(payload(), protected=json.dumps({"enc": "A128CBC-HS256"}), aad=b"context: checkout")
    multi.add_recipient(enc_rsa, header=json.dumps({"alg": "RSA-OAEP", "kid": "enc-rsa"}))
    multi.add_recipient(enc_ec, header=json.dumps({"alg": "ECDH-ES+A256KW", "kid": "enc-ec"}))
    multi_text = multi.serialize(compact=False)
    jwe_vector("jwcrypto general JWE, second recipient ours, with aad", multi_text, enc_ec, "valid", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])
    jwe_vector("jwcrypto general JWE, first recipient ours", multi_text, enc_rsa, "valid", ["RSA-OAEP"], ["A128CBC-HS256"])
    other = cjwk.JWK.generate(kty="EC", crv="P-256", kid="enc-other")
    jwe_vector("jwcrypto general JWE, no recipient ours", multi_text, other, "kid_unknown", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])
    changed_aad = json.loads(multi_text)
    changed_aad["aad"] = cjws.base64url_encode(b"context: refund")
    jwe_vector("aad changed", json.dumps(changed_aad), enc_ec, "decryption_failed", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])
    enc_unprotected = json.loads(multi_text)
    enc_unprotected["unprotected"] = {"typ": "JWT"}
    jwe_vector("typ left unprotected in a JWE", json.dumps(enc_unprotected), enc_ec, "header_unsupported", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])
    both = json.loads(multi_text)
    both["encrypted_key"] = both["recipients"][0]["encrypted_key"]
    jwe_vector("both recipients and encrypted_key", json.dumps(both), enc_ec, "malformed_token", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])
    empty = json.loads(multi_text)
    empty["recipients"] = []
    jwe_vector("empty recipients", json.dumps(empty), enc_ec, "malformed_token", ["ECDH-ES+A256KW"], ["A128CBC-HS256"])

    # jwcrypto, nested: JWS(JWS), JWS(JWS(JWS)) and JWE(JWS(JWS)), compact, cty JWT.
    def sign(content, key, alg, cty=None):
        token = cjws.JWS(content)
        header = {"alg": alg, "kid": key.kid}
        if cty:
            header["cty"] = cty
        token.add_signature(key, alg=alg, protected=json.dumps(header))
        return token.serialize(compact=True)

    inner = sign(payload(), ec, "ES256")
    two = sign(inner.encode(), ec, "ES256", cty="JWT")
    three = sign(two.encode(), ec, "ES256", cty="JWT")
    jws_vector("jwcrypto JWS in JWS", two, [ec], "valid", maker="jwcrypto")
    jws_vector("jwcrypto JWS in JWS in JWS", three, [ec], "valid", maker="jwcrypto")
    jws_vector("jwcrypto JWS in JWS, outer signer unknown", sign(inner.encode(), rsa, "RS256", cty="JWT"), [ec], "kid_unknown")
    jws_vector("four layers, past the default of three", sign(three.encode(), ec, "ES256", cty="JWT"), [ec], "token_too_deep")
    wrapped = cjwe.JWE(three.encode(), protected=json.dumps({"alg": "RSA-OAEP-256", "enc": "A256GCM", "cty": "JWT", "kid": "enc-rsa"}))
    wrapped.add_recipient(enc_rsa)
    nested = wrapped.serialize(compact=True)
    vectors.append({"name": "jwcrypto JWE(JWS(JWS(JWS))): four layers, past three", "maker": "jwcrypto", "kind": "nested", "token": nested,
                    "keys": {"keys": [public(ec)]}, "algorithms": ["ES256"], "decryption": {"keys": [private(enc_rsa)]},
                    "key_algorithms": ["RSA-OAEP-256"], "encryption": ["A256GCM"], "expect": "token_too_deep"})
    wrapped = cjwe.JWE(two.encode(), protected=json.dumps({"alg": "RSA-OAEP-256", "enc": "A256GCM", "cty": "JWT", "kid": "enc-rsa"}))
    wrapped.add_recipient(enc_rsa)
    vectors.append({"name": "jwcrypto JWE(JWS(JWS))", "maker": "jwcrypto", "kind": "nested", "token": wrapped.serialize(compact=True),
                    "keys": {"keys": [public(ec)]}, "algorithms": ["ES256"], "decryption": {"keys": [private(enc_rsa)]},
                    "key_algorithms": ["RSA-OAEP-256"], "encryption": ["A256GCM"], "expect": "valid"})

    # joserfc: its own JSON serializations of the same kinds, with its own key objects.
    r_rsa = RSAKey.import_key(private(rsa))
    r_ec = ECKey.import_key(private(ec))
    members = [{"protected": {"alg": "RS256"}, "header": {"kid": "rsa-1"}}, {"protected": {"alg": "ES256"}, "header": {"kid": "ec-1"}}]
    r_general = json.dumps(rjws.serialize_json(members, payload(), lambda obj: r_rsa if obj.headers()["alg"] == "RS256" else r_ec))
    jws_vector("joserfc general JWS", r_general, [rsa, ec], "valid", signatures="all", maker="joserfc")
    r_flat = json.dumps(rjws.serialize_json({"protected": {"alg": "ES256"}, "header": {"kid": "ec-1"}}, payload(), r_ec))
    jws_vector("joserfc flattened JWS", r_flat, [ec], "valid", maker="joserfc")
    r_enc_rsa = RSAKey.import_key(private(enc_rsa))
    r_enc_ec = ECKey.import_key(private(enc_ec))
    encryption = GeneralJSONEncryption({"enc": "A256GCM"}, payload())
    encryption.add_recipient({"alg": "RSA-OAEP-256", "kid": "enc-rsa"}, r_enc_rsa)
    encryption.add_recipient({"alg": "ECDH-ES+A128KW", "kid": "enc-ec"}, r_enc_ec)
    r_jwe = json.dumps(rjwe.encrypt_json(encryption, None, algorithms=["RSA-OAEP-256", "ECDH-ES+A128KW", "A256GCM"]))
    jwe_vector("joserfc general JWE, RSA recipient", r_jwe, enc_rsa, "valid", ["RSA-OAEP-256"], ["A256GCM"], maker="joserfc")
    jwe_vector("joserfc general JWE, ECDH-ES recipient", r_jwe, enc_ec, "valid", ["ECDH-ES+A128KW"], ["A256GCM"], maker="joserfc")

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as out:
        json.dump({"source": "Scripts/make-jose-json-vectors.py", "now": NOW, "claims": CLAIMS, "vectors": vectors}, out, indent=1)
        out.write("\n")
    print(f"wrote {len(vectors)} vectors to {os.path.normpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
