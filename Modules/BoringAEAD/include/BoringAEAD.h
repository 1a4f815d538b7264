// BoringAEAD: BoringSSL's AEAD calls on buffers the caller owns, for the journal's record cipher
// (Modules/Storage/Encryption/RecordCipher.swift).
//
// On Linux, swift-crypto builds BoringSSL into every program that uses it, its C symbols prefixed
// with `CCryptoBoringSSL_`, and reaches it through a Swift API that allocates several objects per
// call (a sealed box, a context, the result). A journal opening makes one call per record, a
// million for a large queue: these declarations reach the same functions without that. They are
// declarations only: a swift-crypto that stopped providing them would fail the build at link
// time, not at run time. Elsewhere (Apple platforms, where swift-crypto is CryptoKit) nothing here
// is used.
#ifndef SURVEYD_BORING_AEAD_H
#define SURVEYD_BORING_AEAD_H

#include <stddef.h>
#include <stdint.h>

#if defined(__linux__)

/// BoringSSL's `EVP_AEAD` and `EVP_AEAD_CTX`, opaque here.
struct boring_aead;
struct boring_aead_ctx;

/// `EVP_aead_chacha20_poly1305`: ChaCha20-Poly1305 as in RFC 8439 (12-byte nonce, 16-byte tag).
const struct boring_aead *CCryptoBoringSSL_EVP_aead_chacha20_poly1305(void);

/// `EVP_AEAD_CTX_new`: a context for `key`, or NULL on error. Seal and open only read it, so
/// threads may use one context at once.
struct boring_aead_ctx *CCryptoBoringSSL_EVP_AEAD_CTX_new(const struct boring_aead *aead, const uint8_t *key, size_t key_len, size_t tag_len);

/// `EVP_AEAD_CTX_free`.
void CCryptoBoringSSL_EVP_AEAD_CTX_free(struct boring_aead_ctx *ctx);

/// `EVP_AEAD_CTX_seal_scatter`: encrypts `in` into `out` (as long as `in`) and writes the tag to
/// `out_tag`; 1 on success.
int CCryptoBoringSSL_EVP_AEAD_CTX_seal_scatter(
    const struct boring_aead_ctx *ctx, uint8_t *out, uint8_t *out_tag, size_t *out_tag_len, size_t max_out_tag_len,
    const uint8_t *nonce, size_t nonce_len, const uint8_t *in, size_t in_len, const uint8_t *extra_in, size_t extra_in_len,
    const uint8_t *ad, size_t ad_len);

/// `EVP_AEAD_CTX_open_gather`: authenticates `in` with `in_tag` and decrypts it into `out` (as
/// long as `in`); 1 when it authenticates, 0 otherwise (then `out` holds nothing of use).
int CCryptoBoringSSL_EVP_AEAD_CTX_open_gather(
    const struct boring_aead_ctx *ctx, uint8_t *out, const uint8_t *nonce, size_t nonce_len,
    const uint8_t *in, size_t in_len, const uint8_t *in_tag, size_t in_tag_len, const uint8_t *ad, size_t ad_len);

/// `ERR_clear_error`: empties this thread's error queue (a failed open leaves an entry in it).
void CCryptoBoringSSL_ERR_clear_error(void);

#endif

#endif
