#include "copensslshims.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

int pgw_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

long pgw_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

void pgw_ssl_ctx_set_read_ahead(SSL_CTX *ctx, int yes) {
    SSL_CTX_set_read_ahead(ctx, yes);
}

int pgw_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

long pgw_bio_get_mem_data(BIO *bio, const char **data) {
    char *ptr = NULL;
    long len = BIO_get_mem_data(bio, &ptr);
    if (data != NULL) {
        *data = ptr;
    }
    return len;
}

int pgw_bio_pending(BIO *bio) {
    return BIO_pending(bio);
}

long pgw_ssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

int pgw_ssl_ctx_set1_groups_list(SSL_CTX *ctx, const char *groups) {
    return (int)SSL_CTX_set1_groups_list(ctx, groups);
}

EVP_PKEY *pgw_evp_ec_gen_p256(void) {
    return EVP_EC_gen("P-256");
}

EVP_PKEY *pgw_evp_rsa_gen(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

int pgw_ssl_tls1_2_version(void) { return TLS1_2_VERSION; }

uint64_t pgw_ssl_op_all(void) { return SSL_OP_ALL; }
uint64_t pgw_ssl_op_no_compression(void) { return SSL_OP_NO_COMPRESSION; }
uint64_t pgw_ssl_op_no_ticket(void) { return SSL_OP_NO_TICKET; }
uint64_t pgw_ssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
uint64_t pgw_ssl_op_cipher_server_preference(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
uint64_t pgw_ssl_op_ignore_unexpected_eof(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
uint64_t pgw_ssl_op_no_sslv3(void) { return SSL_OP_NO_SSLv3; }
uint64_t pgw_ssl_op_no_tlsv1(void) { return SSL_OP_NO_TLSv1; }
uint64_t pgw_ssl_op_no_tlsv1_1(void) { return SSL_OP_NO_TLSv1_1; }


/* ---- socket BIO without SIGPIPE ------------------------------------------ */

/* Created once by pthread_once and never changed or freed afterwards: a
 * read-only method table shared by every BIO of this kind. */
static BIO_METHOD *pgw_nosigpipe_method;
static pthread_once_t pgw_nosigpipe_once = PTHREAD_ONCE_INIT;

static int pgw_nosigpipe_fd(BIO *bio) {
    return (int)(intptr_t)BIO_get_data(bio);
}

static int pgw_nosigpipe_write(BIO *bio, const char *data, int length) {
    BIO_clear_retry_flags(bio);
    ssize_t written = send(pgw_nosigpipe_fd(bio), data, (size_t)length, MSG_NOSIGNAL);
    if (written < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            BIO_set_retry_write(bio);
        }
        return -1;
    }
    return (int)written;
}

static int pgw_nosigpipe_read(BIO *bio, char *data, int length) {
    BIO_clear_retry_flags(bio);
    ssize_t received = recv(pgw_nosigpipe_fd(bio), data, (size_t)length, 0);
    if (received < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            BIO_set_retry_read(bio);
        }
        return -1;
    }
    return (int)received;
}

static long pgw_nosigpipe_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio; (void)number; (void)pointer;
    switch (command) {
    case BIO_CTRL_FLUSH:
        return 1;
    default:
        return 0;
    }
}

static int pgw_nosigpipe_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static int pgw_nosigpipe_destroy(BIO *bio) {
    (void)bio;
    return 1;
}

static void pgw_nosigpipe_make_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "pushgw socket");
    if (method == NULL) return;
    BIO_meth_set_write(method, pgw_nosigpipe_write);
    BIO_meth_set_read(method, pgw_nosigpipe_read);
    BIO_meth_set_ctrl(method, pgw_nosigpipe_ctrl);
    BIO_meth_set_create(method, pgw_nosigpipe_create);
    BIO_meth_set_destroy(method, pgw_nosigpipe_destroy);
    pgw_nosigpipe_method = method;
}

BIO *pgw_bio_new_socket_nosigpipe(int fd) {
    pthread_once(&pgw_nosigpipe_once, pgw_nosigpipe_make_method);
    if (pgw_nosigpipe_method == NULL) return NULL;
    BIO *bio = BIO_new(pgw_nosigpipe_method);
    if (bio == NULL) return NULL;
    BIO_set_data(bio, (void *)(intptr_t)fd);
    return bio;
}
