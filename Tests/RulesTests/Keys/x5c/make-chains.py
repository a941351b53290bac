#!/usr/bin/env python3
"""Writes the x5c test chains in this folder (test keys only; see ../README.md).

Needs python3-cryptography. Every certificate but the expired leaf is valid at the tests'
evaluation time, 2026-11-21T09:30:00Z. Existing files are overwritten: rerun only to renew them.

  root-ca.pem          the trust anchor (P-256, CA)
  intermediate-ca.pem  signed by root-ca
  leaf.pem             signed by the intermediate; digitalSignature; its key is leaf.key.pem
  expired-leaf.pem     the same, but valid only during 2025; key expired-leaf.key.pem
  encipher-leaf.pem    keyUsage keyAgreement only, so it may not sign; key encipher-leaf.key.pem
  other-root-ca.pem    an unrelated CA
  other-leaf.pem       signed by other-root-ca; key other-leaf.key.pem
"""
import datetime
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

os.chdir(os.path.dirname(os.path.abspath(__file__)))
UTC = datetime.timezone.utc


def when(text):
    return datetime.datetime.fromisoformat(text).replace(tzinfo=UTC)


def write_key(name, key):
    with open(f"{name}.key.pem", "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def certificate(name, key, issuer_name, issuer_key, *, ca, start, end, usage):
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer_name or subject)
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(when(start))
               .not_valid_after(when(end))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature="sig" in usage, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False,
                                            key_agreement="agree" in usage, key_cert_sign=ca, crl_sign=ca,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if issuer_key is not None:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    cert = builder.sign(issuer_key or key, hashes.SHA256())
    with open(f"{name}.pem", "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    return cert


def new_key():
    return ec.generate_private_key(ec.SECP256R1())


root_key, other_root_key, intermediate_key = new_key(), new_key(), new_key()
root = certificate("root-ca", root_key, None, None, ca=True, start="2024-01-01", end="2040-01-01", usage=())
other_root = certificate("other-root-ca", other_root_key, None, None, ca=True, start="2024-01-01", end="2040-01-01", usage=())
intermediate = certificate("intermediate-ca", intermediate_key, root.subject, root_key, ca=True,
                           start="2024-01-01", end="2038-01-01", usage=())
for name, issuer, issuer_key, start, end, usage in [
    ("leaf", intermediate, intermediate_key, "2026-01-01", "2030-01-01", ("sig",)),
    ("expired-leaf", intermediate, intermediate_key, "2025-01-01", "2026-01-01", ("sig",)),
    ("encipher-leaf", intermediate, intermediate_key, "2026-01-01", "2030-01-01", ("agree",)),
    ("other-leaf", other_root, other_root_key, "2026-01-01", "2030-01-01", ("sig",)),
]:
    key = new_key()
    write_key(name, key)
    certificate(name, key, issuer.subject, issuer_key, ca=False, start=start, end=end, usage=usage)
