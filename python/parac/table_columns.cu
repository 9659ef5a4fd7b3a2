// A table's records (a row of float64 columns per item, as the library
// writes them) cut into the columns a caller asked for, in one launch:
// column j of the answer is record column (src >> 4j) & 15, cast to int64
// where bit j of is_int is set, and written as row j of `ints` or of
// `floats` (the integer columns in order, then the others). Loaded by
// python/parac/_table_columns.py through CuPy; one thread per output value.
extern "C" __global__ void parac_table_columns(const double *records, long long n, int ncols,
                                               unsigned long long src, unsigned int is_int, int k,
                                               long long *ints, double *floats)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * k) return;
    const int j = (int)(t / n);
    const long long r = t - (long long)j * n;
    const double v = records[r * ncols + (int)((src >> (4 * j)) & 15u)];
    const int ints_before = __popc(is_int & ((1u << j) - 1u));
    if ((is_int >> j) & 1u) ints[(long long)ints_before * n + r] = (long long)v;
    else floats[(long long)(j - ints_before) * n + r] = v;
}
