#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic: Swift calls them through these.

typedef size_t (*sl_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode sl_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode sl_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode sl_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode sl_curl_set_callback(CURL *curl, CURLoption option, sl_curl_data_callback callback) {
    return curl_easy_setopt(curl, option, callback);
}

/// The last response's HTTP status (0 when none was received).
static inline long sl_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

/// The Content-Length of the last response, -1 when it had none.
static inline curl_off_t sl_curl_content_length(CURL *curl) {
    curl_off_t length = -1;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length;
}
