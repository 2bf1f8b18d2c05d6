#ifndef PUSHGW_CMICROHTTPD_SHIM_H
#define PUSHGW_CMICROHTTPD_SHIM_H

/* microhttpd.h expects these to be included first. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_get_connection_info is variadic, which Swift cannot call: the socket
   of a connection, or -1. The server shuts it down when a request is overdue. */
static inline int pushgw_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The same for the socket context the connection callback set: the
   connection's ConnectionEntry, or NULL. */
static inline void *pushgw_mhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* MHD_get_daemon_info is variadic too: the epoll descriptor of a daemon
   started with MHD_USE_EPOLL and no thread of its own, which the event loop
   that drives it polls, or -1. */
static inline int pushgw_mhd_daemon_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/* The size of the request's head (request line, headers and the empty line
   that ends them) as it arrived, or 0 before the head is complete. The
   screen checks that the parsed lines lie where CRLF-terminated lines
   would (RequestLines). */
static inline size_t pushgw_mhd_connection_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

/* The daemon a connection belongs to: callbacks shared by several daemons
   touch only the connections of the daemon whose thread calls them. */
static inline struct MHD_Daemon *pushgw_mhd_connection_daemon(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_DAEMON);
    return info ? info->daemon : NULL;
}

#endif
