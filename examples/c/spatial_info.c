/*
 * spatial_info — print a file's spatial metadata and info JSON through libspatialmedia, and
 * optionally edit it.
 *
 *   cc -o spatial_info spatial_info.c $(pkg-config --cflags --libs spatialmedia)
 *   ./spatial_info photo.heic                              # metadata + info JSON
 *   ./spatial_info --no-json movie.mp4                     # metadata only
 *   ./spatial_info movie.mp4 --baseline-um 64000 --hfov-md 70000 --disparity 150 -o out.mp4
 *   ./spatial_info photo.heic --baseline-um 65000 --in-place
 *   ./spatial_info --assemble left.hevc right.hevc -o spatial.mov   # convert: two HEVC streams → spatial video
 *
 * Exit status: 0 success, 1 a library call failed, 2 usage.
 */
#include <spatialmedia.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char *what, sm_status st) {
    fprintf(stderr, "spatial_info: %s failed: %s: %s\n", what, sm_status_name(st), sm_last_error());
    return 1;
}

static void usage(void) {
    fprintf(stderr,
            "usage: spatial_info [--no-json] FILE [--baseline-um N] [--hfov-md N] [--disparity N]\n"
            "                    [--hero none|left|right] (-o OUTPUT | --in-place)\n"
            "       spatial_info --assemble LEFT.hevc RIGHT.hevc -o OUTPUT.mov\n");
}

/* Prints the spatial metadata of an open file. Returns 0, or 1 when a call fails unexpectedly. */
static int print_metadata(sm_file *f) {
    int32_t kind = 0, spatial = 0;
    sm_status st = sm_file_kind(f, &kind);
    if (st != SM_OK) return failed("sm_file_kind", st);
    if ((st = sm_file_is_spatial(f, &spatial)) != SM_OK) return failed("sm_file_is_spatial", st);

    if (kind == SM_KIND_IMAGE) {
        uint32_t left = 0, right = 0, w = 0, h = 0;
        double baseline = 0, hfov = 0;
        int32_t disparity = 0;
        printf("kind: HEIF image, spatial photo: %s\n", spatial ? "yes" : "no");
        if ((st = sm_photo_eye_items(f, &left, &right)) != SM_OK) {
            printf("  not a spatial photo: %s\n", sm_last_error());
            return st == SM_ERR_NOT_FOUND ? 0 : failed("sm_photo_eye_items", st);
        }
        printf("  eyes: left item %u, right item %u\n", (unsigned)left, (unsigned)right);
        if (sm_photo_size(f, &w, &h) == SM_OK) printf("  size: %ux%u\n", (unsigned)w, (unsigned)h);
        if (sm_photo_baseline_um(f, &baseline) == SM_OK) printf("  baseline: %.3f mm\n", baseline / 1000.0);
        else printf("  baseline: unknown (%s)\n", sm_last_error());
        if (sm_photo_hfov_millidegrees(f, &hfov) == SM_OK) printf("  horizontal FOV: %.3f deg\n", hfov / 1000.0);
        else printf("  horizontal FOV: unknown (%s)\n", sm_last_error());
        if (sm_photo_disparity(f, &disparity) == SM_OK) printf("  disparity adjustment: %+.2f %%\n", disparity / 100.0);
        else printf("  disparity adjustment: absent\n");
    } else if (kind == SM_KIND_MOVIE) {
        int32_t cls = 0, disparity = 0, hero = 0;
        uint32_t baseline = 0, hfov = 0;
        if ((st = sm_video_classification(f, &cls)) != SM_OK) return failed("sm_video_classification", st);
        printf("kind: movie, classification: %s\n", sm_video_classification_name(cls));
        if (sm_video_baseline_um(f, &baseline) == SM_OK) printf("  baseline: %.3f mm (%u um)\n", baseline / 1000.0, (unsigned)baseline);
        else printf("  baseline: absent\n");
        if (sm_video_hfov_millidegrees(f, &hfov) == SM_OK) printf("  horizontal FOV: %.3f deg\n", hfov / 1000.0);
        else printf("  horizontal FOV: absent\n");
        if (sm_video_disparity(f, &disparity) == SM_OK) printf("  disparity adjustment: %+.2f %%\n", disparity / 100.0);
        else printf("  disparity adjustment: absent\n");
        if (sm_video_hero_eye(f, &hero) == SM_OK) printf("  hero eye: %s\n", hero == 0 ? "none" : hero == 1 ? "left" : hero == 2 ? "right" : "reserved");
        else printf("  hero eye: absent\n");
    } else if (kind == SM_KIND_HEVC_STREAM) {
        printf("kind: raw HEVC stream (no spatial metadata container)\n");
    } else {
        printf("kind: other ISOBMFF file\n");
    }
    return 0;
}

static int print_file(const char *path, int json) {
    sm_file *f = NULL;
    sm_status st = sm_file_open(path, &f);
    if (st != SM_OK) return failed("sm_file_open", st);
    printf("== %s\n", path);
    int rc = print_metadata(f);
    if (rc == 0 && json) {
        char *text = NULL;
        size_t len = 0;
        st = sm_file_info_json(f, SM_JSON_PRETTY, &text, &len);
        if (st != SM_OK) rc = failed("sm_file_info_json", st);
        else printf("info JSON (%zu bytes):\n%s\n", len, text);
        sm_string_free(text);
    }
    sm_file_free(f);
    return rc;
}

/* Progress callback for sm_convert_video: prints each stage; returns 0 (do not cancel). */
static int32_t on_progress(void *user_data, double fraction, const char *stage) {
    (void)user_data;
    printf("  progress %3.0f%% %s\n", fraction * 100.0, stage);
    return 0;
}

/* --assemble LEFT RIGHT -o OUT: two single-layer HEVC streams → spatial video, then its metadata. */
static int assemble(int argc, char **argv) {
    char options[4096], *report = NULL;
    const char *left, *right, *output;
    volatile int32_t cancel = 0;
    sm_status st;
    size_t i, n = 0;
    if (argc != 6 || strcmp(argv[4], "-o") != 0) { usage(); return 2; }
    left = argv[2]; right = argv[3]; output = argv[5];
    /* options_json: {"right_input": "<right>"} with the path JSON-escaped. */
    n += (size_t)snprintf(options, sizeof options, "{\"right_input\":\"");
    for (i = 0; right[i] != '\0' && n + 8 < sizeof options; i++) {
        unsigned char c = (unsigned char)right[i];
        if (c == '"' || c == '\\') { options[n++] = '\\'; options[n++] = (char)c; }
        else if (c < 0x20) n += (size_t)snprintf(options + n, sizeof options - n, "\\u%04x", c);
        else options[n++] = (char)c;
    }
    snprintf(options + n, sizeof options - n, "\"}");
    st = sm_convert_video(left, output, options, on_progress, NULL, &cancel, &report);
    if (st != SM_OK) return failed("sm_convert_video", st);
    printf("convert report: %s\n", report);
    sm_string_free(report);
    return print_file(output, 0);
}

int main(int argc, char **argv) {
    const char *input = NULL, *output = NULL;
    int json = 1, in_place = 0, editing = 0, i;
    sm_edit *edit = NULL;
    sm_status st;

    printf("libspatialmedia %s (ABI %u)\n", sm_version(), (unsigned)sm_abi_version());
    if (sm_abi_version() != SM_ABI_VERSION) {
        fprintf(stderr, "spatial_info: header ABI %d, library ABI %u\n", SM_ABI_VERSION, (unsigned)sm_abi_version());
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--assemble") == 0) return assemble(argc, argv);
    if ((st = sm_edit_create(&edit)) != SM_OK) return failed("sm_edit_create", st);

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-json") == 0) { json = 0; continue; }
        if (strcmp(a, "--in-place") == 0) { in_place = 1; continue; }
        if (a[0] == '-' && a[1] != '\0' && v == NULL) { usage(); sm_edit_free(edit); return 2; }
        if (strcmp(a, "-o") == 0) { output = v; i++; continue; }
        if (strcmp(a, "--baseline-um") == 0) { st = sm_edit_set_baseline_um(edit, (uint32_t)strtoul(v, NULL, 10)); }
        else if (strcmp(a, "--hfov-md") == 0) { st = sm_edit_set_hfov_millidegrees(edit, (uint32_t)strtoul(v, NULL, 10)); }
        else if (strcmp(a, "--disparity") == 0) { st = sm_edit_set_disparity(edit, (int32_t)strtol(v, NULL, 10)); }
        else if (strcmp(a, "--hero") == 0) {
            st = sm_edit_set_hero_eye(edit, strcmp(v, "left") == 0 ? 1 : strcmp(v, "right") == 0 ? 2 : strcmp(v, "none") == 0 ? 0 : -1);
        } else if (a[0] == '-' && a[1] != '\0') { usage(); sm_edit_free(edit); return 2; }
        else if (input == NULL) { input = a; continue; }
        else { usage(); sm_edit_free(edit); return 2; }
        if (st != SM_OK) { sm_edit_free(edit); return failed(a, st); }
        editing = 1;
        i++;
    }
    if (input == NULL || (editing && !output && !in_place) || (!editing && (output || in_place))) {
        usage();
        sm_edit_free(edit);
        return 2;
    }

    int rc = print_file(input, json && !editing);
    if (rc == 0 && editing) {
        char *report = NULL;
        st = sm_edit_apply(input, in_place ? NULL : output, edit, 0, &report);
        if (st != SM_OK) rc = failed("sm_edit_apply", st);
        else {
            printf("edit report: %s\n", report);
            rc = print_file(in_place ? input : output, 0);
        }
        sm_string_free(report);
    }
    sm_edit_free(edit);
    return rc;
}
