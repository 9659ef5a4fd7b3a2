#include "test_util.h"

void test_fill_random(parac_image *img, uint64_t seed)
{
    uint64_t s = seed | 1;
    for (int64_t z = 0; z < img->depth; z++)
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 0; x < img->width; x++) {
                char *p = parac_image_at(img, x, y, z);
                for (int c = 0; c < img->channels; c++) {
                    uint64_t r = test_rand(&s);
                    switch (img->dtype) {
                    case PARAC_U8: ((uint8_t *)p)[c] = (uint8_t)r; break;
                    case PARAC_U16: ((uint16_t *)p)[c] = (uint16_t)r; break;
                    case PARAC_I32: ((int32_t *)p)[c] = (int32_t)r; break;
                    case PARAC_F32: ((float *)p)[c] = (float)((r >> 11) * 0x1.0p-53 * 200.0 - 100.0); break;
                    case PARAC_I64: ((int64_t *)p)[c] = (int64_t)r; break;
                    default: ((double *)p)[c] = (r >> 11) * 0x1.0p-53 * 200.0 - 100.0; break;
                    }
                }
            }
}
