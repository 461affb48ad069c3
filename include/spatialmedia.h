/*
 * spatialmedia.h — the C ABI of the spatial-media library (libspatialmedia).
 *
 * Inspect and edit Apple-style spatial media without Swift: stereo MV-HEVC movies with
 * vexu/hfov metadata and stereo HEIC photos with a `ster` entity group and camera properties.
 *
 *   #include <spatialmedia.h>
 *   sm_file *f = NULL;
 *   if (sm_file_open("photo.heic", &f) != SM_OK) { fprintf(stderr, "%s\n", sm_last_error()); return 1; }
 *   double baseline_um; if (sm_photo_baseline_um(f, &baseline_um) == SM_OK) printf("%.3f mm\n", baseline_um / 1000);
 *   sm_file_free(f);
 *
 * Build: cc app.c $(pkg-config --cflags --libs spatialmedia)
 *
 * General rules (they hold for every function unless its comment says otherwise)
 * ------------------------------------------------------------------------------
 * Status.   Functions return an sm_status. SM_OK (0) is success; anything else is an error and
 *           sm_last_error() then describes it. No Swift error, exception or signal crosses this
 *           boundary: bad input gives an error status, never a crash.
 * Errors.   sm_last_error() is per thread. Every function that returns sm_status sets it: to ""
 *           on success, to a message on failure. It is never NULL.
 * Pointers. Every pointer argument is checked. A NULL where a value is required gives
 *           SM_ERR_INVALID_ARGUMENT. Parameters documented as "nullable" accept NULL.
 *           Strings are NUL-terminated UTF-8; invalid UTF-8 gives SM_ERR_INVALID_ARGUMENT.
 * Out params. On failure, out pointers that were given are set to NULL / 0. On success they hold the result.
 * Ownership. The caller owns what it passes in (the library copies what it keeps). Strings the library
 *           returns through `char **` are allocated by the library and must be released with
 *           sm_string_free(); byte buffers returned through `uint8_t **` with sm_buffer_free().
 *           `const char *` return values (sm_version, sm_last_error, names) are owned by the
 *           library: do not free them.
 * Handles.  sm_file and sm_edit are opaque handles (tokens, not addresses: never dereference them).
 *           The library keeps a registry of live handles, so a freed, never-created or wrong-type
 *           handle gives SM_ERR_INVALID_HANDLE instead of undefined behaviour. Handles are never
 *           reused after free.
 * Threads.  Every function may be called from any thread at any time. An sm_file is immutable after
 *           it is opened and may be used by several threads at once. Setters on one sm_edit are
 *           serialised internally. Freeing a handle while another thread is inside a call with it is
 *           safe: that call completes; later calls get SM_ERR_INVALID_HANDLE.
 * Units.    Stored units throughout: baseline in micrometres (µm), field of view in millidegrees,
 *           disparity adjustment in 1/10000 of the image width (100 = 1 %).
 * Writing.  Writers never leave a half-written file: they write a temporary file next to the
 *           destination and rename it. An in-place edit either completes or leaves the input intact.
 */
#ifndef SPATIALMEDIA_H
#define SPATIALMEDIA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes; compare with sm_abi_version() at run time. */
#define SM_ABI_VERSION 1

/* ---------------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------------- */

typedef int32_t sm_status;

enum {
    SM_OK = 0,
    /* A required pointer was NULL, a string was not valid UTF-8, a buffer was empty, a value or a
     * flag was out of range. */
    SM_ERR_INVALID_ARGUMENT = 1,
    /* The handle is NULL-free but not live: freed already, never created, or of the wrong type. */
    SM_ERR_INVALID_HANDLE = 2,
    /* The file could not be opened, read or written (missing, directory, permissions, disk). */
    SM_ERR_IO = 3,
    /* The input is malformed or not a format the library reads. */
    SM_ERR_PARSE = 4,
    /* The file does not carry the requested value (e.g. no baseline, not a spatial photo). */
    SM_ERR_NOT_FOUND = 5,
    /* The operation cannot be applied to this input (e.g. editing a fragmented movie, a 2D video's
     * spatial metadata, a photo without a ster group). */
    SM_ERR_NOT_APPLICABLE = 6,
    /* This build of the library does not provide the operation yet (see sm_capabilities()), or a
     * library or program it needs at run time (libde265, x265, libheif, FFmpeg) is not installed or
     * cannot be loaded (error code "library-missing"). The message says what is missing. Nothing was
     * done and no output was written. */
    SM_ERR_UNSUPPORTED = 7,
    /* The caller cancelled the operation (progress callback returned non-zero or *cancel was set). */
    SM_ERR_CANCELLED = 8,
    /* A safety limit of the parser was exceeded (the message names it). */
    SM_ERR_LIMIT = 9,
    /* Memory for a result could not be allocated. */
    SM_ERR_NO_MEMORY = 10,
    /* A bug in the library; please report the message. */
    SM_ERR_INTERNAL = 11,
    /* An option of a job's options_json is refused (error code "invalid-option"): a key the job's table
     * (sm_option_table) does not have, a key given twice, a value of the wrong type, not among the allowed
     * values or out of range, or options that do not apply to the input or contradict each other. The message
     * names the option by its key. (Added in 0.4.0; before, these were SM_ERR_INVALID_ARGUMENT.) */
    SM_ERR_INVALID_OPTION = 12
};

/* ---------------------------------------------------------------------------------------------
 * Library
 * ------------------------------------------------------------------------------------------- */

/* Library version, e.g. "0.1.0". Static string owned by the library; never NULL. Thread-safe.
 * Does not touch sm_last_error(). */
const char *sm_version(void);

/* ABI version of the loaded library (SM_ABI_VERSION of the header it was built with). */
uint32_t sm_abi_version(void);

/* Capability bits for sm_capabilities(). */
enum {
    SM_CAP_INFO = 1u << 0,          /* sm_file_open*, sm_file_info_json, getters */
    SM_CAP_EDIT_VIDEO = 1u << 1,    /* sm_edit_video */
    SM_CAP_EDIT_PHOTO = 1u << 2,    /* sm_edit_photo */
    SM_CAP_COMBINE_PHOTO = 1u << 3, /* sm_combine_photo */
    SM_CAP_VALIDATE = 1u << 4,      /* sm_validate */
    SM_CAP_CONVERT_PHOTO = 1u << 5, /* sm_convert_photo */
    SM_CAP_CONVERT_VIDEO = 1u << 6, /* sm_convert_video (assembly of two HEVC streams) */
    SM_CAP_SPLIT = 1u << 7,         /* sm_split */
    SM_CAP_ALIGN_PHOTO = 1u << 8,   /* sm_align_photo */
    SM_CAP_FIX_VIDEO = 1u << 9      /* sm_fix_video */
};

/* Which operations this build provides (SM_CAP_* bits). An operation whose bit is clear returns
 * SM_ERR_UNSUPPORTED. Thread-safe; does not touch sm_last_error(). */
uint32_t sm_capabilities(void);

/* Short constant name of a status ("SM_OK", "SM_ERR_IO", …; "SM_ERR_UNKNOWN" for other values).
 * Static string owned by the library; never NULL. Does not touch sm_last_error(). */
const char *sm_status_name(sm_status status);

/* The message of the last failing call on this thread, or "" when the last call succeeded (or no
 * call was made yet). Never NULL. The pointer stays valid until the next sm_* call on the same
 * thread; copy it to keep it. Does not itself change the error. */
const char *sm_last_error(void);

/* Where the last failing call on this thread found the problem, when it was reading an input:
 *   *out_offset   the absolute byte offset in the file (-1 when the error has no position, e.g. a bad
 *                 argument),
 *   *out_box_path the path of the box or structure being read, e.g. "moov/trak[0]/mdia/minf" ("" when
 *                 unknown),
 *   *out_code     the library's machine-readable reason, e.g. "truncated", "size-past-parent",
 *                 "not-recognised", "io" ("" for errors that did not come from reading a file).
 * Every out pointer is nullable. The strings are owned by the library and stay valid until the next
 * sm_* call on the same thread. After a successful call: -1, "", "". Does not change the error.
 * (Added in version 0.2.0 of the library; SM_ABI_VERSION stays 1: nothing existing changed.) */
void sm_last_error_location(int64_t *out_offset, const char **out_box_path, const char **out_code);

/* ---------------------------------------------------------------------------------------------
 * Memory returned by the library
 * ------------------------------------------------------------------------------------------- */

/* Frees a string returned through a `char **` out parameter. NULL is a no-op. Passing anything
 * else (a string from elsewhere, a string freed already) is undefined behaviour, as with free().
 * Does not touch sm_last_error(). */
void sm_string_free(char *string);

/* Frees a byte buffer returned through a `uint8_t **` out parameter. Same rules as sm_string_free. */
void sm_buffer_free(uint8_t *buffer);

/* ---------------------------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------------------------- */

typedef struct sm_file sm_file;

/* Kinds for sm_file_kind(). */
enum {
    SM_KIND_OTHER = 0,       /* ISOBMFF that is neither a movie nor a HEIF image */
    SM_KIND_MOVIE = 1,       /* a movie (moov box): MP4 / MOV */
    SM_KIND_IMAGE = 2,       /* a HEIF image (meta box with a 'pict' handler, no movie) */
    SM_KIND_HEVC_STREAM = 3  /* a raw HEVC Annex-B stream (.hevc, .265) */
};

/* Opens and parses the file at `path` (UTF-8). Only metadata is read; sample data stays on disk,
 * so large movies open quickly. The file is kept open until sm_file_free().
 * On success *out_file is a new handle the caller owns (free with sm_file_free).
 * Errors: SM_ERR_INVALID_ARGUMENT (NULL, empty or non-UTF-8 path, NULL out_file), SM_ERR_IO,
 * SM_ERR_PARSE (not an ISOBMFF/HEIF file or a raw HEVC stream, empty file), SM_ERR_LIMIT. */
sm_status sm_file_open(const char *path, sm_file **out_file);

/* Parses `size` bytes at `data`. The bytes are copied; the caller may free them after the call.
 * Errors: SM_ERR_INVALID_ARGUMENT (NULL data, size 0, NULL out_file), SM_ERR_PARSE, SM_ERR_LIMIT. */
sm_status sm_file_open_memory(const uint8_t *data, size_t size, sm_file **out_file);

/* Releases a handle. NULL is a no-op returning SM_OK. A freed or bogus handle returns
 * SM_ERR_INVALID_HANDLE (it is not a crash). */
sm_status sm_file_free(sm_file *file);

/* The kind of file (SM_KIND_*). */
sm_status sm_file_kind(const sm_file *file, int32_t *out_kind);

/* *out_is_spatial = 1 for a spatial photo (a readable stereo pair) or a spatial video (MV-HEVC with
 * spatial metadata), else 0. */
sm_status sm_file_is_spatial(const sm_file *file, int32_t *out_is_spatial);

/* JSON flags. */
enum { SM_JSON_PRETTY = 1u << 0 };

/* Everything `spatial-media info --json` says about the file, with the same schema: "file" (the path;
 * absent for memory buffers), container summary, "hevc" streams, "spatial_video", "spatial_photo".
 * `flags`: 0 for compact JSON, SM_JSON_PRETTY for the CLI's indented form; other bits are an error.
 * On success *out_json is a NUL-terminated UTF-8 string owned by the caller (sm_string_free);
 * out_len (nullable) receives its length without the NUL. */
sm_status sm_file_info_json(const sm_file *file, uint32_t flags, char **out_json, size_t *out_len);

/* Everything `spatial-media info --json PATH` says about one file, routed as the command line routes it: any input
 * it reads (ISOBMFF movies and images, raw HEVC streams, JPEG/MPO/PNG, and files only FFmpeg reads, such as Matroska
 * and MPEG-TS), where sm_file_open() takes only what the library's own parsers read. A file that cannot be read at
 * all is an error (its status and message); a damaged one is SM_OK with "damaged" in the JSON. `flags`, `out_json`
 * and `out_len` as for sm_file_info_json(). (Added in 0.3.0.) */
sm_status sm_info_path(const char *path, uint32_t flags, char **out_json, size_t *out_len);

/* The file written back through the library's box writer (byte-identical to the input for every
 * file that parses). Reads the whole file, media data included, into memory. On success *out_bytes
 * is owned by the caller (sm_buffer_free) and *out_len is its size.
 * Errors: SM_ERR_NOT_APPLICABLE for raw HEVC streams, SM_ERR_IO, SM_ERR_LIMIT, SM_ERR_NO_MEMORY. */
sm_status sm_file_serialize(const sm_file *file, uint8_t **out_bytes, size_t *out_len);

/* ---------------------------------------------------------------------------------------------
 * Spatial video getters (the primary video track of a movie)
 * All return SM_ERR_NOT_FOUND when the file is not a movie, has no video track, or the primary
 * video track does not carry the value; the message says which.
 * ------------------------------------------------------------------------------------------- */

/* Classifications for sm_video_classification(). */
enum {
    SM_VIDEO_NO_VIDEO = 0,
    SM_VIDEO_2D = 1,
    SM_VIDEO_SPATIAL = 2,                      /* MV-HEVC + stri + blin + hfov */
    SM_VIDEO_STEREO_WITHOUT_METADATA = 3,      /* two-layer MV-HEVC, spatial metadata incomplete */
    SM_VIDEO_FRAME_PACKED_SIDE_BY_SIDE = 4,
    SM_VIDEO_FRAME_PACKED_TOP_BOTTOM = 5
};

/* What kind of stereo a movie carries (SM_VIDEO_*). SM_ERR_NOT_FOUND when it is not a movie. */
sm_status sm_video_classification(const sm_file *file, int32_t *out_class);

/* Stable machine name of an SM_VIDEO_* value, as in the info JSON ("spatial-video", "2d", …;
 * "unknown" for other values). Static string; never NULL; does not touch sm_last_error(). */
const char *sm_video_classification_name(int32_t video_class);

/* Camera baseline (vexu/eyes/cams/blin) in micrometres. */
sm_status sm_video_baseline_um(const sm_file *file, uint32_t *out_micrometres);

/* Horizontal field of view (hfov) in millidegrees. */
sm_status sm_video_hfov_millidegrees(const sm_file *file, uint32_t *out_millidegrees);

/* Horizontal disparity adjustment (vexu/eyes/cmfy/dadj) in 1/10000 of the image width. */
sm_status sm_video_disparity(const sm_file *file, int32_t *out_disparity);

/* Hero eye (vexu/eyes/hero): 0 none, 1 left, 2 right, 3…255 a reserved value as stored.
 * SM_ERR_NOT_FOUND when there is no hero box (which players treat as none). */
sm_status sm_video_hero_eye(const sm_file *file, int32_t *out_hero_eye);

/* ---------------------------------------------------------------------------------------------
 * Spatial photo getters (the `ster` entity group of a HEIF image)
 * All return SM_ERR_NOT_FOUND when the file is not a HEIF image, has no usable ster group, or
 * the value is absent; the message says which.
 * ------------------------------------------------------------------------------------------- */

/* Item ids of the left and right eye images. Both out pointers are required. */
sm_status sm_photo_eye_items(const sm_file *file, uint32_t *out_left_item, uint32_t *out_right_item);

/* Size of one eye image in pixels (both eyes are the same size). Both out pointers are required. */
sm_status sm_photo_size(const sm_file *file, uint32_t *out_width, uint32_t *out_height);

/* Baseline in micrometres: the distance between the two camera positions (extrinsics). */
sm_status sm_photo_baseline_um(const sm_file *file, double *out_micrometres);

/* Horizontal field of view in millidegrees, computed from the left eye's intrinsics: 2·atan(W/2fx). */
sm_status sm_photo_hfov_millidegrees(const sm_file *file, double *out_millidegrees);

/* Apple's horizontal disparity adjustment in 1/10000 of the width. */
sm_status sm_photo_disparity(const sm_file *file, int32_t *out_disparity);

/* ---------------------------------------------------------------------------------------------
 * Edits: build an sm_edit with setters, then apply it to a movie or a photo.
 * An sm_edit only records values; it touches no file. Fields not set are kept as they are.
 * ------------------------------------------------------------------------------------------- */

typedef struct sm_edit sm_edit;

/* Fields for sm_edit_remove_field(). */
enum {
    SM_FIELD_BASELINE = 1,
    SM_FIELD_HFOV = 2,
    SM_FIELD_DISPARITY = 3,
    SM_FIELD_HERO_EYE = 4,
    SM_FIELD_PROJECTION = 5
};

/* Camera property forms for sm_edit_set_photo_form() (how new photo properties are written). */
enum {
    SM_PHOTO_FORM_APPLE = 0,    /* Apple's uuid boxes (the default) */
    SM_PHOTO_FORM_STANDARD = 1, /* standard cmin/cmex boxes */
    SM_PHOTO_FORM_BOTH = 2
};

/* Creates an empty edit (changes nothing). Free with sm_edit_free(). */
sm_status sm_edit_create(sm_edit **out_edit);

/* Releases an edit. NULL is a no-op returning SM_OK; a freed or bogus handle gives SM_ERR_INVALID_HANDLE. */
sm_status sm_edit_free(sm_edit *edit);

/* Sets the baseline in micrometres (video: blin; photo: right camera at +x). Photos accept at most 2147483647. */
sm_status sm_edit_set_baseline_um(sm_edit *edit, uint32_t micrometres);

/* Sets the horizontal field of view in millidegrees; 1…179999, else SM_ERR_INVALID_ARGUMENT. */
sm_status sm_edit_set_hfov_millidegrees(sm_edit *edit, uint32_t millidegrees);

/* Sets the disparity adjustment in 1/10000 of the width; -10000…10000, else SM_ERR_INVALID_ARGUMENT. */
sm_status sm_edit_set_disparity(sm_edit *edit, int32_t disparity);

/* Sets baseline, field of view and disparity adjustment from a JSON object in either unit: "baseline_mm" or
 * "baseline_um", "hfov_degrees" or "hfov_millidegrees" (1…179999), "disparity_percent" or "disparity"
 * (-10000…10000); one name of each value (the conversion's rule, Specs/operations.md). Human values are rounded to
 * the stored unit. Unknown keys, wrong types and values out of range are SM_ERR_INVALID_ARGUMENT. (Added in 0.3.0.) */
sm_status sm_edit_set_values(sm_edit *edit, const char *values_json);

/* Video only. Sets the hero eye: 1 left, 2 right, 0 none (the hero box is removed, which players read as none, as
 * `spatial-media edit --hero none` does); the reserved values 3…255 are SM_ERR_INVALID_ARGUMENT. */
sm_status sm_edit_set_hero_eye(sm_edit *edit, int32_t hero_eye);

/* Video only. Sets the projection kind (vexu/proj/prji), exactly four ASCII characters, e.g. "rect". */
sm_status sm_edit_set_projection(sm_edit *edit, const char *fourcc);

/* Video only. Removes the box of one SM_FIELD_* (replaces an earlier set of the same field). */
sm_status sm_edit_remove_field(sm_edit *edit, int32_t field);

/* Video only. Non-zero: remove vexu and hfov from every video sample entry (other fields ignored). */
sm_status sm_edit_set_remove_spatial(sm_edit *edit, int32_t remove);

/* Photo only. Form for camera properties that do not exist yet (SM_PHOTO_FORM_*). */
sm_status sm_edit_set_photo_form(sm_edit *edit, int32_t form);

/* Edit flags. */
enum { SM_EDIT_FASTSTART = 1u << 0 }; /* video: put moov before mdat (forces a rewrite) */

/* Applies `edit` to the movie at `path`: every MV-HEVC video track's spatial metadata changes,
 * sample data does not. `output` (nullable): a new file; NULL or equal to `path` edits in place
 * (in place when the layout allows, else an atomic rewrite of the same path).
 * `out_report_json` (nullable): on success a JSON report {"output","strategy","changes","edit_warnings" (the
 * edit's own warnings, strings),…} owned by the caller (sm_string_free).
 * Errors: SM_ERR_INVALID_ARGUMENT (empty edit, photo-only fields, unknown flags),
 * SM_ERR_NOT_APPLICABLE (not a movie, not MV-HEVC, fragmented), SM_ERR_IO, SM_ERR_PARSE. The input
 * is unchanged when an error is returned, except one: this is `spatial-media edit` (the operations layer), and the
 * result is read back through the validator; a new file with an ERROR the edit introduced is not kept, an edit in
 * place with one is made but returns SM_ERR_PARSE with code "output-check-failed" naming the rule. The report
 * also carries "job", "route", "warnings" (geometry faults, as every job's; empty for an edit) and
 * "output_check". */
sm_status sm_edit_video(const char *path, const char *output, const sm_edit *edit, uint32_t flags,
                        char **out_report_json);

/* Applies `edit` (baseline, hfov, disparity, form) to the spatial photo at `path`. Image data is
 * copied unchanged. `output` (nullable): NULL or equal to `path` replaces the input atomically.
 * `out_report_json` (nullable): {"output","left_item_id","right_item_id","changes","bytes_written"}.
 * Errors: SM_ERR_INVALID_ARGUMENT (empty edit, video-only fields), SM_ERR_NOT_APPLICABLE (no ster
 * group: use sm_combine_photo), SM_ERR_IO, SM_ERR_PARSE. */
sm_status sm_edit_photo(const char *path, const char *output, const sm_edit *edit, char **out_report_json);

/* sm_edit_photo() for HEIF images, sm_edit_video() for everything else. SM_EDIT_FASTSTART is
 * rejected for photos. */
sm_status sm_edit_apply(const char *path, const char *output, const sm_edit *edit, uint32_t flags,
                        char **out_report_json);

/* Combine flags. */
enum { SM_COMBINE_SWAP_EYES = 1u << 0 };

/* Makes a spatial photo without re-encoding and writes it to `output` (required).
 *  - right_path non-NULL: left_path and right_path are two single-image HEIF files (left, right);
 *    left_item and right_item must be 0.
 *  - right_path NULL: left_path is one HEIF file holding both images; left_item/right_item name
 *    them (both 0 = the two displayable images, first = left; one 0 and one not is an error).
 * SM_COMBINE_SWAP_EYES swaps left and right. `edit` (nullable) supplies baseline/hfov/disparity/
 * form; values not set are filled exactly as `spatial-media combine` fills them (the operations layer's one
 * plan): a single input that is already a spatial photo keeps its calibration, else the defaults of
 * Specs/stereo-parameters.md (64 mm, 60°, 0), so both eyes always get their camera intrinsics and extrinsics and
 * the output is a spatial photo by validate; the report's "notes" say which values are defaults. The output
 * must be named .heic/.heif and is read back through the validator before it is kept.
 * `out_report_json` (nullable): {"job","route","output","left_item_id","right_item_id","changes","notes",
 * "bytes_written","warnings","output_check"}. */
sm_status sm_combine_photo(const char *left_path, const char *right_path, uint32_t left_item,
                           uint32_t right_item, uint32_t flags, const sm_edit *edit, const char *output,
                           char **out_report_json);

/* ---------------------------------------------------------------------------------------------
 * Long operations: validate, convert, split
 * ------------------------------------------------------------------------------------------- */

/* Progress callback: called on the calling thread, synchronously, with `fraction` in 0…1 and a
 * short stage name (UTF-8, valid only during the call). Return 0 to continue, non-zero to cancel
 * (the operation then returns SM_ERR_CANCELLED and writes no output). It may call sm_* functions. */
typedef int32_t (*sm_progress_fn)(void *user_data, double fraction, const char *stage);

/* Common parameters of the functions below:
 *  options_json (nullable): a JSON object of options; NULL or "{}" for defaults.
 *  progress (nullable), user_data (nullable, passed back unchanged).
 *  cancel (nullable): a flag the caller may set to non-zero from any thread; it is polled between
 *    steps and the operation then returns SM_ERR_CANCELLED with no output written.
 *  out_report_json (nullable): on success a JSON report owned by the caller (sm_string_free).
 * Check sm_capabilities() first: an operation this build does not provide returns SM_ERR_UNSUPPORTED
 * after the arguments are checked, with a message naming what is not built yet. */

/* Checks the file against the spatial-media rules; the report is the JSON `spatial-media validate --json`
 * prints for one file (kind, spatial, why_not_spatial, findings with rule id, severity, source, location and
 * message, measurements, exit_code). Finding problems is not an error: it is SM_OK with a report.
 * Options (the request's table, ValidateRequest in SpatialOperations): "pixels" (--no-pixels when false; bool,
 * default true: decode and measure the stereo geometry), "layout" (--layout: "sbs"/"tb" for frame-packed
 * input), "frames" (--frames: 1..1000, video frames measured, the same range for every shell); for raw pairs
 * (two images, SBS/TB image, MPO) "hfov_degrees" (--hfov), "disparity_percent" (--disparity), "baseline_mm"
 * (--baseline) (numbers: judge the pair at these; the field of view defaults to the input's EXIF, as convert
 * reads it, else 60°). A handle opened from memory is validated
 * from a private temporary copy. Blocking; thread-safe on distinct handles and on a shared handle. */
sm_status sm_validate(const sm_file *file, const char *options_json, sm_progress_fn progress,
                      void *user_data, const volatile int32_t *cancel, char **out_report_json);

/* sm_validate() on a path, exactly as `spatial-media validate --json PATH` checks one file: any input the
 * command line accepts (spatial video or photo, MP4/MOV, HEIF, JPEG/MPO/PNG stereo images, Y4M). A file
 * that cannot be read is not an error either: the report then has kind "unreadable" and exit_code 2.
 * Same options and report as sm_validate(), plus "right_eye" (--right, a path): `path` is the left eye and
 * this the right eye of an image pair, as `spatial-media validate --left PATH --right RIGHT`. (Added in 0.2.0.) */
sm_status sm_validate_path(const char *path, const char *options_json, sm_progress_fn progress,
                           void *user_data, const volatile int32_t *cancel, char **out_report_json);

/* What `spatial-media validate ARGS…` would check for the paths in `paths_json` (a JSON array of strings):
 * files are kept as given; directories are searched recursively (hidden names skipped), files that are not
 * media (by their first bytes) are skipped, and images named NAME_L / NAME_R in one directory become a pair.
 * `out_json` (caller frees with sm_string_free): {"files": [...], "pairs": [{"left", "right"}...],
 * "skipped": [...], "directories_without_media": [...]}. Validate each file with sm_validate_path() and each
 * pair with sm_validate_path(left, {"right_eye": right}) to get the command line's verdicts. (Added in 0.2.0.) */
sm_status sm_validation_inputs(const char *paths_json, char **out_json);

/* Converts a stereo source into a spatial photo or a spatial video and writes `output` atomically. What is made
 * follows what `input` IS (its first bytes, never the output's name): a side-by-side/top-bottom image (JPEG, PNG,
 * HEIC) or an MPO → a spatial photo (.heic); a frame-packed video (Y4M, MP4/MOV, anything FFmpeg reads) → a
 * spatial video (.mov, or .mp4 with "container": "mp4"), both eyes encoded by x265; with "right_input", `input` is
 * the left eye and "right_input" the right eye (two images, two videos, or two raw HEVC streams assembled without
 * re-encoding). This is exactly `spatial-media convert` (one request, one plan, one report: the same request through
 * the command line, this call, Python or SpatialMediaKit writes the same bytes). Every default, range and refusal is
 * the library's; the options are the rows of the name table (sm_option_table("convert"); Specs/operations.md), each
 * JSON key with its command-line flag:
 *   "layout" (--layout): "sbs" | "tb" | "auto" (photos) or "sbs" | "tb" | "half-sbs" | "half-tb" (videos); default: the
 *   packing the input states, else the one way (sbs or tb) whose halves measure as a stereo pair, else refused,
 *   "force" (--force: convert a frame-packed input whose halves measure as no stereo pair; a video without a layout
 *   side by side),
 *   "half_resolution" (--half), "swap_eyes" (--swap-eyes), "right_input": path,
 *   "baseline_mm" (--baseline) or "baseline_um", "hfov_degrees" (--hfov) or "hfov_millidegrees" (1…179999),
 *   "disparity_percent" (--disparity) or "disparity" (-10000…10000, 1/10000 of the width) — one name of each value;
 *   defaults: the source's (MPO BaselineLength, EXIF), else the one table of Specs/stereo-parameters.md (64 mm, 60°, 0),
 *   "align" (--align), "auto_disparity" (--auto-disparity), "strict" (--strict: refuse a source with geometry faults),
 *   photos: "quality" (--quality, 0…100, default 80), "bit_depth" (--bit-depth, 8 | 10; default 10 for sources deeper than 8 bits, else 8),
 *   "left_gain_map" (--left-gain-map), "right_gain_map" (--right-gain-map), "left_depth" (--left-depth), "right_depth"
 *   (--right-depth): a HEIC kept byte-exact or a PNG/JPEG, attached to that input's eye; "form" (--form, "apple" |
 *   "standard" | "both"), "threads" (0…256, 0 = all cores);
 *   videos: "crf" (--crf, 0…51, the hero eye's, default 23), "bitrate" (--bitrate, kbit/s), "qp" (--qp, 0…51),
 *   "eye_quality" (--eye-quality: "auto" (default: equal on the multiview path, asymmetric on the assembly) | "asymmetric" | "asymmetric:N" | "equal"), "max_bitrate" (--max-bitrate),
 *   "vbv_bufsize" (--vbv-bufsize), "apple_preset" (--apple-preset, "vision-pro"), "encode_path" (--encode-path: "auto" |
 *   "assembled" | "multiview"), "segment" (--segment, "K/N" or [k, n]), "preset" (--preset, x265 preset, default
 *   medium), "keyint" (--keyint), "bframes" (--bframes, 0…16, default 3), "sdr" (--sdr: tone-map an HDR
 *   (PQ, HLG) source to BT.709 SDR through FFmpeg), "audio" (--audio, "copy" | "none"),
 *   "audio_from" (--audio-from), "no_audio" (--no-audio), "hero_eye" (--hero, "left" | "right", default left; the base
 *   layer), "frame_rate" (--fps: "30", "30000/1001", 29.97 or [30000, 1001]; "frame_rate_num"/"frame_rate_den" are
 *   still read), "decoder" (--decoder, "auto" | "ffmpeg"), "threads_per_eye" (--threads-per-eye, 1…64), "layer_sps"
 *   (--sps-form, "multilayer" (Apple's, default) | "full"), "container" (--mp4: "mov" | "mp4"), "faststart"
 *   (--faststart), "keep_streams" (--keep-streams, a path prefix), "projection" (--projection, "hequ" | "equi": the
 *   sphere an untagged frame-packed input is; tagged 180°/360° inputs are read from their Google/APMP metadata and
 *   written as MV-HEVC APMP, vexu/proj without hfov);
 *   two raw HEVC streams: "base_eye" ("left" | "right"; default the hero eye), "hero_eye" may be "none".
 * An output named for something else than what is written (a photo not named .heic, a movie not named .mov/.mp4),
 * an output that is an input, unknown keys, wrong types and values out of range are SM_ERR_INVALID_ARGUMENT (the
 * command line's exit 64, with the same wording). Every write is read back through the validator's metadata and
 * structure rules before it is kept; an ERROR the conversion introduced leaves nothing at `output` and returns
 * SM_ERR_PARSE with code "output-check-failed" naming the rule (exit 2). Progress stages: "convert" (fraction of
 * frames) or "load", "encode", "write" (photos), then "done"; the callback or the cancel flag stops the work
 * (SM_ERR_CANCELLED, nothing written).
 * Report: the JSON of `spatial-media convert --json`: {"job", "route" ("photo" | "video" | "hevc-pair" | "mv-hevc-stream"), "output",
 * the job's facts (photos: "source","width","height","baseline_mm","baseline_source","hfov_degrees","hfov_source",
 * "disparity_percent","disparity_source","quality","bytes","notes"; videos also "frames","eye_width","eye_height","fps",
 * "bytes_written","layer0_bytes","layer1_bytes","hero","audio","encoder","encode_path","alignment","geometry_check"
 * and the timing values "seconds","own_cpu_seconds","process_cpu_seconds","peak_rss_bytes"), "warnings" (geometry
 * faults of the source), "output_check" {"verdict","rules","introduced","inherited","warnings"}}.
 * (Added in 0.3.0; sm_convert_photo / sm_convert_video are the same call that also refuses an input of the other kind.) */
sm_status sm_convert(const char *input, const char *output, const char *options_json,
                     sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                     char **out_report_json);

/* sm_convert() for an input that must be a photo source (else SM_ERR_INVALID_ARGUMENT). */
sm_status sm_convert_photo(const char *input, const char *output, const char *options_json,
                           sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                           char **out_report_json);

/* sm_convert() for an input that must be a video source or two raw HEVC streams (else SM_ERR_INVALID_ARGUMENT). */
sm_status sm_convert_video(const char *input, const char *output, const char *options_json,
                           sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                           char **out_report_json);

/* The name table of a job's request ("convert", "align", "fix", "split", "validate", "combine", "edit",
 * "concat"): a JSON array of {"key", "flag" (null when the command line has none), "python" (the Python keyword),
 * "type", "applies" ("photo" | "video" | "both"), "default", "allowed" (a choice's values, else null), "range"
 * ([lowest, highest] of a number, else null)}. `out_json` is freed with sm_string_free. (Added in 0.3.0;
 * "allowed" and "range" in 0.4.0.) */
sm_status sm_option_table(const char *job, char **out_json);

/* Joins the segments of one conversion (sm_convert_video with "segment": "K/N", or `convert --segment`)
 * into one spatial video at `output`, without re-encoding; written atomically, never over an input.
 * `segments_json` is a JSON array of paths, in any order (each segment records its place). They must be
 * every segment of one conversion: identical sample entries (hvcC, lhvC, spatial metadata), the same
 * timescale, frame ranges tiling the clip; anything else is SM_ERR_INVALID_ARGUMENT or SM_ERR_PARSE with
 * a message naming the segment. Options: "audio_from": path (the converted input: its audio is carried
 * once, whole, as sm_convert_video would carry it) (--audio-from) or "no_audio": true (--no-audio; also
 * spelt "audio": "none"); one of the two is required.
 * Progress stages "join", "done"; cancelling leaves nothing written.
 * Report: {"output","bytes_written","frames","segments","audio","seconds","notes"}.
 * (Added in version 0.2.0 of the library; SM_ABI_VERSION stays 1.) */
sm_status sm_concat_video(const char *segments_json, const char *output, const char *options_json,
                          sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                          char **out_report_json);

/* Splits a stereo photo or video into its eyes: `spatial-media split` (the operations layer's split; every default,
 * route and check is its, and the errors and report are the command line's).
 * Inputs: spatial photos, MPO, side-by-side / top-bottom JPEG, PNG or HEIC pictures, MV-HEVC movies and raw MV-HEVC
 * streams, frame-packed movies (flat or VR180/360 spheres; st3d, vexu/pack, Google spherical XML, Matroska StereoMode,
 * or "layout").
 * Outputs, named for what is written: photo eyes .png, .jpg/.jpeg, .heic; video eyes .mp4, .mov or .mkv (re-encoded
 * with x265), or .hevc/.265/.h265 (a copy of the coded pictures without decoding: such an output means "copy").
 * The arguments "left_output" (--left) and "right_output" (--right) may be NULL (one eye, or only "sbs_output" /
 * "ou_output"). Each output is written to scratch and read back through the validator before it is kept (an ERROR
 * the split introduced: SM_ERR_PARSE, code "output-check-failed", nothing kept).
 * Options (the keys of the "split" name table, sm_option_table):
 *   "sbs_output" (--sbs): path, one side-by-side file (left eye on the left); "ou_output" (--ou): path, one over-under
 *   file (left eye on top). Given beside the eyes (kept from the first release), the eyes are written first, then the
 *   packed file by a second run of the same request; the report then names it.
 *   Videos: "half" (--half): true | false, half-width SBS / half-height OU; "copy" (--copy): true | false, no
 *   re-encoding, raw .hevc per eye (both eyes of an independent-layer file, or the base-layer eye of any MV-HEVC);
 *   "crf" (--crf): 0…51; "preset" (--preset): x265 preset name; "no_audio" (--no-audio): true | false.
 *   Photos: "quality" (--quality): JPEG 1…100 or HEIC 0…100; "aux_dir" (--aux): a directory for each eye's
 *   auxiliary images of a spatial photo (gain map, depth …: EYE-KIND.heic bytes unchanged, EYE-KIND.png).
 *   Both: "layout" (--layout): "sbs", "tb" or "auto", how one picture holds the eyes.
 * Errors: SM_ERR_INVALID_ARGUMENT for an unknown key, a wrong type, a value out of range, an option of the other
 * kind (photo / video), an output named for something else or equal to the input or another output, "crf"/"preset"
 * with .hevc outputs, a movie whose metadata says one view without "layout" (a 2D movie); SM_ERR_NOT_APPLICABLE when
 * a copy is asked of an eye predicted from the other (inter-layer prediction: re-encode instead); SM_ERR_CANCELLED,
 * nothing of that run written. Progress stage "split" (a video's fraction from its frames), then "done".
 * Report: the JSON of the split's report ({"job": "split", "route": "photo" | "video", "input", "left_output",
 * "right_output", …, "output_check"}), plus "sbs_output" / "ou_output" when the second run wrote one. */
sm_status sm_split(const char *input, const char *left_output, const char *right_output,
                   const char *options_json, sm_progress_fn progress, void *user_data,
                   const volatile int32_t *cancel, char **out_report_json);

/* Rectifies a spatial photo (`spatial-media align`): the right eye warped onto the left (vertical offset, roll, focal
 * scale, keystone), both cropped to the common area, written as a new spatial photo at `output` (named .heic, never
 * an input) with the field of view updated for the crop; baseline and disparity adjustment are kept.
 * Options (the keys of the "align" name table, sm_option_table): "auto_disparity" (--auto-disparity, true | false:
 *   also set the disparity adjustment from the measured disparity), "quality" (--quality, 0…100, default 80).
 * Unknown keys, wrong types, a quality out of range and a wrongly named output are SM_ERR_INVALID_ARGUMENT; an input
 * that is no spatial photo is SM_ERR_UNSUPPORTED; a damaged one SM_ERR_PARSE (offset, box path). The output is read
 * back through the validator before it is kept (an ERROR align introduced: SM_ERR_PARSE, "output-check-failed").
 * Progress stages "align", "done" (asked before and after; the work itself is not interrupted).
 * Report: the JSON of `spatial-media align --json` ({"job": "align", "route": "photo", "output", "source", "width",
 * "height", "baseline_mm", "hfov_degrees", "hfov_source", "disparity_percent", "disparity_source", "quality", "bytes",
 * "alignment", "output_check", …}). (Added in 0.3.0.) */
sm_status sm_align_photo(const char *input, const char *output, const char *options_json,
                         sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                         char **out_report_json);

/* Repairs a movie without re-encoding (`spatial-media fix`): hev1 → hvc1, moov before mdat, a missing hero eye or
 * field of view on a stereo track. `output` NULL repairs `input` in place (atomic rewrite, read back and compared
 * with the input's ERRORs); otherwise the repair is written to `output` (never an input) and read back before it
 * is kept. Nothing to repair: nothing written, SM_OK.
 * Options (the keys of the "fix" name table): "hfov_degrees" (--hfov, degrees: added where a rectilinear stereo
 *   track has none), "hero_eye" (--hero, "left" | "right"; default the eye of the base layer).
 * Progress stages "fix", "done". Report: the JSON of `spatial-media fix --json` ({"job": "fix", "repairs",
 * "not_repaired", "notes", …}); a non-empty "not_repaired" (the command line's exit 1) is still SM_OK.
 * (Added in 0.3.0.) */
sm_status sm_fix_video(const char *input, const char *output, const char *options_json,
                       sm_progress_fn progress, void *user_data, const volatile int32_t *cancel,
                       char **out_report_json);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SPATIALMEDIA_H */
