"""Rarer signatures the rules know but no other form renders: so the model sees each rule fire on its own
category at least sometimes (a rule id the training data never shows has no weight, and the model then
overrules a definitive rule with whatever it learned from the rest). One function per family; each is
mixed into a category's renderer through ``pipeline.simulate_families.FAMILIES``.
"""
from __future__ import annotations

from pipeline.simulate_text import (
    Ctx,
    dataloader_dir,
    fatal_signal,
    frames_user,
    nvidia_smi,
    paddle_error,
    pick,
    py_tb,
    vt,
    wpick,
)

# ---- gpu_not_visible: a GPU the container cannot use, said by CUDA's own codes or by the tools


def f_gpu_unusable(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1.2, "init_error3"), (1, "busy46"), (0.8, "stub34"), (1, "smi_no_devices"), (1, "visible_empty")])
    if v == "init_error3":      # /dev/nvidia* not mounted, or CUDA touched before the DataLoader forked
        paddle_error(c, "External", ["CUDA error(3), initialization error. "],
                     "'cudaErrorInitializationError'. The API call failed because the CUDA driver and runtime could not "
                     "be initialized. ", "paddle/phi/backends/gpu/cuda/cuda_info.cc:" + str(pick(r, (66, 240))), "device")
    elif v == "busy46":         # exclusive-process compute mode and another process holds the GPU
        paddle_error(c, "External", ["CUDA error(46), all CUDA-capable devices are busy or unavailable. "],
                     "'cudaErrorDevicesUnavailable'. This indicates that all CUDA devices are busy or unavailable at "
                     "the current time. Devices are often busy/unavailable due to use of cudaComputeModeProhibited, "
                     "cudaComputeModeExclusiveProcess, or when long running CUDA kernels have filled up the GPU and "
                     "are blocking new work from starting. ", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    elif v == "stub34":         # LD_LIBRARY_PATH points at the toolkit's stubs/libcuda.so instead of the driver's
        em.out(f"LD_LIBRARY_PATH=/usr/local/cuda-{c.cuda}/lib64/stubs:/usr/local/cuda/lib64:/usr/local/nvidia/lib64")
        paddle_error(c, "External", ["CUDA error(34), CUDA driver is a stub library. "],
                     "'cudaErrorStubLibrary'. This indicates that the CUDA driver that the application has loaded is a "
                     "stub library. Applications that run with the stub rather than a real driver loaded will result "
                     "in CUDA API returning this error. ", "paddle/phi/backends/gpu/cuda/cuda_info.cc:66", "device")
    elif v == "smi_no_devices":  # the entrypoint's nvidia-smi, then the job's own check
        em.out("+ nvidia-smi", "No devices were found")
        if r.random() < 0.5:
            em.out("+ python -c 'import paddle; paddle.utils.run_check()'")
            em.err("Running verify PaddlePaddle program ... ")
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/device/__init__.py", 301, "set_device",
                                                 "place = _convert_to_place(device)")])
        em.err("ValueError: The device id 0 exceeds gpu card number 0")
    else:                       # a pod scheduled without a GPU: NVIDIA_VISIBLE_DEVICES=void, CUDA_VISIBLE_DEVICES=""
        em.glog("W", f"gpu_info.cc:{pick(r, (90, 103))}", "CUDA_VISIBLE_DEVICES is set to be empty. No GPU detected.")
        paddle_error(c, "Unavailable", ["Place CUDAPlace(0) is not supported, Please check that your paddle compiles "
                                        "with WITH_GPU option or check that your train process hold the correct gpu_id "
                                        "if you use Executor"], None, "paddle/phi/device_context.cc:67", "exec",
                     loc_old="paddle/fluid/platform/device_context.cc:67")
    return f"gpu_unusable_{v}"


def f_gpu_taken(c: Ctx) -> str:
    """A GPU shared with other tenants (time-slicing, another pod given the same device): nvidia-smi in the pod
    shows its memory all but used, by no process it can see; the job fails at its first allocations, often in
    words that name no memory (cuBLAS not initialized: its handle could not get device memory)."""
    r = c.rng
    total = int(c.gpu_mem_gb * 1024)
    c.em.out("$ nvidia-smi")
    nvidia_smi(c, total - r.randrange(40, min(900, total // 10)))
    v = wpick(r, [(2, "cublas_init"), (1, "cudnn_alloc"), (1, "small_alloc")])
    if v == "cublas_init":
        paddle_error(c, "External", ["CUBLAS error(1). "], "'CUBLAS_STATUS_NOT_INITIALIZED'. The cuBLAS library was not "
                     "initialized. This is usually caused by the lack of a prior cublasCreate() call, an error in the "
                     "CUDA Runtime API called by the cuBLAS routine, or an error in the hardware setup.",
                     f"paddle/phi/backends/gpu/gpu_resources.cc:{pick(r, (290, 271))}", "device")
    elif v == "cudnn_alloc":
        paddle_error(c, "External", ["CUDNN error(2), CUDNN_STATUS_ALLOC_FAILED. "],
                     "'CUDNN_STATUS_ALLOC_FAILED'. Resource allocation failed inside the cuDNN library. ",
                     f"paddle/phi/backends/gpu/gpu_resources.cc:{pick(r, (298, 305))}", "device")
    else:
        mb = pick(r, (2.0, 4.0, 64.0, 256.0))
        paddle_error(c, "ResourceExhausted", [f"Out of memory error on GPU 0. Cannot allocate {mb:.6f}MB memory on GPU 0, "
                                              f"0.000000B memory has been allocated and available memory is only "
                                              f"{r.uniform(0.5, 1.9):.6f}MB.", "",
                                              "Please check whether there is any other process using GPU 0."],
                     None, "paddle/phi/core/memory/allocation/cuda_allocator.cc:86", "alloc")
    return f"gpu_taken_{v}"


# ---- cuda_driver_too_old: the host's driver too old, said by the container runtime or by Paddle's own note


def f_driver_requirement(c: Ctx) -> str:
    r, em = c.rng, c.em
    # minor-version compatibility (CUDA >= 11) lets a driver of the same major run a newer runtime: only a major
    # gap, or any gap before 11, is too old
    if c.driver_api.split(".")[0] != c.cuda.split(".")[0] and vt(c.driver_api) < vt(c.cuda):
        have, need = c.driver_api, c.cuda
    else:
        have, need = pick(r, (("11.4", "12.0"), ("11.2", "12.2"), ("11.8", "12.4"), ("10.2", "11.2"), ("10.1", "10.2"),
                              ("11.0", "12.1")))
    v = wpick(r, [(1, "container_cli"), (1.2, "driver_api_note")])
    if v == "container_cli":    # the NVIDIA hook refuses to start the container: the pod's events / docker's stderr
        pre = pick(r, ("docker: Error response from daemon: failed to create task for container: failed to create shim "
                       "task: OCI runtime create failed: runc create failed: unable to start container process: ",
                       "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: "
                       "runc create failed: unable to start container process: "))
        em.err(pre + "error during container init: error running hook #0: error running hook: exit status 1, stdout: , "
               "stderr: Auto-detected mode as 'legacy'",
               f"nvidia-container-cli: requirement error: unsatisfied condition: cuda>={need}, please update your driver "
               "to a newer version, or use an earlier cuda container: unknown.")
        return "driver_requirement_container_cli"
    # Paddle's note shows the driver older than the runtime; what fails next is often a cryptic error or a crash
    loc = f"gpu_resources.cc:{pick(r, (61, 119))}" if c.major >= 3 or c.paddle >= "2.3" else f"device_context.cc:{pick(r, (254, 362))}"
    em.glog("W", loc, f"Please NOTE: device: 0, GPU Compute Capability: {c.cc}, Driver API Version: {have}, "
            f"Runtime API Version: {need}")
    em.glog("W", loc.split(":")[0] + f":{pick(r, (74, 96))}", f"device: 0, cuDNN Version: {c.cudnn.replace('.', '')[:2]}.")
    if r.random() < 0.5:
        fatal_signal(c, "SIGSEGV", "Segmentation fault", ["paddle::platform::CUDADeviceContext::Init()"]
                     if c.major < 3 else None)
        return "driver_requirement_note+segv"
    paddle_error(c, "External", [pick(r, ("CUBLAS error(1), CUBLAS_STATUS_NOT_INITIALIZED. ",
                                          "CUDA error(999), unknown error. "))],
                 None, "paddle/phi/backends/gpu/gpu_resources.cc:" + str(pick(r, (199, 237))), "device")
    return "driver_requirement_note"


# ---- cuda_lib_missing: cuDNN present but unusable, or no CUDA toolkit where a custom op is compiled


def f_cudnn_unusable(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1, "version_mismatch"), (1.2, "not_initialized_after_warning"), (0.8, "not_initialized"),
                  (1.2, "zlibwapi"), (1 if c.major >= 2 else 0, "segv_after_warning")])
    if v == "zlibwapi":            # cuDNN >= 8.3 on Windows needs ZLIB's DLL beside it; it exits at the first conv
        _cudnn8_device_lines(c)
        em.err("Could not locate zlibwapi.dll. Please make sure it is in your library path!")
        return "cudnn_zlibwapi"
    if v == "version_mismatch":    # cuDNN 9's sub-libraries from two installs
        paddle_error(c, "External", ["CUDNN error(12), CUDNN_STATUS_VERSION_MISMATCH. "],
                     "'CUDNN_STATUS_VERSION_MISMATCH'. Some cuDNN sub-library has a different version from the others.",
                     "paddle/phi/kernels/gpudnn/conv_kernel.cu:" + str(pick(r, (237, 401))), "conv")
        return "cudnn_version_mismatch"
    if v == "segv_after_warning":  # an older cuDNN major first on the library path (a conda env's): the
        # first convolution's algorithm search calls into it and the process dies of a segfault
        have = pick(r, ("7.6", "7.6", "8.0", "8.1")) if vt("8.2") < vt(c.cudnn) else "7.1"
        em.glog("W", "gpu_resources.cc:149", f"device: 0, cuDNN Version: {have}.")
        em.glog("W", f"gpu_resources.cc:{pick(r, (164, 178, 196))}", f"WARNING: device: 0. The installed Paddle is "
                f"compiled with CUDNN {c.cudnn}, but CUDNN version in your machine is {have}, which may cause serious "
                "incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.")
        fatal_signal(c, "SIGSEGV", "Segmentation fault", frames=[
            "paddle::framework::StandaloneExecutor::Run(std::vector<std::string, std::allocator<std::string> > const&, bool)"
            if c.major >= 3 else "paddle::imperative::Tracer::TraceOp(...)",
            "void phi::ConvCudnnKernel<float, phi::GPUContext>(phi::GPUContext const&, phi::DenseTensor const&, "
            "phi::DenseTensor const&, ...)",
            "phi::SearchAlgorithm<phi::ConvKind::kForward>::Find<float>(phi::GPUContext const&, ...)",
            pick(r, ("cudnnGetConvolutionForwardAlgorithm_v7", "cudnnFindConvolutionForwardAlgorithmEx")),
            "cudnnGetConvolutionForwardAlgorithmMaxCount"])
        return "cudnn_warning+segv"   # exits as the segfault it died of (139)
    if v == "not_initialized_after_warning":
        have = pick(r, ("7.6", "8.0", "8.1")) if vt("8.2") < vt(c.cudnn) else "7.3"
        em.glog("W", f"gpu_resources.cc:{pick(r, (164, 196))}", f"WARNING: device: 0. The installed Paddle is compiled "
                f"with CUDNN {c.cudnn}, but CUDNN version in your machine is {have}, which may cause serious "
                "incompatible bug. Please recompile or reinstall Paddle with compatible CUDNN version.")
    paddle_error(c, "External", ["CUDNN error(1), CUDNN_STATUS_NOT_INITIALIZED. "],
                 "'CUDNN_STATUS_NOT_INITIALIZED'. The cuDNN library was not initialized properly. This error is "
                 "usually returned when a call to cudnnCreate() fails or when cudnnCreate() has not been called prior "
                 "to calling another cuDNN routine. ", "paddle/phi/backends/gpu/gpu_resources.cc:" + str(pick(r, (298, 312))),
                 "conv")
    return f"cudnn_{v}"


def _cudnn8_device_lines(c: Ctx) -> None:
    c.em.glog("W", "gpu_resources.cc:119", f"Please NOTE: device: 0, GPU Compute Capability: {c.cc}, Driver API "
              f"Version: {c.driver_api}, Runtime API Version: {c.cuda}")
    c.em.glog("W", "gpu_resources.cc:149", f"device: 0, cuDNN Version: 8.{pick(c.rng, (4, 6, 9))}.")


def f_cudnn_sublib_abort(c: Ctx) -> str:
    """cuDNN 8 loads its sub-libraries at the first conv: an image that copied libcudnn.so alone aborts there."""
    r, em = c.rng, c.em
    _cudnn8_device_lines(c)
    lib = pick(r, ("libcudnn_cnn_infer.so.8", "libcudnn_ops_infer.so.8", "libcudnn_cnn_train.so.8", "libcudnn_adv_infer.so.8"))
    em.err(f"Could not load library {lib}. Error: {lib}: cannot open shared object file: No such file or directory")
    if c.major >= 2 and r.random() < 0.7:
        fatal_signal(c, "SIGABRT", "Process abort signal", ["paddle::framework::Executor::Run",
                                                             "phi::ConvCudnnKernel<float, phi::GPUContext>"]
                     if r.random() < 0.5 else None)
    else:
        em.err(c.shell("Aborted (core dumped)"))
    return "cudnn_sublib_abort"


def f_custom_op_no_toolkit(c: Ctx) -> str:
    """A custom operator compiled at run time (paddle.utils.cpp_extension) in a runtime image without the toolkit."""
    r, em = c.rng, c.em
    src = pick(r, ("custom_relu_op.cu", "ms_deform_attn_op.cu", "rotated_iou_op.cu", "fused_rope_op.cu"))
    em.out("Compiling user custom op, it will cost a few seconds.....")
    v = wpick(r, [(1, "header"), (1, "nvcc")])
    if v == "header":
        em.err(f"/workspace/ext_op/{src}:15:10: fatal error: cuda_runtime.h: No such file or directory",
               "   15 | #include <cuda_runtime.h>", "      |          ^~~~~~~~~~~~~~~~", "compilation terminated.")
    else:
        em.err(f"/bin/sh: 1: {pick(r, ('/usr/local/cuda/bin/nvcc', 'nvcc'))}: not found")
    py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/utils/cpp_extension/cpp_extension.py", pick(r, (1030, 1079)),
                                             "load", "_jit_compile(file_path, verbose)"),
                                            (f"{c.pkg}/utils/cpp_extension/extension_utils.py", pick(r, (1197, 1230)),
                                             "_jit_compile", "raise RuntimeError(")])
    em.err("RuntimeError: Failed to compile custom operator. Please check the compile error above.")
    return f"custom_op_no_toolkit_{v}"


# ---- system_lib_missing: an OS package the image lacks (compiler, headers, command-line tools)


def f_os_package_missing(c: Ctx) -> str:
    r, em, site = c.rng, c.em, c.site
    py = c.python
    v = wpick(r, [(1, "gcc"), (1, "python_h"), (1, "ffmpeg"), (0.6, "sox")])
    if v in ("gcc", "python_h"):
        pkg = pick(r, ("pycocotools", "lap", "lanms-neo", "Polygon3", "cython_bbox"))
        em.out(f"Collecting {pkg}", f"  Downloading {pkg}-{pick(r, ('2.0.7', '0.4.0', '1.0.2', '3.0.9'))}.tar.gz (24 kB)",
               "  Preparing metadata (setup.py) ... done", f"Building wheels for collected packages: {pkg}",
               f"  Building wheel for {pkg} (setup.py) ... error", "  error: subprocess-exited-with-error")
        if v == "gcc":
            em.err("  running build_ext", f"  building '{pkg.replace('-', '_')}._ext' extension",
                   pick(r, ("  error: command 'gcc' failed: No such file or directory",
                            "  unable to execute 'x86_64-linux-gnu-gcc': No such file or directory",
                            "  error: command 'x86_64-linux-gnu-gcc' failed with exit status 1: No such file or directory")))
        else:
            em.err(f"  {pkg.replace('-', '_')}/_mask.c:6:10: fatal error: Python.h: No such file or directory",
                   "      6 | #include \"Python.h\"", "        |          ^~~~~~~~~~", "  compilation terminated.",
                   "  error: command '/usr/bin/x86_64-linux-gnu-gcc' failed with exit code 1")
        em.err(f"  ERROR: Failed building wheel for {pkg}",
               f"ERROR: Could not build wheels for {pkg}, which is required to install pyproject.toml-based projects")
        return f"os_package_{v}"
    if v == "ffmpeg":    # audio / video decoding shells out to ffmpeg
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/paddlespeech/cli/asr/infer.py", pick(r, (243, 267)), "preprocess",
                                                 "audio, audio_sample_rate = soundfile.read("),
                                                (f"{site}/pydub/audio_segment.py", pick(r, (728, 766)), "from_file",
                                                 "p = subprocess.Popen(conversion_command, stdin=stdin_parameter,"),
                                                (f"/usr/lib/python{py}/subprocess.py", 1863, "_execute_child",
                                                 "raise child_exception_type(errno_num, err_msg, err_filename)")])
        if r.random() < 0.5:
            em.err(f"{site}/pydub/utils.py:170: RuntimeWarning: Couldn't find ffmpeg or avconv - defaulting to ffmpeg, "
                   "but may not work")
        em.err("FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'")
        return "os_package_ffmpeg"
    em.err("/bin/sh: 1: sox: not found")
    py_tb(c, frames_user(c, deep=False) + [(f"{site}/paddlespeech/s2t/frontend/augmentor/speed_perturb.py", 130,
                                             "transform_audio", "audio.change_speed(speed_rate)")])
    em.err("RuntimeError: sox failed with exit status 127")
    return "os_package_sox"


# ---- gpu_arch_unsupported: a kernel or dtype that needs a newer GPU generation


def f_feature_needs_newer_gpu(c: Ctx) -> str:
    r, em, site = c.rng, c.em, c.site
    v = wpick(r, [(1, "flash_attn"), (1, "bf16")])
    if v == "flash_attn":
        py_tb(c, frames_user(c) + [(f"{site}/paddlenlp/transformers/llama/modeling.py", pick(r, (268, 311)),
                                    "scaled_dot_product_attention", "attn_output = F.scaled_dot_product_attention("),
                                   (f"{c.pkg}/nn/functional/flash_attention.py", pick(r, (444, 1152)),
                                    "scaled_dot_product_attention", "out, _ = flash_attention(")])
        em.err(pick(r, ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
                        f"RuntimeError: (PreconditionNotMet) FlashAttention requires compute capability >= 8.0, but this "
                        f"device is sm_{c.cc.replace('.', '')}.")))
    else:
        py_tb(c, frames_user(c) + [(f"{c.pkg}/amp/auto_cast.py", pick(r, (509, 771)), "amp_guard",
                                    "raise ValueError(")])
        em.err(f"ValueError: bfloat16 is only supported on GPUs with compute capability >= 8.0, this GPU is "
               f"sm_{c.cc.replace('.', '')}")
    return f"feature_needs_newer_gpu_{v}"


# ---- shm_exhausted: Python's multiprocessing semaphores and queues live in /dev/shm too


def f_shm_semaphores(c: Ctx) -> str:
    r, em = c.rng, c.em
    lib = f"/usr/lib/python{c.python}/multiprocessing"
    py_tb(c, frames_user(c) + [(f"{dataloader_dir(c)}/dataloader_iter.py", pick(r, (380, 515)), "_init_workers",
                                "indices_queue = multiprocessing.Queue()"),
                               (f"{lib}/context.py", 103, "Queue", "return Queue(maxsize, ctx=self.get_context())"),
                               (f"{lib}/queues.py", 43, "__init__", "self._rlock = ctx.Lock()"),
                               (f"{lib}/synchronize.py", pick(r, (57, 59)), "__init__",
                                "unlink_now)" if r.random() < 0.5 else "kind, value, maxvalue, self._make_name(),")])
    em.err(c.strerror("OSError: [Errno 28] No space left on device"))
    return "shm_semaphores"


# ---- model_version_incompatible: weights or programs another version wrote, and converters that refuse them


def f_model_format_mismatch(c: Ctx) -> str:
    r, em, site = c.rng, c.em, c.site
    v = wpick(r, [(1, "shape_not_matching"), (1 if c.major >= 2 else 0, "pir_json"), (1, "converter")])   # (PIR: 3.x tools)
    if v == "shape_not_matching":    # a pretrained checkpoint of another release of the model zoo
        shape = pick(r, (("(96, 3, 3, 3)", "(64, 3, 3, 3)"), ("(512, 6625)", "(512, 6623)"), ("(2048, 1000)", "(1280, 1000)")))
        if c.gen in ("1x", "20"):
            py_tb(c, frames_user(c) + [(f"{c.pkg}/fluid/io.py", pick(r, (1893, 2025)), "load",
                                        "raise RuntimeError(\"Shape not matching: the Program requires a parameter\"")])
            em.err(f"RuntimeError: Shape not matching: the Program requires a parameter with a shape of ({shape[0]}), "
                   f"while the loaded parameter (namely [ conv1_weights ]) has a shape of  ({shape[1]}).")
        else:
            name = pick(r, ("backbone.conv1._conv.weight", "head.fc.weight", "ctc_head.fc.weight"))
            em.err(f"{c.pkg}/nn/layer/layers.py:{pick(r, (1937, 2184))}: UserWarning: Skip loading for {name}. {name} "
                   f"receives a shape [{shape[1][1:-1]}], but the expected shape is [{shape[0][1:-1]}].",
                   "  warnings.warn(f\"Skip loading for {key}. \" + str(err))")
            py_tb(c, frames_user(c) + [(f"{c.pkg}/nn/layer/layers.py", pick(r, (2121, 2201)), "set_state_dict",
                                        "raise ValueError(")])
            em.err(f"ValueError: {name} receives a shape [{shape[1][1:-1]}], but the expected shape is [{shape[0][1:-1]}].")
        return f"model_format_{v}"
    if v == "pir_json":              # a 3.x pipeline given a model exported as .pdmodel
        md = pick(r, ("./inference/det", "./output/inference", "/models/PP-OCRv4_server_rec"))
        em.out(f"model_dir: {md}", f"  {md}/inference.pdiparams", f"  {md}/inference.pdmodel", f"  {md}/inference.yml")
        paddle_error(c, "NotFound", [f"Cannot open file {md}/inference.json, please confirm whether the file is normal."],
                     "Expected static_cast<bool>(fin.is_open()) == true, but received static_cast<bool>(fin.is_open()):0 "
                     "!= true:1.", "paddle/fluid/jit/serializer_utils.cc:104", "exec")
        return "model_format_pir_json"
    w = wpick(r, [(1, "paddle2onnx"), (1, "onnx_ir"), (0.8, "trt_plan")])
    if w == "paddle2onnx":
        em.out("[Paddle2ONNX] Start to parse PaddlePaddle model...", "[Paddle2ONNX] Model file path: ./inference.pdmodel")
        em.err(f"[ERROR] Oops, there are some operators not supported yet, including "
               f"{pick(r, ('multiclass_nms3,', 'set_value,', 'grid_sampler,roi_align,', 'deformable_conv,'))}",
               "[ERROR] Due to the unsupported operators, the conversion is aborted.")
    elif w == "onnx_ir":
        py_tb(c, frames_user(c, deep=False) + [(f"{site}/onnxruntime/capi/onnxruntime_inference_collection.py", 472,
                                                 "_create_inference_session",
                                                 "sess = C.InferenceSession(session_options, self._model_path, True, self._read_config_from_model)")])
        em.err("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from "
               f"model.onnx failed:Unsupported model IR version: {pick(r, (9, 10))}, max supported IR version: 8")
    else:
        em.err(f"[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::{pick(r, (32, 40))}] Error Code 1: Serialization "
               f"(Serialization assertion stdVersionRead == serializationVersion failed.Version tag does not match. Note: "
               f"Current Version: {pick(r, (232, 236, 237))}, Serialized Engine Version: {pick(r, (213, 226))})",
               "[TRT] [E] 4: [runtime.cpp::deserializeCudaEngine::66] Error Code 4: Internal Error (Engine deserialization failed.)")
        em.glog("E", "engine.cc:455", "Building TRT cuda engine failed when deserializing engine info.")
    return f"model_format_converter_{w}"


# ---- api_incompatible: static-graph code run under 2.x's dynamic default


def f_static_api_in_dygraph(c: Ctx) -> str:
    r, em = c.rng, c.em
    api = pick(r, ("paddle.static.data", "fluid.data", "fluid.layers.data", "paddle.static.nn.fc"))
    py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/static/input.py", pick(r, (189, 240)), "data",
                                             "helper = LayerHelper('data', **locals())")])
    em.err(pick(r, (f"RuntimeError: {api}() is only supported in static graph mode. Please call paddle.enable_static() "
                    "before this api.",
                    f"AssertionError: In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '{api}()' is "
                    "only supported in static graph mode. So if you want to use this api, please call "
                    "'paddle.enable_static()' before this api to enter static graph mode.")))
    return "static_api_in_dygraph"


# ---- python_dependency_conflict: a Paddle toolkit at another version than the code expects


def f_toolkit_module_changed(c: Ctx) -> str:
    r, em, site = c.rng, c.em, c.site
    mod, name = pick(r, (("paddlenlp.transformers", "AutoModelForCausalLM"), ("paddlenlp.trainer", "PdArgumentParser"),
                         ("paddleocr", "PPStructure"), ("ppdet.core.workspace", "create"), ("paddlex", "create_model")))
    py_tb(c, frames_user(c, deep=False))
    em.err(pick(r, (f"AttributeError: module '{mod}' has no attribute '{name}'",
                    f"ModuleNotFoundError: No module named '{mod.split('.')[0]}.{pick(r, ('tools', 'utils.log', 'ppstructure'))}'")))
    em.out(f"pip show {mod.split('.')[0]}: Version: {pick(r, ('2.5.2', '2.8.0', '3.0.0', '2.7.1'))}  Location: {site}")
    return "toolkit_module_changed"


# ---- distributed_comm_failure: the launcher's master, NCCL that never finishes its setup, MPI, a missing init


def f_launch_and_init(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1 if c.major >= 2 else 0, "master_sync"), (1, "nccl_setup_hangs"), (0.8, "not_initialized"),
                  (0.6, "mpi_peer_lost")])
    host = c.extra.get("hostname", "trainer-0")
    if v == "master_sync":       # the launcher's HTTP/etcd master answered nothing: peers' info is None
        em.out(f"LAUNCH INFO {em.ts_comma()} Job: default, mode collective, replicas 2[2:2], elastic False",
               f"LAUNCH INFO {em.ts_comma()} Waiting peer start...")
        py_tb(c, [(f"{c.pkg}/distributed/launch/main.py", 324, "launch", "ctx, c = controllers.init(ctx)"),
                  (f"{c.pkg}/distributed/launch/controllers/collective.py", pick(r, (185, 202)), "_build_pod_with_master",
                   "peer_list = [json.loads(i) for i in peer_list]"),
                  (f"/usr/lib/python{c.python}/json/__init__.py", 339, "loads",
                   "raise TypeError(f'the JSON object must be str, bytes or bytearray, '")])
        em.err("TypeError: the JSON object must be str, bytes or bytearray, not NoneType")
    elif v == "nccl_setup_hangs":   # NCCL's setup lines, then nothing until the scheduler stops the job
        em.glog("I", "parallel.py:1000" if c.major < 3 else "parallel.py:1101", "init parallel env")
        em.out(f"{host}:{em.pid}:{em.pid} [0] NCCL INFO Bootstrap : Using eth0:{(c.rank_ips or ['10.10.0.2'])[0]}<0>",
               f"NCCL version 2.{pick(r, ('11.4', '14.3', '18.5', '21.5'))}+cuda{c.cuda}",
               f"{host}:{em.pid}:{em.pid + 38} [0] NCCL INFO NET/Socket : Using [0]eth0:{(c.rank_ips or ['10.10.0.2'])[0]}<0>",
               f"{host}:{em.pid}:{em.pid + 38} [0] NCCL INFO Using network Socket")
        em.adv(r.uniform(1800, 7200))
        if r.random() < 0.6:
            em.err("Terminated")
        return "launch_nccl_setup_hangs+wait_forever"
    elif v == "not_initialized":
        py_tb(c, frames_user(c) + [(f"{c.pkg}/distributed/parallel.py", pick(r, (399, 425)), "__init__",
                                    "self._reducer = core.EagerReducer(")])
        em.err(pick(r, ("RuntimeError: (PreconditionNotMet) The comm context of ring_id 0 has not been initialized. "
                        "[Hint: Expected comm_ctx_map_.find(ring_id) != end(), but received not found.]",
                        "RuntimeError: Please call paddle.distributed.init_parallel_env() first before using DataParallel, "
                        "or start the job with python -m paddle.distributed.launch")))
    else:
        em.err("-" * 74, "Primary job  terminated normally, but 1 process returned", "a non-zero exit code. Per user-direction, "
               "the job has been aborted.", "-" * 74, "-" * 74,
               "An MPI communication peer process has unexpectedly disconnected.  This usually indicates a failure in "
               "the peer process (e.g., a crash or otherwise exiting without calling MPI_FINALIZE first).",
               "", f"  Local host:              {host}", f"  Local PID:               {em.pid}",
               f"  Peer host:               {pick(r, ('trainer-1', 'node-02', 'gpu-worker-3'))}", "-" * 74)
    return f"launch_{v}"


# ---- native_crash: Windows reports an access violation as an exit code


def f_windows_crash(c: Ctx) -> str:
    r, em = c.rng, c.em
    v = wpick(r, [(1, "pycharm_exit"), (1, "faulthandler")])
    if v == "faulthandler":
        em.err("Windows fatal exception: access violation", "", "Current thread 0x00003b1c (most recent call first):",
               f'  File "C:\\Users\\user\\anaconda3\\envs\\paddle\\lib\\site-packages\\paddle\\base\\framework.py", line '
               f"{pick(r, (7560, 8211))} in _run_program", '  File "D:\\work\\PaddleOCR\\tools\\infer\\predict_det.py", line 245 in __call__')
    code, hexc = pick(r, (("-1073741819", "0xC0000005"), ("-1073740791", "0xC0000409"), ("-1073741571", "0xC00000FD")))
    em.err(f"Process finished with exit code {code} ({hexc})" if r.random() < 0.7 else
           f"进程已结束，退出代码为 {code} ({hexc})")
    return f"windows_crash_{v}"


# ---- disk_full: a quota rather than a full volume


def f_disk_quota(c: Ctx) -> str:
    r, em = c.rng, c.em
    path = pick(r, ("/home/work/output/model_final.pdparams", "./output/best_accuracy.pdopt", "/ssd1/ckpt/epoch_20.pdparams"))
    py_tb(c, frames_user(c) + [(f"{c.pkg}/framework/io.py", pick(r, (700, 812)), "save", "with _open_file_buffer(path, 'wb') as f:")])
    em.err(c.strerror(f"OSError: [Errno 122] Disk quota exceeded: '{path}'") if r.random() < 0.7 else
           f"cp: 写入 '{path}' 出错: 超出磁盘限额")
    return "disk_quota"


def f_disk_full_then_write_fails(c: Ctx) -> str:
    """The disk fills: ENOSPC is said once, early (GLOG cannot create its log file, pip cannot unpack), and what
    fails at the end is a write that reads like a path or permission problem, often in C++ and aborted."""
    r, em = c.rng, c.em
    first = wpick(r, [(1.2, "glog"), (1, "pip"), (0.8, "docker")])
    if first == "glog":
        em.err("Could not create logging file: No space left on device",
               f"COULD NOT CREATE A LOGGINGFILE {em.ts_iso().replace('-', '').replace(' ', '-').replace(':', '')}.{em.pid}!")
    elif first == "pip":
        em.err(c.strerror("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device"))
    else:
        em.err(f"failed to register layer: write /var/lib/docker/overlay2/{r.getrandbits(64):016x}/diff/usr/local/lib/"
               f"python{c.python}/dist-packages/paddle/libs/libphi.so: no space left on device")
    if c.job in ("infer", "serving") or r.random() < 0.3:
        cache = f"{c.model_dir}/_opt_cache/trt_serialized_{r.getrandbits(60)}"
        em.err("terminate called after throwing an instance of 'phi::enforce::EnforceNotMet'",
               f"  what():  (Unavailable) Fail to open {cache} to write. Please check whether the directory exists and "
               "you have write permission.",
               "  [Hint: Expected static_cast<bool>(outfile) == true, but received static_cast<bool>(outfile):0 != true:1.] "
               "(at /paddle/paddle/fluid/inference/analysis/helper.h:364)", "", c.shell("Aborted (core dumped)"))
        return f"disk_full_then_{first}_write_abort"
    py_tb(c, frames_user(c) + [(f"{c.pkg}/framework/io.py", pick(r, (700, 812)), "save", "with _open_file_buffer(path, 'wb') as f:")])
    em.err(f"OSError: [Errno 5] Input/output error: '{c.workdir}/output/latest.pdparams'" if r.random() < 0.5 else
           f"ValueError: The ``path`` ({c.workdir}/output/latest.pdparams) to save model is not writable.")
    return f"disk_full_then_{first}_save"


# ---- native_crash: two packages that each bundle Intel's OpenMP runtime, loaded into one process


def f_openmp_twice(c: Ctx) -> str:
    """conda's MKL, PyTorch and Paddle wheels each ship libiomp5; loaded into one process, OpenMP aborts."""
    r, em = c.rng, c.em
    windows = r.random() < 0.6
    lib = "libiomp5md.dll" if windows else "libiomp5.so"
    em.err(f"OMP: Error #15: Initializing {lib}, but found {lib} already initialized.",
           "OMP: Hint This means that multiple copies of the OpenMP runtime have been linked into the program. That is "
           "dangerous, since it can degrade performance or cause incorrect results. The best thing to do is to ensure "
           "that only a single OpenMP runtime is linked into the process, e.g. by avoiding static linking of the OpenMP "
           "runtime in any library. As an unsafe, unsupported, undocumented workaround you can set the environment "
           "variable KMP_DUPLICATE_LIB_OK=TRUE to allow the program to continue to execute, but that may cause crashes "
           "or silently produce incorrect results. For more information, please see "
           "http://www.intel.com/software/products/support/.")
    if not windows:
        em.err(c.shell("Aborted (core dumped)"))
    return "openmp_twice"


# ---- python_dependency_conflict: a package Paddle itself imports, at a version this Paddle was not built for


def f_paddle_dependency_version(c: Ctx) -> str:
    r, em = c.rng, c.em
    fw = f"{c.pkg}/{'fluid' if c.fw == 'fluid' else 'jit'}/dy2static" if c.major >= 2 else f"{c.pkg}/fluid/dygraph/dygraph_to_static"
    v = wpick(r, [(1, "gast"), (1, "astor")])
    if v == "gast":     # gast 0.4 (pulled in by TensorFlow) under Paddle 2.0-2.2's dy2static, which pins 0.3.3
        py_tb(c, frames_user(c) + [(f"{fw}/program_translator.py", pick(r, (338, 861)), "__call__",
                                    "concrete_program, partial_program_layer = self.get_concrete_program(*args, **kwargs)"),
                                   (f"{fw}/utils.py", pick(r, (612, 645)), "visit_Subscript",
                                    "if isinstance(node.slice, gast.Index):")])
        em.err("AttributeError: module 'gast' has no attribute 'Index'")
    else:
        py_tb(c, frames_user(c) + [(f"{fw}/origin_info.py", pick(r, (255, 281)), "attach_origin_info",
                                    "source_code = astor.to_source(ast_node)")])
        em.err("AttributeError: module 'astor' has no attribute 'to_source'")
    if r.random() < 0.5:
        em.out(f"ERROR: paddlepaddle-gpu {c.paddle} has requirement {v}==0.3.3, but you'll have {v} 0.4.0 which is incompatible.")
    return f"paddle_dependency_{v}"


# ---- host_oom: an Android device's low-memory killer takes the app that runs Paddle-Lite


def f_android_lmk(c: Ctx) -> str:
    r, em = c.rng, c.em
    app = pick(r, ("com.baidu.paddle.lite.demo.ocr", "com.example.ppocrdemo", "com.company.detector"))
    pid, t = 14000 + r.randrange(5000), em.ts_short().split(" ")[0].replace("/", "-")
    em.out(f"{t} 20:31:44.101 {pid} {pid + 61} I Paddle-Lite: [I  5/ 9 20:31:44.101 ...ite/core/program.cc:270 Run] "
           "Running the program")
    for victim, adj in (("com.android.vending", 905), ("com.tencent.mm", 700), (app, 0))[r.randrange(2):]:
        em.out(f"{t} 20:31:50.{r.randrange(1000):03d}   560   560 I lowmemorykiller: Kill '{victim}' ({r.randrange(3000, 20000)}), "
               f"uid 10{r.randrange(100, 400)}, oom_score_adj {adj} to free {r.randrange(50000, 1800000)}kB rss, "
               f"{r.randrange(10000, 100000)}kB swap; reason: device is low on memory")
    em.out(f"{t} 20:31:50.433  1192  1391 I ActivityManager: Process {app} (pid {pid}) has died: fg  TOP ")
    return "android_lmk"


# ---- disk_full / host_oom: Kubernetes evicts the pod for what its node ran low on (a paste of kubectl describe)


def _pod_evicted(c: Ctx, resource: str) -> None:
    r, em = c.rng, c.em
    pod = f"{pick(r, ('trainer', 'ppocr-rec', 'det-finetune', 'llm-sft'))}-{r.getrandbits(20):05x}"
    if resource == "ephemeral-storage":
        msg = pick(r, (f"The node was low on resource: ephemeral-storage. Threshold quantity: 10%, available: "
                       f"{r.randrange(2_000_000, 20_000_000)}Ki. Container trainer was using {r.randrange(50, 400) * 2**20}Ki, "
                       "request is 0, has larger consumption of ephemeral-storage.",
                       f"Pod ephemeral local storage usage exceeds the total limit of containers {pick(r, (20, 50, 100))}Gi."))
    elif resource == "shm":   # /dev/shm as a memory-backed emptyDir with a sizeLimit, filled by DataLoader workers
        vol = pick(r, ("dshm", "shm", "dev-shm"))
        msg = f'Usage of EmptyDir volume "{vol}" exceeds the limit "{pick(r, ("64Mi", "512Mi", "1Gi", "2Gi"))}".'
    else:
        msg = (f"The node was low on resource: memory. Threshold quantity: 100Mi, available: {r.randrange(20, 99)}Mi. "
               f"Container trainer was using {r.randrange(30, 120)}Gi, which exceeds its request of {pick(r, (8, 16, 32))}Gi.")
    em.out(f"$ kubectl describe pod {pod}", f"Name:             {pod}", "Status:           Failed",
           "Reason:           Evicted", f"Message:          {msg}")
    if resource == "shm":
        em.out("Volumes:", f"  {vol}:", "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)",
               "    Medium:     Memory", f"    SizeLimit:  {msg.rsplit(chr(34), 2)[1]}")
    if r.random() < 0.5:
        em.out("Events:", "  Type     Reason   Age   From     Message", "  ----     ------   ----  ----     -------",
               f"  Warning  Evicted  {r.randrange(2, 50)}m   kubelet  {msg}")


def f_pod_evicted_storage(c: Ctx) -> str:
    """Checkpoints or caches written to the container's writable layer fill the node's disk: the kubelet evicts."""
    _pod_evicted(c, "ephemeral-storage")
    return "pod_evicted_storage"


def f_pod_evicted_shm(c: Ctx) -> str:
    """DataLoader workers fill a memory-backed /dev/shm emptyDir past its sizeLimit: the kubelet evicts."""
    _pod_evicted(c, "shm")
    return "pod_evicted_shm"


def f_pod_evicted_memory(c: Ctx) -> str:
    _pod_evicted(c, "memory")
    return "pod_evicted_memory"


def _pod_terminated(c: Ctx, pod: str, reason: str, events: list[str]) -> None:
    """A paste of `kubectl describe pod` after a restart: the last container's end, its probes, the events."""
    r, em = c.rng, c.em
    mem = pick(r, (8, 16, 32, 64))
    em.out(f"$ kubectl describe pod {pod}", f"Name:             {pod}", "Status:           Running",
           "    State:          Running", "    Last State:     Terminated", f"      Reason:       {reason}",
           "      Exit Code:    137", f"    Restart Count:  {r.randrange(1, 9)}",
           "    Limits:", f"      memory:          {mem}Gi", "      nvidia.com/gpu:  1")
    if c.job in ("infer", "serving") or r.random() < 0.3:   # a probed server, whatever ended it
        em.out(f"    Liveness:   http-get http://:{pick(r, (8080, 8866, 9292))}/health delay=60s timeout=5s period=10s "
               "#success=1 #failure=3")
    if events:
        em.out("Events:", "  Type     Reason     Age   From     Message", "  ----     ------     ----  ----     -------",
               *events)


def f_pod_oomkilled(c: Ctx) -> str:
    """The container's memory limit: Kubernetes says OOMKilled, whatever the log itself shows."""
    r = c.rng
    pod = f"{pick(r, ('ppocr-serving', 'trainer', 'det-infer', 'llm-sft'))}-{r.getrandbits(20):05x}-{r.getrandbits(16):04x}"
    _pod_terminated(c, pod, "OOMKilled", [f"  Warning  BackOff    {r.randrange(1, 50)}m   kubelet  Back-off restarting "
                                          "failed container"] if r.random() < 0.5 else [])
    return "pod_oomkilled"


def f_liveness_killed(c: Ctx) -> str:
    """A server that stopped answering its liveness probe: the kubelet kills it (exit 137, Reason Error, no OOM).
    Nothing in the log names a cause of the taxonomy: a hung server is none of them."""
    r, em = c.rng, c.em
    for _ in range(r.randrange(2, 6)):
        em.out(f'INFO:     10.0.{r.randrange(256)}.{r.randrange(256)}:{r.randrange(30000, 60000)} - "POST /predict HTTP/1.1" 200 OK')
        em.adv(r.uniform(0.5, 30))
    pod = f"{pick(r, ('ppocr-serving', 'paddlex-hps', 'det-infer', 'uie-serving'))}-{r.getrandbits(20):05x}-{r.getrandbits(16):04x}"
    port = pick(r, (8080, 8866, 9292))
    n = r.randrange(3, 20)
    _pod_terminated(c, pod, "Error", [
        f'  Warning  Unhealthy  {r.randrange(2, 50)}m (x{n} over {r.randrange(1, 9)}h)  kubelet  Liveness probe failed: Get '
        f'"http://10.0.{r.randrange(256)}.{r.randrange(256)}:{port}/health": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)",
        f"  Normal   Killing    {r.randrange(2, 50)}m (x{r.randrange(1, 5)} over {r.randrange(1, 9)}h)  kubelet  "
        f"Container {pick(r, ('serving', 'server', 'app'))} failed liveness probe, will be restarted"])
    return "liveness_killed"


# ---- api_incompatible: a C++ deployment written for another Paddle Inference / Paddle-Lite release


def f_cxx_api_compile(c: Ctx) -> str:
    """An inference demo's C++ built against this image's library: the classes it uses moved or are gone."""
    r, em = c.rng, c.em
    src = pick(r, ("/work/deploy/cpp/src/main.cc", "/home/dev/seg_demo/src/main.cc", "src/ocr_det.cpp", "demo/infer.cc"))
    target, obj = pick(r, ('main', 'ppocr', 'demo')), src.split('/')[-1] + ".o"
    em.out(f"[ {r.randrange(10, 60)}%] Building CXX object CMakeFiles/{target}.dir/{obj}")
    v = pick(r, ("legacy", "member", "type"))
    for _ in range(r.randrange(1, 4)):
        line, col = r.randrange(12, 200), r.randrange(3, 40)
        if v == "legacy":      # the Fluid-era API removed in 3.0 (AnalysisConfig is still there)
            em.err(f"{src}:{line}:{col}: error: '{pick(r, ('NativeConfig', 'CreatePaddlePredictor', 'PaddleTensor'))}' "
                   "is not a member of 'paddle'")
        elif v == "member":
            em.err(f"{src}:{line}:{col}: error: 'class paddle_infer::Config' has no member named "
                   f"'{pick(r, ('EnableTensorRtOSS', 'SetTRTDynamicShapeInfo', 'EnableMkldnnInt8', 'pass_builder'))}'")
        else:
            em.err(f"{src}:{line}:{col}: error: '{pick(r, ('Predictor', 'Tensor', 'Config'))}' in namespace 'paddle_infer' "
                   "does not name a type")
    em.err(f"make[2]: *** [CMakeFiles/{target}.dir/build.make:{r.randrange(60, 90)}: CMakeFiles/{target}.dir/{obj}] Error 1",
           f"make[1]: *** [CMakeFiles/Makefile2:83: CMakeFiles/{target}.dir/all] Error 2", "make: *** [Makefile:91: all] Error 2")
    return f"cxx_api_{v}"
