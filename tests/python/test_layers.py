"""The layering check, scripts/check-layers, on small trees made for each rule: silent on a DAG,
a cycle printed as a path, a core file including a preset header, a core object using a preset
symbol, the command layer held to the same; and the registry allowed to name the presets."""

import os
import shutil
import subprocess

from conftest import src


def tree(tmp_path, files):
    """A source tree with the script and the given files (path -> text); its root."""
    os.makedirs(tmp_path / "scripts")
    shutil.copy(src("scripts", "check-layers"), tmp_path / "scripts")
    for path, text in files.items():
        p = tmp_path / path
        os.makedirs(p.parent, exist_ok=True)
        p.write_text(text)
    return tmp_path


def check(root):
    return subprocess.run([str(root / "scripts" / "check-layers")], capture_output=True,
                          text=True, cwd=root)


# The target layout: a model interface below the core, a preset in its folder behind the
# registry, the command line in its own folder.
BASE = {
    "include/themis/error.h": "",
    "include/themis/system.h": '#include "themis/error.h"\n',
    "src/model.h": "struct th_system;\nint th_model_x(void);\n",
    "src/system.c": '#include "model.h"\n#include "themis/system.h"\n',
    "src/system_internal.h": '#include "themis/system.h"\n',
    "src/emu_fast.c": '#include "themis/system.h"\n',
    "src/model_registry.c": '#include "model.h"\n#include "presets/astra/astra.h"\n',
    "src/presets/astra/astra.h": '#include "model.h"\nint astra_x(void);\n',
    "src/presets/astra/astra_model.c":
        '#include "astra.h"\n#include "themis/system.h"\nint astra_x(void) { return 1; }\n',
    "src/cli/cli.c": '#include "themis/system.h"\n',
}


def test_target_layout_passes_silently(tmp_path):
    p = check(tree(tmp_path, BASE))
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")


def test_graph_lowest_modules_first(tmp_path):
    root = tree(tmp_path, BASE)
    p = subprocess.run([str(root / "scripts" / "check-layers"), "--graph"], capture_output=True,
                       text=True, cwd=root)
    assert p.returncode == 0
    assert p.stdout == (" 0 error: \n"
                        " 0 model: \n"
                        " 1 system: error model\n"
                        " 2 cli: system\n"
                        " 2 emulate: system\n"
                        " 2 presets/astra: model system\n"
                        " 3 registry: model presets/astra\n")


def test_cycle_is_printed_as_a_path(tmp_path):
    files = dict(BASE)
    files["include/themis/error.h"] = '#include "themis/system.h"\n'
    p = check(tree(tmp_path, files))
    assert p.returncode == 1
    assert p.stdout == (
        "check-layers: cycle between modules error, system:\n"
        "  error -> system: include/themis/error.h includes themis/system.h\n"
        "  system -> error: include/themis/system.h includes themis/error.h\n")


def test_core_file_including_a_preset_header(tmp_path):
    files = dict(BASE)
    files["src/run.c"] = '#include "presets/astra/astra.h"\n'
    files["src/report.h"] = '#include "themis/astra1.h"\n'
    files["include/themis/astra1.h"] = ""
    p = check(tree(tmp_path, files))
    assert p.returncode == 1
    assert p.stdout == (
        "check-layers: src/report.h: a core file includes the preset header themis/astra1.h\n"
        "check-layers: src/run.c: a core file includes the preset header "
        "presets/astra/astra.h\n")


def test_core_object_using_a_preset_symbol(tmp_path):
    files = dict(BASE)
    files["src/run.c"] = "int astra_x(void);\nint run(void) { return astra_x(); }\n"
    root = tree(tmp_path, files)
    for c in ("src/run.c", "src/presets/astra/astra_model.c"):
        obj = root / "build" / "obj" / (c[len("src/"):-2] + ".o")
        os.makedirs(obj.parent, exist_ok=True)
        subprocess.run(["cc", "-c", "-Isrc", "-Iinclude", "-Isrc/presets/astra", c, "-o",
                        str(obj)], cwd=root, check=True)
    p = check(root)
    assert p.returncode == 1
    assert p.stdout == ("check-layers: build/obj/run.o: a core object uses astra_x, defined by "
                        "src/presets/astra/astra_model.c\n")


def test_command_layer_held_as_the_core(tmp_path):
    files = dict(BASE)
    files["src/cmd/cmd_train.c"] = ('#include "../presets/astra/astra.h"\n'
                                    "int train(void) { return astra_x(); }\n")
    root = tree(tmp_path, files)
    for c in ("src/cmd/cmd_train.c", "src/presets/astra/astra_model.c"):
        obj = root / "build" / "obj" / (c[len("src/"):-2] + ".o")
        os.makedirs(obj.parent, exist_ok=True)
        subprocess.run(["cc", "-c", "-Isrc", "-Iinclude", "-Isrc/presets/astra", c, "-o",
                        str(obj)], cwd=root, check=True)
    p = check(root)
    assert p.returncode == 1
    assert p.stdout == (
        "check-layers: src/cmd/cmd_train.c: a command-layer file includes the preset header "
        "../presets/astra/astra.h\n"
        "check-layers: build/obj/cmd/cmd_train.o: a command-layer object uses astra_x, defined "
        "by src/presets/astra/astra_model.c\n")


def test_the_tree_has_no_cycle_outside_the_presets():
    """This tree: every cycle the check finds runs through a preset (rules 2 and 3 hold once the
    presets have moved behind the registry)."""
    p = subprocess.run([src("scripts", "check-layers")], capture_output=True, text=True,
                       cwd=src())
    cycles = [b for b in p.stdout.split("check-layers: ") if b.startswith("cycle")]
    for c in cycles:
        assert "presets/" in c.splitlines()[0], c
