"""The shipped LLM data (models/npus, models/llm, models/workloads/llm and the systems that name an
NPU): every file is strict JSON, names itself as its file does, and carries a public source for
every value it sets; the model files' parameter counts are those their names claim."""

import glob
import json
import os

import pytest

from conftest import src

NPUS = sorted(glob.glob(src("models", "npus", "*.json")))
MODELS = sorted(glob.glob(src("models", "llm", "*.json")))
WORKLOADS = sorted(glob.glob(src("models", "workloads", "llm", "*.json")))
SYSTEMS = [src("models", "systems", n + ".json") for n in ("dgx-a100", "dgx-h100", "torus-3d-llm")]
ALL = NPUS + MODELS + WORKLOADS + SYSTEMS


def load(path):
    """The file's object; a duplicate key (which JSON readers disagree on) is a failure."""

    def no_dups(pairs):
        keys = [k for k, _ in pairs]
        assert len(keys) == len(set(keys)), f"{path}: duplicate key in {keys}"
        return dict(pairs)

    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=no_dups)


def covered(sources):
    """The value names a "sources" object speaks for. A key names one value or a group
    ("layers, hidden, heads"); a prefix such as "dims[0]." carries over to the group's later
    names ("dims[0].npus, topology" is dims[0].npus and dims[0].topology)."""
    names = set()
    for key, text in sources.items():
        assert isinstance(text, str) and len(text) > 20, f"source of {key!r} too short: {text!r}"
        prefix = ""
        for name in key.split(", "):
            if "." in name:
                prefix = name[: name.rindex(".") + 1]
            else:
                name = prefix + name
            names.add(name)
    return names


def test_the_shipped_sets_are_complete():
    names = {os.path.basename(p)[:-5] for p in ALL}
    for n in ("a100-sxm4-80gb", "h100-sxm5-80gb", "a100-sxm4-40gb", "gpt3-125m", "gpt3-175b",
              "megatron-22b", "megatron-1t", "llama3-8b", "llama3-405b", "mixtral-8x7b"):
        assert n in names
    for size in ("22b", "175b", "530b", "1t"):
        for mode in ("full", "selective"):
            assert f"megatron-{size}-{mode}" in names
    assert len(MODELS) == 16 and len(NPUS) == 3


@pytest.mark.parametrize("path", ALL, ids=os.path.basename)
def test_names_description_and_a_source_for_every_value(path):
    doc = load(path)
    assert doc["name"] == os.path.basename(path)[:-5]
    assert len(doc["description"]) > 20
    names = covered(doc["sources"])
    if "npu" in doc and isinstance(doc["npu"], dict):
        values = set(doc["npu"])
    elif "llm_model" in doc:
        values = set(doc["llm_model"])
    elif "llm" in doc:
        values = set(doc["llm"])
    else:
        assert isinstance(doc["npu"], str) and os.path.exists(
            os.path.join(os.path.dirname(path), doc["npu"]))
        values = {"npu"}
        for i, dim in enumerate(doc["dims"]):
            for k in dim:
                if k != "name":
                    values.add(f"dims[{i}].{k}")
        # "dims[*].k" speaks for k in every dim.
        names |= {f"dims[{i}].{n[len('dims[*].'):]}" for n in names if n.startswith("dims[*].")
                  for i in range(len(doc["dims"]))}
    assert values - names == set(), f"values without a source: {sorted(values - names)}"
    assert names - values <= {n for n in names if n.startswith("dims[*].")}, \
        f"sources for values the file does not set: {sorted(names - values)}"


def params(m):
    """Parameters of a model file by hand (Narayanan et al. 2021, Section 5.1, generalised to
    grouped-query attention, gated feed-forward layers and experts): per layer the Q and output
    projections (2 h^2), K and V (2 h * kv_heads * h / heads), the feed-forward matrices
    (2 or 3 of h * ffn, times the experts when every layer is a mixture of experts); the
    embedding and the output layer (V h each: untied in Llama 3 and Mixtral, tied in GPT-3 and
    Megatron, where one copy counts). Biases and norms are below 0.1% and left out."""
    h, a, kv = m["hidden"], m["heads"], m["kv_heads"]
    attn = 2 * h * h + 2 * h * kv * (h // a)
    mats = 3 if m["gated_ffn"] else 2
    ffn = mats * h * m["ffn"]
    if "moe" in m:
        ffn = m["moe"]["experts"] * mats * h * m["moe"]["expert_ffn"] + h * m["moe"]["experts"]
    embed = (2 if m["gated_ffn"] else 1) * m["vocab"] * h
    return m["layers"] * (attn + ffn) + embed


# The parameter counts the papers print: GPT-3 Table 2.1; Korthikanti et al. Table 3 by name;
# Llama 3 Table 3 (8.03e9, 70.6e9, 405.9e9 in the released configs); Mixtral's 46.7e9 (Section 2.1).
CLAIMED = {"gpt3-125m": 125e6, "gpt3-350m": 350e6, "gpt3-760m": 760e6, "gpt3-1.3b": 1.3e9,
           "gpt3-2.7b": 2.7e9, "gpt3-6.7b": 6.7e9, "gpt3-13b": 13e9, "gpt3-175b": 175e9,
           "megatron-22b": 22e9, "megatron-175b": 175e9, "megatron-530b": 530e9,
           "megatron-1t": 1e12, "llama3-8b": 8.03e9, "llama3-70b": 70.6e9,
           "llama3-405b": 405.9e9, "mixtral-8x7b": 46.7e9}


@pytest.mark.parametrize("path", MODELS, ids=os.path.basename)
def test_parameter_count_is_the_published_one(path):
    doc = load(path)
    n = params(doc["llm_model"])
    claimed = CLAIMED[doc["name"]]
    # 3%: the papers round (GPT-3 2.7B counts 2.65e9 here, Megatron's "1T" 1.008e12).
    assert abs(n / claimed - 1) < 0.03, f"{doc['name']}: {n:.4g} parameters, paper {claimed:.4g}"


@pytest.mark.parametrize("path", WORKLOADS, ids=os.path.basename)
def test_workload_execution_is_consistent(path):
    doc = load(path)
    w = doc["llm"]
    model = load(os.path.join(os.path.dirname(path), w["model"]))["llm_model"]
    assert w["global_batch"] % (w["micro_batch"] * w["dp"]) == 0
    assert w["dp"] % w["ep"] == 0
    assert model["heads"] % w["tp"] == 0 and model["layers"] % (w["pp"] * w["virtual_stages"]) == 0
    assert (w["schedule"] == "interleaved") == (w["virtual_stages"] > 1)
    if doc["name"].startswith("megatron-"):
        ref = doc["reference"]
        assert set(ref) <= {"iteration_s", "weights_optimizer_gib", "activations_gib", "source"}
        assert ref["iteration_s"] > 0 and "Table 5" in ref["source"]
        full = doc["name"].endswith("-full")
        assert w["recompute"] == ("full" if full else "selective")
        assert w["sequence_parallel"] == (not full)
        # Figure 1's parameters-and-optimizer memory is 18 bytes per parameter (fp16 weight 2,
        # fp32 gradient 4, fp32 master weight and two moments 12) over tp * pp GPUs, to 2%.
        per_gpu = params(model) * (2 + w["grad_bytes"] + w["optimizer_bytes_per_param"]) / (w["tp"] * w["pp"])
        assert abs(per_gpu / 2**30 / ref["weights_optimizer_gib"] - 1) < 0.02
