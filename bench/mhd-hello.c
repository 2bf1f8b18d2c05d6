/*
 * The ceiling of libmicrohttpd itself on this box: a C server configured as
 * pushgw's HTTP layer is (epoll, a thread pool of 2, suspend/resume allowed,
 * 16 KiB per connection) answering every request with one fixed JSON body and
 * no work: by default the small JSON that pushgw's /healthz sends, or the
 * bytes of BODY_FILE (bench/service-vs-nginx.sh gives it pushgw's own
 * /v1/render answer, so the same exchange costs the library alone this much).
 * bench/service-vs-nginx.sh builds and runs it beside nginx, so pushgw's own
 * cost shows as the gap to these rows.
 *
 * Usage: mhd-hello PORT [BODY_FILE]
 */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char healthz_body[] = "{\"status\":\"ok\"}";
static const char *body = healthz_body;
static size_t body_size = sizeof healthz_body - 1;

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
        MHD_create_response_from_buffer(body_size, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    MHD_add_response_header(response, "Cache-Control", "no-store");
    enum MHD_Result queued = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return queued;
}

/* Reads the whole of path into body; returns 0 on success. */
static int load_body(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -1;
    static char buffer[64 * 1024];
    size_t size = fread(buffer, 1, sizeof buffer, file);
    int failed = ferror(file) || !feof(file);
    fclose(file);
    if (failed) return -1;
    body = buffer;
    body_size = size;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) return 2;
    if (argc == 3 && load_body(argv[2]) != 0) {
        fprintf(stderr, "mhd-hello: cannot read %s (at most 64 KiB)\n", argv[2]);
        return 2;
    }
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16 * 1024),
        MHD_OPTION_END);
    if (daemon == NULL) return 1;
    for (;;) pause();
}
