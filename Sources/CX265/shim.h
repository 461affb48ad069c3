#include <stdint.h>
#include <x265.h>

/* Opened with dlopen on first use (Sources/Codecs/Libraries.swift). x265 is reached through the
   function table that x265_api_query returns, so two symbols are bound by name. */
#define SM_X265_SONAME_NUMBER X265_BUILD
typedef __typeof__(&x265_api_query) sm_x265_api_query_fn;
typedef const char *sm_x265_version_str_t;
