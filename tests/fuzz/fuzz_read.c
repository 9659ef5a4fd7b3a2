/* libFuzzer harness for the image readers: every input is decoded with
 * format detection and then as each format in turn, with each layout.
 * A reader may reject the input but must never crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "parac/parac.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const parac_format formats[] = {PARAC_FORMAT_AUTO, PARAC_FORMAT_PNG, PARAC_FORMAT_JPEG,
                                           PARAC_FORMAT_TIFF, PARAC_FORMAT_PNM, PARAC_FORMAT_NPY,
                                           PARAC_FORMAT_NRRD};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        parac_read_options options = {.format = formats[f],
                                      .layout = (parac_layout)(size ? data[size - 1] % 3 : 0),
                                      .row = size > 1 && data[size - 2] & 1}; /* 1-D NPY as a row */
        parac_image *img = NULL;
        if (parac_image_read_memory(data, size, &options, &img) == PARAC_OK) {
            /* touch every element so that a wrong geometry shows up under ASan */
            volatile uint8_t sink = 0;
            size_t row = parac_image_row_bytes(img);
            for (int64_t z = 0; z < img->depth; z++)
                for (int64_t y = 0; y < img->height; y++) {
                    const uint8_t *p = parac_image_at(img, 0, y, z);
                    sink ^= p[0] ^ p[row - 1];
                }
            (void)sink;
            parac_image_destroy(img);
        }
    }
    return 0;
}
