#ifndef PUSHGW_CCURLSHIMS_H
#define PUSHGW_CCURLSHIMS_H

/*
 * Typed, non-variadic wrappers for libcurl entry points Swift cannot call:
 * curl_easy_setopt and curl_easy_getinfo are variadic, CURLVERSION_NOW is a
 * macro that aliases an enum value.
 */

#include <curl/curl.h>

/* curl_easy_setopt is variadic; this passes a long (numeric/boolean options). */
CURLcode pgw_curl_setopt_long(CURL *handle, CURLoption option, long value);

/* curl_easy_setopt is variadic; this passes an opaque pointer (userdata, slists, share handles). */
CURLcode pgw_curl_setopt_ptr(CURL *handle, CURLoption option, void *value);

/* curl_easy_setopt is variadic; this passes a C string (curl copies it). */
CURLcode pgw_curl_setopt_str(CURL *handle, CURLoption option, const char *value);

/* curl_easy_setopt is variadic; this passes a curl_off_t (the *_LARGE options). */
CURLcode pgw_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);

/* curl_easy_setopt is variadic; this passes a write/header callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION). */
CURLcode pgw_curl_setopt_write_callback(CURL *handle, CURLoption option,
                                        size_t (*callback)(char *ptr, size_t size, size_t nmemb, void *userdata));

/* curl_easy_setopt is variadic; this passes a CURLOPT_OPENSOCKETFUNCTION callback. */
CURLcode pgw_curl_setopt_opensocket_callback(CURL *handle, CURLoption option,
                                             curl_socket_t (*callback)(void *clientp, curlsocktype purpose,
                                                                       struct curl_sockaddr *address));

/* curl_easy_setopt is variadic; this passes a CURLOPT_XFERINFOFUNCTION callback. */
CURLcode pgw_curl_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                           int (*callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                                           curl_off_t ultotal, curl_off_t ulnow));

/* curl_easy_getinfo is variadic; this reads a long (CURLINFO_LONG infos). */
CURLcode pgw_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

/* curl_easy_getinfo is variadic; this reads a double (CURLINFO_DOUBLE infos). */
CURLcode pgw_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);

/* curl_easy_getinfo is variadic; this reads a string owned by the handle (CURLINFO_STRING infos). */
CURLcode pgw_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);

/* curl_easy_getinfo is variadic; this reads a curl_off_t (CURLINFO_OFF_T infos). */
CURLcode pgw_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);

/* CURLVERSION_NOW is a macro aliasing a CURLversion enum value; Swift does not import it. */
CURLversion pgw_curl_version_now(void);

#endif
