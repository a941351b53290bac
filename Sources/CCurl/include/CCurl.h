// One bounded HTTP GET through libcurl, which is loaded with dlopen on the first fetch: a process
// that never fetches a key document (most `policy-run` commands) does not pay for loading and
// relocating libcurl and the thirty libraries it needs (about 8 ms of every start).
#ifndef CCURL_H
#define CCURL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// libcurl's entry points, once loaded; immutable afterwards and safe to share between threads.
typedef struct CCurlLibrary CCurlLibrary;

/// Loads the shared library `name` (e.g. "libcurl.so.4") and initialises it. Returns NULL on
/// failure, with the reason, NUL-terminated and cut to `error_capacity`, in `error`.
CCurlLibrary *ccurl_open(const char *name, char *error, size_t error_capacity);

/// How a GET ended.
typedef enum {
    CCURL_OK = 0,          ///< An answer arrived, whatever its status.
    CCURL_TIMEOUT = 1,     ///< The deadline passed first.
    CCURL_TOO_LARGE = 2,   ///< The body (or its announced length) exceeded the cap.
    CCURL_TRANSPORT = 3,   ///< Name resolution, connection, TLS or protocol failure.
    CCURL_PROTOCOL = 4,    ///< The URL's scheme is not one allowed.
    CCURL_REFUSED_ADDRESS = 5,  ///< The address filter refused an address, and no other was connected to.
} CCurlOutcome;

/// Decides whether a connection to an address may be made, before its socket is opened:
/// `address` is 4 (IPv4) or 16 (IPv6) bytes in network order; nonzero allows it. `rules` is what
/// the caller passed to `ccurl_get`.
typedef int (*CCurlAddressFilter)(const unsigned char *address, size_t length, int rules);

/// What one GET returned. Strings and the body are malloc'd (NULL when absent); free them with
/// `ccurl_response_free`.
typedef struct {
    CCurlOutcome outcome;
    long status;
    char *content_type;
    /// For a 3xx answer, the absolute URL its Location names (not followed).
    char *redirect_url;
    unsigned char *body;
    size_t length;
    /// For outcomes but `CCURL_OK`, libcurl's account of what failed; for
    /// `CCURL_REFUSED_ADDRESS`, the address refused (e.g. "169.254.169.254").
    char message[256];
} CCurlResponse;

/// GETs `url` with `Accept: accept`, never following redirects, within `timeout_ms` for the
/// whole exchange and reading at most `max_bytes` of body; https only unless `allow_http`.
/// Each address libcurl is about to connect to (every one the host resolved to, tried in turn)
/// is first passed to `filter` with `rules`; one it refuses is never connected to.
/// Proxies named by the environment (https_proxy, no_proxy) apply, as libcurl reads them: the
/// address filtered is then the proxy's.
void ccurl_get(const CCurlLibrary *library, const char *url, const char *accept, long timeout_ms,
               size_t max_bytes, int allow_http, CCurlAddressFilter filter, int rules, CCurlResponse *response);

void ccurl_response_free(CCurlResponse *response);

#ifdef __cplusplus
}
#endif

#endif
