"""Failure surface forms of simulated Paddle runs, one ``e_<category>`` per taxonomy category.

``ERRORS`` maps each category to its renderer: the category's own forms, mixed with the families seen in
real logs (``pipeline.simulate_families``); ``code_error`` renders the job bug the fleet model planted
(``pipeline.simulate_bugs``). ``PHASE`` says when in a run each failure strikes. Everything is a pure
function of the run's ``Ctx`` (see ``pipeline.simulate_text``), so the simulator stays deterministic.
"""
from __future__ import annotations

from pipeline.simulate_bugs import e_code_error
from pipeline.simulate_families import with_families
from pipeline.simulate_text import (
    CUDA_HINT35,
    DYNLOAD_SUGGEST,
    GLOG_FAIL_FRAMES,
    Ctx,
    cpp_frames,
    cpp_tb_1x,
    device_lines,
    fatal_signal,
    frames_paddle_forward,
    frames_user,
    glog_fatal,
    hint_3x_cn,
    nccl_prefix,
    paddle_error,
    pick,
    py_tb,
    wpick,
)

# --------------------------------------------------------------------------------------------------
# Failure surface forms, one function per category. Each prints the failure and returns a variant tag.


def e_cuda_driver_too_old(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "external35"), (1.5 if c.gen in ("1x", "20") else 0.3, "getdevicecount"),
                  (1 if c.gen in ("1x", "20") else 0.2, "glog_check_failed"),
                  (1 if c.major >= 3 or c.cuda >= "12" else 0.2, "compat804"), (1, "glog_warn_then_fail"),
                  (0.6, "run_check")])
    if v == "getdevicecount":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/fluid/framework.py", 1970, "cuda_places",
                                                 "device_ids = six.moves.range(core.get_cuda_device_count())")])
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::platform::GetCUDADeviceCount()"], [
            "Error: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCount, error code : 35, Please see "
            "detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
            "#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038: CUDA driver version is insufficient for CUDA "
            "runtime version at (/paddle/paddle/fluid/platform/gpu_info.cc:65)", ""])
        return f"{c.gen}_getdevicecount"
    if v == "glog_check_failed":
        glog_fatal(c, f"device_context.cc:{pick(r, (200, 243))}", "Check failed: e == cudaSuccess (35 vs. 0) CUDA driver "
                   "version is insufficient for CUDA runtime version",
                   [*GLOG_FAIL_FRAMES, "paddle::platform::GetCUDADeviceCount()",
                    "paddle::platform::CUDADeviceContext::CUDADeviceContext()", "paddle::framework::InitDevices()"])
        return f"{c.gen}_glog_check_failed"
    if v == "compat804":
        paddle_error(c, "External", ["CUDA error(804), forward compatibility was attempted on non supported HW. "],
                     "'cudaErrorCompatNotSupportedOnDevice'. This error indicates that the system was upgraded to run "
                     "with forward compatibility but the visible hardware detected by CUDA does not support this "
                     "configuration. Refer to the compatibility documentation for the supported hardware matrix or ensure "
                     "that only supported hardware is visible during initialization via the CUDA_VISIBLE_DEVICES "
                     "environment variable.", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66")
        return f"{c.gen}_compat804"
    if v == "glog_warn_then_fail":
        em.glog("W", "gpu_info.cc:" + str(pick(r, (71, 95))) if c.gen in ("1x", "20") else "gpu_resources.cc:" + str(pick(r, (61, 76))),
                f"Please NOTE: device: 0, GPU Compute Capability: {c.cc}, Driver API Version: {c.driver_api}, "
                f"Runtime API Version: {c.cuda}")
        em.glog("W", "gpu_resources.cc:96", f"The installed Paddle is compiled with CUDA {c.cuda}, but CUDA runtime "
                f"version in your machine is {c.driver_api}, which may cause serious incompatible bug. Please recompile "
                "or reinstall Paddle with compatible CUDA version.")
    if v == "run_check":
        em.out("Running verify PaddlePaddle program ... ")
        py_tb(c, [("<string>", 1, "<module>", ""), (f"{c.site}/paddle/utils/install_check.py", pick(r, (270, 273)),
                   "run_check", "_run_static_single(use_cuda, use_xpu, use_custom, custom_device_name)")])
        em.block(["OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. ",
                  f"  [Hint: {CUDA_HINT35}] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:66)", ""])
        return f"{c.gen}_run_check"
    tag = paddle_error(c, "External", ["CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. "],
                       CUDA_HINT35, "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    if c.chinese and r.random() < 0.6:
        hint_3x_cn(c, "CUDA 驱动版本过低，无法运行当前镜像中的 CUDA 运行时", f" nvidia-smi 显示的 CUDA Version 是否 >= {c.cuda}")
    return f"{c.gen}_{v}_{tag}"


def e_gpu_not_visible(c: Ctx) -> str:
    r, em = c.rng, c.em
    cpu_wheel = c.extra.get("cpu_wheel", False)
    if cpu_wheel:
        v = wpick(r, [(2, "set_device"), (2 if c.job in ("ocr", "det") else 0, "ppocr_cpu"), (1.5, "place_unsupported"),
                      (1, "compiled_false")])
    else:
        v = wpick(r, [(2, "error100"), (2, "libcuda"), (1, "no_gpu_found"), (1 if c.gen in ("1x", "20") else 0.3, "cudaplace_1x")])
    if v == "set_device":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", pick(r, (268, 301, 330)), "set_device",
                                                 "place = _convert_to_place(device)"),
                                                (f"{c.pkg}/device/__init__.py", pick(r, (188, 209)), "_convert_to_place",
                                                 "raise ValueError(")])
        em.err("ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA")
    elif v == "ppocr_cpu":
        tag = "ppocr" if c.job == "ocr" else "ppdet.utils.check"
        em.out(f"[{em.ts_slash()}] {tag} ERROR: Config use_gpu cannot be set as true while you are using paddlepaddle "
               "cpu version ! ", "Please try: ", "\t1. Install paddlepaddle-gpu to run model on GPU ",
               "\t2. Set use_gpu as false in config file to run model on CPU")
        if r.random() < 0.5:
            em.err("SystemExit: 1" if r.random() < 0.3 else "")
    elif v == "place_unsupported":
        paddle_error(c, "Unavailable", ["Place Place(gpu:0) is not supported. Because paddle is not compiled with CUDA. "
                                        "Please check that your paddle compiles with WITH_GPU option."], None,
                     "paddle/phi/core/platform/device_context.cc:" + str(pick(r, (97, 133))), "exec")
    elif v == "compiled_false":
        em.out("paddle.is_compiled_with_cuda(): False", "paddle.device.get_device(): cpu")
        py_tb(c, frames_user(c, deep=False))
        em.err("AssertionError: GPU is not available in this container (paddle.is_compiled_with_cuda() is False)")
    elif v == "error100":
        if r.random() < 0.5:
            em.glog("W", "init.cc:" + str(pick(r, (201, 227))), "Compiled with WITH_GPU, but no GPU found in runtime.")
        paddle_error(c, "External", ["CUDA error(100), no CUDA-capable device is detected. "],
                     "'cudaErrorNoDevice'. This indicates that no CUDA-capable devices were detected by the installed "
                     "CUDA driver. ", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    elif v == "libcuda":
        em.glog("W", "dynamic_loader.cc:" + str(pick(r, (285, 307, 314))), "The third-party dynamic library (libcuda.so) that "
                "Paddle depends on is not configured correctly. (error code is libcuda.so: cannot open shared object "
                "file: No such file or directory)")
        paddle_error(c, "PreconditionNotMet", ["Cannot load cudart shared library. Cannot invoke method cudaGetDeviceCount."],
                     None, "paddle/phi/backends/dynload/cudart.h:" + str(pick(r, (40, 47))), "device", long_p=0.3)
    elif v == "no_gpu_found":
        em.glog("W", "init.cc:" + str(pick(r, (201, 227))), "Compiled with WITH_GPU, but no GPU found in runtime.")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", 301, "set_device",
                                                 "place = _convert_to_place(device)")])
        em.err("ValueError: The device id 0 exceeds gpu card number 0")
    else:
        paddle_error(c, "Unavailable", ["Place CUDAPlace(0) is not supported, Please check that your paddle compiles with "
                                        "WITH_GPU option or check that your train process hold the correct gpu_id if "
                                        "you use Executor"], None, "paddle/phi/device_context.cc:67",
                     "exec", loc_old="paddle/fluid/platform/device_context.cc:67")
    return f"{c.gen}_{v}"




def e_cuda_lib_missing(c: Ctx) -> str:
    r, em = c.rng, c.em
    lib = c.extra.get("missing_cuda_lib", "libcudnn.so")
    v = wpick(r, [(2, "dynload"), (1.5 if c.gen in ("1x", "20") else 0.2, "dso_1x"), (1.2, "glog_then_error"),
                  (1, "cublas_versioned")])
    if v == "cublas_versioned" and lib == "libcublas.so":
        soname = f"libcublas.so.{c.cuda.split('.')[0]}"
    elif v == "cublas_versioned":          # the versioned soname of the missing library
        v, soname = "versioned_soname", f"{lib}.{c.cudnn.split('.')[0]}"
    else:
        soname = lib
    if v == "dso_1x":
        py_tb(c, frames_user(c) + frames_paddle_forward(c)[-1:])
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "RuntimeError: ")
        cpp_tb_1x(c, ["paddle::platform::dynload::GetCUDNNDsoHandle()", "paddle::platform::CudnnHolder::CudnnHolder"], [
            f"Error: Failed to find dynamic library: {lib} ( {lib}: cannot open shared object file: No such file or directory ) ",
            " Please specify its path correctly using following ways: ",
            " set environment variable LD_LIBRARY_PATH on Linux or DYLD_LIBRARY_PATH on Mac OS. ",
            " For instance, issue command: export LD_LIBRARY_PATH=... ",
            " Note: After Mac OS 10.11, using the DYLD_LIBRARY_PATH is impossible unless System Integrity Protection "
            "(SIP) is disabled. at (/paddle/paddle/fluid/platform/dynload/dynamic_loader.cc:177)"])
        return f"{c.gen}_dso_1x"
    if v == "glog_then_error":
        em.glog("W", "dynamic_loader.cc:" + str(pick(r, (285, 307))), f"The third-party dynamic library ({lib}) that "
                f"Paddle depends on is not configured correctly. (error code is {soname}: cannot open shared object file: "
                "No such file or directory)")
        em.block(DYNLOAD_SUGGEST)
    msg = [f"The third-party dynamic library ({lib}) that Paddle depends on is not configured correctly. (error code "
           f"is {soname}: cannot open shared object file: No such file or directory)"] + DYNLOAD_SUGGEST
    msg[-1] += " "
    paddle_error(c, "PreconditionNotMet", msg, None, "paddle/phi/backends/dynload/dynamic_loader.cc:" +
                 str(pick(r, (311, 338, 346))), "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    if c.major >= 3 and c.chinese:
        hint_3x_cn(c, f"找不到 {lib}", "镜像中是否安装了与 CUDA 版本匹配的 cuDNN，并设置 LD_LIBRARY_PATH")
    return f"{c.gen}_{v}"


_HINT209 = ("'cudaErrorNoKernelImageForDevice'. This indicates that there is no kernel image available that is suitable "
            "for the device. This can occur when a user specifies code generation options for a particular CUDA source "
            "file that do not include the corresponding device configuration.")


def e_gpu_arch_unsupported(c: Ctx) -> str:
    r, em = c.rng, c.em
    archs = c.extra.get("archs", "61 70 75 80 86")
    fam = {"3.7": "Kepler", "6.0": "Pascal", "9.0": "Hopper", "7.0": "Volta", "7.5": "Turing", "8.0": "Ampere", "8.6": "Ampere"}
    v = wpick(r, [(3, "error209"), (1.5 if c.gen in ("1x", "20") or c.cuda < "11" else 0.2, "error48"),
                  (1.5, "arch_warning_then_209"), (1, "glog_fatal")])
    if v == "arch_warning_then_209":
        em.err(f"{c.pkg}/device/__init__.py:{pick(r, (183, 224))}: UserWarning: The GPU architecture in your current "
               f"machine is {fam.get(c.cc, 'Hopper')}, which is not compatible with Paddle installation with arch: "
               f"{archs} , it is recommended to install the corresponding wheel package according to the installation "
               "information in the official Paddle website.", "  warnings.warn(")
    if v == "error48":
        py_tb(c, frames_user(c) + frames_paddle_forward(c))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::operators::math::SetConstant<paddle::platform::CUDADeviceContext, float>::operator()"],
                  ["Error: cudaFuncGetAttributes failed in paddle::platform::GpuLaunchConfig, error code : 48, Please see "
                   "detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
                   "#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038: no kernel image is available for execution "
                   "on the device at (/paddle/paddle/fluid/platform/gpu_launch_config.h:79)", ""])
        return f"{c.gen}_error48"
    if v == "glog_fatal":
        device_lines(c)
        glog_fatal(c, f"{pick(r, ('gpu_launch_config.h:79', 'elementwise_op_function.h:1632', 'gpu_info.cc:316'))}",
                   "Check failed: cudaSuccess == err (0 vs. 209) no kernel image is available for execution on the device")
        return f"{c.gen}_glog_fatal"
    device_lines(c)
    paddle_error(c, "External", ["CUDA error(209), no kernel image is available for execution on the device. "], _HINT209,
                 pick(r, ("paddle/phi/kernels/funcs/elementwise_base.h:" + str(pick(r, (842, 920))),
                          "paddle/phi/backends/gpu/cuda/cuda_info.cc:" + str(pick(r, (258, 266))),
                          "paddle/phi/kernels/gpu/full_kernel.cu:" + str(pick(r, (74, 96))))),
                 "conv", py_frames=frames_user(c) + frames_paddle_forward(c))
    return f"{c.gen}_{v}"


def e_system_lib_missing(c: Ctx) -> str:
    r, em = c.rng, c.em
    lib = c.extra.get("missing_sys_lib", "libGL.so.1")
    ocv = f"{c.site}/cv2/__init__.py"
    if lib in ("libGL.so.1", "libgthread-2.0.so.0", "libSM.so.6", "libXext.so.6", "libXrender.so.1"):
        v = wpick(r, [(2, "cv2_deep"), (1, "cv2_direct"), (1, "ppocr_import")])
        fr = frames_user(c, deep=False)[:1]
        if v == "ppocr_import":
            fr = [(f"{c.workdir}/PaddleOCR/tools/train.py", 30, "<module>", "from ppocr.data import build_dataloader, set_signal_handlers"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/__init__.py", 33, "<module>", "from ppocr.data.imaug import transform, create_operators"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/imaug/__init__.py", 19, "<module>", "from .iaa_augment import IaaAugment"),
                  (f"{c.workdir}/PaddleOCR/ppocr/data/imaug/iaa_augment.py", 24, "<module>", "import imgaug"),
                  (f"{c.site}/imgaug/__init__.py", 7, "<module>", "from imgaug.imgaug import *  # pylint: disable=redefined-builtin"),
                  (f"{c.site}/imgaug/imgaug.py", 19, "<module>", "import cv2")]
        elif v == "cv2_direct":
            fr = [(frames_user(c, deep=False)[0][0], pick(r, (3, 5, 8)), "<module>", "import cv2")]
        else:
            fr = fr[:1] if fr else []
            fr = [(fr[0][0] if fr else f"{c.workdir}/main.py", pick(r, (12, 17, 22)), "<module>", "from utils.data import build_loader"),
                  (f"{c.workdir}/utils/data.py", pick(r, (4, 9)), "<module>", "import cv2")]
        fr += [(ocv, 181, "<module>", "bootstrap()"), (ocv, 153, "bootstrap", 'native_module = importlib.import_module("cv2")'),
               ("/usr/lib/python3." + c.python.split(".")[1] + "/importlib/__init__.py", 126, "import_module",
                "return _bootstrap._gcd_import(name[level:], package, level)")]
        py_tb(c, fr)
        em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
        return f"{lib.split('.')[0]}_{v}"
    # libgomp / libssl: Paddle's own import fails
    v = wpick(r, [(1, "paddle_core"), (1 if c.fw == "fluid" else 0, "avx_core")])
    if v == "avx_core":
        em.err(f"Error: Can not import avx core while this file exists: {c.pkg}/fluid/core_avx.so")
    py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (2, 3, 6)), "<module>", "import paddle"),
              (f"{c.pkg}/__init__.py", pick(r, (28, 31)), "<module>", "from .base import core  # noqa: F401" if c.major >= 3
               else f"from .{c.fw} import monkey_patch_variable"),
              (f"{c.pkg}/{c.fw}/core.py", pick(r, (268, 298, 325)), "<module>",
               "raise e" if r.random() < 0.5 else "from . import libpaddle")])
    em.err(f"ImportError: {lib}: cannot open shared object file: No such file or directory")
    return f"{lib.split('.')[0]}_{v}"


def e_shm_exhausted(c: Ctx) -> str:
    r, em = c.rng, c.em
    dl = f"{c.pkg}/io/dataloader/dataloader_iter.py" if c.major >= 2 else f"{c.site}/paddle/fluid/reader.py"
    v = wpick(r, [(3, "bus_error_queue"), (1.5, "workers_exit"), (1, "bus_core_dumped"),
                  (1 if c.gen in ("1x", "20") else 0.3, "reader_thread_1x"), (0.6, "shm_errno28")])
    if v in ("bus_error_queue", "workers_exit"):
        em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared "
               "memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
        if r.random() < 0.5:
            em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient "
                   "shared memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
    if v == "bus_error_queue":
        py_tb(c, frames_user(c)[:-1] + [(frames_user(c)[-1][0], frames_user(c)[-1][1] - 12, frames_user(c)[-1][2],
                                         "for idx, batch in enumerate(train_dataloader):"),
                                        (dl, pick(r, (825, 830)), "__next__", "self._reader.read_next_list()[0]"
                                         if r.random() < 0.5 else "data = self._reader.read_next_var_list()")])
        em.block(["SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.",
                  "  [Hint: Expected killed_ != true, but received killed_:1 == true:1.] (at "
                  "/paddle/paddle/fluid/operators/reader/blocking_queue.h:166)", ""])
    elif v == "workers_exit":
        py_tb(c, frames_user(c) + [(dl, pick(r, (825, 830)), "__next__", "self._reader.read_next_list()[0]"),
                                   (dl, 780, "_thread_loop", "raise e")])
        pids = ", ".join(str(em.pid + 30 + k) for k in range(r.randrange(1, 1 + max(1, c.num_workers))))
        em.err(f"RuntimeError: DataLoader {len(pids.split(','))} workers exit unexpectedly, pids: {pids}")
    elif v == "bus_core_dumped":
        em.err(c.shell("Bus error (core dumped)"))
    elif v == "reader_thread_1x":
        em.err("Exception in thread Thread-1:")
        py_tb(c, [("/usr/lib/python3.7/threading.py", 926, "_bootstrap_inner", "self.run()"),
                  ("/usr/lib/python3.7/threading.py", 870, "run", "self._target(*self._args, **self._kwargs)"),
                  (f"{c.site}/paddle/fluid/reader.py", 1106, "__thread_main__", "six.reraise(*sys.exc_info())"),
                  (f"{c.site}/paddle/fluid/multiprocess_utils.py", 105, "_func_register", "return func()")])
        em.err(c.strerror("OSError: [Errno 12] Cannot allocate memory"))
        py_tb(c, frames_user(c))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "SystemError: ")
        cpp_tb_1x(c, cpp_frames(c, "reader"), ["Error: DataLoader reader thread raised an exception! at "
                                              "(/paddle/paddle/fluid/operators/reader/read_op.cc:120)", ""])
    else:
        py_tb(c, [(f"{c.site}/paddle/io/dataloader/worker.py", pick(r, (380, 397)), "_worker_loop",
                   "tensor_list = [core._array_to_share_memory_tensor(b) for b in flat_batch]"
                   if r.random() < 0.5 else "batch = fetcher.fetch(indices)")])
        em.err(c.strerror(f"OSError: [Errno 28] No space left on device: '/dev/shm/paddle_{r.randrange(16**8):08x}'"))
        em.err("ERROR: Unexpected BUS error encountered in DataLoader worker. This might be caused by insufficient shared "
               "memory (shm), please check whether use_shared_memory is set and storage space in /dev/shm is enough")
    if r.random() < 0.4 and v != "bus_core_dumped":
        em.err(c.shell("Bus error (core dumped)"))
    if r.random() < 0.15:     # the user's df of it, as pasted under the error
        df_dev_shm(c, roomy=False)
    return f"{c.gen}_{v}"


def df_dev_shm(c: Ctx, roomy: bool) -> None:
    """`df -h /dev/shm` as a user pastes it: docker's 64M full, or gigabytes of a host's tmpfs mostly free."""
    r = c.rng
    if roomy:
        size = pick(r, (8, 16, 32, 64, 126, 256))
        row = f"{pick(r, ('shm', 'tmpfs'))}{' ' * r.randrange(6, 14)}{size}G  {pick(r, ('0', '1.2M', '12K', '340M'))}   {size}G   {r.randrange(0, 5)}% /dev/shm"
    else:
        row = f"shm{' ' * r.randrange(6, 14)}64M   64M     0 100% /dev/shm"
    c.em.out("$ df -h /dev/shm", "Filesystem      Size  Used Avail Use% Mounted on", row)


def _gb(x: float) -> str:
    return f"{x:.6f}GB"


def e_gpu_oom(c: Ctx) -> str:
    r, em = c.rng, c.em
    dev = r.randrange(c.n_gpus) if c.n_gpus > 1 and r.random() < 0.3 else 0
    want = r.uniform(0.1, 4.0)
    avail_mb = r.uniform(10, 900)
    alloc = max(0.5, c.gpu_mem_gb * r.uniform(0.85, 0.98) - avail_mb / 1024)
    v = wpick(r, [(3, "resource_exhausted"), (1.5 if c.gen in ("1x", "20") else 0.3, "enforce_1x"),
                  (1, "cuda_error2"), (1 if c.major >= 3 else 0.3, "memory_error_gib"), (0.7, "infer_predictor")])
    oom = [f"Out of memory error on GPU {dev}. Cannot allocate {_gb(want)} memory on GPU {dev}, {_gb(alloc)} memory has "
           f"been allocated and available memory is only {avail_mb:.6f}MB.", "",
           f"Please check whether there is any other process using GPU {dev}.",
           "1. If yes, please stop them, or start PaddlePaddle on another GPU.",
           "2. If no, please decrease the batch size of your model. "]
    if c.extra.get("fraction"):
        oom.append("If the above ways do not solve the out of memory problem, you can try to use CUDA managed memory. "
                   "The command is `export FLAGS_use_cuda_managed_memory=false`.")
    frames = frames_user(c) + (frames_paddle_forward(c) if r.random() < 0.7 else [
        (f"{c.pkg}/base/dygraph/tensor_patch_methods.py" if c.fw == "base" else f"{c.pkg}/fluid/dygraph/varbase_patch_methods.py",
         pick(r, (294, 342)), "backward", "core.eager.run_backward([self], grad_tensor, retain_graph)")])
    if v == "cuda_error2":
        paddle_error(c, "External", ["CUDA error(2), out of memory. "],
                     "'cudaErrorMemoryAllocation'. The API call failed because it was unable to allocate enough memory "
                     "to perform the requested operation. ", "paddle/phi/backends/gpu/gpu_context.cc:" + str(pick(r, (595, 621))),
                     "conv", py_frames=frames)
        return f"{c.gen}_cuda_error2"
    if v == "memory_error_gib":
        oom[0] = (f"Out of memory error on GPU {dev}. Cannot allocate {want * 1024:.0f}.{r.randrange(100):02d}MiB memory on "
                  f"GPU {dev}, {alloc:.2f}GiB memory has been allocated and available memory is only {avail_mb:.2f}MiB.")
    if v == "infer_predictor":
        em.glog("W", "analysis_predictor.cc:" + str(pick(r, (2154, 2460))), "Out of memory, try to reduce the batch size "
                "or the max_batch_size of TensorRT engine.")
    paddle_error(c, "ResourceExhausted", oom, None, "paddle/phi/core/memory/allocation/cuda_allocator.cc:" +
                 str(pick(r, (84, 86))) if c.major >= 3 else "paddle/fluid/memory/allocation/cuda_allocator.cc:86",
                 "alloc", py_frames=frames, long_p=0.7,
                 loc_old="paddle/fluid/memory/allocation/cuda_allocator.cc:69")
    return f"{c.gen}_{v}"


def e_host_oom(c: Ctx) -> str:
    """Host memory: the kernel OOM killer (exit 137, nothing or 'Killed'), or an allocation failure."""
    r, em = c.rng, c.em
    v = wpick(r, [(3, "cut_off"), (3, "shell_killed"), (1, "bad_alloc"), (1, "cpu_alloc_fail"),
                  (1 if c.launch else 0, "launch_sigkill"), (1.0, "kernel_restarted"), (0.6, "slurm_oom")])
    if v == "slurm_oom":   # a Slurm step over its --mem: slurmstepd's cgroup counts the kill, srun names the task
        job, node = r.randrange(100000, 999999), f"{pick(r, ('gpu-node', 'gpu', 'node', 'dgx'))}-{r.randrange(1, 40):02d}"
        em.err(f"slurmstepd: error: Detected {r.randrange(1, 3)} oom_kill event in StepId={job}.0. "
               "Some of the step tasks have been OOM Killed.")
        if r.random() < 0.7:
            em.err(f"srun: error: {node}: task {r.randrange(8)}: Out Of Memory")
        return "slurm_oom"
    if v == "kernel_restarted":   # a notebook pod: the Jupyter server restarts the kernel the OOM killer took
        stamp = f"{em.ts_iso()}.{r.randrange(1000):03d}"
        em.err(f"[I {stamp} ServerApp] KernelRestarter: restarting kernel (1/5), keep random ports",
               f"[W {stamp} ServerApp] kernel {r.getrandbits(32):08x}-{r.getrandbits(16):04x}-{r.getrandbits(16):04x}-"
               f"{r.getrandbits(16):04x}-{r.getrandbits(48):012x} restarted")
        return "kernel_restarted"
    if v == "cut_off":
        return "cut_off"       # nothing more: the process was SIGKILLed mid-output
    if v == "shell_killed":
        cmd = pick(r, ("python3 tools/train.py -c configs/train.yml", "python train.py", "python3 run_finetune.py args.json",
                       "python3 infer.py --model_dir /workspace/inference"))
        em.err(c.shell(pick(r, (f"/entrypoint.sh: line {r.randrange(5, 40)}: {r.randrange(7, 90):>5} Killed                  {cmd}",
                                "Killed", f"bash: line 1: {r.randrange(7, 90):>5} Killed                  {cmd}"))))
        return "shell_killed"
    if v == "bad_alloc":
        em.err("terminate called after throwing an instance of 'std::bad_alloc'", "  what():  std::bad_alloc")
        if c.major >= 2 and r.random() < 0.7:
            fatal_signal(c, "SIGABRT", "Process abort signal",
                         cpp_frames(c, "alloc", 4) if r.random() < 0.5 else None)
        else:
            em.err(c.shell("Aborted (core dumped)"))
        return f"{c.gen}_bad_alloc"
    if v == "cpu_alloc_fail":
        paddle_error(c, "ResourceExhausted", [f"Fail to alloc memory of {r.randrange(2, 64) * 2**30} size, error code is 12."],
                     "Expected error == 0, but received error:12 != 0:0.",
                     "paddle/phi/core/memory/allocation/cpu_allocator.cc:50" if c.major >= 3 else
                     "paddle/fluid/memory/allocation/cpu_allocator.cc:50", "alloc")
        return f"{c.gen}_cpu_alloc_fail"
    em.out(f"LAUNCH INFO {em.ts_comma()} Pod failed")
    em.out(f"LAUNCH ERROR {em.ts_comma()} Container failed !!!",
           "Container rank 0 status failed cmd ['python', '-u', 'tools/train.py'] code -9 log log/workerlog.0")
    return "launch_sigkill"


def e_model_version_incompatible(c: Ctx) -> str:
    r, em = c.rng, c.em
    exp = c.extra.get("model_version", "3.0.0")
    md = c.model_dir
    v = wpick(r, [(2 if c.major < 3 else 0.3, "pir_json_on_old"), (2, "op_not_registered"), (2, "kernel_not_registered"),
                  (1, "program_version")])
    fr = frames_user(c, deep=False) + [(f"{c.workdir}/utils/predictor.py", pick(r, (31, 42)), "__init__",
                                        "self.predictor = paddle.inference.create_predictor(config)")]
    if v == "pir_json_on_old":
        em.out(f"[{em.ts_iso()}] INFO model files in {md}: inference.json inference.pdiparams inference.yml")
        paddle_error(c, "NotFound", [f"Cannot open file {md}/inference.pdmodel, please confirm whether the file is normal."],
                     None, "paddle/fluid/inference/api/analysis_predictor.cc:" + str(pick(r, (2350, 2580))), "exec",
                     py_frames=fr, long_p=0.3)
    elif v == "op_not_registered":
        op = pick(r, ("fused_multi_transformer_int8", "pd_op.fused_rotary_position_embedding", "flash_attn_v3",
                      "fused_bias_dropout_residual_layer_norm", "lookup_table_v2" if c.gen == "1x" else "pir_mhsa"))
        paddle_error(c, "NotFound", [f"Operator ({op}) is not registered."], "op_info_ptr should not be null.",
                     "paddle/fluid/framework/op_info.h:" + str(pick(r, (141, 152))), "exec", py_frames=fr)
    elif v == "kernel_not_registered":
        kn = pick(r, ("fused_multi_transformer", "weight_only_linear", "masked_multihead_attention", "swiglu"))
        paddle_error(c, "NotFound", [f"The kernel with key (GPU, Undefined(AnyLayout), float32) of kernel `{kn}` is not "
                                     "registered. Selected wrong DataType `float32`. Paddle support following DataTypes: "
                                     "float16, bfloat16."],
                     "Expected kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU != true, but "
                     "received kernel_iter == iter->second.end() && kernel_key.backend() == Backend::CPU:1 == true:1.",
                     "paddle/phi/core/kernel_factory.cc:" + str(pick(r, (273, 308))), "exec", py_frames=fr)
    else:
        paddle_error(c, "InvalidArgument", [f"The model was exported by PaddlePaddle {exp}, which is newer than the current "
                                            f"PaddlePaddle {c.paddle}. Unsupported program version "
                                            f"{exp.replace('.', '')}00 (max supported {c.paddle.replace('.', '')}00)."],
                     None, "paddle/fluid/framework/version.cc:" + str(pick(r, (59, 77))), "exec", py_frames=fr)
    return f"{c.gen}_{v}"


def e_api_incompatible(c: Ctx) -> str:
    r, em = c.rng, c.em
    entry = frames_user(c, deep=False)[0][0]
    # 2.5 made reductions 0-D: code written for 2.4 indexes the loss's numpy value
    zero_dim = 1.2 if c.major >= 3 or (c.major == 2 and c.paddle >= "2.5") else 0
    if c.fw == "base":      # 2.6 moved paddle.fluid to paddle.base; 3.x removed it
        v = wpick(r, [(3, "no_fluid_attr"), (2, "no_fluid_module"), (1.5, "cannot_import"), (1, "unexpected_kw"),
                      (zero_dim, "zero_dim_index")])
    else:                   # 2.5 removed most of paddle.fluid.layers
        v = wpick(r, [(2, "fluid_layers_removed"), (1, "unexpected_kw"), (1, "cannot_import"), (zero_dim, "zero_dim_index")])
    if v == "no_fluid_attr":
        py_tb(c, [(entry, pick(r, (41, 88, 130)), "<module>", "place = paddle.fluid.CUDAPlace(0)"
                   if r.random() < 0.5 else "with paddle.fluid.dygraph.guard():")])
        em.err("AttributeError: module 'paddle' has no attribute 'fluid'")
    elif v == "no_fluid_module":
        py_tb(c, [(entry, pick(r, (4, 7, 12)), "<module>", "import paddle.fluid as fluid")])
        em.err("ModuleNotFoundError: No module named 'paddle.fluid'")
    elif v == "cannot_import":
        if c.fw == "base":
            name, mod = pick(r, (("_non_static_mode", "paddle.base.framework"), ("fluid", "paddle"),
                                 ("_dygraph_tracer", "paddle.base.framework")))
        else:
            name, mod = pick(r, (("in_dygraph_mode", "paddle.fluid.framework"), ("fc", "paddle.fluid.layers"),
                                 ("_varbase_creator", "paddle.fluid.framework")))
        py_tb(c, [(entry, pick(r, (5, 9, 14)), "<module>", f"from {mod} import {name}")])
        where = f"{c.pkg}/__init__.py" if mod == "paddle" else \
            f"{c.pkg}/{mod.split('.', 1)[1].replace('.', '/')}" + ("/__init__.py" if mod.endswith("layers") else ".py")
        em.err(f"ImportError: cannot import name '{name}' from '{mod}' ({where})")
    elif v == "unexpected_kw":
        api, kw = pick(r, (("Conv2D.__init__", "use_cudnn"), ("Linear.__init__", "act"), ("to_tensor", "stop_gradient_"),
                           ("BatchNorm2D.__init__", "act")))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/models/net.py", pick(r, (22, 51, 77)), "__init__",
                                                 f"self.conv = nn.Conv2D(3, 64, 3, {kw}=True)" if "Conv" in api else
                                                 f"self.layer = nn.{api.split('.')[0]}(512, 512, {kw}='relu')")])
        em.err(f"TypeError: {api}() got an unexpected keyword argument '{kw}'")
    elif v == "zero_dim_index":
        what = pick(r, ("total_loss += loss.numpy()[0]", "losses.append(loss.numpy()[0])",
                        "print('epoch %d, step %d, loss %.4f' % (epoch, step, avg_loss.numpy()[0]))",
                        "acc_sum += float(acc.numpy()[0])", "logger.info(f'loss: {loss.numpy()[0]:.5f}')"))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/{pick(r, ('train.py', 'tools/train.py', 'engine.py'))}",
                                                 pick(r, (88, 108, 142, 231)), pick(r, ("train", "train_epoch", "run")), what)])
        em.err("IndexError: too many indices for array: array is 0-dimensional, but 1 were indexed")
    else:
        layer = pick(r, ("fc", "data", "conv2d", "elementwise_add", "reduce_mean", "softmax_with_cross_entropy"))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/models/net.py", pick(r, (31, 64)), "build",
                                                 f"out = fluid.layers.{layer}(input=x, size=10)" if layer == "fc"
                                                 else f"out = fluid.layers.{layer}(x)")])
        em.err(f"AttributeError: module 'paddle.fluid.layers' has no attribute '{layer}'")
    return f"{c.gen}_{v}"


_NUMPY2 = ["", "A module that was compiled using NumPy 1.x cannot be run in", "NumPy 2.0.0 as it may crash. To support both 1.x and 2.x",
           "versions of NumPy, modules must be compiled with NumPy 2.0.", "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.",
           "", "If you are a user of the module, the easiest solution will be to",
           "downgrade to 'numpy<2' or try to upgrade the affected module.", "We expect that some modules will need time to support NumPy 2.", ""]

_PROTOBUF = ["TypeError: Descriptors cannot be created directly.",
             "If this call came from a _pb2.py file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.",
             "If you cannot immediately regenerate your protos, some other possible workarounds are:",
             " 1. Downgrade the protobuf package to 3.20.x or lower.",
             " 2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (but this will use pure-Python parsing and will be much slower).",
             "", "More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06#python-updates"]


def e_python_dependency_conflict(c: Ctx) -> str:
    r, em = c.rng, c.em
    kind = c.extra.get("dep_conflict", "numpy2")
    entry = frames_user(c, deep=False)[0][0]
    if kind == "protobuf":
        v = "protobuf"
        py_tb(c, [(entry, pick(r, (3, 6)), "<module>", "import paddle"),
                  (f"{c.pkg}/__init__.py", pick(r, (25, 31)), "<module>", "from .framework import monkey_patch_variable"),
                  (f"{c.pkg}/framework/__init__.py", 17, "<module>", "from . import random  # noqa: F401"),
                  (f"{c.pkg}/{c.fw}/framework.py", 36, "<module>", "from .proto import framework_pb2"),
                  (f"{c.pkg}/{c.fw}/proto/framework_pb2.py", 33, "<module>", "_descriptor.EnumValueDescriptor("),
                  (f"{c.site}/google/protobuf/descriptor.py", 796, "__new__", "_message.Message._CheckCalledFromGeneratedFile()")])
        em.block(_PROTOBUF)
    elif kind == "numpy2":
        v = wpick(r, [(2, "numpy2_abi"), (1, "np_bool_removed")])
        if v == "numpy2_abi":
            em.block(_NUMPY2 + ["Traceback (most recent call last):  File \"" + entry + "\", line 4, in <module>",
                                "    import cv2", f'  File "{c.site}/cv2/__init__.py", line 181, in <module>',
                                "    bootstrap()"])
            py_tb(c, [(entry, 4, "<module>", "import cv2"), (f"{c.site}/cv2/__init__.py", 181, "<module>", "bootstrap()"),
                      (f"{c.site}/cv2/__init__.py", 153, "bootstrap", 'native_module = importlib.import_module("cv2")')])
            em.err(pick(r, ("ImportError: numpy.core.multiarray failed to import", "AttributeError: _ARRAY_API not found")))
        else:
            py_tb(c, frames_user(c) + [(f"{c.workdir}/ppdet/data/transform/operators.py" if c.job == "det" else
                                        f"{c.workdir}/utils/transforms.py", pick(r, (120, 388)), "apply",
                                        "mask = np.zeros(shape, dtype=np.bool)")])
            em.block(["AttributeError: module 'numpy' has no attribute 'bool'.",
                      "`np.bool` was a deprecated alias for the builtin `bool`. To avoid this error in existing code, use "
                      "`bool` by itself. Doing this will not modify any behavior and is safe. If you specifically wanted "
                      "the numpy scalar type, use `np.bool_` here.",
                      "The aliases was originally deprecated in NumPy 1.20; for more details and guidance see the original "
                      "release note at:", "    https://numpy.org/devdocs/release/1.20.0-notes.html#deprecations"])
    elif kind == "markupsafe":
        v = "markupsafe"
        py_tb(c, [(entry, 9, "<module>", "from visualdl import LogWriter"),
                  (f"{c.site}/visualdl/__init__.py", 20, "<module>", "from visualdl.writer.writer import LogWriter  # noqa: F401"),
                  (f"{c.site}/jinja2/__init__.py", 12, "<module>", "from .environment import Environment"),
                  (f"{c.site}/jinja2/utils.py", 642, "<module>", "from markupsafe import Markup, escape, soft_unicode")])
        em.err(f"ImportError: cannot import name 'soft_unicode' from 'markupsafe' ({c.site}/markupsafe/__init__.py)")
    elif c.fw == "base" and r.random() < 0.3:
        # a toolkit pinned for an older Paddle, beside a Paddle that removed paddle.fluid: it breaks in its own
        # files with the words of an API removal (the frames, not the words, say it is the package)
        pkg, line = pick(r, (("paddlenlp/transformers/gpt/modeling.py", 24), ("paddlehub/compat/paddle_utils.py", 18),
                             ("paddleseg/cvlibs/param_init.py", 15), ("ppdet/core/workspace.py", 31),
                             ("paddleocr/ppocr/modeling/heads/rec_ctc_head.py", 21), ("visualdl/reader/reader.py", 27),
                             ("x2paddle/core/program.py", 22)))
        v = "toolkit_older_than_paddle"
        top = pkg.split("/")[0]
        py_tb(c, [(entry, pick(r, (3, 5, 11)), "<module>", f"from {'paddleocr' if top == 'paddleocr' else top} import *"
                   if r.random() < 0.3 else f"import {top}"),
                  (f"{c.site}/{top}/__init__.py", r.randrange(14, 40), "<module>", "from . import (transformers, utils)"
                   if top == "paddlenlp" else "from .core import *"),
                  (f"{c.site}/{pkg}", line, "<module>", pick(r, ("from paddle.fluid import layers",
                                                                "import paddle.fluid as fluid",
                                                                "from paddle.fluid.framework import in_dygraph_mode")))])
        em.err(pick(r, ("ModuleNotFoundError: No module named 'paddle.fluid'",
                        "AttributeError: module 'paddle' has no attribute 'fluid'")))
    elif (minor := int(c.python.split(".")[1])) >= 10 and r.random() < 0.25:
        # an old pin on a newer Python: the package imports what the standard library no longer has
        pkg, name = pick(r, (("imgaug/augmenters/meta.py", "Iterable"), ("visualdl/server/app.py", "Mapping"),
                             ("paddlehub/compat/task/config.py", "Callable"), ("lmdb/cffi.py", "MutableMapping"),
                             ("pycocotools/coco.py", "Sequence")))
        v = "stdlib_removed"
        py_tb(c, [(entry, pick(r, (5, 12)), "<module>", f"import {pkg.split('/')[0]}"),
                  (f"{c.site}/{pkg}", r.randrange(15, 60), "<module>", f"from collections import {name}")])
        if name == "Callable" and minor >= 11:
            em.err("AttributeError: module 'inspect' has no attribute 'getargspec'")
            v = "inspect_getargspec"
        else:
            em.err(f"ImportError: cannot import name '{name}' from 'collections' (/usr/lib/python{c.python}/collections/__init__.py)")
    else:
        mod = pick(r, ("imgaug", "pycocotools", "lmdb", "paddlenlp", "sentencepiece", "pyclipper", "rapidfuzz"))
        v = "module_not_found"
        py_tb(c, [(entry, pick(r, (8, 21)), "<module>", f"import {mod}")])
        em.err(f"ModuleNotFoundError: No module named '{mod}'")
    return f"{c.gen}_{v}"




def e_distributed_comm_failure(c: Ctx) -> str:
    r, em = c.rng, c.em
    peer = c.rank_ips[-1] if c.rank_ips else "10.10.0.3"
    me = c.rank_ips[0] if c.rank_ips else "10.10.0.2"
    iface = c.extra.get("iface", "eth0")
    v = wpick(r, [(3, "nccl_system_error"), (1.5, "store_timeout"), (1, "nccl_remote_error"), (1, "unhandled_cuda"),
                  (0.8 if c.gen in ("1x", "20") else 0.2, "nccl_1x")])
    p = nccl_prefix(c)
    if v in ("nccl_system_error", "nccl_remote_error", "nccl_1x"):
        em.out(f"{p} NCCL INFO Bootstrap : Using {iface}:{me}<0>",
               f"{p} NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
               f"{p} NCCL INFO NET/IB : No device found.",
               f"{p} NCCL INFO NET/Socket : Using [0]{iface}:{me}<0>",
               f"{p} NCCL INFO Using network Socket")
        em.adv(r.uniform(1, 120))
        em.out(f"{p} NCCL WARN {pick(r, ('Connect', 'Net : Connect'))} to {peer}<{r.randrange(30000, 60000)}> failed : "
               + c.strerror(pick(r, ('Connection refused', 'No route to host', 'Connection timed out'))),
               f"{p} NCCL INFO {pick(r, ('misc/socket.cc:456', 'include/socket.h:409'))} -> 2",
               f"{p} NCCL INFO transport/net_socket.cc:{pick(r, (334, 406))} -> 2",
               f"{p} NCCL INFO transport/net.cc:{pick(r, (592, 683))} -> 2",
               f"{p} NCCL INFO init.cc:{pick(r, (1112, 1235))} -> 2")
    if v == "store_timeout":
        port = r.randrange(6000, 9000)
        for _ in range(r.randrange(3, 12)):
            em.glog("I", "tcp_utils.cc:107", f"Retry to connect to {peer}:{port} while the server is not yet listening.")
            em.adv(r.uniform(3, 90))
        paddle_error(c, "InvalidArgument", [f"Network {peer}:{port} timeout."], None,
                     "paddle/phi/core/distributed/store/tcp_utils.cc:" + str(pick(r, (118, 126))), "nccl",
                     py_frames=frames_user(c, deep=False) + [(f"{c.pkg}/distributed/parallel.py", pick(r, (1084, 1119)),
                                                               "init_parallel_env", "store = core.create_or_get_global_tcp_store()")],
                     long_p=0.3)
    elif v == "nccl_remote_error":
        paddle_error(c, "External", ["NCCL error(6), remote process exited or there was a network error. "],
                     "'ncclRemoteError'. A call failed possibly due to a network error or a remote process exiting "
                     "prematurely. ", "paddle/phi/core/distributed/nccl_comm_context.cc:" + str(pick(r, (81, 203))), "nccl",
                     py_frames=frames_user(c) + [(f"{c.pkg}/distributed/communication/all_reduce.py", 115, "all_reduce",
                                                  "return stream.all_reduce(")])
    elif v == "unhandled_cuda":
        em.out(f"{p} NCCL WARN Cuda failure 'peer access is not supported between these two devices'",
               f"{p} NCCL INFO init.cc:1235 -> 1")
        paddle_error(c, "External", ["NCCL error(1), unhandled cuda error. "],
                     "'ncclUnhandledCudaError'. Call to CUDA function failed. ",
                     "paddle/fluid/distributed/collective/process_group_nccl.cc:" + str(pick(r, (1149, 1206))), "nccl")
    elif v == "nccl_1x":
        py_tb(c, frames_user(c, deep=False))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "OSError: ")
        cpp_tb_1x(c, ["paddle::platform::NCCLContextMap::NCCLContextMap", "paddle::framework::ParallelExecutor::ParallelExecutor"],
                  ["Error: NCCL error 2, unhandled system error at (/paddle/paddle/fluid/platform/nccl_helper.h:115)",
                   ""])
    else:
        msg = ["NCCL error(2), unhandled system error. "]
        if c.gen != "1x" and r.random() < 0.35:
            # the fixes Paddle appends whenever errno is ENOSPC or EAGAIN (a stale EAGAIN from a socket, mostly)
            msg = ["Nccl error, unhandled system error, detail: Resource temporarily unavailable",
                   "Please try one of the following solutions:", "1. export NCCL_SHM_DISABLE=1;",
                   "2. export NCCL_P2P_LEVEL=SYS;", "3. Increase shared memory by setting the -shm-size option when "
                   "starting docker container, e.g., setting  -shm-size=2g.", ""]
        paddle_error(c, "External", msg,
                     "'ncclSystemError'. System call (e.g. socket, malloc) or external library call failed or device "
                     "error. It can be also caused by unexpected exit of a remote peer, you can see the log of other "
                     "rank(s) for the cause of the error.", "paddle/phi/core/distributed/nccl_comm_context.cc:" +
                     str(pick(r, (81, 95))) if c.major >= 3 or c.paddle >= "2.5" else
                     "paddle/fluid/platform/device/gpu/nccl_helper.h:" + str(pick(r, (115, 200))), "nccl")
        if r.random() < 0.4:
            em.err("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ")
    if c.launch:
        em.out(f"LAUNCH INFO {em.ts_comma()} Pod failed",
               f"LAUNCH ERROR {em.ts_comma()} Container failed !!!")
    return f"{c.gen}_{v}"


def e_native_crash(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "segv_fatal"), (1.5, "glog_check_abort"), (1 if c.gen in ("1x", "20") else 0.5, "segv_1x"),
                  (1, "free_invalid"), (0.7, "illegal_instruction"), (0.6, "sigbus_not_shm")])
    if v == "segv_fatal":
        fatal_signal(c, "SIGSEGV", "Segmentation fault",
                     cpp_frames(c, pick(r, ("conv", "eager", "exec"))) if r.random() < 0.7 else None)
        if r.random() < 0.5:
            em.err(c.shell("Segmentation fault (core dumped)"))
    elif v == "glog_check_abort":
        glog_fatal(c, pick(r, ("custom_operator.cc:" + str(pick(r, (117, 276))), "tensor.cc:" + str(pick(r, (75, 143))),
                               "kernel_context.h:" + str(pick(r, (104, 115))))),
                   pick(r, ("Check failed: ctx.InputRangeAt(i).first < ctx.InputRangeAt(i).second ",
                            "Check failed: holder_ != nullptr Tensor holds no memory. Call Tensor::mutable_data first.",
                            "Check failed: 0 == cudaStreamSynchronize(stream) (0 vs. 700) ")),
                   [*GLOG_FAIL_FRAMES, "paddle::framework::RunKernelFunc()",
                    "custom_setup_ops::RoIAlignRotatedForward()"])
        if c.major >= 2 and r.random() < 0.6:
            fatal_signal(c, "SIGABRT", "Process abort signal")
    elif v == "segv_1x":
        t = em.unix()
        em.block([f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                  "PC: @                0x0 (unknown)",
                  f"*** SIGSEGV (@0x0) received by PID {em.pid} (TID {c.hexaddr()}) from PID 0; stack trace: ***"] +
                 [f"    @     {c.hexaddr()} {f}" for f in ("(unknown)", "paddle::framework::Tensor::mutable_data()",
                                                          "paddle::operators::CUDNNConvOpKernel<>::Compute()", "(unknown)")])
        em.err(c.shell("Segmentation fault (core dumped)"))
    elif v == "sigbus_not_shm":
        # a SIGBUS from a custom op built with another toolchain or a memory-mapped file cut under it prints the
        # same "Bus error" as a full /dev/shm, where /dev/shm is roomy (users paste its df to say so) or no worker runs
        if r.random() < 0.6:
            df_dev_shm(c, roomy=True)
        elif r.random() < 0.5:
            em.out(pick(r, ("DataLoader num_workers=0 already, still crashes", "num_workers=0 use_shared_memory=False")))
        if c.major >= 2:
            fatal_signal(c, "SIGBUS", "Access to an undefined portion of a memory object",
                         ["paddle::pybind::eager_api_run_custom_op(_object*, _object*, _object*)",
                          "paddle::framework::RunKernelFunc(...)",
                          pick(r, ("RotatedIouSimilarityForward(paddle::Tensor const&, paddle::Tensor const&)",
                                   "custom_setup_ops::RoIAlignRotatedForward()", "MatrixNmsKernel<float>(...)"))])
        em.err(c.shell("Bus error (core dumped)"))
    elif v == "free_invalid":
        em.err(pick(r, ("free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size")))
        if c.major >= 2 and r.random() < 0.5:
            fatal_signal(c, "SIGABRT", "Process abort signal")
        else:
            em.err(c.shell("Aborted (core dumped)"))
    else:
        if c.major >= 2 and r.random() < 0.5:
            fatal_signal(c, "SIGILL", "Illegal instruction")
        em.err("Illegal instruction (core dumped)")
    return f"{c.gen}_{v}"


def e_disk_full(c: Ctx, path: str = "./output/best_model/model.pdparams") -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(3, "paddle_save_errno28"), (1.5, "logging_error"), (1, "cp_shell"), (1, "sqlite_full"), (1, "vdl_write")])
    if v == "paddle_save_errno28":
        io = f"{c.pkg}/framework/io.py"
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/utils/save_load.py" if c.job != "nlp" else
                                                 f"{c.site}/paddlenlp/trainer/trainer.py", pick(r, (188, 2270)), "save_model",
                                                 f"paddle.save(model.state_dict(), {path!r})" if c.job != "nlp" else
                                                 "self._save(output_dir=output_dir, merge_tensor_parallel=merge_tensor_parallel)"),
                                                (io, pick(r, (780, 792, 839)), "save", "_legacy_save(obj, path, protocol)"),
                                                (io, pick(r, (945, 1009)), "_legacy_save", "f.write(pickle_bytes)")])
        em.err(c.strerror("OSError: [Errno 28] No space left on device"))
    elif v == "logging_error":
        em.block(["--- Logging error ---", "Traceback (most recent call last):",
                  f'  File "/usr/lib/python3.{c.python.split(".")[1]}/logging/__init__.py", line 1087, in emit',
                  "    self.flush()", f'  File "/usr/lib/python3.{c.python.split(".")[1]}/logging/__init__.py", line 1067, in flush',
                  "    self.stream.flush()", c.strerror("OSError: [Errno 28] No space left on device"), "Call stack:"] +
                 [f'  File "{f}", line {ln}, in {fn}\n    {code}'.split("\n")[0] for f, ln, fn, code in frames_user(c)] +
                 ["Message: 'save model in %s'", f"Arguments: ('{path}',)"])
        py_tb(c, frames_user(c, deep=False))
        em.err(c.strerror(f"OSError: [Errno 28] No space left on device: '{path}'"))
    elif v == "cp_shell":
        em.err(f"cp: error writing '/workspace/output/{path.lstrip('./')}': No space left on device")
        em.err(f"tar: /workspace/output/ckpt_{r.randrange(100)}.tar: Wrote only {r.randrange(1, 10) * 512} of 10240 bytes",
               "tar: Error is not recoverable: exiting now")
    elif v == "sqlite_full":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/sqlalchemy/engine/default.py", 924, "do_execute",
                                                 "cursor.execute(statement, parameters)")])
        em.err("sqlite3.OperationalError: database or disk is full")
    else:
        py_tb(c, frames_user(c) + [(f"{c.site}/visualdl/writer/writer.py", pick(r, (118, 132)), "add_scalar",
                                    "self._get_file_writer().add_record(")])
        em.err(c.strerror(f"OSError: [Errno 28] No space left on device: './output/vdl/vdlrecords.{em.unix()}.log'"))
    return f"{c.gen}_{v}"


def e_file_not_found(c: Ctx) -> str:
    r, em = c.rng, c.em
    md = c.model_dir
    v = wpick(r, [(2, "paddle_load_not_exists"), (2 if c.job in ("infer", "serving") else 0.5, "cannot_open_pdmodel"),
                  (2, "python_fnf"), (1 if c.gen in ("1x", "20") else 0.2, "load_op_1x"), (1, "config_missing"),
                  (1.5 if c.chinese else 0, "cn_path_missing"), (0.6, "glob_empty")])
    if v == "glob_empty":   # the job takes the first file its glob finds in a directory left empty
        what = pick(r, ('sorted(glob.glob(os.path.join(model_dir, "*.pdmodel")))[0]',
                        'glob.glob(f"{args.data_dir}/*.jpg")[0]', "os.listdir(ckpt_dir)[0]",
                        'sorted(glob.glob(os.path.join(args.model_dir, "*.pdiparams")))[0]'))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/{pick(r, ('infer.py', 'predict.py', 'utils/io.py'))}",
                                                 pick(r, (33, 58, 91)), pick(r, ("__init__", "load_model", "main")),
                                                 f"model_file = {what}")])
        em.err("IndexError: list index out of range")
        return f"{c.gen}_{v}"
    if v == "cn_path_missing":
        # teams that write Chinese messages say the same in their own asserts and loggers
        what = pick(r, (f"{md}/inference.pdiparams", "./train_data/rec/train_list.txt", "/data/coco/annotations",
                        "configs/det/my_det.yml", "./pretrained/best_accuracy.pdparams"))
        if r.random() < 0.5:
            em.err(f"[{em.ts_slash()}] ppocr ERROR: {pick(r, ('没有找到文件', '找不到文件', '未找到文件'))}: {what}")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/utils/check.py", pick(r, (21, 48)), "check_path",
                                                 "assert os.path.exists(path), f\"{path} 不存在\"")])
        em.err(pick(r, (f"AssertionError: {what} 不存在", f"FileNotFoundError: {pick(r, ('文件', '路径'))} {what} 不存在，请检查路径",
                        f"ValueError: 路径不存在: {what}")))
    elif v == "paddle_load_not_exists":
        ckpt = pick(r, ("./output/best_model/model.pdparams", "/workspace/pretrained/ResNet50_vd_ssld_pretrained.pdparams",
                        "/data/ckpt/latest.pdparams", "./checkpoints/checkpoint-500/model_state.pdparams"))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/framework/io.py", pick(r, (1009, 1107)), "load",
                                                 "raise ValueError(")])
        em.err(f"ValueError: The ``path`` ({ckpt}) to load model not exists.")
    elif v == "cannot_open_pdmodel":
        if r.random() < 0.25:     # an entrypoint (or the user) lists the model directory: the volume is not there
            em.err(f"ls: 无法访问 '{md}': 没有那个文件或目录" if c.zh_shell else f"ls: cannot access '{md}': No such file or directory")
        paddle_error(c, "NotFound", [f"Cannot open file {md}/{pick(r, ('model.pdmodel', 'inference.pdmodel'))}, please confirm "
                                     "whether the file is normal."], None,
                     "paddle/fluid/inference/api/analysis_predictor.cc:" + str(pick(r, (2350, 2580))), "exec", long_p=0.3)
    elif v == "python_fnf":
        f = pick(r, ("/data/coco/annotations/instances_train2017.json", "./train_data/rec/train_list.txt",
                     "/mnt/datasets/ocr/labels.txt", "/workspace/data/train.jsonl"))
        py_tb(c, frames_user(c) [:2] + [(f"{c.workdir}/utils/dataset.py", pick(r, (33, 58)), "__init__",
                                         "with open(file_list, 'r', encoding='utf-8') as f:")])
        em.err(c.strerror(f"FileNotFoundError: [Errno 2] No such file or directory: '{f}'"))
    elif v == "load_op_1x":
        py_tb(c, frames_user(c, deep=False))
        em.err("paddle.fluid.core_avx.EnforceNotMet: " if c.gen == "1x" else "RuntimeError: ")
        # the program file, or one of the parameter files a load op reads beside it
        what = pick(r, ("__model__", "__model__", f"fc_{r.randrange(4)}.b_0", f"conv2d_{r.randrange(40)}.w_0",
                        f"batch_norm_{r.randrange(40)}.w_1"))
        cpp_tb_1x(c, cpp_frames(c, "exec", 4), [f"Error: Cannot open file {md}/{what} for load op at "
                                                 "(/paddle/paddle/fluid/operators/load_op.h:37)", ""])
    else:
        cfg = pick(r, ("configs/rec/PP-OCRv4/ch_PP-OCRv4_rec.yml", "/etc/job/config.yaml", "configs/ppyoloe/ppyoloe_plus_crn_l_80e_coco.yml"))
        py_tb(c, [(frames_user(c, deep=False)[0][0], pick(r, (30, 180)), "<module>", "config = load_config(FLAGS.config)")])
        em.err(c.strerror(f"FileNotFoundError: [Errno 2] No such file or directory: '{cfg}'"))
    return f"{c.gen}_{v}"


def e_unknown(c: Ctx) -> str:
    """A failure that fits no cause of the taxonomy: the log says little or names nothing we know."""
    r, em = c.rng, c.em
    v = wpick(r, [(2, "silent_exit"), (1.5, "deadline_sigterm"), (1, "remote_service"), (0.7, "download_unreachable"),
                  (0.6 if c.major >= 2 else 0, "gpu_lost"), (0.6 if c.job in ("serving", "infer") else 0, "port_taken")])
    if v == "silent_exit":          # the script gave up on its own and only its wrapper says so
        em.err(pick(r, ("Error: training exited abnormally, see above", "[ERROR] job step 'train' failed",
                        f"+ exit {pick(r, (1, 2, 255))}", "make: *** [Makefile:12: train] Error 1")))
    elif v == "deadline_sigterm":   # the scheduler's deadline, not a fault of the job or the node
        if c.major >= 2 and r.random() < 0.5:   # Paddle's own signal handler reports the SIGTERM it was sent
            em.block(["", "", "--------------------------------------", "C++ Traceback (most recent call last):",
                      "--------------------------------------", "No stack trace in paddle, may be caused by external reasons."])
            fatal_signal(c, "SIGTERM", "Termination signal")
        else:
            em.err(pick(r, ("Terminated", "[INFO] received SIGTERM, exiting", "rpc error: code = DeadlineExceeded")))
        said = wpick(r, [(0.5, "scheduler"), (0.15, "sacct"), (0.35, None)])   # who says it was the deadline
        if said and c.launch and r.random() < 0.4:   # the other ranks lose the one torn down first: consequences
            em.err(pick(r, (f"[rank{r.randrange(1, 8)}]: Connection reset by peer",
                            "NCCL WARN NET/Socket : peer closed connection",
                            "ncclRemoteError: A call failed possibly due to a network error or a remote process "
                            "exiting prematurely.")))
        if said == "scheduler":    # what the scheduler says of it (Slurm's time limit, a Kubernetes Job's deadline)
            when = em.ts_iso().replace(" ", "T")
            job = r.randrange(100000, 999999)
            em.err(pick(r, (f"slurmstepd: error: *** JOB {job} ON gpu-node-{r.randrange(1, 40):02d} "
                            f"CANCELLED AT {when} DUE TO TIME LIMIT ***",
                            f"slurmstepd: error: *** STEP {job}.0 ON gpu-node-{r.randrange(1, 40):02d} "
                            f"CANCELLED AT {when} DUE TO TIME LIMIT ***",
                            "Warning  DeadlineExceeded  job-controller  Job was active longer than specified deadline",
                            f"Job {pick(r, ('train', 'ocr-train', 'det-ft'))}-{r.randrange(16**5):05x} failed: DeadlineExceeded")))
        elif said == "sacct":   # only the job's accounting row says so: State TIMEOUT, signal 15
            em.out("$ sacct -j 731204 --format=JobID,State,ExitCode,Elapsed",
                   "       JobID      State ExitCode    Elapsed ", "------------ ---------- -------- ---------- ",
                   f"      731204    TIMEOUT      0:0   {r.randrange(4, 48):02d}:00:{r.randrange(60):02d} ",
                   f"731204.batch  CANCELLED     0:15   {r.randrange(4, 48):02d}:00:{r.randrange(60):02d} ")
    elif v == "download_unreachable":
        # a tool fetches weights it lacks and the cluster has no route to their host (captured:
        # model_download_offline): no cause of the taxonomy, a network outside the container
        url = pick(r, ("https://paddledet.bj.bcebos.com/models/pretrained/ResNet50_cos_pretrained.pdparams",
                       "https://paddleocr.bj.bcebos.com/PP-OCRv4/chinese/ch_PP-OCRv4_det_infer.tar",
                       "https://bj.bcebos.com/paddlenlp/models/transformers/ernie_3.0/ernie_3.0_medium_zh.pdparams"))
        host = url.split("/")[2]
        if r.random() < 0.5:
            for k in range(r.randrange(1, 4)):
                em.err(f"[{em.ts_short()}] ppdet.utils.download WARNING: Download from {url} failed, retry {k + 1}")
                em.adv(r.uniform(5, 60))
            py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/paddle/utils/download.py", pick(r, (185, 200)),
                                                     "_download", 'raise RuntimeError("Download from {} failed. "')])
            em.err(f"RuntimeError: Download from {url} failed. Retry limit reached")
        else:
            em.out(f"download {url} to /root/.cache/{url.rsplit('/', 1)[1]}")
            py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/requests/adapters.py", pick(r, (519, 700)), "send",
                                                     "raise ConnectionError(e, request=request)")])
            why = pick(r, ("Name or service not known", "Temporary failure in name resolution"))
            em.err(f"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{host}', port=443): Max retries "
                   f"exceeded with url: /{url.split('/', 3)[3]} (Caused by NameResolutionError(\"<urllib3.connection."
                   f"HTTPSConnection object at {c.hexaddr()}>: Failed to resolve '{host}' ([Errno -2] {why})\"))")
    elif v == "port_taken":   # the serving app's own port is held by another process: no cause of the taxonomy
        port = pick(r, (8080, 8866, 9292, 8000))
        em.err("INFO:     Started server process [1]", "INFO:     Waiting for application startup.",
               "INFO:     Application startup complete.")
        em.err(f"ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', {port}): address already in use",
               "INFO:     Waiting for application shutdown.", "INFO:     Application shutdown complete.")
    elif v == "gpu_lost":
        # the GPU itself failed mid-run (Xid 79 "fallen off the bus", an uncorrectable ECC error): a node's
        # hardware, no cause of the taxonomy; the kernel error it leaves reads like a job's bad index or
        # a GPU never given, and only the user's dmesg or nvidia-smi after the crash says otherwise
        paddle_error(c, "External", [pick(r, ("CUDA error(719), unspecified launch failure. ", "CUDA error(999), unknown error. ",
                                              "CUDA error(700), an illegal memory access was encountered. "))], None,
                     f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}", "conv")
        bus = f"{pick(r, (0x1a, 0x3b, 0x3d, 0x5e, 0x86, 0xaf, 0xd8)):02x}"
        up = em.ts_iso()
        em.out("")
        dmesg = r.random() < 0.7
        if dmesg:
            em.out(pick(r, ("$ dmesg -T | grep -i nvrm", "宿主机 dmesg:", "dmesg on the node:")))
            if r.random() < 0.7:
                em.out(f"[{up}] NVRM: Xid (PCI:0000:{bus}:00): 79, pid={r.randrange(1000, 4000000)}, GPU has fallen off the bus.")
                em.out(f"[{up}] NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.")
            else:
                em.out(f"[{up}] NVRM: Xid (PCI:0000:{bus}:00): 48, pid={r.randrange(1000, 4000000)}, An uncorrectable double "
                       f"bit error (DBE) has been detected on GPU in the framebuffer at partition {r.randrange(4)}, subpartition 0.")
        if not dmesg or r.random() < 0.4:   # one of the two always says it, or it would be a job's bad index
            em.out("$ nvidia-smi")
            em.out(f"Unable to determine the device handle for GPU 0000:{bus.upper()}:00.0: Unknown Error")
    else:
        py_tb(c, frames_user(c, deep=False) + [(f"{c.site}/requests/adapters.py", pick(r, (519, 565)), "send",
                                                 "raise ConnectionError(e, request=request)")])
        em.err("requests.exceptions.ConnectionError: HTTPConnectionPool(host='metrics-gw.ml.svc', port=8080): Max retries "
               "exceeded with url: /api/v1/push (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object "
               f"at {c.hexaddr()}>: Failed to establish a new connection: [Errno 111] Connection refused'))")
    return f"{c.gen}_{v}"


ERRORS = {
    "cuda_driver_too_old": e_cuda_driver_too_old, "gpu_not_visible": e_gpu_not_visible,
    "cuda_lib_missing": e_cuda_lib_missing, "gpu_arch_unsupported": e_gpu_arch_unsupported,
    "system_lib_missing": e_system_lib_missing, "shm_exhausted": e_shm_exhausted, "gpu_oom": e_gpu_oom,
    "host_oom": e_host_oom, "model_version_incompatible": e_model_version_incompatible,
    "api_incompatible": e_api_incompatible, "python_dependency_conflict": e_python_dependency_conflict,
    "distributed_comm_failure": e_distributed_comm_failure, "native_crash": e_native_crash, "disk_full": e_disk_full,
    "file_not_found": e_file_not_found, "code_error": e_code_error, "unknown": e_unknown,
}
ERRORS = {cat: with_families(cat, fn) for cat, fn in ERRORS.items()}

# When in a run each failure strikes: import (before Paddle prints anything), device (first GPU use),
# load (model/data loading), step (during the progress loop), save (at a checkpoint)
PHASE = {
    "system_lib_missing": "import", "python_dependency_conflict": "import", "api_incompatible": "import",
    "gpu_not_visible": "device", "cuda_driver_too_old": "device", "gpu_arch_unsupported": "load",
    "cuda_lib_missing": "load", "file_not_found": "load", "model_version_incompatible": "load",
    "distributed_comm_failure": "step", "shm_exhausted": "step", "gpu_oom": "step", "host_oom": "step",
    "native_crash": "step", "unknown": "step", "disk_full": "save", "code_error": "step",
}


