#ifndef POLICY_ENGINE_COPENSSL_SHIM_H
#define POLICY_ENGINE_COPENSSL_SHIM_H

/* HMACKey keeps the SHA-1/SHA-2 states after its key's pads (RFC 2104) and copies them per tag:
 * only the low-level SHA functions, deprecated in OpenSSL 3.0 but kept, have copyable states
 * (EVP_MD_CTX_copy_ex allocates on every copy). */
#define OPENSSL_SUPPRESS_DEPRECATED

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Swift cannot call C macros: these static inline functions re-expose the ones we need. */

static inline void COpenSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

static inline void COpenSSL_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

/* Frees the stack only; the certificates stay owned by their Swift wrappers. */
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

static inline int COpenSSL_EVP_PKEY_PUBLIC_KEY(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

static inline int COpenSSL_EVP_PKEY_KEYPAIR(void) {
    return EVP_PKEY_KEYPAIR;
}

static inline EVP_PKEY *COpenSSL_generate_rsa(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

static inline EVP_PKEY *COpenSSL_generate_ec(const char *curve) {
    return EVP_EC_gen(curve);
}

static inline EVP_PKEY *COpenSSL_generate_named(const char *type) {
    return EVP_PKEY_Q_keygen(NULL, NULL, type);
}

#endif
