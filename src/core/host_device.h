/* PARAC_HD: helpers shared by C sources and CUDA kernels. In CUDA code they
 * compile for host and device, in C as static inline functions. */
#ifndef PARAC_HOST_DEVICE_H
#define PARAC_HOST_DEVICE_H

#ifdef __CUDACC__
#define PARAC_HD __host__ __device__ __forceinline__
#else
#define PARAC_HD static inline
#endif

/* a * x + b with two roundings, as C computes it: nvcc would contract the
 * device's expression into one fused multiply-add (one rounding), and the
 * GPU's value would differ from the CPU's in the last bit. */
PARAC_HD double parac__mul_add(double a, double x, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(__dmul_rn(a, x), b);
#else
    return a * x + b;
#endif
}

#endif
