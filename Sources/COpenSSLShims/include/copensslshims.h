#ifndef PUSHGW_COPENSSLSHIMS_H
#define PUSHGW_COPENSSLSHIMS_H

/*
 * Plain C functions for OpenSSL 3.0 macros that Swift cannot import
 * (function-like macros over SSL_ctrl/SSL_CTX_ctrl/BIO_ctrl, the variadic
 * EVP_PKEY_Q_keygen, and SSL_OP_* constants built with SSL_OP_BIT()).
 */

#include <stdint.h>
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>

/* SSL_set_tlsext_host_name is a macro over SSL_ctrl. Returns 1 on success. */
int pgw_ssl_set_tlsext_host_name(SSL *ssl, const char *name);

/* SSL_CTX_set_mode is a macro over SSL_CTX_ctrl. Returns the new mode bitmask. */
long pgw_ssl_ctx_set_mode(SSL_CTX *ctx, long mode);

/* SSL_CTX_set_read_ahead is a macro over SSL_CTX_ctrl: read whole socket
 * buffers, not one record header then its body (fewer recv calls). */
void pgw_ssl_ctx_set_read_ahead(SSL_CTX *ctx, int yes);

/* SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl. Returns 1 on success. */
int pgw_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version);

/* BIO_get_mem_data is a macro over BIO_ctrl. Returns the byte count; *data points into the BIO. */
long pgw_bio_get_mem_data(BIO *bio, const char **data);

/* BIO_pending is a macro over BIO_ctrl. Returns bytes waiting to be read. */
int pgw_bio_pending(BIO *bio);

/* SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl. Returns the previous mode. */
long pgw_ssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode);

/* SSL_CTX_set1_groups_list is a macro over SSL_CTX_ctrl. Returns 1 on success. */
int pgw_ssl_ctx_set1_groups_list(SSL_CTX *ctx, const char *groups);

/* EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen. New P-256 key or NULL. */
EVP_PKEY *pgw_evp_ec_gen_p256(void);

/* EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen. New RSA key or NULL. */
EVP_PKEY *pgw_evp_rsa_gen(unsigned int bits);

/* TLS1_2_VERSION as an int for pgw_ssl_ctx_set_min_proto_version (Swift 6.3 does import the macro, as Int32). */
int pgw_ssl_tls1_2_version(void);

/* SSL_OP_ALL is an OR of SSL_OP_BIT(n) macros, which Swift does not import. */
uint64_t pgw_ssl_op_all(void);

/* SSL_OP_NO_COMPRESSION is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_compression(void);

/* SSL_OP_NO_TICKET is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_ticket(void);

/* SSL_OP_NO_RENEGOTIATION is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_renegotiation(void);

/* SSL_OP_CIPHER_SERVER_PREFERENCE is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_cipher_server_preference(void);

/* SSL_OP_IGNORE_UNEXPECTED_EOF is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_ignore_unexpected_eof(void);

/* SSL_OP_NO_SSLv3 is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_sslv3(void);

/* SSL_OP_NO_TLSv1 is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_tlsv1(void);

/* SSL_OP_NO_TLSv1_1 is defined with SSL_OP_BIT(), which Swift does not import. */
uint64_t pgw_ssl_op_no_tlsv1_1(void);

/* A socket BIO for `fd` that writes with send(MSG_NOSIGNAL), so a peer that
 * closed the connection yields EPIPE instead of killing the process with
 * SIGPIPE (BIO_s_socket uses write(), and a library must not change the
 * process's signal dispositions). Its retry flags are set with the
 * BIO_set_retry_* macros, which Swift cannot import. The BIO does not own
 * or close `fd`. Returns NULL on allocation failure. */
BIO *pgw_bio_new_socket_nosigpipe(int fd);

#endif
