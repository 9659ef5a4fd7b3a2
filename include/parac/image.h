/* The image model.
 *
 * An image is a 1-4 channel, interleaved, 2D or 3D array of one dtype that
 * lives in host memory (pageable or pinned) or in the memory of one CUDA
 * device. Sizes, indices and strides are 64-bit byte counts, so images of
 * more than 2^32 pixels work. Rows of images parac allocates are padded to a
 * multiple of 64 bytes.
 *
 * Images are handles created and destroyed by the library. Pixel storage is
 * reference counted: a view (ROI, one channel, one slice) shares the storage
 * of its parent without copying and stays valid after the parent is
 * destroyed. The fields are public for reading; change them only through the
 * functions below.
 *
 * Thread safety: distinct images may be used from distinct threads; one image
 * must not be modified by two threads at once. */
#ifndef PARAC_IMAGE_H
#define PARAC_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "parac/export.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef enum parac_dtype {
    PARAC_U8 = 0,
    PARAC_U16,
    PARAC_I32,
    PARAC_F32,
    PARAC_F64,
    PARAC_I64, /* labels and counts: never scaled by conversions */
    PARAC_DTYPE_COUNT
} parac_dtype;

typedef enum parac_memory {
    PARAC_MEMORY_HOST = 0, /* ordinary (pageable) host memory */
    PARAC_MEMORY_PINNED,   /* page-locked host memory: fast, asynchronous transfers */
    PARAC_MEMORY_CUDA      /* global memory of one CUDA device (cudaMalloc) */
} parac_memory;

enum { PARAC_ROW_ALIGNMENT = 64, PARAC_MAX_CHANNELS = 4 };

struct parac_buffer; /* reference-counted storage, internal */

typedef struct parac_image {
    void *data;            /* element (x=0, y=0, z=0, channel 0) */
    int64_t width;         /* pixels per row */
    int64_t height;        /* rows per slice */
    int64_t depth;         /* slices; 1 for a 2D image */
    int channels;          /* 1..4, interleaved */
    parac_dtype dtype;
    int64_t pixel_stride;  /* bytes from one pixel to the next in a row */
    int64_t row_pitch;     /* bytes from one row to the next */
    int64_t slice_pitch;   /* bytes from one slice to the next */
    parac_memory memory;
    int device;            /* CUDA device ordinal when memory == PARAC_MEMORY_CUDA, else -1 */
    struct parac_buffer *buffer; /* NULL for wrapped caller-owned memory */
} parac_image;

/* dtypes */
PARAC_API size_t parac_dtype_size(parac_dtype dtype);
PARAC_API const char *parac_dtype_name(parac_dtype dtype);          /* "u8", "f32", ... */
PARAC_API parac_status parac_dtype_from_name(const char *name, parac_dtype *dtype);
PARAC_API int parac_dtype_is_float(parac_dtype dtype);
PARAC_API const char *parac_memory_name(parac_memory memory);       /* "host", "pinned", "cuda" */

/* Creation and destruction. A depth of 0 is taken as 1. The pixel values of
 * a new image are undefined; parac_image_create_zeroed() clears them. */
PARAC_API parac_status parac_image_create(parac_image **out, int64_t width, int64_t height,
                                          int64_t depth, int channels, parac_dtype dtype,
                                          parac_memory memory, int device);
PARAC_API parac_status parac_image_create_zeroed(parac_image **out, int64_t width,
                                                 int64_t height, int64_t depth, int channels,
                                                 parac_dtype dtype, parac_memory memory,
                                                 int device);
/* An image of the same size and channels as `like`; dtype < 0 keeps its dtype. */
PARAC_API parac_status parac_image_create_like(parac_image **out, const parac_image *like,
                                               int dtype, parac_memory memory, int device);
/* Describe caller-owned memory; the caller keeps it alive and frees it. */
PARAC_API parac_status parac_image_wrap(parac_image **out, void *data, int64_t width,
                                        int64_t height, int64_t depth, int channels,
                                        parac_dtype dtype, int64_t pixel_stride,
                                        int64_t row_pitch, int64_t slice_pitch,
                                        parac_memory memory, int device);
/* NULL is accepted. */
PARAC_API void parac_image_destroy(parac_image *image);

/* Views share storage with `src` (no copy). */
PARAC_API parac_status parac_image_view_roi(parac_image **out, const parac_image *src, int64_t x,
                                            int64_t y, int64_t z, int64_t width, int64_t height,
                                            int64_t depth);
PARAC_API parac_status parac_image_view_channel(parac_image **out, const parac_image *src,
                                                int channel);
PARAC_API parac_status parac_image_view_slice(parac_image **out, const parac_image *src,
                                              int64_t z);

/* Geometry helpers. */
PARAC_API int64_t parac_image_pixel_count(const parac_image *image); /* width*height*depth */
PARAC_API size_t parac_image_pixel_bytes(const parac_image *image);  /* channels*dtype size */
PARAC_API size_t parac_image_row_bytes(const parac_image *image);    /* width*pixel bytes */
/* Pixels are adjacent (pixel_stride == pixel bytes). */
PARAC_API int parac_image_is_packed(const parac_image *image);
/* The pointer to pixel (x, y, z); no bounds checks. */
static inline void *parac_image_at(const parac_image *image, int64_t x, int64_t y, int64_t z)
{
    return (char *)image->data + z * image->slice_pitch + y * image->row_pitch +
           x * image->pixel_stride;
}

/* Copy pixels between images of equal size, channels and dtype, in any
 * residency (host, pinned, CUDA). `stream` is a cudaStream_t or NULL; copies
 * that touch pageable host memory complete before returning. */
PARAC_API parac_status parac_image_copy(parac_image *dst, const parac_image *src, void *stream);
/* A new packed image with the pixels of `src` in the given residency. */
PARAC_API parac_status parac_image_clone(parac_image **out, const parac_image *src,
                                         parac_memory memory, int device, void *stream);
/* Shorthands: to device `device` / to host memory (pinned when `pinned`). */
PARAC_API parac_status parac_image_upload(parac_image **out, const parac_image *host, int device,
                                          void *stream);
PARAC_API parac_status parac_image_download(parac_image **out, const parac_image *dev,
                                            int pinned, void *stream);
/* Set every element to zero. */
PARAC_API parac_status parac_image_clear(parac_image *image, void *stream);

/* Threads that fill and empty the pinned buffers through which large copies
 * between pageable host memory and a GPU are staged (16 MiB and more): 0,
 * the default, takes OpenMP's thread count, at most 8. Copying is bound by
 * memory, not cores: a process that holds OpenMP to one thread for its
 * computing (Dask's worker processes set OMP_NUM_THREADS=1) still copies
 * several times faster with several. For the whole process; negative values
 * are taken as 0, values above 64 as 64. */
PARAC_API void parac_set_copy_threads(int threads);
PARAC_API int parac_copy_threads(void); /* the value set (0: the default) */

/* Images copied between host and device memory since the process started
 * (parac_image_copy and all that goes through it: uploads, downloads, the
 * registry's residency changes), for the process, any thread: to the device,
 * to the host, and the pixel bytes moved. Lets a caller check that work on
 * device arrays stays on the device. Any pointer may be NULL. */
PARAC_API void parac_image_transfer_counts(uint64_t *to_device, uint64_t *to_host, uint64_t *bytes);

/* Release device memory the library keeps cached: the CUDA memory pool's
 * blocks and the FFT filters' plans and kernel spectra (all devices). Call it
 * between runs to give the memory back; later calls build what they need
 * again. */
PARAC_API void parac_cuda_pool_trim(void);

/* Release all memory the library keeps cached: the above, and the host
 * scratch blocks that CPU methods keep between calls (at most 1 GiB: the
 * arrays of runs of the CPU labelling, fill and reconstruction). */
PARAC_API void parac_memory_trim(void);

PARAC_END_DECLS

#endif
