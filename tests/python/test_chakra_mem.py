"""Memory nodes of Chakra traces through the Python API: themis.train's remote_memory (a file
or a dict, ASTRA-sim 2.x's remote memory configuration), with the numbers of `themis train
--remote-memory`."""

import json

import pytest

import themis

from conftest import cli
from test_chakra import _attr, _field, _node, _varint

SYSTEM = "tests/data/cli_ring4.json"  # a ring of 4 NPUs, the analytical model
PER_NPU = {"memory-type": "PER_NPU_MEMORY_EXPANSION", "remote-mem-latency": 100,
           "remote-mem-bw": 50}


def write_trace(prefix, ranks):
    """A 5 us compute node beside a 1 MiB load (MEM_LOAD_NODE, tensor_size), on every rank."""
    for k in range(ranks):
        nodes = [_node(1, 4, micros=5), _node(2, 2, attrs=_attr(b"tensor_size", 13, 1 << 20))]
        with open("%s.%d.et" % (prefix, k), "wb") as f:
            meta = _field(1, b"0.0.4")
            f.write(_varint(len(meta)) + meta)
            for n in nodes:
                f.write(_varint(len(n)) + n)


def test_remote_memory_dict_and_file(tmp_path):
    prefix = str(tmp_path / "mem")
    write_trace(prefix, 4)
    mem = tmp_path / "mem.json"
    mem.write_text(json.dumps(PER_NPU))
    # one memory per NPU: the load takes 100 + floor(1048576 / 50) = 21071 ns, beside the
    # 5000 ns of compute
    r = themis.train(prefix, system=SYSTEM, policy="baseline", intra="fifo",
                     remote_memory=PER_NPU)
    row = r["results"][0]
    assert row["iteration_us"] == pytest.approx(21.071, abs=1e-9)
    assert row["exposed_comm_us"] == pytest.approx(16.071, abs=1e-9)
    assert themis.train(prefix, system=SYSTEM, policy="baseline", intra="fifo",
                        remote_memory=str(mem)) == r
    out = cli("train", prefix, "-s", SYSTEM, "-p", "baseline", "-q", "fifo",
              "--remote-memory", str(mem), "-f", "json").stdout
    assert json.loads(out) == r
    # one pool for the 4 NPUs: their loads one after the other, 4 x 21071
    pool = dict(PER_NPU, **{"memory-type": "MEMORY_POOL"})
    r = themis.train(prefix, system=SYSTEM, policy="baseline", intra="fifo", remote_memory=pool)
    assert r["results"][0]["iteration_us"] == pytest.approx(84.284, abs=1e-9)


def test_remote_memory_refused(tmp_path):
    prefix = str(tmp_path / "mem")
    write_trace(prefix, 1)
    with pytest.raises(themis.Error, match="a memory node needs a remote memory"):
        themis.train(prefix, system=SYSTEM)
    with pytest.raises(themis.Error, match="remote_memory: memory-type: unknown value \"POOL\""):
        themis.train(prefix, system=SYSTEM, remote_memory={"memory-type": "POOL"})
    with pytest.raises(themis.Error, match="remote_memory is for Chakra execution traces"):
        themis.train("models/workloads/resnet50.json", remote_memory=PER_NPU)
