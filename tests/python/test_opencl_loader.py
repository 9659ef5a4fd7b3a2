"""OpenCL drivers that no ICD file names: with an empty vendors directory
(OCL_ICD_VENDORS), parac still finds the drivers it knows
(libnvidia-opencl.so.1, libpocl.so.2) that load on this machine, lists the
same OpenCL devices as with the system's ICD files, and says what it added
(`parac -v devices`). Skipped where no OpenCL device is installed at all."""
import os
import subprocess

import pytest

from conftest import PARAC


def devices(env=None):
    e = dict(os.environ)
    e.pop("OCL_ICD_FILENAMES", None)
    if env:
        e.update(env)
    r = subprocess.run([str(PARAC), "-v", "devices"], capture_output=True, text=True, env=e)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    return [l for l in lines if l.startswith("opencl: ") and "no platform" not in l], \
        [l for l in lines if l.startswith("opencl drivers:") or "no platform found" in l]


def test_drivers_without_icd_files(tmp_path):
    normal, _ = devices()
    if not normal:
        pytest.skip("no OpenCL device on this machine")
    empty = tmp_path / "vendors"
    empty.mkdir()
    found, note = devices({"OCL_ICD_VENDORS": str(empty)})
    assert sorted(found) == sorted(normal), (found, normal, note)
    assert note and "added" in note[0] and "0 ICD files" in note[0], note
    # nothing left behind by the private vendors directory
    assert not [p for p in os.listdir("/tmp") if p.startswith("parac-icd-") and
                os.stat(os.path.join("/tmp", p)).st_uid == os.getuid() and
                os.stat(os.path.join("/tmp", p)).st_mtime > empty.stat().st_mtime]


def test_drivers_missing_from_ocl_icd_filenames(tmp_path):
    """A machine image may set OCL_ICD_FILENAMES (to PoCL, say) and register
    nothing else: the drivers it leaves out are added through that variable,
    unless PARAC_OPENCL_ADD_DRIVERS=0."""
    normal, _ = devices()
    if not normal:
        pytest.skip("no OpenCL device on this machine")
    empty = tmp_path / "vendors"
    empty.mkdir()
    env = {"OCL_ICD_VENDORS": str(empty), "OCL_ICD_FILENAMES": str(tmp_path / "libnot-a-driver.so")}
    found, note = devices(env)
    assert sorted(found) == sorted(normal), (found, normal, note)
    assert note and "OCL_ICD_FILENAMES=" in note[0] and "added" in note[0], note
    found, note = devices(dict(env, PARAC_OPENCL_ADD_DRIVERS="0"))
    assert note and "PARAC_OPENCL_ADD_DRIVERS=0" in note[0], note
