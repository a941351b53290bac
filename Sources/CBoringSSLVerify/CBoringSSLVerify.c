#include "CBoringSSLVerify.h"

#include "CCryptoBoringSSL_bytestring.h"
#include "CCryptoBoringSSL_ec.h"
#include "CCryptoBoringSSL_ec_key.h"
#include "CCryptoBoringSSL_ecdsa.h"
#include "CCryptoBoringSSL_err.h"
#include "CCryptoBoringSSL_evp.h"
#include "CCryptoBoringSSL_nid.h"
#include "CCryptoBoringSSL_rsa.h"
#include "CCryptoBoringSSL_sha2.h"

/// Parses a whole SubjectPublicKeyInfo; NULL when anything follows it.
static EVP_PKEY *parse_spki(const uint8_t *spki, size_t spki_len) {
    CBS input;
    CBS_init(&input, spki, spki_len);
    EVP_PKEY *key = EVP_parse_public_key(&input);
    if (key != NULL && CBS_len(&input) != 0) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    ERR_clear_error();
    return key;
}

/// A message's digest, with the names BoringSSL's signature functions give its function.
typedef struct {
    uint8_t bytes[EVP_MAX_MD_SIZE];
    size_t len;
    int nid;
    const EVP_MD *md;
} message_hash;

/// Hashes `message` with `digest` into `out`; 0 for an unknown digest.
static int hash_message(cboring_digest digest, const uint8_t *message, size_t message_len, message_hash *out) {
    switch (digest) {
    case CBORING_SHA256: SHA256(message, message_len, out->bytes); out->len = SHA256_DIGEST_LENGTH; out->nid = NID_sha256; out->md = EVP_sha256(); return 1;
    case CBORING_SHA384: SHA384(message, message_len, out->bytes); out->len = SHA384_DIGEST_LENGTH; out->nid = NID_sha384; out->md = EVP_sha384(); return 1;
    case CBORING_SHA512: SHA512(message, message_len, out->bytes); out->len = SHA512_DIGEST_LENGTH; out->nid = NID_sha512; out->md = EVP_sha512(); return 1;
    }
    return 0;
}

void *cboring_rsa_key_new(const uint8_t *spki, size_t spki_len) {
    EVP_PKEY *parsed = parse_spki(spki, spki_len);
    if (parsed == NULL) return NULL;
    RSA *key = EVP_PKEY_get1_RSA(parsed);
    EVP_PKEY_free(parsed);
    ERR_clear_error();
    return key;
}

void cboring_rsa_key_free(void *key) { RSA_free(key); }

int cboring_rsa_verify(void *key, int pss, cboring_digest digest, const uint8_t *message, size_t message_len,
                       const uint8_t *signature, size_t signature_len) {
    message_hash hash;
    if (!hash_message(digest, message, message_len, &hash)) return 0;
    int ok = pss ? RSA_verify_pss_mgf1(key, hash.bytes, hash.len, hash.md, hash.md, (int)hash.len, signature, signature_len)
                 : RSA_verify(hash.nid, hash.bytes, hash.len, signature, signature_len, key);
    if (ok != 1) ERR_clear_error();
    return ok == 1;
}

void *cboring_ec_key_new(const uint8_t *spki, size_t spki_len, int bits) {
    int wanted = bits == 256 ? NID_X9_62_prime256v1 : bits == 384 ? NID_secp384r1 : NID_undef;
    if (wanted == NID_undef) return NULL;
    EVP_PKEY *parsed = parse_spki(spki, spki_len);
    if (parsed == NULL) return NULL;
    EC_KEY *key = EVP_PKEY_get1_EC_KEY(parsed);
    EVP_PKEY_free(parsed);
    ERR_clear_error();
    if (key != NULL && EC_GROUP_get_curve_name(EC_KEY_get0_group(key)) != wanted) {
        EC_KEY_free(key);
        key = NULL;
    }
    return key;
}

void cboring_ec_key_free(void *key) { EC_KEY_free(key); }

int cboring_ecdsa_verify(void *key, cboring_digest digest, const uint8_t *message, size_t message_len,
                         const uint8_t *signature, size_t signature_len) {
    message_hash hash;
    if (!hash_message(digest, message, message_len, &hash)) return 0;
    int ok = ECDSA_verify_p1363(hash.bytes, hash.len, signature, signature_len, key);
    if (ok != 1) ERR_clear_error();
    return ok == 1;
}
