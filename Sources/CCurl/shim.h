#ifndef PUSHGW_CCURL_SHIM_H
#define PUSHGW_CCURL_SHIM_H

#include <curl/curl.h>

#endif
