"""Programs past the compiler's old fixed tables: every matrix in scope is
released and every one computes (the host back end held 512 matrices in scope
and silently forgot the rest, leaking their storage)."""
import re
import subprocess

import numpy as np

from conftest import PARAC, run_parac


def chain_program(n):
    """n declared matrices in one function, each the one before plus 1: the
    output is the input plus n."""
    body = ["    int parac_matrix &I[H][W] = in_data;\n", "    int parac_matrix &O[H][W] = out_data;\n"]
    body += [f"    int parac_matrix A{i}[H][W];\n" for i in range(n)]
    src = "I"
    for i in range(n):
        body.append(f"    parac_iterator s{i}(0:H:1; 0:W:1) {{ A{i}[s{i}x][s{i}y] = {src}[s{i}x][s{i}y] + 1; }}\n")
        src = f"A{i}"
    body.append(f"    parac_iterator so(0:H:1; 0:W:1) {{ O[sox][soy] = {src}[sox][soy]; }}\n")
    return ('const char parac_main_dtype[] = "i32";\n\n'
            "void parac_main(int C, int H, int W, int *in_data, int *out_data)\n{\n" + "".join(body) + "}\n")


def test_a_function_with_600_matrices_computes_and_releases_them_all(tmp_path):
    n = 600  # at -O0: no fusion, every matrix has storage
    (tmp_path / "p.pc").write_text(chain_program(n))
    img = np.arange(7 * 5, dtype=np.int32).reshape(7, 5)
    np.save(tmp_path / "in.npy", img)
    # AddressSanitizer's leak check (CI's sanitizer build) sees any matrix not released
    run_parac("run", tmp_path / "p.pc", tmp_path / "in.npy", tmp_path / "out.npy", "--target", "c",
              "--paracc-flag", "-O0", env={"PARAC_CACHE_DIR": str(tmp_path / "cache")})
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), img + n)
    # and the generated code frees every one of them before the function returns
    paracc = PARAC.parent / "paracc"
    subprocess.run([str(paracc), str(tmp_path / "p.pc"), "--target", "c", "-O0", "-o", str(tmp_path / "gen")], check=True)
    freed = set(re.findall(r"parac__free_matrix\((A\d+)\)", (tmp_path / "gen.c").read_text()))
    assert freed == {f"A{i}" for i in range(n)}
