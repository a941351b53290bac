#ifndef CBORINGSSLVERIFY_H
#define CBORINGSSLVERIFY_H

// Signature verification with the BoringSSL swift-crypto builds (its symbols prefixed, so it
// links beside OpenSSL), behind an interface of plain pointers: BoringSSL's types must not meet
// OpenSSL's in one Swift module, where their same-named structs collide.

#include <stddef.h>
#include <stdint.h>

/// The SHA-2 function a signature is over.
typedef enum {
    CBORING_SHA256 = 1,
    CBORING_SHA384 = 2,
    CBORING_SHA512 = 3,
} cboring_digest;

/// An RSA public key from a DER SubjectPublicKeyInfo; NULL when BoringSSL refuses it.
void *cboring_rsa_key_new(const uint8_t *spki, size_t spki_len);
void cboring_rsa_key_free(void *key);

/// 1 when `signature` is a valid RSASSA-PKCS1-v1_5 (`pss` 0) or RSASSA-PSS (`pss` 1, MGF1 over the
/// same digest, a salt as long as the digest) signature of `message`; 0 otherwise.
int cboring_rsa_verify(void *key, int pss, cboring_digest digest, const uint8_t *message, size_t message_len,
                       const uint8_t *signature, size_t signature_len);

/// A P-256 (`bits` 256) or P-384 (`bits` 384) public key from a DER SubjectPublicKeyInfo; NULL when
/// BoringSSL refuses it or it is on another curve.
void *cboring_ec_key_new(const uint8_t *spki, size_t spki_len, int bits);
void cboring_ec_key_free(void *key);

/// 1 when `signature`, raw r‖s (IEEE P1363) of exactly twice the curve's length, is a valid ECDSA
/// signature of `message` hashed with `digest`; 0 otherwise.
int cboring_ecdsa_verify(void *key, cboring_digest digest, const uint8_t *message, size_t message_len,
                         const uint8_t *signature, size_t signature_len);

#endif
