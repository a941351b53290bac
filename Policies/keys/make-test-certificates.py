#!/usr/bin/env python3
"""Issues the test certificates of this folder (see README.md: test keys only). Needs
Python cryptography 44 or later (pip install cryptography: the Admissions extension); run after
make-test-keys.sh, then ../examples/make-sample-tokens.sh.

  test-idp-ca.pem        a test CA standing in for gematik's TI certificate authority
  test-bp256r1.cert.pem  its certificate for the test-bp256r1 key (digitalSignature), as the
                         IDP carries its discovery-document signer in the x5c header: with the
                         certificate policy oid_fd_sig (1.2.276.0.76.4.203) and the admission
                         role oid_idpd (1.2.276.0.76.4.260) of gematik's C.FD.SIG certificates

Both are valid from 2026-01-01 for ten years, so the samples verify at 2026-11-21.
"""
import datetime
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

os.chdir(os.path.dirname(os.path.abspath(__file__)))
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
end = datetime.datetime(2036, 1, 1, tzinfo=datetime.timezone.utc)


def name(common_name):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "policy-engine test"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def usage(sign, ca):
    return x509.KeyUsage(digital_signature=sign, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                         encipher_only=False, decipher_only=False)


def issue(subject, public_key, issuer, issuer_key, ca):
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
            .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
            .add_extension(usage(sign=not ca, ca=ca), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False))
    return (builder if ca else with_role(builder)).sign(issuer_key, hashes.SHA256())


def admission(item, role):
    """The admission extension (Common PKI, 1.3.36.8.3.3) with one profession item and its role OID."""
    return x509.Admissions(None, [x509.Admission(None, None, [x509.ProfessionInfo(None, [item], [ObjectIdentifier(role)], None, None)])])


def with_role(certificate_builder):
    return (certificate_builder
            .add_extension(x509.CertificatePolicies([x509.PolicyInformation(ObjectIdentifier("1.2.276.0.76.4.203"), None)]), critical=False)
            .add_extension(admission("IDP-Dienst", "1.2.276.0.76.4.260"), critical=False))


def write(path, certificate):
    with open(path, "wb") as out:
        out.write(certificate.public_bytes(serialization.Encoding.PEM))


ca_key = ec.generate_private_key(ec.BrainpoolP256R1())
ca_name = name("test IDP CA")
write("test-idp-ca.pem", issue(ca_name, ca_key.public_key(), ca_name, ca_key, ca=True))
with open("test-bp256r1.key.pem", "rb") as key_file:
    signer = serialization.load_pem_private_key(key_file.read(), password=None)
write("test-bp256r1.cert.pem", issue(name("IDP discovery document signer (puk_disc_sig)"), signer.public_key(), ca_name, ca_key, ca=False))
