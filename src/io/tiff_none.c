/* TIFF in a build without libtiff: a clear error instead of a reader. */
#include "core/error_internal.h"
#include "io_internal.h"

parac_status parac__read_tiff(const parac_io_reader_args *args, parac_image **out)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "TIFF support was not built (libtiff was not found when parac was configured)");
}

parac_status parac__write_tiff(FILE *file, int fd, const char *path, const parac_image *image,
                               const parac_write_options *options)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "cannot write '%s': TIFF support was not built (libtiff was not found when "
                       "parac was configured)", path);
}
