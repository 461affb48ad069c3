/* spatial-media's own stable C interface to a multiview libx265 (issue 30).
 *
 * scripts/setup.sh compiles spatialmedia_x265mv.c against the x265.h of the very libx265 it installs (or of the
 * system's, when that one is multiview) into libspatialmedia_x265mv.so beside that libx265; the Swift code loads it
 * with dlopen and calls only the functions below, so no x265 structure layout (x265_param, x265_picture, x265_api)
 * is known outside this C file. Change SMX_ABI when a declaration below changes. */
#ifndef SPATIALMEDIA_X265MV_H
#define SPATIALMEDIA_X265MV_H
#include <stddef.h>
#include <stdint.h>

#define SMX_ABI 1

/* One NAL unit as x265 returns it: its type, size and bytes (Annex B start code included). */
typedef struct smx_nal {
    uint32_t type;
    uint32_t size;
    const uint8_t *payload;
} smx_nal;

/* The access unit an encode call finished: layer 0's timing, POC and slice type (x265's X265_TYPE_* values). */
typedef struct smx_picture_info {
    int64_t pts;
    int64_t dts;
    int32_t poc;
    int32_t slice_type;
} smx_picture_info;

typedef struct smx_encoder smx_encoder;

/* SMX_ABI of this library. */
int smx_abi(void);
/* X265_BUILD of the header it was compiled against. */
int smx_x265_build(void);
/* x265_version_str of the library, or NULL when its 8-bit API cannot be had. */
const char *smx_x265_version(void);
/* 1 when the library accepts num-views 2 (a build with ENABLE_MULTIVIEW), else 0. */
int smx_multiview(void);
/* 1 when the library was built from source with scripts/x265mv/patches applied, so that frame-threads > 1 give the
 * same bitstream as frame-threads 1 (x265 4.1 unpatched lets layer 1 advance the rate-control order and the output
 * then depends on thread timing); 0 for any other library (the caller keeps one frame thread). Optional: a binding
 * without this function counts as 0. */
int smx_frame_parallel(void);
/* A two-view 8-bit 4:2:0 encoder: preset/tune (tune may be NULL), then `count` x265_param_parse options (keys[i] =
 * values[i]), then num-views 2 and profile main. NULL on failure, with a sentence in err. */
smx_encoder *smx_open(const char *preset, const char *tune, int count, const char *const *keys,
                      const char *const *values, char *err, size_t err_size);
/* VPS, SPS/PPS of both layers and x265's SEI; valid until the next call on this encoder. Returns < 0 on failure. */
int smx_headers(smx_encoder *e, const smx_nal **nals, uint32_t *count);
/* Encodes one picture of each view (planes: Y, U, V of view 0 then of view 1; strides likewise, in bytes), or
 * flushes when planes is NULL. Returns 1 with one access unit in nals/count/info, 0 when none is ready, < 0 on
 * failure. The NAL units stay valid until the next call on this encoder. */
int smx_encode(smx_encoder *e, const uint8_t *const *planes, const int32_t *strides, int64_t pts,
               const smx_nal **nals, uint32_t *count, smx_picture_info *info);
void smx_close(smx_encoder *e);

#endif
