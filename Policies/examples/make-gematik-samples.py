#!/usr/bin/env python3
"""Makes the gematik IDP samples in ./gematik with the test keys and certificates of ../keys
(test material only: their private halves are public) through ../../Scripts/reference_jose.py,
a JOSE on python3-cryptography that shares no code with the engine. Every sample is judged at
2026-11-21T09:30:00Z. Run after ../keys/make-test-keys.sh and ../keys/make-test-certificates.py.

  signed-challenge*.jwe      what the e-prescription client POSTs to the authorization endpoint
                             (gemSpec_IDP_Dienst): the IDP's challenge token, signed by the
                             insured's eGK (BP256R1, its C.CH.AUT certificate in x5c, cty NJWT),
                             encrypted to the IDP's puk_idp_enc (ECDH-ES, A256GCM); variants break
                             one step each
  pairing-registration*.jwe  the registration of a biometric key for alternative authentication:
                             the pairing data, signed by the eGK the same way, with the device's
                             data, encrypted to puk_idp_enc
  sso-token*.jwe             the IDP's SSO token: signed with puk_idp_sig, encrypted with the IDP's
                             own AES key (dir, A256GCM), for the IDP alone to read
"""
import base64
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Scripts"))
import reference_jose as jose  # noqa: E402

KEYS = os.path.join(HERE, "..", "keys")
OUT = os.path.join(HERE, "gematik")
IDP = "https://idp.example-ti.de"
NOW = 1795253400  # 2026-11-21T09:30:00Z
CHALLENGE_ISSUED = NOW - 60
CHALLENGE_EXPIRES = CHALLENGE_ISSUED + 180  # gematik's challenges live three minutes


def private_key(stem):
    with open(os.path.join(KEYS, f"{stem}.key.pem"), "rb") as pem:
        return serialization.load_pem_private_key(pem.read(), password=None)


def certificate(stem):
    with open(os.path.join(KEYS, f"{stem}.cert.pem"), "rb") as pem:
        return x509.load_pem_x509_certificate(pem.read())


def der_base64(cert):
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()


def write(name, token):
    with open(os.path.join(OUT, name), "w") as out:
        out.write(token + "\n")


idp_signer, idp_encryption = private_key("test-idp-sig"), private_key("test-idp-enc").public_key()
egk, smcb = private_key("test-egk-aut"), private_key("test-smcb-aut")
egk_cert, smcb_cert, untrusted_cert = certificate("test-egk-aut"), certificate("test-smcb-aut"), certificate("test-egk-aut-untrusted")
stranger = ec.generate_private_key(ec.BrainpoolP256R1()).public_key()


def challenge(signer=idp_signer, **changes):
    """The IDP's challenge token for the client's authorization request; a change to None drops the claim."""
    claims = {"iss": IDP, "iat": CHALLENGE_ISSUED, "exp": CHALLENGE_EXPIRES, "token_type": "challenge",
              "jti": "a3b0e1f2-5c6d-4e7f-8091-a2b3c4d5e6f7", "snc": "kzFsPpMNJhYdXwqQo0f2tA",
              "scope": "openid e-rezept", "response_type": "code", "client_id": "eRezeptApp",
              "redirect_uri": "https://redirect.gematik.de/erezept", "state": "xNTlZ0wJhuUTD8Pm",
              "nonce": "gTm0XUvN5iU6DVDqvdEh", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
              "code_challenge_method": "S256"}
    claims.update(changes)
    return jose.sign_jws({"alg": "BP256R1", "typ": "JWT", "kid": "puk_idp_sig"}, {k: v for k, v in claims.items() if v is not None}, signer)


def signed_challenge(njwt, card=egk, cert=egk_cert, recipient=idp_encryption):
    inner = jose.sign_jws({"alg": "BP256R1", "typ": "JWT", "cty": "NJWT", "x5c": [der_base64(cert)]}, {"njwt": njwt}, card)
    token, _, _, _ = jose.encrypt_ecdh(inner.encode(), recipient, "BP-256", "ECDH-ES", "A256GCM",
                                       header={"cty": "NJWT", "exp": CHALLENGE_EXPIRES})
    return token


def pairing_registration(version="1.0", card=egk, cert=egk_cert, recipient=idp_encryption):
    biometric = ec.generate_private_key(ec.SECP256R1()).public_key()
    spki = lambda key: base64.b64encode(key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)).decode()
    pairing = {"pairing_data_version": version, "key_identifier": "Yl6lK1hWzY0JAIvX1LwL7A", "device_product": "Pixel 9",
               "serialnumber": format(cert.serial_number, "x"), "issuer": cert.issuer.rfc4514_string(),
               "not_after": int(cert.not_valid_after_utc.timestamp()), "public_key": spki(biometric),
               "auth_cert_subject_public_key_info": spki(cert.public_key())}
    signed = jose.sign_jws({"alg": "BP256R1", "typ": "JWT", "x5c": [der_base64(cert)]}, pairing, card)
    registration = {"signed_pairing_data": signed, "auth_cert": der_base64(cert),
                    "device_information": {"name": "Erikas Telefon", "device_type": {
                        "product": "Pixel 9", "model": "GP4BC", "os": "Android", "os_version": "16", "manufacturer": "Google"}}}
    token, _, _, _ = jose.encrypt_ecdh(jose.compact_json(registration), recipient, "BP-256", "ECDH-ES", "A256GCM", header={"cty": "JSON"})
    return token


def sso_token(key=None):
    with open(os.path.join(KEYS, "test-idp-sso.jwks.json")) as jwks:
        own = jose.b64u_decode(json.load(jwks)["keys"][0]["k"])
    issued = NOW - 30
    claims = {"iss": IDP, "iat": issued, "exp": issued + 12 * 3600, "auth_time": issued, "given_name": "Erika",
              "family_name": "Mustermann", "organizationName": "Test GKV-SV", "professionOID": "1.2.276.0.76.4.49",
              "idNummer": "X110411675", "amr": ["mfa", "sc", "pin"]}
    inner = jose.sign_jws({"alg": "BP256R1", "typ": "JWT", "kid": "puk_idp_sig"}, claims, idp_signer)
    return jose.encrypt_direct(inner.encode(), key or own, "A256GCM", header={"cty": "NJWT", "exp": issued + 12 * 3600})


def main():
    jose.check_parameters()
    os.makedirs(OUT, exist_ok=True)
    njwt = challenge()
    write("challenge.jwt", njwt)
    write("signed-challenge.jwe", signed_challenge(njwt))
    write("signed-challenge.forged-challenge.jwe", signed_challenge(challenge(signer=egk)))
    write("signed-challenge.other-issuer.jwe", signed_challenge(challenge(iss="https://idp.example.org")))
    write("signed-challenge.no-code-challenge.jwe", signed_challenge(challenge(code_challenge=None)))
    write("signed-challenge.untrusted-card.jwe", signed_challenge(njwt, cert=untrusted_cert))
    write("signed-challenge.practice-card.jwe", signed_challenge(njwt, card=smcb, cert=smcb_cert))
    write("signed-challenge.wrong-signer.jwe", signed_challenge(njwt, card=smcb, cert=egk_cert))
    write("signed-challenge.other-recipient.jwe", signed_challenge(njwt, recipient=stranger))
    write("pairing-registration.jwe", pairing_registration())
    write("pairing-registration.practice-card.jwe", pairing_registration(card=smcb, cert=smcb_cert))
    write("pairing-registration.old-version.jwe", pairing_registration(version="0.9"))
    write("pairing-registration.other-recipient.jwe", pairing_registration(recipient=stranger))
    write("sso-token.jwe", sso_token())
    write("sso-token.other-key.jwe", sso_token(key=os.urandom(32)))
    print(f"samples written to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
