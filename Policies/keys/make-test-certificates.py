#!/usr/bin/env python3
"""Issues the test certificates of this folder (see README.md: test keys only). Needs
Python cryptography 44 or later (pip install cryptography: the Admissions extension); run after
make-test-keys.sh, then ../examples/make-sample-tokens.sh and ../examples/make-gematik-samples.py.

  test-idp-ca.pem        a test CA standing in for gematik's TI certificate authority of services
  test-bp256r1.cert.pem  its certificate for the test-bp256r1 key (digitalSignature), as the
                         IDP carries its discovery-document signer in the x5c header: with the
                         certificate policy oid_fd_sig (1.2.276.0.76.4.203) and the admission
                         role oid_idpd (1.2.276.0.76.4.260) of gematik's C.FD.SIG certificates
  test-card-ca.pem       a test CA standing in for the TI's smart-card CAs (GEM.EGK-CA, GEM.SMCB-CA)
  test-egk-aut.cert.pem  its certificate for the test-egk-aut key: an insured's eGK, C.CH.AUT,
                         policy oid_egk_aut (1.2.276.0.76.4.70), role oid_versicherter
                         (1.2.276.0.76.4.49), the insured's KVNR (X110411675) in the subject
  test-smcb-aut.cert.pem its certificate for the test-smcb-aut key: a practice's SMC-B,
                         C.HCI.AUT, policy oid_smc_b_aut (1.2.276.0.76.4.77), role
                         oid_praxis_arzt (1.2.276.0.76.4.50)
  test-egk-aut-untrusted.cert.pem
                         the same eGK certificate for the same key, issued by a CA no policy
                         trusts (an attacker's), for the refusal cases

All are valid from 2026-01-01 for ten years, so the samples verify at 2026-11-21. Every run
issues them anew; the CAs' private keys are discarded after signing.
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


def name(common_name, *attributes):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "policy-engine test"), *attributes,
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def usage(sign, ca):
    return x509.KeyUsage(digital_signature=sign, content_commitment=False, key_encipherment=False,
                         data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
                         encipher_only=False, decipher_only=False)


def issue(subject, public_key, issuer, issuer_key, role=None):
    """A CA certificate (role None) or a signing leaf with role = (policy OID, profession, role OID)."""
    ca = role is None
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
               .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
               .add_extension(usage(sign=not ca, ca=ca), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False))
    if role:
        policy, profession, role_oid = role
        builder = (builder
                   .add_extension(x509.CertificatePolicies([x509.PolicyInformation(ObjectIdentifier(policy), None)]), critical=False)
                   .add_extension(admission(profession, role_oid), critical=False))
    return builder.sign(issuer_key, hashes.SHA256())


def admission(item, role):
    """The admission extension (Common PKI, 1.3.36.8.3.3) with one profession item and its role OID."""
    return x509.Admissions(None, [x509.Admission(None, None, [x509.ProfessionInfo(None, [item], [ObjectIdentifier(role)], None, None)])])


def write(path, certificate):
    with open(path, "wb") as out:
        out.write(certificate.public_bytes(serialization.Encoding.PEM))


def public_key(stem):
    with open(f"{stem}.key.pem", "rb") as key_file:
        return serialization.load_pem_private_key(key_file.read(), password=None).public_key()


def new_ca(path, common_name):
    key = ec.generate_private_key(ec.BrainpoolP256R1())
    ca_name = name(common_name)
    if path:
        write(path, issue(ca_name, key.public_key(), ca_name, key))
    return ca_name, key


services = new_ca("test-idp-ca.pem", "test IDP CA")
write("test-bp256r1.cert.pem", issue(name("IDP discovery document signer (puk_disc_sig)"), public_key("test-bp256r1"), *services,
                                     role=("1.2.276.0.76.4.203", "IDP-Dienst", "1.2.276.0.76.4.260")))

insured = name("Erika Mustermann", x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "X110411675"),
               x509.NameAttribute(NameOID.GIVEN_NAME, "Erika"), x509.NameAttribute(NameOID.SURNAME, "Mustermann"))
insured_role = ("1.2.276.0.76.4.70", "Versicherte/-r", "1.2.276.0.76.4.49")
cards = new_ca("test-card-ca.pem", "test TI card CA")
write("test-egk-aut.cert.pem", issue(insured, public_key("test-egk-aut"), *cards, role=insured_role))
write("test-smcb-aut.cert.pem", issue(name("Praxis Dr. Test"), public_key("test-smcb-aut"), *cards,
                                      role=("1.2.276.0.76.4.77", "Arztpraxis", "1.2.276.0.76.4.50")))
write("test-egk-aut-untrusted.cert.pem", issue(insured, public_key("test-egk-aut"), *new_ca(None, "test TI card CA"), role=insured_role))
