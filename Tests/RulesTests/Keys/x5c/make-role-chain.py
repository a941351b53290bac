#!/usr/bin/env python3
"""Writes the role chain of this folder (test keys only; see ../README.md): certificates that
say who their holder is, for the x5c.leaf matcher. Needs Python cryptography 44 or later
(pip install cryptography). Every certificate is valid at the tests' evaluation time,
2026-11-21T09:30:00Z; rerun only to renew.

  role-ca.pem     a self-signed CA (P-256) standing in for a TI certificate authority
  idp-leaf.pem    the IDP's signer: O "gematik test", CN "idp.example-ti.de", SAN DNS
                  idp.example-ti.de, policy oid_fd_sig (1.2.276.0.76.4.203), admission role
                  oid_idpd (1.2.276.0.76.4.260), EKU clientAuth; key idp-leaf.key.pem
  card-leaf.pem   an insurant's card under the same CA: CN "Erika Mustermann", policy
                  oid_egk_aut (1.2.276.0.76.4.70), admission role oid_versicherter
                  (1.2.276.0.76.4.49); key card-leaf.key.pem
"""
import datetime
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

os.chdir(os.path.dirname(os.path.abspath(__file__)))
UTC = datetime.timezone.utc
START, END = datetime.datetime(2026, 1, 1, tzinfo=UTC), datetime.datetime(2030, 1, 1, tzinfo=UTC)


def admission(item, role):
    """AdmissionSyntax (Common PKI, 1.3.36.8.3.3) with one ProfessionInfo naming `role`."""
    return x509.Admissions(None, [x509.Admission(None, None, [x509.ProfessionInfo(None, [item], [ObjectIdentifier(role)], None, None)])])


def write_key(name, key):
    with open(f"{name}.key.pem", "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def write(name, cert):
    with open(f"{name}.pem", "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))


def usage(sign, ca):
    return x509.KeyUsage(digital_signature=sign, content_commitment=False, key_encipherment=False, data_encipherment=False,
                         key_agreement=False, key_cert_sign=ca, crl_sign=ca, encipher_only=False, decipher_only=False)


ca_key = ec.generate_private_key(ec.SECP256R1())
ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "role-ca")])
ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
      .serial_number(x509.random_serial_number()).not_valid_before(START).not_valid_after(END)
      .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
      .add_extension(usage(False, True), critical=True)
      .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
      .sign(ca_key, hashes.SHA256()))
write("role-ca", ca)

for name, subject, dns, policy, item, role, eku in [
    ("idp-leaf", [(NameOID.ORGANIZATION_NAME, "gematik test"), (NameOID.COMMON_NAME, "idp.example-ti.de")], "idp.example-ti.de",
     "1.2.276.0.76.4.203", "IDP-Dienst", "1.2.276.0.76.4.260", [ExtendedKeyUsageOID.CLIENT_AUTH]),
    ("card-leaf", [(NameOID.COMMON_NAME, "Erika Mustermann")], None, "1.2.276.0.76.4.70", "Versicherte/-r", "1.2.276.0.76.4.49", None),
]:
    key = ec.generate_private_key(ec.SECP256R1())
    write_key(name, key)
    builder = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(k, v) for k, v in subject]))
               .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(START).not_valid_after(END)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(usage(True, False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
               .add_extension(x509.CertificatePolicies([x509.PolicyInformation(ObjectIdentifier(policy), None)]), critical=False)
               .add_extension(admission(item, role), critical=False))
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
    if eku:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=False)
    write(name, builder.sign(ca_key, hashes.SHA256()))
