#include "ccurlshims.h"

CURLcode pgw_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pgw_curl_setopt_ptr(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pgw_curl_setopt_str(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pgw_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pgw_curl_setopt_write_callback(CURL *handle, CURLoption option,
                                        size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pgw_curl_setopt_opensocket_callback(CURL *handle, CURLoption option,
                                             curl_socket_t (*callback)(void *, curlsocktype,
                                                                       struct curl_sockaddr *)) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pgw_curl_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                           int (*callback)(void *, curl_off_t, curl_off_t,
                                                           curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode pgw_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pgw_curl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pgw_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pgw_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLversion pgw_curl_version_now(void) {
    return CURLVERSION_NOW;
}
