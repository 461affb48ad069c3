#include <turbojpeg.h>

/* Opened with dlopen on first use (Sources/Codecs/Libraries.swift); the pointer types of the
   functions we bind, from the declarations above. */
#define SM_TURBOJPEG_SONAME "libturbojpeg.so.0"
typedef __typeof__(&tjInitDecompress) sm_tjInitDecompress_fn;
typedef __typeof__(&tjInitCompress) sm_tjInitCompress_fn;
typedef __typeof__(&tjDestroy) sm_tjDestroy_fn;
typedef __typeof__(&tjDecompressHeader3) sm_tjDecompressHeader3_fn;
typedef __typeof__(&tjDecompress2) sm_tjDecompress2_fn;
typedef __typeof__(&tjCompress2) sm_tjCompress2_fn;
typedef __typeof__(&tjFree) sm_tjFree_fn;
typedef __typeof__(&tjGetErrorCode) sm_tjGetErrorCode_fn;
typedef __typeof__(&tjGetErrorStr2) sm_tjGetErrorStr2_fn;
typedef __typeof__(&tjInitTransform) sm_tjInitTransform_fn;
typedef __typeof__(&tjTransform) sm_tjTransform_fn;
