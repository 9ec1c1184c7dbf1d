# lit configuration of shardc's regression tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "shardc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "embed", "layout", "runtime", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.shardc_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.shardc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = {
    "shard-opt": os.path.join(config.shardc_tools_dir, "shard-opt"),
    "shard-translate": os.path.join(config.shardc_tools_dir, "shard-translate"),
    "shard-plan": os.path.join(config.shardc_tools_dir, "shard-plan"),
    "shard-run": os.path.join(config.shardc_tools_dir, "shard-run"),
    "shard-lsp-server": os.path.join(config.shardc_tools_dir,
                                     "shard-lsp-server"),
}
for name, path in tools.items():
    config.substitutions.append(("%" + name, path))
# The tests that run programs through %shard-run JIT-compile them at
# --opt-level=0, in about half the time of the default 2; the tests that
# call shard-run by name (test/tools/, a few e2e) and the README's main
# command keep the default.
config.substitutions.insert(0, ("%shard-run(?![-\\w])", tools["shard-run"] + " --opt-level=0"))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%shardc_src", config.shardc_src_root))
config.substitutions.append(("%shardc_obj", config.shardc_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))

# Running lowered programs: one mlir-runner per MPI rank, JIT-compiling the
# LLVM-dialect module, with the runtime and MLIR's printing utilities loaded.
runner = os.path.join(config.llvm_tools_dir, "mlir-runner")


def run_with(runtime):
    """mlir-runner of main with `runtime` and MLIR's runner utilities."""
    libs = ",".join([
        runtime,
        os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so"),
        os.path.join(config.llvm_lib_dir, "libmlir_runner_utils.so"),
    ])
    return f"{runner} -e main -entry-point-result=void -shared-libs={libs}"


config.substitutions.append(("%mlir-run", run_with(config.shardrt_lib)))
# The same with the runtime built against the simulated device
# (test/simdevice: its NCCL backend, no GPU needed), where it is built.
if getattr(config, "shardrt_sim_lib", "") and os.path.exists(
        config.shardrt_sim_lib):
    config.substitutions.append(
        ("%mlir-sim-run", run_with(config.shardrt_sim_lib)))
    config.available_features.add("simdevice")
    # Ahead-of-time compilation (scripts/aot-compile.sh) against it.
    config.substitutions.append(
        ("%aot-compile",
         f"env LLVM_TOOLS_DIR={config.llvm_tools_dir} "
         + os.path.join(config.shardc_src_root, "scripts", "aot-compile.sh")))
    config.substitutions.append(("%shardrt-sim-lib", config.shardrt_sim_lib))
    for tool in ("shard-run-sim", "shard-plan-sim"):
        config.substitutions.append(
            ("%" + tool, os.path.join(config.shardc_tools_dir, tool)))
# Open MPI refuses to run as root without this flag, and more ranks than
# cores without --oversubscribe. Each launch has a session directory of its
# own (mpirun.sh): tests run in parallel. A per-rank output file keeps ranks
# apart: %mpirun -np N %per-rank PREFIX CMD writes rank R's stdout to
# PREFIX.R (per-rank.sh).
launcher = os.path.join(config.shardc_src_root, "test", "e2e", "Inputs",
                        "mpirun.sh")
mpirun = (f"{launcher} {config.mpiexec} --allow-run-as-root --oversubscribe "
          "--mca btl self,vader --bind-to none")
config.substitutions.append(("%mpirun", mpirun))
config.substitutions.append(
    ("%per-rank", os.path.join(config.shardc_src_root, "test", "e2e",
                               "Inputs", "per-rank.sh")))
# %entry-lines ENTRY FILE [PROGRAM]: the lines a launch of several entries
# (or programs) wrote to FILE for @ENTRY (of PROGRAM), as a launch of that
# entry alone prints them, sorted.
config.substitutions.append(
    ("%entry-lines", os.path.join(config.shardc_src_root, "test", "e2e",
                                  "Inputs", "entry-lines.sh")))
if config.mpiexec and os.path.exists(config.mpiexec):
    config.available_features.add("mpi")

# Open MPI's environment for tests: no warnings about the missing network.
config.environment["OMPI_MCA_btl_base_warn_component_unused"] = "0"
config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The long random runs (e2e/random-*-long.test): `lit --param long=1`, or
# SHARDC_LONG_TESTS=1 scripts/test.sh. The default suite runs a subset of
# the seeds that keeps every seed a past bug was found with.
if lit_config.params.get("long", "0") not in ("", "0") or \
        os.environ.get("SHARDC_LONG_TESTS", "0") not in ("", "0"):
    config.available_features.add("long")
