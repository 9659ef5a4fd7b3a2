/* A program built against an installed parac, as a user would. */
#include <stdio.h>

#include <parac/parac.h>

int main(void)
{
    parac_context *ctx = NULL;
    parac_image *img = NULL, *out = NULL;
    if (parac_context_create(&ctx, "cpu") != PARAC_OK) return 1;
    if (parac_image_create_zeroed(&img, 7, 5, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) return 1;
    parac_args *args = NULL;
    parac_args_create(&args);
    parac_args_set(args, "dtype", "f32");
    if (parac_op_run(ctx, "convert", &img, 1, &out, 1, args, NULL, 0) != PARAC_OK) {
        fprintf(stderr, "%s\n", parac_error_message());
        return 1;
    }
    printf("parac %s: %s %lldx%lld\n", parac_version_string(), parac_dtype_name(out->dtype),
           (long long)out->width, (long long)out->height);
    parac_image_destroy(out);
    parac_image_destroy(img);
    parac_args_destroy(args);
    parac_context_destroy(ctx);
    return 0;
}
