/*
 * The ceiling of libmicrohttpd itself on this box: a C server configured as
 * pushgw's HTTP layer is (epoll, a thread pool of 2, suspend/resume allowed,
 * 16 KiB per connection) answering every request with the same small JSON
 * that pushgw's /healthz sends. bench/service-vs-nginx.sh builds and runs it
 * beside nginx, so pushgw's own HTTP-layer cost shows as the gap to this row.
 *
 * Usage: mhd-hello PORT
 */
#include <microhttpd.h>
#include <stdlib.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\"}";

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **request) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload;
    if (*request == NULL) {  /* headers only so far */
        *request = (void *)1;
        return MHD_YES;
    }
    if (*upload_size != 0) {  /* a body chunk: skip it */
        *upload_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    MHD_add_response_header(response, "Cache-Control", "no-store");
    enum MHD_Result queued = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return queued;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
        MHD_OPTION_END);
    if (daemon == NULL) return 1;
    for (;;) pause();
}
