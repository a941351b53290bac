"""A small JOSE on python3-cryptography, written apart from the engine: ECDSA JWS (ES*, BP*R1) and
compact JWE with ECDH-ES (direct and with AES key wrap) or `dir`, for A*GCM and A*CBC-HS*
(RFC 7515, 7516, 7518). It makes the brainpool JWE vectors the engine's tests check against
(Tests/PolicyEngineTests/Vectors/brainpool-jwe) and the gematik sample tokens
(Policies/examples/gematik), so those never depend on the code they test.

Randomness (the ephemeral key, the content key, the IV) can be passed in, which makes a vector
reproducible by an implementation that lets the same values be injected.
"""
import base64
import hashlib
import hmac
import json
import os

from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.concatkdf import ConcatKDFHash
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

# RFC 5639 §3.4, 3.6, 3.7: (curve class, coordinate bytes, p, a, b). p, a and b serve only to
# build points that are deliberately *not* on the curve; `check_parameters` proves them.
CURVES = {
    "BP-256": (ec.BrainpoolP256R1, 32,
               0xA9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377,
               0x7D5A0975FC2C3057EEF67530417AFFE7FB8055C126DC5C6CE94A4B44F330B5D9,
               0x26DC5C6CE94A4B44F330B5D9BBD77CBF958416295CF7E1CE6BCCDC18FF8C07B6),
    "BP-384": (ec.BrainpoolP384R1, 48,
               0x8CB91E82A3386D280F5D6F7E50E641DF152F7109ED5456B412B1DA197FB71123ACD3A729901D1A71874700133107EC53,
               0x7BC382C63D8C150C3C72080ACE05AFA0C2BEA28E4FB22787139165EFBA91F90F8AA5814A503AD4EB04A8C7DD22CE2826,
               0x04A8C7DD22CE28268B39B55416F0447C2FB77DE107DCD2A62E880EA53EEB62D57CB4390295DBC9943AB78696FA504C11),
    "BP-512": (ec.BrainpoolP512R1, 64,
               0xAADD9DB8DBE9C48B3FD4E6AE33C9FC07CB308DB3B3C9D20ED6639CCA703308717D4D9B009BC66842AECDA12AE6A380E62881FF2F2D82C68528AA6056583A48F3,
               0x7830A3318B603B89E2327145AC234CC594CBDD8D3DF91610A83441CAEA9863BC2DED5D5AA8253AA10A2EF1C98B9AC8B57F1117A72BF2C7B9E7C1AC4D77FC94CA,
               0x3DF91610A83441CAEA9863BC2DED5D5AA8253AA10A2EF1C98B9AC8B57F1117A72BF2C7B9E7C1AC4D77FC94CADC083E67984050B75EBAE5DD2809BD638016F723),
    "P-256": (ec.SECP256R1, 32, None, None, None),
}

# JWS alg → (hash, coordinate bytes)
SIGNATURE_ALGORITHMS = {
    "ES256": (hashes.SHA256, 32), "BP256R1": (hashes.SHA256, 32),
    "BP384R1": (hashes.SHA384, 48), "BP512R1": (hashes.SHA512, 64),
}

# enc → (content key bytes, IV bytes)
CONTENT_ENCRYPTIONS = {
    "A128GCM": (16, 12), "A192GCM": (24, 12), "A256GCM": (32, 12),
    "A128CBC-HS256": (32, 16), "A192CBC-HS384": (48, 16), "A256CBC-HS512": (64, 16),
}

KEY_WRAP_BYTES = {"ECDH-ES+A128KW": 16, "ECDH-ES+A192KW": 24, "ECDH-ES+A256KW": 32}


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64u_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact_json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def check_parameters():
    """Asserts that each brainpool curve's p, a and b are those of the library's curve."""
    for crv, (curve, size, p, a, b) in CURVES.items():
        if p is None:
            continue
        numbers = ec.generate_private_key(curve()).public_key().public_numbers()
        assert (numbers.y ** 2 - numbers.x ** 3 - a * numbers.x - b) % p == 0, crv
        assert p.bit_length() <= 8 * size, crv


def coordinates_jwk(crv, x, y):
    """An EC public JWK of the coordinates as given, whether or not they are a point of the curve."""
    size = CURVES[crv][1]
    return {"kty": "EC", "crv": crv, "x": b64u(x.to_bytes(size, "big")), "y": b64u(y.to_bytes(size, "big"))}


def public_jwk(public_key, crv):
    numbers = public_key.public_numbers()
    return coordinates_jwk(crv, numbers.x, numbers.y)


def private_jwk(private_key, crv):
    jwk = public_jwk(private_key.public_key(), crv)
    jwk["d"] = b64u(private_key.private_numbers().private_value.to_bytes(CURVES[crv][1], "big"))
    return jwk


def private_key_from_jwk(jwk):
    return ec.derive_private_key(int.from_bytes(b64u_decode(jwk["d"]), "big"), CURVES[jwk["crv"]][0]())


def sign_jws(header, claims, private_key):
    """A compact JWS of `claims` (a dict, or bytes taken as the payload) under `header`."""
    digest, size = SIGNATURE_ALGORITHMS[header["alg"]]
    payload = claims if isinstance(claims, bytes) else compact_json(claims)
    signing_input = b64u(compact_json(header)) + "." + b64u(payload)
    r, s = decode_dss_signature(private_key.sign(signing_input.encode(), ec.ECDSA(digest())))
    return signing_input + "." + b64u(r.to_bytes(size, "big") + s.to_bytes(size, "big"))


def concat_kdf(shared_secret, algorithm_id, apu, apv, length):
    """RFC 7518 §4.6.2: SHA-256 Concat KDF over AlgorithmID, PartyUInfo, PartyVInfo, SuppPubInfo."""
    def field(data):
        return len(data).to_bytes(4, "big") + data
    other_info = field(algorithm_id.encode()) + field(apu) + field(apv) + (8 * length).to_bytes(4, "big")
    return ConcatKDFHash(hashes.SHA256(), length, other_info).derive(shared_secret)


def seal(enc, cek, iv, aad, plaintext):
    """Content encryption (RFC 7518 §5.2, §5.3): (ciphertext, tag)."""
    if enc.endswith("GCM"):
        sealed = AESGCM(cek).encrypt(iv, plaintext, aad)
        return sealed[:-16], sealed[-16:]
    half = len(cek) // 2
    mac_key, enc_key = cek[:half], cek[half:]
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    digest = {32: hashlib.sha256, 48: hashlib.sha384, 64: hashlib.sha512}[len(cek)]
    mac = hmac.new(mac_key, aad + iv + ciphertext + (8 * len(aad)).to_bytes(8, "big"), digest).digest()
    return ciphertext, mac[:half]


def encrypt_ecdh(plaintext, recipient_public, crv, alg, enc, header=None, ephemeral=None, cek=None, iv=None, apu=b"", apv=b""):
    """A compact JWE of `plaintext` to `recipient_public` with ECDH-ES or ECDH-ES+A*KW.

    Returns (token, ephemeral private key, content key, IV)."""
    ephemeral = ephemeral or ec.generate_private_key(CURVES[crv][0]())
    shared = ephemeral.exchange(ec.ECDH(), recipient_public)
    token, cek, iv = encrypt_agreed(plaintext, public_jwk(ephemeral.public_key(), crv), shared, alg, enc, header, cek, iv, apu, apv)
    return token, ephemeral, cek, iv


def encrypt_agreed(plaintext, epk, shared, alg, enc, header=None, cek=None, iv=None, apu=b"", apv=b""):
    """The JWE for an `epk` whose shared secret with the recipient is `shared`: the real one, or
    (for invalid-curve vectors) the one a recipient that skips point validation would compute.

    Returns (token, content key, IV)."""
    cek_bytes, iv_bytes = CONTENT_ENCRYPTIONS[enc]
    protected = {"alg": alg, "enc": enc}
    protected.update(header or {})
    protected["epk"] = epk
    if apu:
        protected["apu"] = b64u(apu)
    if apv:
        protected["apv"] = b64u(apv)
    if alg == "ECDH-ES":
        cek = concat_kdf(shared, enc, apu, apv, cek_bytes)
        encrypted_key = b""
    else:
        cek = cek or os.urandom(cek_bytes)
        encrypted_key = aes_key_wrap(concat_kdf(shared, alg, apu, apv, KEY_WRAP_BYTES[alg]), cek)
    iv = iv or os.urandom(iv_bytes)
    return compact_jwe(protected, encrypted_key, cek, iv, plaintext), cek, iv


def compact_jwe(protected, encrypted_key, cek, iv, plaintext):
    """The compact serialization: the protected header is the content cipher's additional data."""
    encoded_header = b64u(compact_json(protected))
    ciphertext, tag = seal(protected["enc"], cek, iv, encoded_header.encode(), plaintext)
    return ".".join([encoded_header, b64u(encrypted_key), b64u(iv), b64u(ciphertext), b64u(tag)])


def encrypt_direct(plaintext, key, enc, header=None, iv=None):
    """A compact JWE of `plaintext` with `dir`: `key` is the content key."""
    protected = {"alg": "dir", "enc": enc}
    protected.update(header or {})
    return compact_jwe(protected, b"", key, iv or os.urandom(CONTENT_ENCRYPTIONS[enc][1]), plaintext)
