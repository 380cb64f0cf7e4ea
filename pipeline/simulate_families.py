"""Families of real Paddle failures beside each category's own forms: Paddle Inference and Paddle-Lite
deployments, Fluid GLOG checks, parameter servers, launches that wait forever, third-party pins, Windows
and Chinese messages, and signatures that point to another cause than the true one. ``with_families``
mixes them into a category's renderer (``pipeline.simulate_failures.ERRORS``).
"""
from __future__ import annotations

import time
from typing import Callable

from pipeline.simulate_rare import (
    f_android_lmk,
    f_cudnn_sublib_abort,
    f_cudnn_unusable,
    f_custom_op_no_toolkit,
    f_cxx_api_compile,
    f_disk_full_then_write_fails,
    f_disk_quota,
    f_driver_requirement,
    f_feature_needs_newer_gpu,
    f_gpu_taken,
    f_gpu_unusable,
    f_launch_and_init,
    f_liveness_killed,
    f_model_format_mismatch,
    f_openmp_twice,
    f_os_package_missing,
    f_paddle_dependency_version,
    f_pod_evicted_memory,
    f_pod_evicted_shm,
    f_pod_evicted_storage,
    f_pod_oomkilled,
    f_shm_semaphores,
    f_static_api_in_dygraph,
    f_toolkit_module_changed,
    f_windows_crash,
)
from pipeline.simulate_text import (
    CUDA_HINT35,
    DYNLOAD_SUGGEST,
    GLOG_FAIL_FRAMES,
    Ctx,
    check_failure_stack,
    cpp_tb_1x,
    dataloader_dir,
    fatal_signal,
    frames_paddle_forward,
    frames_user,
    glog_fatal,
    nccl_prefix,
    paddle_error,
    pick,
    py_tb,
    py_tb_lines,
    wpick,
)

# --------------------------------------------------------------------------------------------------
# More surface forms, by family, beside each category's own forms above: what real Paddle logs show for
# deployments (Paddle Inference C++/Python predictors, Paddle-Lite), Fluid 0.x/1.x GLOG checks, parameter
# servers and launches that wait without an error word, third-party breaks that read like API errors,
# Windows and Chinese messages, and signatures that point to another cause than the true one.

def _v1_commandline(c: Ctx) -> None:
    """Fluid 0.x/1.x trainers echo their flags through GLOG first."""
    c.em.glog("I", f"Util.cpp:{pick(c.rng, (160, 166))}", f"commandline:  --use_gpu={pick(c.rng, ('True', '1'))} "
              f"--trainer_count={max(1, c.n_gpus)}")


def _glog_f(c: Ctx, loc: str, msg: str, frames: tuple) -> None:
    glog_fatal(c, loc, msg, [*GLOG_FAIL_FRAMES, *frames])


# ---- gpu_not_visible


def f_enable_gpu_cpu_build(c: Ctx) -> str:
    """A CPU build of Paddle Inference asked for the GPU: one GLOG error, then often a crash that is not the cause."""
    r, em = c.rng, c.em
    for _ in range(r.randrange(1, 3)):
        em.glog("E", f"analysis_config.cc:{pick(r, (73, 91, 95))}", "Please compile with gpu to EnableGpu()")
    if r.random() < 0.4:
        em.err("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)" if r.random() < 0.3 else
               c.shell("Segmentation fault (core dumped)"))
        return "enable_gpu_cpu_build+segv"
    py_tb(c, frames_user(c))
    em.err("RuntimeError: (Unavailable) Place(gpu:0) is not supported. Because paddle is not compiled with CUDA.")
    return "enable_gpu_cpu_build"


def f_device_count_zero(c: Ctx) -> str:
    r = c.rng
    if c.gen == "1x":
        c.em.err("terminate called after throwing an instance of 'paddle::platform::EnforceNotMet'", "  what():  ")
        cpp_tb_1x(c, ["paddle::platform::SetDeviceId(int)", "paddle::AnalysisConfig::fraction_of_gpu_memory_for_pool() const"],
                  ["Error: id must less than GPU count",
                   "  [Hint: Expected id < GetCUDADeviceCount(), but received id:0 >= GetCUDADeviceCount():0.] at "
                   "(/paddle/paddle/fluid/platform/gpu_info.cc:240)"])
        return "device_count_zero_1x"
    if r.random() < 0.3:   # a rank's place beyond the GPUs its container sees (one GPU per task, a wrong index)
        k = pick(r, (1, 1, 2, 4))
        for dev in sorted({k + r.randrange(0, 4) for _ in range(r.randrange(1, 4))}):
            c.em.glog("E", f"pybind.cc:{pick(r, (2009, 2131))}", f"Invalid CUDAPlace({dev}), must inside [0, {k}), "
                      f"because GPU number on your machine is {k}")
        return "cuda_place_beyond_count"
    c.em.glog("W", f"init.cc:{pick(r, (201, 227))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    paddle_error(c, "InvalidArgument", ["Device id must be less than GPU count, but received id is: 0. GPU count is: 0."],
                 "Expected id < GetGPUDeviceCount(), but received id:0 >= GetGPUDeviceCount():0.",
                 f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (242, 251))}", "device",
                 loc_old="paddle/fluid/platform/gpu_info.cc:211")
    return "device_count_zero"


def f_error35_without_driver(c: Ctx) -> str:
    """Started without --gpus: no libcuda in the container, and the CUDA runtime says the *driver* is insufficient."""
    r, em = c.rng, c.em
    if c.gen == "1x" and r.random() < 0.5:
        _v1_commandline(c)
        _glog_f(c, f"hl_cuda_device.cc:{pick(r, (453, 565))}", "Check failed: cudaSuccess == cudaStat (0 vs. 35) Cuda Error: "
                "CUDA driver version is insufficient for CUDA runtime version", ("hl_stream_synchronize()",
                                                                                "paddle::GradientMachine::forward()"))
        return "error35_v1"
    em.glog("W", f"init.cc:{pick(r, (136, 157, 201))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    em.err(f"{c.site}/paddle/fluid/framework.py:{pick(r, (294, 298))}: UserWarning: You are using GPU version Paddle, but "
           "your CUDA device is not set properly. CPU device will be used by default.", "  warnings.warn(")
    paddle_error(c, "External", ["CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. "],
                 CUDA_HINT35, "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    return "error35_without_driver"


# ---- cuda_driver_too_old


def f_device_not_set_properly(c: Ctx) -> str:
    """run_check / install_check hides error 35 inside a 'CUDA Device is not set properly' warning (2.0 era)."""
    em = c.em
    em.out("Running Verify Fluid Program ..." if c.gen == "1x" else "Running verify PaddlePaddle program ... ")
    em.err("WARNING:root:You are using GPU version Paddle Fluid, But Your CUDA Device is not set properly", " Original Error is ")
    em.block(["--------------------------------------------", "C++ Call Stacks (More useful to developers):",
              "--------------------------------------------",
              "0   std::string paddle::platform::GetTraceBackString<char const*>(char const*&&, char const*, int)",
              "1   paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
              "2   paddle::platform::GetCUDADeviceCount()", "", "----------------------", "Error Message Summary:",
              "----------------------", "ExternalError:  Cuda error(35), CUDA driver version is insufficient for CUDA runtime "
              "version.", "  [Advise: This indicates that the installed NVIDIA CUDA driver is older than the CUDA runtime "
              "library. This is not a supported configuration.Users should install an updated NVIDIA display driver to "
              "allow the application to run.] at (/paddle/paddle/fluid/platform/gpu_info.cc:65)"])
    py_tb(c, frames_user(c, deep=False))
    em.err("AssertionError: CUDA is not available, check the output of paddle.utils.run_check()")
    return "device_not_set_properly"


def f_ptx_toolchain(c: Ctx) -> str:
    r = c.rng
    paddle_error(c, "External", ["CUDA error(222), the provided PTX was compiled with an unsupported toolchain. "],
                 "'cudaErrorUnsupportedPtxVersion'. This indicates that the provided PTX was compiled with an unsupported "
                 "toolchain. The most common reason for this, is the PTX was generated by a compiler newer than what is "
                 "supported by the CUDA driver and PTX JIT compiler.", f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}",
                 "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    return "ptx222"


def f_summary_env_no_gpu(c: Ctx) -> str:
    """Hard: only 'no GPU found' and the environment summary (driver older than the wheel's CUDA), no error 35."""
    r, em = c.rng, c.em
    em.glog("W", f"init.cc:{pick(r, (136, 157))}", "Compiled with WITH_GPU, but no GPU found in runtime.")
    em.err(f"{c.site}/paddle/fluid/framework.py:298: UserWarning: You are using GPU version Paddle, but your CUDA device is "
           "not set properly. CPU device will be used by default.", "  warnings.warn(")
    em.out("****************************************", f"Paddle version: {c.paddle}", "Paddle With CUDA: True",
           "OS: Ubuntu 20.04", f"Python version: {c.python}.{r.randrange(3, 18)}", f"CUDA version: {c.cuda}.{r.randrange(60, 200)}",
           f"cuDNN version: {c.cudnn}.{r.randrange(0, 9)}", f"Nvidia driver version: {c.driver_version}",
           "****************************************")
    py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", pick(r, (268, 301)), "set_device",
                                             "place = _convert_to_place(device)")])
    em.err("ValueError: The device id 0 exceeds gpu card number 0")
    return "summary_env_no_gpu"


# ---- cuda_lib_missing


def f_win_dll126(c: Ctx) -> str:
    """Windows wheels: the loader only says 'error code is 126' for a missing cuDNN/cuBLAS DLL (for cuDNN, after its
    advice to copy cudnn into the CUDA directory)."""
    dll = pick(c.rng, ("cudnn64_8.dll", "cudnn64_7.dll", "cublas64_118.dll;cublas64_11.dll", "cusolver64_11.dll"))
    site = f"C:\\Users\\{pick(c.rng, ('admin', 'dev', 'ai'))}\\anaconda3\\envs\\paddle\\lib\\site-packages"
    c.em.err("Running verify PaddlePaddle program ... ")
    if "cudnn" in dll and c.rng.random() < 0.5:     # the loader's advice as it gives up on cudnn64_*.dll
        cuda = pick(c.rng, ("10.0", "10.2", "11.2"))
        c.em.glog("W", f"dynamic_loader.cc:{pick(c.rng, (278, 287))}", "Note: [Recommend] copy cudnn into CUDA installation directory. ")
        c.em.block([f" For instance, download cudnn-{cuda}-windows10-x64-v7.6.5.32.zip from NVIDIA's official website, ",
                    f"then, unzip it and copy it into C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}",
                    "You should do this according to your CUDA installation directory and CUDNN version."])
    c.em.block(["Traceback (most recent call last):",
                '  File "<stdin>", line 1, in <module>',
                f'  File "{site}\\paddle\\utils\\install_check.py", line 196, in run_check',
                f'  File "{site}\\paddle\\utils\\install_check.py", line 124, in _run_static_single',
                f"RuntimeError: (PreconditionNotMet) The third-party dynamic library ({dll}) that Paddle depends on is not "
                "configured correctly. (error code is 126)"] + DYNLOAD_SUGGEST +
               ["  [operator < matmul_v2 > error]" if "cublas" in dll else "  [operator < conv2d > error]"])
    return "win_dll126"


def f_cudnn_dso_handle(c: Ctx) -> str:
    paddle_error(c, "PreconditionNotMet", ["Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion."],
                 "cudnn_dso_handle should not be null.", "paddle/phi/backends/dynload/cudnn.cc:64", "conv",
                 py_frames=frames_user(c) + frames_paddle_forward(c), op="fill_constant" if c.gen in ("1x", "20") else None)
    return "cudnn_dso_handle"


def f_core_import_cudart(c: Ctx) -> str:
    lib = f"libcudart.so.{c.cuda.split('.')[0]}.0"
    c.em.err(f"Error: Can not import paddle core while this file exists: {c.pkg}/{c.fw}/libpaddle.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], 1, "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", 25, "<module>", "from .framework import monkey_patch_variable"),
              (f"{c.pkg}/{c.fw}/core.py", pick(c.rng, (269, 325)), "<module>", "from . import libpaddle")])
    c.em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
    return "core_import_cudart"


def f_legacy_dynamic_loader(c: Ctx) -> str:
    _v1_commandline(c)
    _glog_f(c, "DynamicLoader.cpp:104", "Check failed: nullptr != *dso_handle Failed to find dynamic library: libcudnn.so "
            "(libcudnn.so: cannot open shared object file: No such file or directory)",
            ("paddle::GetCudnnDsoHandle()", "hl_cudnn_init()"))
    return "legacy_dynamic_loader"


def f_nccl_lib(c: Ctx) -> str:
    """NCCL absent, or built for another CUDA: init_parallel_env fails, sometimes only as 'unhandled cuda error'."""
    r, em = c.rng, c.em
    if r.random() < 0.5:
        em.glog("W", "dynamic_loader.cc:238", "You may need to install 'nccl2' from NVIDIA official website: "
                "https://developer.nvidia.com/nccl/nccl-download before install PaddlePaddle.")
        paddle_error(c, "PreconditionNotMet", ["The third-party dynamic library (libnccl.so) that Paddle depends on is not "
                                               "configured correctly. (error code is libnccl.so: cannot open shared object "
                                               "file: No such file or directory)"] + DYNLOAD_SUGGEST, None,
                     "paddle/phi/backends/dynload/dynamic_loader.cc:265", "nccl",
                     py_frames=frames_user(c, deep=False) + [(f"{c.pkg}/distributed/parallel.py", pick(r, (196, 1084)),
                                                               "init_parallel_env", "paddle.distributed.barrier()")])
        return "nccl_dynload"
    p = nccl_prefix(c)
    em.out(f"{p} NCCL INFO NCCL version 2.{pick(r, (8, 12, 16))}.{r.randrange(3, 9)}+cuda{pick(r, ('10.2', '11.0', '12.2'))}")
    em.out(f"{p} NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'",
           f"{p} NCCL INFO init.cc:{pick(r, (1112, 1235))} -> 1")
    paddle_error(c, "External", ["NCCL error(1), unhandled cuda error. "], "'ncclUnhandledCudaError'. Call to CUDA function failed. ",
                 "paddle/phi/core/distributed/nccl_comm_context.cc:81", "nccl")
    return "nccl_version_unhandled_cuda"


# ---- gpu_oom


def f_allocating_available(c: Ctx) -> str:
    """Fluid's GpuMaxChunkSize check: the first chunk does not fit; no 'out of memory' wording."""
    r = c.rng
    want = int(c.gpu_mem_gb * r.uniform(0.5, 0.95) * 2**30)
    have = int(want * r.uniform(0.2, 0.9))
    py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/fluid/executor.py", pick(r, (349, 470)), "run",
                                             "self.executor.run(program.desc, scope, 0, True, True)")])
    c.em.block([f"paddle.fluid.core.EnforceNotMet: Enforce failed. Expected allocating <= available, but received "
                f"allocating:{want} > available:{have}.", "Insufficient GPU memory to allocation. at "
                f"[/paddle/paddle/fluid/platform/gpu_info.cc:{pick(r, (89, 118, 262))}]", "PaddlePaddle Call Stacks:"] +
               [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(60, 700)}" for i, f in enumerate((
                   "paddle::platform::GpuMaxChunkSize()", "paddle::memory::GetGPUBuddyAllocator(int)",
                   "void* paddle::memory::Alloc<paddle::platform::CUDAPlace>(paddle::platform::CUDAPlace, unsigned long)"))])
    return "allocating_le_available"


def f_badalloc_operator(c: Ctx) -> str:
    """Fluid/2.0 operators report BadAlloc in a GLOG warning, with the fraction_of_gpu_memory suggestions."""
    r, em = c.rng, c.em
    want, avail = r.uniform(10, 2000), r.uniform(5, 200)
    for op in (pick(r, ("conv2d_grad", "roi_align", "lstm", "matmul_v2")), pick(r, ("relu_grad", "batch_norm_grad"))):
        em.glog("W", f"operator.cc:{pick(r, (242, 248))}", f"{op} raises an exception paddle::memory::allocation::BadAlloc, "
                "ResourceExhaustedError: ", stream="stderr")
        em.block(["", f"Out of memory error on GPU 0. Cannot allocate {want:.6f}MB memory on GPU 0, available memory is only "
                  f"{avail:.6f}MB.", "", "Please check whether there is any other process using GPU 0.",
                  "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
                  "2. If no, please try one of the following suggestions:", "   1) Decrease the batch size of your model.",
                  "   2) FLAGS_fraction_of_gpu_memory_to_use is 0.50 now, please set it to a higher value but less than 1.0.",
                  "      The command is `export FLAGS_fraction_of_gpu_memory_to_use=xxx`.", "",
                  f" (at /paddle/paddle/fluid/memory/detail/system_allocator.cc:{pick(r, (151, 160))})"])
    py_tb(c, frames_user(c))
    em.err("MemoryError: ")
    return "badalloc_operator"


def f_alloc_traceback_only(c: Ctx) -> str:
    """Hard: the paste keeps the C++ allocator frames but loses the 'Out of memory' sentence."""
    c.em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                "--------------------------------------"] +
               [f"{i}   {f}" for i, f in enumerate((
                   "concat_ad_func(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, paddle::experimental::ScalarBase<paddle::Tensor>)",
                   "phi::DenseTensor::mutable_data(phi::Place const&, phi::DataType, unsigned long)",
                   "paddle::memory::AllocShared(phi::Place const&, unsigned long)",
                   "paddle::memory::allocation::AllocatorFacade::Alloc(phi::Place const&, unsigned long)",
                   "paddle::memory::allocation::StatAllocator::AllocateImpl(unsigned long)",
                   "paddle::memory::allocation::Allocator::Allocate(unsigned long)"))])
    if c.chinese:
        c.em.err("模型保存失败：显存不足")
    return "alloc_traceback_only"


# ---- host_oom


def f_win_paging_file(c: Ctx) -> str:
    """Windows: DataLoader workers are spawned, and each maps Paddle's DLLs again until the commit limit (RAM + page
    file) is reached; the import error reads like a missing DLL."""
    r = c.rng
    lib = f"C:\\Users\\{pick(r, ('admin', 'dev', 'ai'))}\\anaconda3\\envs\\paddle\\lib"
    site = f"{lib}\\site-packages"
    text = pick(r, ("The paging file is too small for this operation to complete.", "页面文件太小，无法完成操作。"))
    c.em.block(["Traceback (most recent call last):",
                '  File "<string>", line 1, in <module>',
                f'  File "{lib}\\multiprocessing\\spawn.py", line 116, in spawn_main',
                "    exitcode = _main(fd, parent_sentinel)",
                f'  File "{site}\\paddle\\base\\core.py", line {pick(r, (260, 274))}, in <module>',
                "    from . import libpaddle",
                # Python's own wording for an extension whose DLLs did not load, with Windows' message for the error
                f"ImportError: DLL load failed while importing libpaddle: {text}"])
    return "win_paging_file"


def f_host_alloc_python(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1, "numpy_unable"), (1, "bare_memoryerror"), (1, "posix_memalign"), (1, "dataloader_killed"),
                  (1, "errno12"), (0.6 if c.job in ("infer", "serving") else 0, "lite_malloc"), (0.5, "logged_unable"),
                  (0.5 if c.major >= 2 else 0, "jit_save")])
    if v == "logged_unable":  # an application logger reports numpy's message; the class name never shows
        em.err(f"{em.ts_comma().replace(',', '.')} | ERROR    | {pick(r, ('app.pipeline', 'tools.cli', 'service.worker'))}:"
               f"{pick(r, ('parse_doc', 'run', 'predict'))}:{r.randrange(30, 200)} - Unable to allocate "
               f"{r.uniform(9, 900):.1f} MiB for an array with shape ({r.randrange(2, 8)}, {r.randrange(200, 900)}, "
               f"{r.randrange(200, 2000)}) and data type float32")
        py_tb(c, frames_user(c, deep=False))
    elif v == "jit_save":      # exporting a model (dygraph-to-static) needs the whole program in host memory
        py_tb(c, frames_user(c, deep=False))
        em.block(["MemoryError: In user code:", "", f'    File "tools/export_model.py", line {r.randrange(60, 120)}, in <module>',
                  f'    File "{c.pkg}/{"fluid/dygraph/jit.py" if c.paddle < "2.5" else "jit/api.py"}", line '
                  f'{pick(r, (680, 744, 941))}, in save', ""])
    elif v == "lite_malloc":    # Paddle-Lite's host allocator on a small box: a fatal check, then abort
        em.err(f"[F {em.ts_short()}.{em.millis():03d} ...ite/lite/core/target_wrapper.cc:29 Malloc] Check failed: p: Error "
               f"occurred in TargetWrapper::Malloc period: no enough for mallocing {r.randrange(8, 900) * 2**20} bytes.")
        em.err(c.shell("Aborted (core dumped)"))
    elif v == "numpy_unable":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/framework/io.py", pick(r, (57, 771)), "_build_saved_state_dict",
                                                 "save_dict[key] = value.numpy()")])
        em.err(f"numpy.core._exceptions._ArrayMemoryError: Unable to allocate {r.uniform(9, 900):.2f} MiB for an array with "
               f"shape ({r.randrange(1000, 90000)}, 768) and data type float32")
    elif v == "bare_memoryerror":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddlenlp/transformers/ernie/tokenizer.py" if c.job == "nlp" else
                                                 f"{c.pkg}/framework/io.py", pick(r, (386, 732)), "__init__" if c.job == "nlp"
                                                 else "save", "self.vocab = pickle.load(f)" if c.job == "nlp" else
                                                 "pickle.dump(saved_obj, f, protocol=protocol)")])
        em.err("MemoryError")
    elif v == "posix_memalign":
        n = r.randrange(2, 64) * 2**28
        paddle_error(c, "ResourceExhausted", [f"Alloc {n} error!"],
                     "Expected posix_memalign(&p, alignment, size) == 0, but received posix_memalign(&p, alignment, size):12 != 0:0.",
                     "paddle/phi/core/memory/allocation/system_allocator.cc:60" if c.major >= 3 else
                     "paddle/fluid/memory/detail/system_allocator.cc:60", "alloc")
    elif v == "dataloader_killed":
        py_tb(c, frames_user(c) + [(f"{dataloader_dir(c)}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.err(f"SystemError: (Fatal) DataLoader process (pid {em.pid + 30 + r.randrange(8)}) exited is killed by signal: "
               "Killed. (at /paddle/paddle/fluid/imperative/data_loader.cc:181)")
    else:
        py_tb(c, frames_user(c) + [(f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/popen_fork.py", 66,
                                    "_launch", "self.pid = os.fork()")])
        em.err(c.strerror("OSError: [Errno 12] Cannot allocate memory"))
    if c.chinese and r.random() < 0.4:
        em.out("训练异常退出：内存不足")
    return f"host_alloc_{v}"


def f_build_killed(c: Ctx) -> str:
    """Custom ops compiled when the container starts: the OOM killer takes a compiler, and make says why it stopped."""
    r, em = c.rng, c.em
    pct = r.randrange(3, 60)
    for k in range(r.randrange(3, 12)):
        em.out(pick(r, (f"[{pct:3d}%] Building CXX object custom_ops/CMakeFiles/{pick(r, ('rotated_iou', 'nms', 'roi_pool'))}"
                        f".dir/{pick(r, ('op.cc', 'kernel.cu', 'util.cc'))}.o", f"[{pct:3d}%] Linking CXX shared library "
                        f"lib{pick(r, ('custom_ops', 'fused_ops'))}.so", f"Scanning dependencies of target op_{k}")))
    cc = pick(r, ("c++", "g++", "x86_64-linux-gnu-g++"))
    em.err(f"{cc}: fatal error: Killed signal terminated program cc1plus", "compilation terminated.")
    if r.random() < 0.5:
        em.err(f"make[2]: *** [custom_ops/CMakeFiles/ops.dir/build.make:{r.randrange(60, 300)}: custom_ops/op.cc.o] Error 1",
               f"make[1]: *** [CMakeFiles/Makefile2:{r.randrange(90, 2000)}: custom_ops/all] Error 2",
               "make[1]: *** Waiting for unfinished jobs....")
    else:
        em.err("ninja: build stopped: subcommand failed.")
        py_tb(c, [(f"{c.workdir}/setup_ops.py", r.randrange(10, 40), "<module>", "setup(")])
        em.err("RuntimeError: Error compiling objects for extension")
    return "build_killed"


# ---- distributed_comm_failure


def f_wait_forever(c: Ctx) -> str:
    """A rendezvous that never completes: retries without an error word until the scheduler stops the job."""
    r, em = c.rng, c.em
    peers = [f"{ip}:{6170 + k}" for ip in (c.rank_ips or ["10.10.0.3"]) for k in range(2)]
    if r.random() < 0.5:
        for _ in range(r.randrange(8, 40)):
            em.out("server not ready, wait 3 sec to retry...", f"not ready endpoints:{peers[-r.randrange(1, len(peers) + 1):]}")
            em.adv(3)
    else:
        for _ in range(r.randrange(8, 40)):
            em.out(f"LAUNCH INFO {em.ts_comma()} Waiting peer start...")
            em.adv(r.uniform(20, 60))
    if r.random() < 0.5:
        em.err("Terminated")
    return "wait_forever"


def f_rpc_pserver(c: Ctx) -> str:
    """Parameter-server jobs: gRPC/bRPC clients that cannot reach a pserver."""
    r, em = c.rng, c.em
    ep = f"{(c.rank_ips or ['10.10.0.3'])[-1]}:{6170 + r.randrange(4)}"
    v = wpick(r, [(1, "grpc_connect_failed"), (1, "grpc_fatal"), (1, "brpc_reset"), (0.7 if c.gen == "1x" else 0, "v1_socket")])
    if v == "v1_socket":      # the v1 trainer's parameter client: the pserver pod runs but does not listen yet
        _v1_commandline(c)
        em.glog("I", "ParameterClient2.cpp:114", f"pserver 0 {ep}")
        _glog_f(c, f"LightNetwork.cpp:{pick(r, (397, 399))}", f"Check failed: error >= 0 ERROR connecting to {ep.split(':')[0]}: "
                "Connection refused [111]", ("paddle::SocketClient::TcpClient()", "paddle::SocketClient::SocketClient()",
                                             "paddle::ParameterClient2::init()", "paddle::RemoteParameterUpdater::init()"))
    elif v == "grpc_connect_failed":
        for _ in range(r.randrange(6, 30)):
            em.glog("E", "grpc_client.cc:242", f"proc param error:name:[fc_{r.randrange(9)}.w_0@GRAD] ep:[{ep}] grpc error:Connect Failed",
                    tid=r.randrange(100, 300))
    elif v == "grpc_fatal":
        _glog_f(c, f"grpc_client.cc:{pick(r, (288, 418, 424))}", f"SendRPC name:[embedding_0.w_0@GRAD], ep:[{ep}], status:[-1] "
                "meets grpc error, error_code:14 error_message:OS Error error_details:",
                ("paddle::operators::distributed::GRPCClient::Proceed()", "execute_native_thread_routine", "start_thread", "__clone"))
    else:
        em.glog("W", "input_messenger.cpp:222", f"Fail to read from fd=21 SocketId=8589934592@{ep}@39004: Connection reset by peer [104]")
        em.glog("E", "brpc_ps_client.cc:250", f"resquest cmd_id:2 failed, err:[E104]Fail to read from fd=21 SocketId=8589934592@{ep}@"
                f"39004: Connection reset by peer [R1][E111]Fail to connect SocketId=8589934593@{ep}: Connection refused "
                f"[R2][E112]Not connected to {ep} yet [R3][E112]Not connected to {ep} yet")
        em.glog("E", "fleet.cc:321", "fleet pull sparse failed, status[-1]")
    return f"rpc_{v}"


def _mpi_lines(c: Ctx, rank: int, stream: str, texts) -> None:
    """OpenMPI's --timestamp-output --tag-output framing: every line of rank R says when and which rank printed it."""
    em = c.em
    for t in texts:
        when = time.strftime("%a %b %e %H:%M:%S %Y", time.gmtime(em.unix()))
        em.line(f"{when}[1,{rank}]<{stream}>:{t}", stream)


def _glog_text(c: Ctx, loc: str, msg: str, frames: tuple) -> list:
    """glog_fatal's lines as text, for a framing that wraps them (a thread id of its own per rank)."""
    stack = check_failure_stack(c, (*GLOG_FAIL_FRAMES, *frames))
    return [f"F{c.em.ts_glog()} {c.rng.randrange(100, 40000):5d} {loc}] {msg}"] + stack


def f_mpi_cluster(c: Ctx) -> str:
    """Parameter-server jobs started by mpirun (v1 and Fluid clusters): the socket layer fails on some ranks,
    and every line carries MPI's timestamp and [1,rank] tag, so nothing reads like a Paddle error summary."""
    r = c.rng
    ranks = r.sample(range(1, 120), 8)
    peer = (c.rank_ips or ["10.10.0.3"])[-1]
    v = wpick(r, [(1, "bind_in_use"), (1 if c.gen == "1x" else 0.3, "v1_refused"), (1, "channel_reset"), (1, "grpc_abort")])
    if v == "bind_in_use":   # the rendezvous http_server of the job cannot take its port: another job holds it
        py2 = c.gen == "1x" and r.random() < 0.7
        lib = "/usr/lib/python2.7" if py2 else f"/usr/lib/python{c.python}"
        frames = [("./http_server.py", pick(r, (41, 58)), "<module>", "server = ThreadingSimpleServer(('', port), SimpleHTTPRequestHandler)")]
        frames += ([(f"{lib}/SocketServer.py", 420, "__init__", "self.server_bind()"),
                    (f"{lib}/BaseHTTPServer.py", 108, "server_bind", "SocketServer.TCPServer.server_bind(self)"),
                    (f"{lib}/SocketServer.py", 434, "server_bind", "self.socket.bind(self.server_address)"),
                    (f"{lib}/socket.py", 228, "meth", "return getattr(self._sock,name)(*args)")] if py2 else
                   [(f"{lib}/socketserver.py", 452, "__init__", "self.server_bind()"),
                    (f"{lib}/http/server.py", 136, "server_bind", "socketserver.TCPServer.server_bind(self)"),
                    (f"{lib}/socketserver.py", 466, "server_bind", "self.socket.bind(self.server_address)")])
        _mpi_lines(c, ranks[0], "stderr", py_tb_lines(frames) +
                   [f"{'socket.error' if py2 else 'OSError'}: [Errno 98] " + c.strerror("Address already in use")])
    elif v == "v1_refused":
        _mpi_lines(c, ranks[1], "stderr", [f"+ python conf/trainer_config.conf --port={r.randrange(7000, 9000)}"])
        _mpi_lines(c, ranks[0], "stderr", _glog_text(c, f"LightNetwork.cpp:{pick(r, (397, 399))}", pick(r, (
            "connection refused by pserver, maybe pserver failed!", f"Check failed: error >= 0 ERROR connecting to {peer}: "
            "Connection refused [111]")), ("paddle::SocketClient::TcpClient()", "paddle::SocketClient::SocketClient()",
                                           "paddle::ParameterClient2::init()", "paddle::RemoteParameterUpdater::init()",
                                           "ParameterUpdater::init()", "_wrap_ParameterUpdater_init")))
    elif v == "channel_reset":
        _mpi_lines(c, ranks[0], "stderr", [f"+ ./paddle_pserver2 --num_gradient_servers={r.randrange(8, 128)} --nics=xgbe0 "
                                           f"--port={r.randrange(7000, 9000)} --ports_num=1 --rdma_tcp=tcp"])
        for k in ranks[1:r.randrange(3, 8)]:
            _mpi_lines(c, k, "stderr", [f"F{c.em.ts_glog()} {r.randrange(100, 40000):5d} SocketChannel.cpp:54] Check failed: "
                                        f"len >= 0  peer={peer}: Connection reset by peer [104]"])
    else:
        ep = f"{peer}:{6170 + r.randrange(4)}"
        _mpi_lines(c, ranks[0], "stdout", _glog_text(c, f"grpc_client.cc:{pick(r, (288, 418))}", f"SendRPC name:[fc_"
                                                     f"{r.randrange(9)}.w_0@GRAD], ep:[{ep}], status:[-1] meets grpc error, "
                                                     "error_code:14 error_message:OS Error error_details:",
                                                     ("paddle::operators::distributed::GRPCClient::Proceed()",
                                                      "execute_native_thread_routine", "start_thread", "__clone")))
        _mpi_lines(c, ranks[0], "stderr", ["+ trainer_ret=134", "+ popd"])
        _mpi_lines(c, ranks[0], "stdout", [f"./job/start_trainer.sh: line {r.randrange(60, 140)}: {r.randrange(900, 60000)} "
                                           "Aborted                 (core dumped) python train.py"])
    return f"mpi_{v}"


def f_etcd_store(c: Ctx) -> str:
    """Elastic and fault-tolerant jobs keep their rendezvous in etcd; a wrong or empty endpoint only retries."""
    r, em = c.rng, c.em
    host = pick(r, ("", "etcd-0.etcd", (c.rank_ips or ["10.10.0.3"])[0]))
    for _ in range(r.randrange(4, 20)):
        em.err(f'time="{em.ts_iso().replace(" ", "T")}Z" level=error msg="connect to etcd error: dial tcp {host}:2379: '
               f'getsockopt: connection refused"')
        em.adv(10)
    return "etcd_store"


def f_bkcl(c: Ctx) -> str:
    """Kunlun XPU collectives (BKCL) fail the same way NCCL does: init or enqueue."""
    r, em = c.rng, c.em
    host = c.extra.get("hostname", "trainer-0")
    em.err(f"[{em.ts_iso()}][{host}][{em.pid}][ERR][BKCL][init.cpp:{r.randrange(100, 900)}] BKCL dont support send to one "
           "peer multi times in one group",
           f"[{em.ts_iso()}][{host}][{em.pid}][WARN][BKCL][bkcl.cpp:534] group_enqueue call failed, expected 0, error code=2")
    paddle_error(c, "PreconditionNotMet", ["bkcl_init_rank failed, got wrong value [3]."],
                 "Expected ret == BKCL_SUCCESS, but received ret:3 != BKCL_SUCCESS:0.",
                 "paddle/phi/core/distributed/bkcl_comm_context.cc:58", "nccl", loc_old="paddle/fluid/platform/collective_helper.cc:305")
    em.out(f"ERROR {em.ts_comma()} launch_utils.py:604] ABORT!!! Out of all {c.n_gpus * c.nnodes} trainers, the trainer "
           "process with rank=[0, 1] was aborted. Please check its log.")
    return "bkcl"


# ---- native_crash


def f_signal_no_stack(c: Ctx) -> str:
    fatal_signal(c, "SIGSEGV", "Segmentation fault", None)
    c.em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                "--------------------------------------", "No stack trace in paddle, may be caused by external reasons."])
    return "no_stack_trace+segv"


def f_fluid_init_signal(c: Ctx) -> str:
    """Fluid's init.cc handler logs the signal line by line (SIGFPE / SIGABRT after a glibc abort)."""
    r, em = c.rng, c.em
    sig = pick(r, ("SIGFPE", "SIGABRT"))
    if sig == "SIGABRT":
        em.err(pick(r, ("double free or corruption (fasttop)", "free(): invalid next size (fast)")))
    t = em.unix()
    for msg in ("Warning: PaddlePaddle catches a failure signal, it may not work properly",
                "The detail failure signal is:", f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                "PC: @                0x0 (unknown)",
                f"*** {sig} (@0x{r.randrange(16**8):x}) received by PID {em.pid} (TID {c.hexaddr()}) from PID {em.pid}; stack trace: ***"):
        em.glog("W", f"init.cc:{pick(r, (205, 226, 234))}", msg)
    for f in ("(unknown)", "paddle::framework::Scope::FindVarLocally()", "paddle::operators::RecurrentGradOp::RunImpl()"):
        em.glog("W", "init.cc:205", f"    @     {c.hexaddr()} {f}")
    return f"fluid_init_{sig.lower()}"


def f_glibc_backtrace(c: Ctx) -> str:
    r = c.rng
    lines = [f"*** Error in `/usr/bin/python3': {pick(r, ('free(): invalid pointer', 'munmap_chunk(): invalid pointer'))}: "
             f"{c.hexaddr()} ***", "======= Backtrace: ========="]
    for lib in ("/lib/x86_64-linux-gnu/libc.so.6(+0x777e5)", "/lib/x86_64-linux-gnu/libc.so.6(+0x8037a)",
                f"{c.site}/numpy/core/multiarray.so(+0x{r.randrange(16**5):x})", "/usr/lib/libpython3.so(PyDict_SetItem+0x41)"):
        lines.append(f"{lib}[{c.hexaddr()}]")
    lines.append("======= Memory map: ========")
    c.em.block(lines)
    c.em.err(c.shell("Aborted (core dumped)"))
    return "glibc_backtrace"


# ---- model_version_incompatible


def _lite_fatal(c: Ctx, pre: str, android: bool, where: str, text: str) -> None:
    """Paddle-Lite's own fatal line: "[F 12/ 2 21:50:49.280 ...-Lite/lite/<file>:<line> <Func>] <text>"."""
    em = c.em
    em.err(f"{pre}{'E Paddle-Lite: ' if android else ''}[F {em.ts_short()}.{em.millis():03d} "
           f"...{pick(c.rng, ('e-Lite', '-Lite', 'd/Paddle-Lite'))}/lite/{where}] {text}")


def f_paddle_lite(c: Ctx) -> str:
    """Paddle-Lite: the opt converter or the MobileConfig runtime cannot use the model it is given (an
    .nb from another opt version, a kernel this library lacks, an unconverted or PIR model, ops whose
    inputs changed since opt was built); forms as captured with paddlelite 2.10 / 2.12."""
    r, em = c.rng, c.em
    op = pick(r, ("slice", "calib", "nearest_interp_v2", "multiclass_nms3", "fill_any_like", "matmul_v2"))
    android = r.random() < 0.3      # the same runtime on an edge device, pulled with adb logcat
    pre = f"{em.ts_iso()[5:]}.{em.millis():03d}  {em.pid}-{em.pid + 12}  Paddle-Lite  com.baidu.paddle.lite  " if android else ""
    model = pick(r, ("models/model.nb", f"{c.model_dir}/inference.nb", "ch_PP-OCRv4_det_opt.nb", "./lenet.nb"))
    kind = r.random()
    if kind < 0.3 and not android:   # the opt converter itself, on the server before deployment
        src = pick(r, (f"{c.model_dir}/inference", f"{c.model_dir}/model", "inference_model/model"))
        pir = r.random() < 0.35
        em.out(f"Loading topology data from {src}.{'json' if pir else 'pdmodel'}",
               f"Loading params data from {src}.pdiparams")
        if pir:                      # a Paddle 3.x PIR model.json: opt finds no ProgramDesc blocks
            _lite_fatal(c, pre, android, f"core/model/general/program_desc.cc:{pick(r, (51, 56))} GetBlock"
                        "<paddle::lite::general::BlockDesc>",
                        "Check failed: (idx < static_cast<int32_t>(BlocksSize())): 0!<0 idx >= blocks.size()")
            tag = "lite_opt_pir_json"
        elif r.random() < 0.5:       # an opt older than the Paddle that exported the model
            em.out("1. Model is successfully loaded!")
            _lite_fatal(c, pre, android, f"core/model/general/op_desc.cc:{pick(r, (55, 63))} "
                        f"{pick(r, ('Output', 'Input'))}", f"Check failed: it != {pick(r, ('outputs_', 'inputs_'))}.end(): ")
            tag = "lite_opt_older_than_model"
        else:
            em.err(f"Error: This model is not supported, because 1 ops are not supported on "
                   f"'{pick(r, ('x86', 'arm', 'opencl'))}'. These unsupported ops are: '{op}'.")
            tag = "lite_opt_unsupported_op"
        em.err(c.shell("Aborted (core dumped)"))
        return tag
    if kind < 0.5:                   # MobileConfig handed the unconverted .pdmodel instead of the .nb
        em.out(f"loading {pick(r, (f'{c.model_dir}/inference.pdmodel', 'inference/model.pdmodel', 'model/__model__'))}")
        _lite_fatal(c, pre, android, f"model_parser/model_parser.cc:{pick(r, (774, 781))} LoadModelNaiveFromFile",
                    "The model format cannot be recognized. Please make sure you use the correct interface and model file.")
        em.err(c.shell("Aborted (core dumped)"))
        return "lite_unconverted_model"
    em.out(f"loading {model}")
    opt_version = pick(r, ("v2.9.1", "d9e63bb", "v2.10", "v2.12"))
    for ln in ("warning: the version of opt that transformed this model is not consistent with current Paddle-Lite version.",
               f"      version of opt:{opt_version}",
               f"      version of current Paddle-Lite:{pick(r, tuple(v for v in ('v2.13-rc', '68b66fd35', 'v2.12', 'v2.10') if v != opt_version))}"):
        em.err(pre + ("W  " if android else "") + ln)
    v = r.random()
    if v < 0.2:    # a naive-buffer .nb written by another opt: its header's version is checked first
        _lite_fatal(c, pre, android, f"model_parser/model_parser.cc:{pick(r, (436, 929))} LoadModelNaiveFromFile",
                    f"Check failed: (meta_version == 2): Paddle-Lite {pick(r, ('v2.12', 'v2.13-rc', 'v2.11'))} : incorrect "
                    f"model version, only version 2 is supported. model version: {pick(r, (0, 1, 3))}")
        if android:
            em.err(f"{pre}F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid {em.pid}, pid {em.pid}")
            return "paddle_lite_meta_version_logcat"
    elif v < 0.45:  # the runtime's ops differ from the opt's: an op desc lacks an input/output
        _lite_fatal(c, pre, android, f"core/model/general/op_desc.cc:{pick(r, (55, 63))} {pick(r, ('Output', 'Input'))}",
                    f"Check failed: it != {pick(r, ('outputs_', 'inputs_'))}.end(): ")
    elif v < 0.75:
        em.err(f"{pre}{'A/Paddle-Lite: ' if android else ''}[F {em.ts_short()}.{em.millis():03d} ...-Lite/lite/core/program.cc:"
               f"{pick(r, (269, 356, 532))} RuntimeProgram] Check failed: (kernels.size() > 0): 0!>0      Error: This model "
               f"is not supported, because kernel for '{op}' is not supported by Paddle-Lite.")
    else:
        em.err(f"F{em.ts_glog()} {em.tid:5d} program.cc:532] Check failed: kernels.size() > 0 (0 vs. 0) ",
               f"Error: This model is not supported, because 1 ops are not supported on 'arm'. These unsupported ops are: '{op}'.")
    em.err("Aborted")
    return "paddle_lite" + ("_logcat" if android else "")


def f_op_not_registered_old(c: Ctx) -> str:
    r = c.rng
    v = r.randrange(3)
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/utils/predictor.py", pick(r, (31, 42)), "__init__",
                                             "self.predictor = paddle.inference.create_predictor(config)")])
    c.em.err(["RuntimeError: Operator multiclass_nms3 has not been registered",
              "google.protobuf.message.DecodeError: Can't parse message ProgramDesc because it is missing required fields: "
              f"blocks[0].ops[{r.randrange(10, 90)}].attrs[{r.randrange(3, 20)}].type",
              "_pickle.UnpicklingError: invalid load key, 'x'."][v])
    return ("nms3_not_registered", "programdesc_parse", "unpickling")[v]


def f_predictor_version(c: Ctx) -> str:
    """Paddle Inference loads a model exported by another Paddle: it warns op by op, then an op fails (an attribute
    the older export lacks, or an input it cannot type)."""
    r, em = c.rng, c.em
    em.glog("I", "op_compatible_info.cc:201", "The default operator required version is missing. Please update the model version.")
    em.glog("I", "analysis_predictor.cc:841", "MODEL VERSION: 0.0.0")
    em.glog("I", "analysis_predictor.cc:843", "PREDICTOR VERSION: 0.0.0")
    if r.random() < 0.5:
        em.glog("W", "analysis_predictor.cc:1145", "WARNING: Results may be DIFF! Please use the corresponding version of "
                "the model and prediction library, and do not use the develop branch.")
    for op in r.sample(("yolo_box", "matrix_nms", "roi_align", "generate_proposals_v2", "matmul_v2", "fill_constant",
                        "elementwise_add", "lookup_table_v2"), r.randrange(1, 5)):
        em.glog("W", "analysis_predictor.cc:1150", f" - Version incompatible ({pick(r, ('1', '2'))}) {op}")
    if r.random() < 0.4:
        paddle_error(c, "NotFound", [f"Attribute ({pick(r, ('aligned', 'data_format', 'use_quantizer', 'pixel_offset'))}) "
                                     "should be in AttributeMap."], "Expected it != attrs_.end(), but received it == "
                     "attrs_.end().", "paddle/fluid/framework/attribute.h:413", "exec")
        return "predictor_version_attribute"
    paddle_error(c, "InvalidArgument", ["The Input Variable(Input) of conv2d Op used to determine kernel data type is empty or "
                                        "not LoDTensor or SelectedRows or LoDTensorArray."],
                 "Expected data_type != dafault_data_type, but received data_type:-1 == dafault_data_type:-1.",
                 "paddle/fluid/framework/operator.cc:1291", "exec")
    return "predictor_version"


# ---- file_not_found


def f_native_predictor_model(c: Ctx) -> str:
    """C++ NativePaddlePredictor (Fluid 1.x deployments): the model file is read by ReadBinaryFile."""
    r, md = c.rng, c.model_dir
    c.em.err("terminate called after throwing an instance of 'paddle::platform::EnforceNotMet'",
             f"  what():  Cannot open file {md}/model at [/paddle/paddle/fluid/inference/io.cc:50]")
    c.em.block(["PaddlePaddle Call Stacks:"] + [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(100, 700)}" for i, f in enumerate((
        "paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
        "paddle::inference::ReadBinaryFile(std::string const&, std::string*)",
        "paddle::NativePaddlePredictor::Init(std::shared_ptr<paddle::framework::Scope>)"))])
    c.em.err(c.shell("Aborted (core dumped)"))
    return "native_predictor_model"


def f_lite_model_missing(c: Ctx) -> str:
    """A Paddle-Lite runtime whose .nb is not where the config says (the models volume not mounted)."""
    r = c.rng
    model = pick(r, ("models/lenet.nb", f"{c.model_dir}/inference.nb", "./ch_PP-OCRv4_rec_opt.nb"))
    c.em.out(f"loading {model}")
    _lite_fatal(c, "", False, f"core/model/base/io.cc:{pick(r, (46, 52))} BinaryFileReader",
                f"Check failed: file_: Unable to open file: {model}")
    c.em.err(c.shell("Aborted (core dumped)"))
    return "lite_model_missing"


def f_dataset_path_checks(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = pick(r, [1] + [0] * (c.job == "det") + [2] * (c.job == "ocr") + [3] * (c.job in ("infer", "serving")))
    if v == 0:
        ann = "/data/coco/annotations/instances_train2017.json"
        em.out(f"[{em.ts_short()}] ppdet.utils.download WARNING: Config annotation {ann} is not a file, dataset config is not valid",
               f"[{em.ts_short()}] ppdet.utils.download INFO: Dataset /data/coco is not valid for reason above, try searching "
               "/root/.cache/paddle/dataset or downloading dataset...")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/ppdet/utils/download.py", 225, "get_dataset_path",
                                                 "raise ValueError(")])
        em.err("ValueError: Dataset /data/coco is not valid and cannot parse dataset type 'None' for automaticly downloading")
    elif v == 1:
        py_tb(c, frames_user(c) + [(f"{c.workdir}/utils/reader.py", 84, "check_params", "assert os.path.isdir(data_dir), \\")])
        em.err("AssertionError: ./dataset/ILSVRC2012/ doesn't exist, please check datadir path")
    elif v == 2:
        ds = f"{c.workdir}/PaddleOCR/ppocr/data/simple_dataset.py"
        retries = r.randrange(2, 8) if r.random() < 0.5 else 1
        for _ in range(retries):
            img = f"./train_data/rec/train/{r.randrange(9999)}.jpg"
            em.out(f"[{em.ts_slash()}] ppocr ERROR: When parsing line rec/{img.rsplit('/', 1)[1]}\t闽龙渔08281",
                   ", error happened with msg: Traceback (most recent call last):",
                   f'  File "{ds}", line 132, in __getitem__',
                   '    raise Exception("{} does not exist!".format(img_path))', f"Exception: {img} does not exist!")
        if retries > 1:     # SimpleDataSet retries another sample, until the stack runs out
            py_tb(c, frames_user(c, deep=False) + [(ds, pick(r, (162, 171)), "__getitem__", "return self.__getitem__(rnd_idx)")] * 3)
            em.err("RecursionError: maximum recursion depth exceeded while calling a Python object")
            return "ppocr_does_not_exist_recursion"
    elif r.random() < 0.6:
        em.out(f"not find model file path {c.model_dir}/inference.pdmodel")
    else:   # PaddleOCR's predictor factory (a model volume left empty, a download that never came)
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddleocr/tools/infer/utility.py", pick(r, (263, 301)),
                                                 "create_predictor", "raise ValueError(")])
        em.err(f"ValueError: not find model.pdmodel or inference.pdmodel in {c.model_dir}")
    return ("ppdet_not_a_file", "datadir_assert", "ppocr_does_not_exist", "not_find_model_file")[v]


def f_trt_version_mismatch(c: Ctx) -> str:
    """Paddle Inference built against one TensorRT, the image carries another: a warning, then the engine build crashes."""
    r, em = c.rng, c.em
    built, run = pick(r, (("8.5", "8.4"), ("8.6", "8.5"), ("8.4", "7.2"), ("8.6", "8.2")))
    em.glog("W", f"tensorrt_subgraph_pass.cc:{pick(r, (560, 580, 612))}",
            f"The Paddle Inference library is compiled with {built} version TensorRT, but the runtime TensorRT you are using "
            f"is {run} version. This might cause serious compatibility issues. We strongly recommend using the same TRT "
            "version at runtime.")
    em.glog("I", f"tensorrt_subgraph_pass.cc:{pick(r, (302, 434))}", "Prepare TRT engine (Optimize model structure, Select "
            "OP kernel etc). This process may cost a lot of time.")
    if r.random() < 0.5:
        fatal_signal(c, "SIGSEGV", "Segmentation fault", ["paddle::AnalysisPredictor::OptimizeInferenceProgram()",
                                                          "paddle::inference::tensorrt::TensorRTEngine::FreezeNetwork()"])
    else:
        em.err(c.shell("Segmentation fault (core dumped)"))
    return "trt_version_mismatch+segv"


# ---- system_lib_missing


def f_libstdcxx_glibcxx(c: Ctx) -> str:
    r = c.rng
    sym = pick(r, ("GLIBCXX_3.4.30", "GLIBCXX_3.4.29", "CXXABI_1.3.8", "GLIBCXX_3.4.22"))
    py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (1, 3)), "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", 25, "<module>", "from .base import core"),
              (f"{c.pkg}/{c.fw}/core.py", pick(r, (269, 325)), "<module>", "from . import libpaddle")])
    c.em.err(f"ImportError: /opt/conda/lib/libstdc++.so.6: version `{sym}' not found (required by {c.pkg}/{c.fw}/libpaddle.so)")
    return "libstdcxx_version"


def f_libssl11(c: Ctx) -> str:
    c.em.err(f"Error: Can not import paddle core while this file exists: {c.pkg}/{c.fw}/libpaddle.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], 2, "<module>", "import paddle"),
              (f"{c.pkg}/{c.fw}/core.py", 269, "<module>", "from . import libpaddle")])
    c.em.err(pick(c.rng, ("ImportError: libssl.so.1.1: cannot open shared object file: No such file or directory",
                          f"ImportError: libpython{c.python}.so.1.0: cannot open shared object file: No such file or directory")))
    return "core_import_os_lib"


def f_dll_load_failed(c: Ctx) -> str:
    c.em.err(pick(c.rng, ("ImportError: DLL load failed: 找不到指定的模块。",
                          "ImportError: DLL load failed while importing _remap: The specified module could not be found.")))
    return "win_dll_load_failed"


# ---- python_dependency_conflict


def f_third_party_api(c: Ctx) -> str:
    """A package at the wrong version breaks code that did not change: reads like an API error, but it is a pin."""
    r, em, site = c.rng, c.em, c.site
    # an image whose packages are newer than the code: numpy 2 with PyYAML 6 and librosa 0.10, Pillow 10 with
    # Matplotlib 3.10
    v = pick(r, {"numpy2": ("numpy_alias", "numpy_alias", "yaml_loader", "librosa_kwonly"), "module": ("paddlex_deps",),
                 "opencv": ("cv2_attr", "cv2_attr", "qt_xcb"), "hfhub": ("hf_hub",),
                 "pillow10": ("pillow_textsize", "pillow_textsize", "mpl_tostring")}[c.extra.get("dep_conflict", "numpy2")])
    if v == "numpy_alias":
        alias, repl = pick(r, (("int", "int"), ("complex", "complex"), ("float", "float"), ("object", "object")))
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/{pick(r, ('librosa/core/constantq.py', 'skimage/morphology/_skeletonize.py', 'paddleocr/ppocr/postprocess/db_postprocess.py'))}",
                                                 r.randrange(40, 300), "<module>", f"dtype=np.{alias}")])
        em.block([f"AttributeError: module 'numpy' has no attribute '{alias}'.",
                  f"`np.{alias}` was a deprecated alias for the builtin `{repl}`. To avoid this error in existing code, use "
                  f"`{repl}` by itself. Doing this will not modify any behavior and is safe.",
                  "The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original release note at:",
                  "    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations"])
    elif v == "yaml_loader":
        repo = pick(r, ("PaddleSeg/paddleseg/cvlibs/config.py", "PaddleDetection/ppdet/core/workspace.py",
                        "PaddleClas/ppcls/utils/config.py"))
        py_tb(c, frames_user(c, deep=False) + [(f"/workspace/{repo}", r.randrange(40, 200), "load_config",
                                                 pick(r, ("dic = yaml.load(f)", "cfg = yaml.load(open(path, 'r'))")))])
        em.err("TypeError: load() missing 1 required positional argument: 'Loader'")
    elif v == "librosa_kwonly":   # librosa 0.10 made the filters' arguments keyword-only
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/paddlespeech/t2s/audio/audio.py", r.randrange(30, 120),
                                                 "_create_mel_filter",
                                                 "mel_filter = librosa.filters.mel(sr, n_fft, n_mels=n_mels, fmin=fmin, fmax=fmax)")])
        em.err("TypeError: mel() takes 0 positional arguments but 2 positional arguments (and 3 keyword-only arguments) "
               "were given")
    elif v == "mpl_tostring":
        py_tb(c, frames_user(c) + [(f"{site}/paddlex/utils/visualizer.py", r.randrange(80, 300), "draw_curve",
                                    "buf = fig.canvas.tostring_rgb()")])
        em.err("AttributeError: 'FigureCanvasAgg' object has no attribute 'tostring_rgb'. Did you mean: 'tostring_argb'?")
    elif v == "cv2_attr":
        py_tb(c, frames_user(c, deep=False)[:1] + [(f"{site}/cv2/__init__.py", 181, "<module>", "bootstrap()"),
                                                   (f"{site}/cv2/typing/__init__.py", 168, "<module>",
                                                    "LayerId = cv2.dnn.DictValue")])
        em.err(pick(r, ("AttributeError: module 'cv2.dnn' has no attribute 'DictValue'",
                        "AttributeError: module 'cv2' has no attribute '_registerMatType'")))
    elif v == "hf_hub":
        py_tb(c, frames_user(c, deep=False)[:1] + [(f"{site}/ppdiffusers/utils/dynamic_modules_utils.py", 28, "<module>",
                                                    "from huggingface_hub import HfFolder, cached_download, hf_hub_download, model_info")])
        em.err(f"ImportError: cannot import name 'cached_download' from 'huggingface_hub' ({site}/huggingface_hub/__init__.py)")
    elif v == "pillow_textsize":
        py_tb(c, frames_user(c) + [(f"{site}/paddlex/utils/visualizer.py", 65, "draw_label", "tw, th = draw.textsize(text, font=font)")])
        em.err("AttributeError: 'ImageDraw' object has no attribute 'textsize'")
    elif v == "qt_xcb":     # hard: Paddle's handler reports SIGABRT, but opencv's bundled Qt clashes with PyQt5
        em.err(f"QObject::moveToThread: Current thread ({c.hexaddr()}) is not the object's thread ({c.hexaddr()}).",
               f"Cannot move to target thread ({c.hexaddr()})", "",
               f'qt.qpa.plugin: Could not load the Qt platform plugin "xcb" in "{site}/cv2/qt/plugins" even though it was found.',
               "This application failed to start because no Qt platform plugin could be initialized. Reinstalling the "
               "application may fix this problem.", "",
               "Available platform plugins are: xcb, eglfs, linuxfb, minimal, minimalegl, offscreen, vnc, wayland-egl, wayland.")
        em.block(["--------------------------------------", "C++ Traceback (most recent call last):",
                  "--------------------------------------", "No stack trace in paddle, may be caused by external reasons."])
        fatal_signal(c, "SIGABRT", "Process abort signal", None)
    else:
        py_tb(c, [(f"{site}/paddleocr/_pipelines/base.py", 102, "_create_paddlex_pipeline", "return create_pipeline("),
                  (f"{site}/paddlex/utils/deps.py", 194, "require_extra", "raise DependencyError(")])
        em.err("paddlex.utils.deps.DependencyError: `OCR` requires additional dependencies. To install them, run "
               "`pip install \"paddlex[ocr]==3.0.0\"` if you’re installing `paddlex` from an index.", "",
               "The above exception was the direct cause of the following exception:", "")
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/paddleocr/_pipelines/base.py", 104, "_create_paddlex_pipeline",
                                                 "raise RuntimeError(")])
        em.err("RuntimeError: A dependency error occurred during pipeline creation. Please refer to the installation "
               "documentation to ensure all required dependencies are installed.")
    return f"third_party_{v}"


# ---- shm_exhausted


def f_shm_more(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = r.randrange(3)
    if v == 0:
        py_tb(c, frames_user(c) + [(f"{dataloader_dir(c)}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.err(f"RuntimeError: DataLoader worker (pid {em.pid + 30 + r.randrange(8)}) is killed by signal: Bus error. It is "
               "possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")
    elif v == 1:
        for k in range(r.randrange(1, 4)):
            em.err(f"Process Process-{17 + k}:")
            py_tb(c, [(f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/process.py", 297, "_bootstrap", "self.run()"),
                      (f"{dataloader_dir(c)}/worker.py", pick(r, (345, 355)), "_worker_loop",
                       "tensor_list = [core._array_to_share_memory_tensor(b) for b in flat_batch]")])
            em.block(["RuntimeError: (Unavailable) Memory map failed when create shared memory.",
                      "  [Hint: Expected ptr != ((void *) -1), but received ptr:0xffffffffffffffff == ((void *) -1):0xffffffffffffffff.]"
                      " (at /paddle/paddle/fluid/memory/allocation/mmap_allocator.cc:81)"])
    else:     # hard: the shm error is gone from the paste, only the reader's timeout is left
        em.err("ERROR:root:DataLoader reader thread raised an exception!")
        em.err(f"Exception in thread Thread-{r.randrange(2, 12)}:")
        py_tb(c, [(f"{dataloader_dir(c)}/dataloader_iter.py", pick(r, (482, 505)), "_get_data", "data = self._data_queue.get(timeout=self._timeout)"),
                  (f"/usr/lib/python3.{c.python.split('.')[1]}/multiprocessing/queues.py", 105, "get", "raise Empty")])
        em.err("_queue.Empty")
    return ("worker_bus_error", "mmap_failed", "queue_empty")[v]


def _lib(c: Ctx, part: str) -> bool:
    return part in c.extra.get("missing_cuda_lib", "libcudnn.so")


def _syslib(c: Ctx, prefix: str) -> bool:
    return c.extra.get("missing_sys_lib", "").startswith(prefix)


# category -> ((weight given the run, form), ...); the category's own forms above keep weight _OWN_WEIGHT
_OWN_WEIGHT = 3.0
FAMILIES = {
    "gpu_not_visible": ((lambda c: (1.5 if c.job in ("infer", "serving") else 0.3) if c.extra.get("cpu_wheel") else 0,
                         f_enable_gpu_cpu_build),
                        (lambda c: 1.0, f_device_count_zero),
                        (lambda c: 0 if c.extra.get("cpu_wheel") else 1.2, f_error35_without_driver),
                        (lambda c: 0 if c.extra.get("cpu_wheel") else 0.8, f_gpu_unusable)),
    "cuda_driver_too_old": ((lambda c: 1 if c.gen in ("1x", "20") else 0.3, f_device_not_set_properly),
                            (lambda c: 0.6, f_ptx_toolchain), (lambda c: 0.5, f_summary_env_no_gpu),
                            (lambda c: 0.8, f_driver_requirement)),
    # the missing library decides: NCCL breaks the collective start, cudart the import itself
    "cuda_lib_missing": ((lambda c: 0.3 if _lib(c, "cudnn") else 0, f_win_dll126), (lambda c: 0.8 if _lib(c, "cudnn") else 0, f_cudnn_dso_handle),
                         (lambda c: 1000 if _lib(c, "cudart") else 0, f_core_import_cudart),
                         (lambda c: 0.5 if c.gen == "1x" and _lib(c, "cudnn") else 0, f_legacy_dynamic_loader),
                         (lambda c: 1000 if _lib(c, "nccl") else 0, f_nccl_lib),
                         (lambda c: 0.6 if c.job in ("infer", "serving") and not _lib(c, "cudart") and not _lib(c, "nccl") else 0,
                          f_trt_version_mismatch),
                         (lambda c: 0.6 if _lib(c, "cudnn") else 0, f_cudnn_unusable),
                         (lambda c: 1.0 if _lib(c, "cudnn") else 0, f_cudnn_sublib_abort),
                         (lambda c: 0.3 if not _lib(c, "cudart") and not _lib(c, "nccl") else 0, f_custom_op_no_toolkit)),
    "gpu_oom": ((lambda c: 1.2 if c.gen == "1x" else 0, f_allocating_available),     # Fluid's allocator only
                (lambda c: 1 if c.gen in ("1x", "20") else 0.1, f_badalloc_operator), (lambda c: 0.5, f_alloc_traceback_only),
                (lambda c: 0.4 if c.major >= 2 else 0, f_gpu_taken)),
    "host_oom": ((lambda c: 1.5, f_host_alloc_python), (lambda c: 0.4, f_build_killed), (lambda c: 0.25, f_win_paging_file),
                 (lambda c: 0.3 if c.job in ("infer", "serving") else 0, f_android_lmk), (lambda c: 0.15, f_pod_evicted_memory),
                 (lambda c: 0.2, f_pod_oomkilled)),
    "distributed_comm_failure": ((lambda c: 1.0, f_wait_forever), (lambda c: 1.2 if c.gen == "1x" else 0.3, f_rpc_pserver),
                                 (lambda c: 0.3, f_bkcl), (lambda c: 1.5 if c.gen == "1x" else 0.6, f_mpi_cluster),
                                 (lambda c: 0.3, f_etcd_store), (lambda c: 0.8, f_launch_and_init)),
    "native_crash": ((lambda c: 0.8 if c.major >= 2 else 0, f_signal_no_stack), (lambda c: 1 if c.gen == "1x" else 0.3, f_fluid_init_signal),
                     (lambda c: 0.5, f_glibc_backtrace), (lambda c: 0.3, f_windows_crash), (lambda c: 0.3, f_openmp_twice)),
    "model_version_incompatible": ((lambda c: 0.8, f_paddle_lite), (lambda c: 0.8, f_op_not_registered_old),
                                   (lambda c: 0.6 if c.gen in ("1x", "20") else 0.2, f_predictor_version),
                                   (lambda c: 0.8, f_model_format_mismatch)),
    "file_not_found": ((lambda c: 0.8 if c.job in ("infer", "serving") else 0.2, f_native_predictor_model),
                       (lambda c: 0.4 if c.job in ("infer", "serving") else 0, f_lite_model_missing),
                       (lambda c: 1.0, f_dataset_path_checks)),
    "system_lib_missing": ((lambda c: 1000 if _syslib(c, "libstdc++") else 0, f_libstdcxx_glibcxx),
                           (lambda c: 1000 if _syslib(c, "libssl") else 0, f_libssl11), (lambda c: 0.15, f_dll_load_failed),
                           (lambda c: 0.6, f_os_package_missing)),
    # numpy/module conflicts keep their own forms too; opencv/hub/pillow conflicts only have these
    "python_dependency_conflict": ((lambda c: {"numpy2": 1.5, "module": 0.8, "opencv": 1000, "hfhub": 1000,
                                               "pillow10": 1000}.get(c.extra.get("dep_conflict", ""), 0), f_third_party_api),
                                   (lambda c: 0.6 if c.extra.get("dep_conflict") == "module" else 0, f_toolkit_module_changed),
                                   (lambda c: 0.4 if c.major == 2 else 0, f_paddle_dependency_version)),
    "shm_exhausted": ((lambda c: 1.0, f_shm_more), (lambda c: 0.6, f_shm_semaphores), (lambda c: 0.25, f_pod_evicted_shm)),
    "gpu_arch_unsupported": ((lambda c: 0.8 if c.job == "nlp" else 0.3, f_feature_needs_newer_gpu),),
    "api_incompatible": ((lambda c: 0.5, f_static_api_in_dygraph),
                         (lambda c: 0.8 if c.job in ("infer", "serving") else 0.3, f_cxx_api_compile)),
    "disk_full": ((lambda c: 0.5, f_disk_quota), (lambda c: 0.6, f_disk_full_then_write_fails),
                  (lambda c: 0.3, f_pod_evicted_storage)),
    # a server killed for its probe is no cause of the taxonomy: beside host_oom's OOMKilled form it reads apart
    "unknown": ((lambda c: 0.6 if c.job in ("infer", "serving") else 0, f_liveness_killed),),
}


def with_families(category: str, own: Callable[[Ctx], str]) -> Callable[[Ctx], str]:
    """The category's surface forms: its own function, or one of its families above (weighted per run)."""
    def render(c: Ctx) -> str:
        forms = [(w(c), f) for w, f in FAMILIES.get(category, ())]
        forms = [(w, f) for w, f in forms if w > 0] + [(_OWN_WEIGHT, own)]
        return wpick(c.rng, forms)(c)
    render.__name__ = own.__name__
    return render


