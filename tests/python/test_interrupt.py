"""Ctrl-C in a long train, optimize or search call ends it within a second: the library polls the
package's callback while it computes, and the call raises KeyboardInterrupt (as a sweep's does).
Each case runs in a child Python, which is sent SIGINT a second into a call that takes tens of
seconds when left alone."""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import SRCDIR

CALLS = {
    # 1000 iterations of Transformer-1T: about 40 s
    "train": 'themis.train("models/workloads/transformer-1t.json", iterations=1000, '
             'policy="themis", intra="scf")',
    # a workload's iteration per evaluation, up to 6000 of them: minutes
    "optimize": 'themis.optimize(workload="models/workloads/transformer-1t.json")',
    # the best 100,000 executions of Mixtral 8x7B on 4096 NPUs under 11 policy pairs: about a
    # minute (a bound prunes little when K is most of the executions that fit)
    "search": 'themis.search("models/llm/mixtral-8x7b.json", "models/systems/dgx-h100.json", '
              'global_batch=1024, top=100000, policy="all", intra="all")',
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_ctrl_c_stops_within_a_second(name):
    code = ("import sys, time, themis\n"
            "print('go', flush=True)\n"
            "t = time.monotonic()\n"
            "try:\n"
            f"    {CALLS[name]}\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', time.monotonic() - t, flush=True)\n"
            "    raise\n")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=SRCDIR, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        assert p.stdout.readline() == "go\n"
        time.sleep(1.0)
        assert p.poll() is None, p.stderr.read()  # still computing
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        waited = time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert out.startswith("interrupted"), (out, err)
    assert err.rstrip().endswith("KeyboardInterrupt"), err
    assert p.returncode != 0
    assert waited < 3, waited  # within a second, plus the interpreter's exit on a busy machine


def test_poll_leaves_results_alone():
    """The callback that makes a call interruptible changes nothing in its result."""
    import json
    import themis
    from conftest import cli
    r = themis.train("models/workloads/resnet50.json", batch=4, policy="themis", intra="scf")
    assert r == json.loads(cli("train", "models/workloads/resnet50.json", "--batch", "4", "-p",
                               "themis", "-q", "scf", "-f", "json").stdout)
