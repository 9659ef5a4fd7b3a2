/* PARAC_HD: helpers shared by C sources and CUDA kernels. In CUDA code they
 * compile for host and device, in C as static inline functions. */
#ifndef PARAC_HOST_DEVICE_H
#define PARAC_HOST_DEVICE_H

#ifdef __CUDACC__
#define PARAC_HD __host__ __device__ __forceinline__
#else
#define PARAC_HD static inline
#endif

#endif
