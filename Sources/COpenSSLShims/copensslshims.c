#include "copensslshims.h"

int pgw_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

long pgw_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
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
