/* What the command line asked for, as the passes ask it. */
#include "lang/lang.h"

bool plan_flag(const CompileOptions *opt, int flag, int min_level)
{
    if (!opt) return false;
    if (flag >= 0) return flag != 0 && opt->opt_level > 0;
    return opt->opt_level >= min_level;
}

const char *target_name(Target t)
{
    return t == TARGET_C ? "c" : t == TARGET_CUDA ? "cuda" : "opencl";
}

int lang_stage_rows(const CompileOptions *opt)
{
    return opt && opt->rows_per_item > 0 ? opt->rows_per_item : STAGE_ROWS;
}
