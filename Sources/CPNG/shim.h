#include <png.h>

/* Opened with dlopen on first use (Sources/Codecs/Libraries.swift); the pointer types of the
   functions we bind, from the declarations above. */
#define SM_PNG_SONUM PNG_LIBPNG_VER_SONUM
typedef __typeof__(&png_get_libpng_ver) sm_png_get_libpng_ver_fn;
typedef __typeof__(&png_image_begin_read_from_memory) sm_png_image_begin_read_from_memory_fn;
typedef __typeof__(&png_image_finish_read) sm_png_image_finish_read_fn;
typedef __typeof__(&png_image_write_to_memory) sm_png_image_write_to_memory_fn;
typedef __typeof__(&png_image_free) sm_png_image_free_fn;
