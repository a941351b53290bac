#include "CCurl.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CCurlLibrary {
    void *handle;
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

CCurlLibrary *ccurl_open(const char *name, char *error, size_t error_capacity) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(error, error_capacity, "%s", dlerror());
        return NULL;
    }
    CCurlLibrary *library = calloc(1, sizeof *library);
    if (!library) {
        dlclose(handle);
        snprintf(error, error_capacity, "out of memory");
        return NULL;
    }
    library->handle = handle;
    CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(handle, "curl_global_init");
    library->easy_init = (CURL * (*)(void)) dlsym(handle, "curl_easy_init");
    library->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(handle, "curl_easy_setopt");
    library->easy_perform = (CURLcode (*)(CURL *))dlsym(handle, "curl_easy_perform");
    library->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(handle, "curl_easy_getinfo");
    library->easy_cleanup = (void (*)(CURL *))dlsym(handle, "curl_easy_cleanup");
    library->easy_strerror = (const char *(*)(CURLcode))dlsym(handle, "curl_easy_strerror");
    library->slist_append = (struct curl_slist * (*)(struct curl_slist *, const char *)) dlsym(handle, "curl_slist_append");
    library->slist_free_all = (void (*)(struct curl_slist *))dlsym(handle, "curl_slist_free_all");
    if (!global_init || !library->easy_init || !library->easy_setopt || !library->easy_perform || !library->easy_getinfo ||
        !library->easy_cleanup || !library->easy_strerror || !library->slist_append || !library->slist_free_all) {
        snprintf(error, error_capacity, "%s lacks libcurl's easy interface", name);
        dlclose(handle);
        free(library);
        return NULL;
    }
    // Thread-safe since libcurl 7.84; called once per CCurlLibrary, which callers keep for the process.
    CURLcode code = global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(error, error_capacity, "curl_global_init failed (%d)", (int)code);
        dlclose(handle);
        free(library);
        return NULL;
    }
    return library;
}

/// The body collected so far and its cap.
typedef struct {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    size_t max_bytes;
    int too_large;
} Body;

static size_t collect(char *data, size_t size, size_t count, void *context) {
    Body *body = context;
    size_t length = size * count;
    if (length > body->max_bytes - body->length) {
        body->too_large = 1;
        return 0;  // libcurl stops the transfer: CURLE_WRITE_ERROR
    }
    if (body->length + length > body->capacity) {
        size_t capacity = body->capacity ? body->capacity : 16384;
        while (capacity < body->length + length) capacity *= 2;
        if (capacity > body->max_bytes) capacity = body->max_bytes;
        unsigned char *bytes = realloc(body->bytes, capacity);
        if (!bytes) return 0;
        body->bytes = bytes;
        body->capacity = capacity;
    }
    memcpy(body->bytes + body->length, data, length);
    body->length += length;
    return length;
}

/// The address filter of one GET, and the first address it refused.
typedef struct {
    CCurlAddressFilter filter;
    int rules;
    int refused;
    char refused_address[INET6_ADDRSTRLEN + 32];
} Connection;

/// libcurl's socket opener (CURLOPT_OPENSOCKETFUNCTION): asks the filter about the resolved
/// address first, so a refused one is never connected to. libcurl then tries the host's other
/// addresses, if any.
static curl_socket_t open_socket(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    Connection *connection = context;
    const void *bytes = NULL;
    size_t length = 0;
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        bytes = &((const struct sockaddr_in *)(const void *)&address->addr)->sin_addr;
        length = 4;
    } else if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        bytes = &((const struct sockaddr_in6 *)(const void *)&address->addr)->sin6_addr;
        length = 16;
    }
    if (!bytes || !connection->filter(bytes, length, connection->rules)) {
        if (!connection->refused) {
            connection->refused = 1;
            if (!bytes || !inet_ntop(address->family, bytes, connection->refused_address, sizeof connection->refused_address)) {
                snprintf(connection->refused_address, sizeof connection->refused_address, "an address of family %d", address->family);
            }
        }
        return CURL_SOCKET_BAD;
    }
#ifdef SOCK_CLOEXEC
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    return socket(address->family, address->socktype, address->protocol);
#endif
}

static char *copy(const char *text) {
    return text ? strdup(text) : NULL;
}

void ccurl_get(const CCurlLibrary *library, const char *url, const char *accept, long timeout_ms,
               size_t max_bytes, int allow_http, CCurlAddressFilter filter, int rules, CCurlResponse *response) {
    memset(response, 0, sizeof *response);
    CURL *curl = library->easy_init();
    if (!curl) {
        response->outcome = CCURL_TRANSPORT;
        snprintf(response->message, sizeof response->message, "curl_easy_init failed");
        return;
    }
    char detail[CURL_ERROR_SIZE] = {0};
    char header[512];
    snprintf(header, sizeof header, "Accept: %s", accept);
    struct curl_slist *headers = library->slist_append(NULL, header);
    Body body = {.max_bytes = max_bytes};
    Connection connection = {.filter = filter, .rules = rules};
    const char *protocols = allow_http ? "http,https" : "https";

    library->easy_setopt(curl, CURLOPT_URL, url);
    library->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, protocols);
    library->easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    library->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    library->easy_setopt(curl, CURLOPT_USERAGENT, "policy-engine");
    library->easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    library->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    library->easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    library->easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    library->easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    library->easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
    library->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    library->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    library->easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    library->easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &connection);

    CURLcode code = library->easy_perform(curl);
    if (code == CURLE_OK) {
        char *type = NULL, *location = NULL;
        library->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
        library->easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
        library->easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location);
        response->outcome = CCURL_OK;
        response->content_type = copy(type);
        response->redirect_url = copy(location);
        response->body = body.bytes;
        response->length = body.length;
        body.bytes = NULL;
    } else {
        if (connection.refused) {
            response->outcome = CCURL_REFUSED_ADDRESS;
            snprintf(response->message, sizeof response->message, "%s", connection.refused_address);
        } else if (body.too_large || code == CURLE_FILESIZE_EXCEEDED) {
            response->outcome = CCURL_TOO_LARGE;
        } else if (code == CURLE_OPERATION_TIMEDOUT) {
            response->outcome = CCURL_TIMEOUT;
        } else if (code == CURLE_UNSUPPORTED_PROTOCOL) {
            response->outcome = CCURL_PROTOCOL;
        } else {
            response->outcome = CCURL_TRANSPORT;
        }
        if (response->outcome != CCURL_REFUSED_ADDRESS) {
            snprintf(response->message, sizeof response->message, "%s", detail[0] ? detail : library->easy_strerror(code));
        }
    }
    free(body.bytes);
    library->slist_free_all(headers);
    library->easy_cleanup(curl);
}

void ccurl_response_free(CCurlResponse *response) {
    free(response->content_type);
    free(response->redirect_url);
    free(response->body);
    response->content_type = NULL;
    response->redirect_url = NULL;
    response->body = NULL;
}
