"""The several-hosts recipe of docs/distributed.md, on one machine: a
scheduler and two workers started by the commands `dask scheduler` and
`dask worker` run (distributed's command-line modules), each its own
process as on its own host, importing parac from its environment; the
program joins them by address (Client("tcp://...")), and so does
`parac-dask --scheduler`. Results equal the in-memory calls and scipy /
scikit-image."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
ndi = pytest.importorskip("scipy.ndimage")
skmorph = pytest.importorskip("skimage.morphology")
zarr = pytest.importorskip("zarr")

from dask_cases import spiral  # noqa: E402

STARTUP_S = 120


def _environment():
    env = dict(os.environ)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def _address(scheduler_file, scheduler, log):
    """The scheduler's address once it has written its file (the file may be
    read while still being written: read again)."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if scheduler.poll() is not None:
            pytest.fail("the scheduler stopped (%s):\n%s" % (scheduler.returncode, log.read_text()))
        try:
            return json.loads(scheduler_file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    pytest.fail("no scheduler file after %d s:\n%s" % (STARTUP_S, log.read_text()))


@pytest.fixture
def address(tmp_path):
    """A scheduler and two one-thread workers, started as commands; their
    address. Stopped (and killed if they linger) afterwards."""
    env, procs, logs = _environment(), [], []

    def start(module, args, name):
        log = tmp_path / (name + ".log")
        f = open(log, "w")
        logs.append(f)
        procs.append(subprocess.Popen([sys.executable, "-m", module] + args, env=env, stdout=f,
                                      stderr=subprocess.STDOUT, start_new_session=True))
        return procs[-1], log

    try:
        scheduler_file = tmp_path / "scheduler.json"
        scheduler, log = start("distributed.cli.dask_scheduler", ["--host", "127.0.0.1", "--port", "0",
                                                                   "--no-dashboard", "--scheduler-file",
                                                                   str(scheduler_file)], "scheduler")
        addr = _address(scheduler_file, scheduler, log)
        assert addr.startswith("tcp://")
        for i in range(2):
            start("distributed.cli.dask_worker", [addr, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                                  "--name", "host%d" % i, "--local-directory",
                                                  str(tmp_path / ("host%d" % i))], "host%d" % i)
        yield addr
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in logs:
            f.close()


def test_workers_started_as_commands_joined_by_address(address, tmp_path):
    r = np.random.default_rng(33)
    a = r.random((70, 90)) < 0.45
    with distributed.Client(address) as client:
        client.wait_for_workers(2, timeout=STARTUP_S)
        assert {w["name"] for w in client.scheduler_info()["workers"].values()} == {"host0", "host1"}
        # the input persisted on the workers, spread over both
        d = client.persist(da.from_array(a, chunks=(23, 31)).map_blocks(np.asarray, dtype=bool))
        distributed.wait(d)
        lab, n = parac.ndimage.label(d, np.ones((3, 3)))
        got, got_n = client.compute([lab, n], sync=True)
        want, want_n = ndi.label(a, np.ones((3, 3)))
        assert int(got_n) == want_n
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(d).compute(), ndi.binary_fill_holes(a))
        # rounds between the two workers' groups of chunks: a spiral crossing every chunk face
        mask = spiral(41).astype(np.uint8) * 200
        seed = np.zeros_like(mask)
        seed[0, 0] = 200
        rec = parac.morphology.reconstruction(da.from_array(seed, chunks=(9, 9)), da.from_array(mask, chunks=(9, 9)))
        np.testing.assert_array_equal(rec.compute(), skmorph.reconstruction(seed, mask).astype(np.uint8))
        f = a.astype(np.float32)
        smooth = parac.ndimage.gaussian_filter(da.from_array(f, chunks=(23, 31)), 2).compute()
        np.testing.assert_array_equal(smooth, parac.ndimage.gaussian_filter(f, 2, method="separable"))
        # the processes ran the tasks, not this one
        ran = client.run(lambda dask_worker: len(dask_worker.data) + dask_worker.state.executed_count)
        assert all(v > 0 for v in ran.values()), ran

    # the command line, by the same address, Zarr to Zarr
    src, out = tmp_path / "in.zarr", tmp_path / "out.zarr"
    z = zarr.open_array(str(src), mode="w", shape=a.shape, chunks=(30, 40), dtype=np.uint8)
    z[:] = a
    r = subprocess.run([sys.executable, "-m", "parac._dask_cli", "fill-holes", str(src), str(out), "--chunks", "25",
                        "--scheduler", address], capture_output=True, text=True, env=_environment(), timeout=600)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(zarr.open(str(out), mode="r")[:] != 0, ndi.binary_fill_holes(a))
