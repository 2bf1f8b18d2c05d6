#ifndef PUSHGW_CMICROHTTPD_SHIM_H
#define PUSHGW_CMICROHTTPD_SHIM_H

/* microhttpd.h expects these to be included first. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

#endif
