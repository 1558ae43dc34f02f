"""themis.export_chakra: the trace files it writes, its report, and its errors."""

import os

import pytest

import themis

SRC = os.environ.get("THEMIS_SRCDIR", ".")
TINY = os.path.join(SRC, "tests", "data", "wl_chakra_tiny.json")
RING4 = os.path.join(SRC, "tests", "data", "cli_ring4.json")


def test_export_writes_one_file_per_npu(tmp_path):
    r = themis.export_chakra(TINY, tmp_path / "t", system=RING4)
    # a.forward (2 us), a.weight_grad (3 us) and its All-Reduce; the 0-ns input gradient has
    # no node
    assert r["files"] == 4 and r["nodes"] == 3
    assert r["compute_nodes"] == 2 and r["collective_nodes"] == 1
    assert r["written_compute_us"] == 5
    assert sorted(os.listdir(tmp_path)) == [f"t.{k}.et" for k in range(4)]
    # the trace reads back as a workload
    t = themis.train(str(tmp_path / "t"), system=RING4, policy="baseline", intra="fifo",
                     chunks=64)
    # 5 us of compute, then 1024 bytes in 64 chunks on the ring of 4 (30 + 0.0075 m ns a
    # stage): 128 * 30 + 15.36 = 3855.36 ns
    assert t["results"][0]["iteration_us"] == pytest.approx(8.85536, rel=1e-12)


def test_export_refuses_existing_files_without_force(tmp_path):
    themis.export_chakra(TINY, tmp_path / "t", system=RING4)
    with pytest.raises(themis.Error, match="already exists; force replaces it"):
        themis.export_chakra(TINY, tmp_path / "t", system=RING4)
    r = themis.export_chakra(TINY, tmp_path / "t", system=RING4, force=True, iterations=2)
    assert r["iterations"] == 2 and r["nodes"] == 6


LLM_SYS = os.path.join(SRC, "tests", "data", "llm_sys_2d.json")


def llm(**exec_):
    model = {"layers": 4, "hidden": 1024, "heads": 16, "seq": 256, "vocab": 32000}
    return {"name": "llm", "llm": {"model": model, "micro_batch": 1, **exec_}}


def test_export_llm_workload_object(tmp_path):
    r = themis.export_chakra(llm(tp=4, dp=4, global_batch=8, bucket_bytes=0), tmp_path / "l",
                             system=LLM_SYS)
    # per micro-batch 4 forwards and 4 backwards, each with two TP All-Reduces (24 nodes), the
    # logits forward and backward (2); two micro-batches (52), the gradient All-Reduce and the
    # optimizer step: 54 nodes, 16 files (a ring of 4 by a switch of 4)
    assert r["files"] == 16 and r["nodes"] == 54
    assert r["collective_nodes"] == 2 * 8 * 2 + 1


def test_export_llm_pipeline_stages(tmp_path):
    r = themis.export_chakra(llm(pp=4, dp=4, global_batch=8, bucket_bytes=0), tmp_path / "l",
                             system=LLM_SYS)
    # PP 4 on the ring, DP 4 on the switch: 4 files a stage, one layer each, 2 micro-batches.
    # Per micro-batch stage 0 runs its forward and a send, a receive and its backward (4 nodes);
    # a middle stage a receive, forward, send and the same backward (6); the last a receive,
    # its forward, the logits' forward and backward, its backward and a send (6). Then the
    # gradient All-Reduce and the optimizer step.
    assert r["files"] == 16
    assert [s["files"] for s in r["stages"]] == [4, 4, 4, 4]
    assert [s["nodes"] for s in r["stages"]] == [10, 14, 14, 14]
    assert [s["send_nodes"] for s in r["stages"]] == [2, 4, 4, 2]
    assert [s["recv_nodes"] for s in r["stages"]] == [2, 4, 4, 2]
