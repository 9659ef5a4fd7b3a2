/* The OpenCL runtime for generated code: device selection by substring,
 * the program cache, padded buffers and state-driven transfers, launches
 * over a box, and the two-level reduction. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "lang_check.h"

static const char *source =
    "__kernel void add_one(const int k0lo, const int k0hi, const int k1lo, const int k1hi,\n"
    "    __global int *m, const int m_pitch, const int d0, const int d1, const int d2, const int v)\n"
    "{\n"
    "    const int k1 = k1lo + (int)get_global_id(0), k0 = k0lo + (int)get_global_id(1);\n"
    "    if (k0 >= k0hi || k1 >= k1hi) return;\n"
    "    m[k0 * m_pitch + k1] += v;\n"
    "}\n"
    "__kernel void total(__global const int *m, const int m_pitch, const int d0, const int d1, const int d2,\n"
    "    __global long *partial, __local long *scratch)\n"
    "{\n"
    "    long acc = 0;\n"
    "    for (long i = get_global_id(0); i < (long)d0 * d1; i += get_global_size(0)) acc += m[(i / d1) * m_pitch + i % d1];\n"
    "    int lid = get_local_id(0); scratch[lid] = acc; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) { if (lid < s) scratch[lid] += scratch[lid + s]; barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "    if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void total_final(__global const long *partial, const int n, __global long *result, __local long *scratch)\n"
    "{\n"
    "    int lid = get_local_id(0); long acc = 0;\n"
    "    for (int i = lid; i < n; i += get_local_size(0)) acc += partial[i];\n"
    "    scratch[lid] = acc; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) { if (lid < s) scratch[lid] += scratch[lid + s]; barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "    if (lid == 0) result[0] = scratch[0];\n"
    "}\n";

#define EXPECT(c)                                                              \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: failed: %s (%s)\n", __FILE__, __LINE__, #c, parac_error_message()); \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main(void)
{
    check_need_device();
    char dir[] = "/tmp/parac-cl-cache-XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    setenv("PARAC_CACHE_DIR", dir, 1);
    setenv("PARAC_CL_BINARY_CACHE", "1", 1); /* PoCL too: the cache's own test */
    /* no such device: an error naming the devices there are */
    parac_cl_session *s = NULL;
    EXPECT(parac_cl_session_open(&s, "rt", source, "no-such-device-xyz") == PARAC_ERR_NO_DEVICE);
    EXPECT(strstr(parac_error_message(), "no OpenCL device matches") != NULL);
    /* first open builds, second loads from the cache */
    EXPECT(parac_cl_session_open(&s, "rt", source, NULL) == PARAC_OK);
    EXPECT(!parac_cl_session_from_cache(s));
    parac_cl_session_close(s);
    EXPECT(parac_cl_session_open(&s, "rt", source, NULL) == PARAC_OK);
    EXPECT(parac_cl_session_from_cache(s));
    /* a substring of the device label selects it */
    char label[700];
    snprintf(label, sizeof label, "%s", parac_cl_session_device(s));
    parac_cl_session *s2 = NULL;
    char *slash = strstr(label, " / ");
    EXPECT(slash != NULL);
    EXPECT(parac_cl_session_open(&s2, "rt", source, slash + 3) == PARAC_OK);
    parac_cl_session_close(s2);
    /* a 7x13 int matrix: padded device rows, transfers only when needed */
    int H = 7, W = 13, host[7 * 13];
    for (int i = 0; i < H * W; i++) host[i] = i;
    parac_cl_matrix m;
    EXPECT(parac_cl_matrix_bind(s, &m, host, sizeof(int), 2, H, W, 1, W * sizeof(int)) == PARAC_OK);
    EXPECT(m.device_pitch % 64 == 0 && m.device_pitch >= W * sizeof(int));
    EXPECT(parac_cl_to_device(&m) == PARAC_OK);
    EXPECT(m.state == PARAC_CL_SAME);
    long lo[2] = {2, 3}, hi[2] = {5, 13};
    int wg[3] = {32, 8, 1}, v = 100;
    parac_cl_arg args[] = {PARAC_CL_MATRIX(&m), PARAC_CL_VALUE(v)};
    EXPECT(parac_cl_launch(s, "add_one", 2, lo, hi, wg, 2, args) == PARAC_OK);
    parac_cl_device_modified(&m);
    EXPECT(parac_cl_to_host(&m) == PARAC_OK);
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            int want = x * W + y + (x >= 2 && x < 5 && y >= 3 ? 100 : 0);
            EXPECT(host[x * W + y] == want);
        }
    long sum = 0, want_sum = 0;
    for (int i = 0; i < H * W; i++) want_sum += host[i];
    EXPECT(parac_cl_reduce(s, "total", &m, sizeof sum, &sum) == PARAC_OK);
    EXPECT(sum == want_sum);
    /* an unknown kernel is an error, not a crash */
    EXPECT(parac_cl_launch(s, "missing", 2, lo, hi, wg, 2, args) == PARAC_ERR_OPENCL);
    parac_cl_matrix_release(&m);
    parac_cl_session_close(s);
    printf("OpenCL runtime: ok\n");
    return 0;
}
