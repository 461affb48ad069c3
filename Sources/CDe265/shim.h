#include <libde265/de265.h>
#include <stdint.h>

/* The library is opened with dlopen on first use (Sources/Codecs/Libraries.swift), so that commands
   that never decode pixels do not pay for loading it. These are the pointer types of the functions
   we bind, taken from the declarations above so that they cannot drift from the header. */
#define SM_DE265_SONAME "libde265.so.0"
typedef __typeof__(&de265_get_version) sm_de265_get_version_fn;
typedef __typeof__(&de265_new_decoder) sm_de265_new_decoder_fn;
typedef __typeof__(&de265_free_decoder) sm_de265_free_decoder_fn;
typedef __typeof__(&de265_start_worker_threads) sm_de265_start_worker_threads_fn;
typedef __typeof__(&de265_isOK) sm_de265_isOK_fn;
typedef __typeof__(&de265_get_error_text) sm_de265_get_error_text_fn;
typedef __typeof__(&de265_push_NAL) sm_de265_push_NAL_fn;
typedef __typeof__(&de265_flush_data) sm_de265_flush_data_fn;
typedef __typeof__(&de265_decode) sm_de265_decode_fn;
typedef __typeof__(&de265_get_number_of_NAL_units_pending) sm_de265_get_number_of_NAL_units_pending_fn;
typedef __typeof__(&de265_peek_next_picture) sm_de265_peek_next_picture_fn;
typedef __typeof__(&de265_release_next_picture) sm_de265_release_next_picture_fn;
typedef __typeof__(&de265_get_image_width) sm_de265_get_image_width_fn;
typedef __typeof__(&de265_get_image_height) sm_de265_get_image_height_fn;
typedef __typeof__(&de265_get_chroma_format) sm_de265_get_chroma_format_fn;
typedef __typeof__(&de265_get_bits_per_pixel) sm_de265_get_bits_per_pixel_fn;
typedef __typeof__(&de265_get_image_plane) sm_de265_get_image_plane_fn;
typedef __typeof__(&de265_get_image_matrix_coefficients) sm_de265_get_image_matrix_coefficients_fn;
typedef __typeof__(&de265_get_image_full_range_flag) sm_de265_get_image_full_range_flag_fn;
