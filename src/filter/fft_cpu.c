/* CPU convolution by FFT (FFTW, single precision). Every slice and channel
 * is extended by the border rule to (H + 2ry) x (W + 2rx), zero-filled up
 * to an FFT-friendly size, transformed, multiplied by the conjugate spectrum
 * of the kernel (a correlation) and transformed back; the top-left H x W of
 * the result is the output, so no wrap-around reaches it. 3D images get a
 * separable z pass first. FFTW's planner is not thread-safe: plans are made
 * under a lock, and executed with the new-array interface. */
#include <fftw3.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "filter_border.h"
#include "filter_cpu.h"

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
#ifdef PARAC_HAVE_FFTW_OMP
static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_ok;
static void init_threads(void) { threads_ok = fftwf_init_threads(); }
#endif

/* Smallest n >= m whose prime factors are 2, 3, 5 and 7. */
static int64_t good_size(int64_t m)
{
    for (int64_t n = m > 1 ? m : 1;; n++) {
        int64_t r = n;
        while (r % 2 == 0) r /= 2;
        while (r % 3 == 0) r /= 3;
        while (r % 5 == 0) r /= 5;
        while (r % 7 == 0) r /= 7;
        if (r == 1) return n;
    }
}

static int nthreads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

static parac_status fft_slices(const parac_image *src, parac_image *out, const float *k2d, int rx,
                               int ry, parac__border_rule b, int threads)
{
    const int C = src->channels, ntx = 2 * rx + 1, nty = 2 * ry + 1;
    const int64_t W = src->width, H = src->height, D = src->depth;
    const int64_t N0 = good_size(H + 2 * (int64_t)ry), N1 = good_size(W + 2 * (int64_t)rx);
    const int64_t NC = N1 / 2 + 1;
    /* three arrays of this size are needed: refuse before the system would */
    if (N0 > 1 << 30 || N1 > 1 << 30 || N0 * N1 > ((int64_t)1 << 29))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "fft: the image padded by the kernel (%lldx%lld) is too large; use "
                           "method separable or recursive", (long long)N1, (long long)N0);
    const int nt = nthreads(threads);
    float *P = fftwf_malloc(sizeof(float) * (size_t)(N0 * N1));
    fftwf_complex *F = fftwf_malloc(sizeof(fftwf_complex) * (size_t)(N0 * NC));
    fftwf_complex *KF = fftwf_malloc(sizeof(fftwf_complex) * (size_t)(N0 * NC));
    float *rowbuf = parac__malloc(sizeof(float) * (size_t)(W * C) * (size_t)nt);
    if (!P || !F || !KF || !rowbuf) {
        fftwf_free(P);
        fftwf_free(F);
        fftwf_free(KF);
        free(rowbuf);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fft: no memory for %lldx%lld transforms",
                           (long long)N1, (long long)N0);
    }
    pthread_mutex_lock(&plan_lock);
#ifdef PARAC_HAVE_FFTW_OMP
    pthread_once(&threads_once, init_threads);
    if (threads_ok) fftwf_plan_with_nthreads(nt);
#endif
    fftwf_plan fwd = fftwf_plan_dft_r2c_2d((int)N0, (int)N1, P, F, FFTW_ESTIMATE);
    fftwf_plan inv = fftwf_plan_dft_c2r_2d((int)N0, (int)N1, F, P, FFTW_ESTIMATE);
    pthread_mutex_unlock(&plan_lock);
    parac_status st = PARAC_OK;
    if (!fwd || !inv) {
        st = parac__fail(PARAC_ERR_INTERNAL, "fft: FFTW could not plan a %lldx%lld transform",
                         (long long)N1, (long long)N0);
        goto done;
    }
    /* Kernel spectrum, conjugated (correlation) and scaled for the inverse. */
    memset(P, 0, sizeof(float) * (size_t)(N0 * N1));
    for (int j = 0; j < nty; j++)
        for (int i = 0; i < ntx; i++) P[(int64_t)j * N1 + i] = k2d[(int64_t)j * ntx + i];
    fftwf_execute_dft_r2c(fwd, P, KF);
    const float scale = (float)(1.0 / ((double)N0 * (double)N1));
    for (int64_t i = 0; i < N0 * NC; i++) {
        KF[i][0] *= scale;
        KF[i][1] *= -scale;
    }
    for (int64_t z = 0; z < D; z++) {
        for (int c = 0; c < C; c++) {
#pragma omp parallel for num_threads(nt) schedule(static)
            for (int64_t y = 0; y < N0; y++) {
                float *row = P + y * N1;
                int64_t yy = y < H + 2 * (int64_t)ry ? parac__border_index(y - ry, H, b.mode) : -2;
                int64_t x = 0;
                if (yy == -1) {
                    for (; x < W + 2 * (int64_t)rx; x++) row[x] = b.value;
                } else if (yy >= 0) {
                    float *tmp = rowbuf + (int64_t)omp_get_thread_num() * W * C;
                    parac__load_row_f32(parac_image_at(src, 0, yy, z), src->dtype, W * C, tmp);
                    for (; x < W + 2 * (int64_t)rx; x++) {
                        int64_t xx = parac__border_index(x - rx, W, b.mode);
                        row[x] = xx < 0 ? b.value : tmp[xx * C + c];
                    }
                }
                for (; x < N1; x++) row[x] = 0.0f;
            }
            fftwf_execute_dft_r2c(fwd, P, F);
#pragma omp parallel for num_threads(nt) schedule(static)
            for (int64_t i = 0; i < N0 * NC; i++) {
                float re = F[i][0] * KF[i][0] - F[i][1] * KF[i][1];
                float im = F[i][0] * KF[i][1] + F[i][1] * KF[i][0];
                F[i][0] = re;
                F[i][1] = im;
            }
            fftwf_execute_dft_c2r(inv, F, P);
#pragma omp parallel for num_threads(nt) schedule(static)
            for (int64_t y = 0; y < H; y++) {
                char *d = parac_image_at(out, 0, y, z);
                const float *row = P + y * N1;
                float *tmp = rowbuf + (int64_t)omp_get_thread_num() * W * C;
                if (C == 1) {
                    parac__store_row_f32(row, out->dtype, W, d);
                } else {
                    /* store one channel: convert a row of that channel, then scatter */
                    parac__store_row_f32(row, PARAC_F32, W, tmp);
                    size_t esz = parac_dtype_size(out->dtype);
                    for (int64_t x = 0; x < W; x++)
                        parac__store_row_f32(tmp + x, out->dtype, 1, d + (x * C + c) * (int64_t)esz);
                }
            }
        }
    }
done:
    pthread_mutex_lock(&plan_lock);
    if (fwd) fftwf_destroy_plan(fwd);
    if (inv) fftwf_destroy_plan(inv);
    pthread_mutex_unlock(&plan_lock);
    fftwf_free(P);
    fftwf_free(F);
    fftwf_free(KF);
    free(rowbuf);
    return st;
}

parac_status parac__cpu_fft2d(const parac_image *in, parac_image *out, const float *k2d, int rx,
                              int ry, const parac__fir1d *kz, parac__border_rule border,
                              int threads)
{
    if (in->width != out->width || in->height != out->height || in->depth != out->depth ||
        in->channels != out->channels || !parac_image_is_packed(in) || !parac_image_is_packed(out))
        return parac__fail(PARAC_ERR_INTERNAL, "fft: images must be packed and of one size");
    if (in->depth > 1 && kz && kz->radius > 0) {
        parac_image *tmp = NULL;
        parac_status st = parac__cpu_z_pass(in, kz, border, threads, &tmp);
        if (st == PARAC_OK) st = fft_slices(tmp, out, k2d, rx, ry, border, threads);
        parac_image_destroy(tmp);
        return st;
    }
    return fft_slices(in, out, k2d, rx, ry, border, threads);
}
