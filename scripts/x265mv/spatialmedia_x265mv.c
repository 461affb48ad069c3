/* spatial-media's binding to a multiview libx265: see spatialmedia_x265mv.h. Compiled by scripts/setup.sh against
 * the x265.h of the library it links to; every x265 call goes through that library's own x265_api table
 * (x265_api_get is x265_api_get_<X265_BUILD>, a name only that build exports, so a process that also holds another
 * libx265 - the single-layer encoder's - never mixes the two). */
#include "spatialmedia_x265mv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x265.h>

#if X265_BUILD < 210
#error "x265 multiview needs x265 4.0 or newer (X265_BUILD >= 210)"
#endif

struct smx_encoder {
    const x265_api *api;
    x265_param *param;
    x265_encoder *enc;
    x265_picture in[2];
    x265_picture out[2];
    smx_nal *nals;
    uint32_t capacity;
};

static const x265_api *api8(void) { return x265_api_get(8); }

int smx_abi(void) { return SMX_ABI; }

/* scripts/setup.sh defines SMX_FRAME_PARALLEL=1 when it built the library from source with its patches. */
#ifndef SMX_FRAME_PARALLEL
#define SMX_FRAME_PARALLEL 0
#endif
int smx_frame_parallel(void) { return SMX_FRAME_PARALLEL; }
int smx_x265_build(void) { return X265_BUILD; }

const char *smx_x265_version(void) {
    const x265_api *api = api8();
    return api ? api->version_str : NULL;
}

int smx_multiview(void) {
    const x265_api *api = api8();
    if (!api) return 0;
    x265_param *p = api->param_alloc();
    if (!p) return 0;
    api->param_default(p);
    int ok = api->param_parse(p, "num-views", "2") == 0 && p->numViews == 2;
    api->param_free(p);
    return ok;
}

/* Copies x265's NAL array into ours (the same three fields, in our declared layout). */
static int keep(smx_encoder *e, const x265_nal *nals, uint32_t count, const smx_nal **out, uint32_t *n) {
    if (count > e->capacity) {
        smx_nal *grown = realloc(e->nals, (size_t)count * sizeof *grown);
        if (!grown) return -1;
        e->nals = grown;
        e->capacity = count;
    }
    for (uint32_t i = 0; i < count; i++) {
        e->nals[i].type = nals[i].type;
        e->nals[i].size = nals[i].sizeBytes;
        e->nals[i].payload = nals[i].payload;
    }
    *out = e->nals;
    *n = count;
    return 0;
}

static smx_encoder *fail(smx_encoder *e, char *err, size_t size, const char *what, const char *k, const char *v) {
    if (err && size) snprintf(err, size, "%s%s%s%s%s", what, k ? " " : "", k ? k : "", v ? "=" : "", v ? v : "");
    if (e) {
        if (e->param) e->api->param_free(e->param);
        free(e);
    }
    return NULL;
}

smx_encoder *smx_open(const char *preset, const char *tune, int count, const char *const *keys,
                      const char *const *values, char *err, size_t err_size) {
    const x265_api *api = api8();
    if (!api) return fail(NULL, err, err_size, "the library has no 8-bit x265 API", NULL, NULL);
    smx_encoder *e = calloc(1, sizeof *e);
    if (!e) return fail(NULL, err, err_size, "out of memory", NULL, NULL);
    e->api = api;
    e->param = api->param_alloc();
    if (!e->param) return fail(e, err, err_size, "cannot allocate x265 parameters", NULL, NULL);
    if (api->param_default_preset(e->param, preset, tune) != 0)
        return fail(e, err, err_size, "unknown preset or tune", preset, tune);
    for (int i = 0; i < count; i++) {
        int r = api->param_parse(e->param, keys[i], values[i]);
        if (r != 0) return fail(e, err, err_size, r == X265_PARAM_BAD_NAME ? "unknown option" : "bad value", keys[i], values[i]);
    }
    if (api->param_parse(e->param, "num-views", "2") != 0 || e->param->numViews != 2)
        return fail(e, err, err_size, "the library has no multiview support (num-views 2 refused)", NULL, NULL);
    /* x265's command line derives numLayers from numViews; x265_param_parse does not. */
    e->param->numLayers = 2;
    if (api->param_apply_profile(e->param, "main") != 0) return fail(e, err, err_size, "profile main refused", NULL, NULL);
    e->enc = api->encoder_open(e->param);
    if (!e->enc) return fail(e, err, err_size, "x265 refused these settings (encoder_open failed)", NULL, NULL);
    for (int i = 0; i < 2; i++) api->picture_init(e->param, &e->in[i]);
    return e;
}

int smx_headers(smx_encoder *e, const smx_nal **nals, uint32_t *count) {
    x265_nal *n = NULL;
    uint32_t c = 0;
    if (e->api->encoder_headers(e->enc, &n, &c) < 0) return -1;
    return keep(e, n, c, nals, count);
}

int smx_encode(smx_encoder *e, const uint8_t *const *planes, const int32_t *strides, int64_t pts,
               const smx_nal **nals, uint32_t *count, smx_picture_info *info) {
    x265_nal *n = NULL;
    uint32_t c = 0;
    for (int v = 0; v < 2; v++) {
        e->api->picture_init(e->param, &e->out[v]);
        if (!planes) continue;
        for (int p = 0; p < 3; p++) {
            e->in[v].planes[p] = (void *)planes[3 * v + p];
            e->in[v].stride[p] = strides[3 * v + p];
        }
        e->in[v].pts = pts;
        e->in[v].bitDepth = 8;
        e->in[v].colorSpace = X265_CSP_I420;
        e->in[v].sliceType = X265_TYPE_AUTO;
    }
    int r = e->api->encoder_encode(e->enc, &n, &c, planes ? e->in : NULL, e->out);
    for (int v = 0; v < 2; v++)
        for (int p = 0; p < 3; p++) e->in[v].planes[p] = NULL;
    *count = 0;
    if (r < 0) return -1;
    if (r == 0 || c == 0) return 0;
    if (keep(e, n, c, nals, count) != 0) return -1;
    info->pts = e->out[0].pts;
    info->dts = e->out[0].dts;
    info->poc = e->out[0].poc;
    info->slice_type = e->out[0].sliceType;
    return 1;
}

void smx_close(smx_encoder *e) {
    if (!e) return;
    if (e->enc) e->api->encoder_close(e->enc);
    if (e->param) e->api->param_free(e->param);
    free(e->nals);
    free(e);
}
