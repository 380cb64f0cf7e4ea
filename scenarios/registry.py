"""Scenario registry for scenarios/capture.py.

Each Scenario is one captured run: which venv (Paddle version), which user-style scripts are
copied into /workspace (and under which name), the command a user would type, optional
setup steps (e.g. export a model with another Paddle version first; their output is not part
of the captured log) and optional fault injection inside a private mount namespace.

`category` is the taxonomy id (shared/taxonomy.md) of what the captured log genuinely shows;
it was checked by reading the captured logs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

BASE = "paddlepaddle/paddle"

# venv name -> how to build it (pip steps, run in order) and what image a container would use
VENVS: dict[str, dict] = {
    "paddle-3.3.1-cpu": {"paddle_version": "3.3.1", "image": f"{BASE}:3.3.1-cpu",
                         "steps": [["paddlepaddle==3.3.1"]]},
    "paddle-3.0.0-cpu": {"paddle_version": "3.0.0", "image": f"{BASE}:3.0.0-cpu",
                         "steps": [["paddlepaddle==3.0.0"]]},
    "paddle-2.6.2-cpu": {"paddle_version": "2.6.2", "image": f"{BASE}:2.6.2-cpu",
                         "steps": [["paddlepaddle==2.6.2"]]},
    "paddle-2.6.2-gpu": {"paddle_version": "2.6.2", "image": f"{BASE}:2.6.2-gpu-cuda11.8-cudnn8.6-trt8.5",
                         "steps": [["paddlepaddle-gpu==2.6.2"]]},
    # opencv-python (GUI build: needs libGL.so.1 and libgthread-2.0.so.0 from the OS)
    "paddle-3.3.1-ocr": {"paddle_version": "3.3.1", "image": "ml-team/paddleocr-train:3.3.1",
                            "steps": [["paddlepaddle==3.3.1", "opencv-python"]]},
    "paddle-2.6.2-ocr": {"paddle_version": "2.6.2", "image": "ml-team/paddleocr-train:2.6.2",
                            "steps": [["paddlepaddle==2.6.2", "opencv-python"]]},
    # an old opencv-python built against numpy 1.x next to numpy 2.x
    "paddle-3.3.1-ocr2": {"paddle_version": "3.3.1", "image": "ml-team/paddleocr-train:3.3.1-r2",
                               "steps": [["paddlepaddle==3.3.1", "numpy>=2"],
                                         ["--no-deps", "opencv-python==4.8.1.78"]]},
    # protobuf older than what paddle's generated *_pb2 modules need
    "paddle-3.3.1-train5": {"paddle_version": "3.3.1", "image": "ml-team/paddle-train:3.3.1-r5",
                           "steps": [["paddlepaddle==3.3.1"], ["--no-deps", "protobuf==3.19.6"]]},
    "paddle-2.6.2-train5": {"paddle_version": "2.6.2", "image": "ml-team/paddle-train:2.6.2-r5",
                           "steps": [["paddlepaddle==2.6.2"], ["--no-deps", "protobuf==3.19.6"]]},
    # old visualdl (generated pb2 files from an old protoc) with a current protobuf
    "paddle-2.6.2-train6": {"paddle_version": "2.6.2", "image": "ml-team/paddle-train:2.6.2-vdl",
                            "steps": [["paddlepaddle==2.6.2"],
                                      ["--no-deps", "visualdl==2.2.3", "bce-python-sdk", "pycryptodome",
                                       "future", "six", "Flask", "flask-babel", "matplotlib", "pandas",
                                       "rarfile", "psutil", "requests", "Werkzeug", "Jinja2",
                                       "itsdangerous", "click", "blinker", "MarkupSafe", "Babel", "pytz",
                                       "python-dateutil", "tzdata", "certifi", "charset-normalizer",
                                       "idna", "urllib3", "contourpy", "cycler", "fonttools",
                                       "kiwisolver", "pyparsing", "packaging"]]},
    # PaddleNLP 2.5.2 (written for Paddle 2.4/2.5) beside Paddle 3.3.1: as pip resolves it today
    # (huggingface_hub 1.x), and with the huggingface_hub it was written against
    "paddle-3.3.1-apps": {"paddle_version": "3.3.1", "image": "ml-team/paddlenlp-finetune:3.3.1",
                          "steps": [["paddlepaddle==3.3.1", "paddlenlp==2.5.2"]]},
    "paddle-3.3.1-apps2": {"paddle_version": "3.3.1", "image": "ml-team/paddlenlp-finetune:3.3.1-r2",
                           "steps": [["paddlepaddle==3.3.1", "paddlenlp==2.5.2", "huggingface_hub==0.11.1"]]},
    # PaddleOCR 2.7.3 (pins opencv-python <= 4.6, built against numpy 1.x) beside Paddle 3.3.1: as pip resolves
    # it today (numpy 2), and with numpy < 2
    "paddle-3.3.1-apps3": {"paddle_version": "3.3.1", "image": "ml-team/ocr-service:3.3.1",
                           "steps": [["paddlepaddle==3.3.1", "paddleocr==2.7.3"]]},
    "paddle-3.3.1-apps4": {"paddle_version": "3.3.1", "image": "ml-team/ocr-service:3.3.1-r2",
                           "steps": [["paddlepaddle==3.3.1", "paddleocr==2.7.3", "numpy<2"]]},
    # `pip install --no-deps paddlepaddle` (+ only numpy/protobuf): Paddle's own deps missing
    "paddle-3.3.1-slim": {"paddle_version": "3.3.1", "image": "ml-team/paddle-infer:3.3.1-slim",
                            "steps": [["--no-deps", "paddlepaddle==3.3.1"], ["numpy", "protobuf"]]},
    # Paddle-Lite (device deployment: the opt converter and the MobileConfig runtime). Its last wheels
    # on PyPI are 2.12 for CPython 3.7 and 2.10 for 3.9, so these venvs use another base interpreter.
    # Fluid, the 1.x generation: 1.8.5 is the last 1.x wheel on PyPI (CPython 3.7/3.8 only). As pinned
    # then (protobuf < 3.21), and as `pip install paddlepaddle==1.8.5` resolves today (protobuf 5).
    "paddle-1.8.5-cpu": {"paddle_version": "1.8.5", "python": "3.8", "image": f"{BASE}:1.8.5",
                         "steps": [["paddlepaddle==1.8.5", "numpy<1.24", "protobuf<3.21"]]},
    "paddle-1.8.5-train2": {"paddle_version": "1.8.5", "python": "3.8", "image": "ml-team/fluid-train:1.8.5-r2",
                         "steps": [["paddlepaddle==1.8.5", "numpy<1.24"]]},
    # numpy 1.24 removed the np.int / np.bool aliases Paddle 1.x itself uses
    "paddle-1.8.5-train3": {"paddle_version": "1.8.5", "python": "3.8", "image": "ml-team/fluid-train:1.8.5-r3",
                           "steps": [["paddlepaddle==1.8.5", "numpy==1.24.4", "protobuf<3.21"]]},
    "lite-2.12": {"paddle_version": "paddle-lite 2.12", "python": "3.7", "image": "ml-team/paddle-lite-serve:2.12",
                  "steps": [["paddlelite==2.12", "numpy<1.22"]]},
    "lite-2.10": {"paddle_version": "paddle-lite 2.10", "python": "3.9", "image": "ml-team/paddle-lite-serve:2.10",
                  "steps": [["paddlelite==2.10", "numpy<1.24"]]},
}


@dataclass
class Scenario:
    category: str                 # taxonomy id of what the log shows
    name: str                     # scenario (folder under files/)
    variant: str                  # log file stem
    venv: str                     # key of VENVS
    files: dict                   # scenarios/-relative source -> /workspace-relative destination
    note: str
    cmd: str = "python train.py"  # what the user types, run from /workspace
    setup: list = field(default_factory=list)   # [(venv, shell command run in /workspace)]
    ns: dict | None = None        # {"shm": "64m"}, {"tmpfs": {path: size}}, {"hide": [lib, ...]}
    prlimit_as: int | None = None  # RLIMIT_AS in bytes (container memory cap stand-in)
    memory_cap: str | None = None  # a memory cgroup limit ("1500M"), as `docker run --memory`: the kernel OOM-kills
    timeout_cmd: int | None = None  # wrap the command in `timeout N` (the user's own time limit)
    timeout: int = 300            # hard guard for the harness
    env: dict = field(default_factory=dict)
    image: str | None = None


V331, V300, V262, G262 = "paddle-3.3.1-cpu", "paddle-3.0.0-cpu", "paddle-2.6.2-cpu", "paddle-2.6.2-gpu"
CPU_VERSIONS = [("paddle331", V331), ("paddle300", V300), ("paddle262", V262)]
EXPORT = "python export_model.py inference/model"
SCENARIOS: list[Scenario] = []


def add(category, name, variant, venv, files, note, **kw):
    if isinstance(files, str):
        files = {files: "train.py"}
    SCENARIOS.append(Scenario(category, name, variant, venv, dict(files), note, **kw))


# ----------------------------------------------------------------------------- host_oom
for tag, venv in CPU_VERSIONS:
    add("host_oom", "feature_bank_alloc", tag, venv, "host_oom/feature_cache.py",
        "paddle.zeros of a 8 TB feature bank -> MemoryError (ResourceExhausted) Fail to alloc memory")
add("host_oom", "numpy_preprocess_alloc", "paddle331", V331, "host_oom/preprocess_numpy.py",
    "numpy stacking all images -> _ArrayMemoryError Unable to allocate 732 GiB")
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("host_oom", "memory_cap_training", tag, venv, "host_oom/grow_cache.py",
        "activations kept alive under a 2.5 GB address-space cap (prlimit --as) -> ResourceExhausted in linear",
        prlimit_as=2_500_000_000)
add("host_oom", "memory_cap_dataloader_worker", "paddle331", V331, "host_oom/worker_cache.py",
    "DataLoader workers caching samples under a 2.5 GB address-space cap; worker MemoryError re-raised, "
    "then loader hangs until the job's `timeout 90` (SIGTERM FatalError)",
    prlimit_as=2_500_000_000, timeout_cmd=90)

# ----------------------------------------------------------------------------- gpu_not_visible
for tag, venv in [("paddle331", V331), ("paddle262", V262), ("paddle300", V300)]:
    add("gpu_not_visible", "gpu_request_cpu_build", f"set_device_gpu_{tag}", venv,
        "gpu_not_visible/set_device_gpu.py", "CPU wheel: paddle.set_device('gpu') -> not compiled with CUDA")
add("gpu_not_visible", "gpu_request_cpu_build", "cuda_place_paddle331", V331, "gpu_not_visible/cuda_place.py",
    "CPU wheel: paddle.CUDAPlace(0)")
add("gpu_not_visible", "gpu_request_cpu_build", "tensor_cuda_paddle331", V331, "gpu_not_visible/tensor_cuda.py",
    "CPU wheel: tensor.cuda()")
add("gpu_not_visible", "gpu_request_cpu_build", "tensor_cuda_paddle262", V262, "gpu_not_visible/tensor_cuda.py",
    "CPU wheel: tensor.cuda()")
add("gpu_not_visible", "gpu_request_cpu_build", "launch_gpus_paddle331", V331,
    {"common/dp_train.py": "train.py"},
    "CPU wheel: python -m paddle.distributed.launch --gpus 0,1 train.py",
    cmd="python -m paddle.distributed.launch --gpus 0,1 train.py", timeout_cmd=120)
add("gpu_not_visible", "gpu_request_cpu_build", "launch_gpus_paddle262", V262,
    {"common/dp_train.py": "train.py"},
    "CPU wheel: python -m paddle.distributed.launch --gpus 0,1 train.py",
    cmd="python -m paddle.distributed.launch --gpus 0,1 train.py", timeout_cmd=120)
add("gpu_not_visible", "gpu_build_no_driver", "run_check", G262, {"gpu_not_visible/run_check.py": "check_env.py"},
    "GPU wheel, host without GPU/driver: paddle.utils.run_check() -> 'no GPU detected', falls back to CPU, exit 0",
    cmd="python check_env.py")
add("gpu_not_visible", "gpu_build_no_driver", "set_device_gpu0", G262, "gpu_not_visible/set_device_gpu0.py",
    "GPU wheel, no GPU/driver: set_device('gpu:0') -> E place.cc 'Cannot use GPU because there is no GPU detected'")
add("gpu_not_visible", "gpu_build_no_driver", "conv_cuda_place", G262, "gpu_not_visible/conv_cuda_place.py",
    "GPU wheel, no GPU/driver: conv on CUDAPlace(0)")
add("gpu_not_visible", "gpu_build_no_driver", "device_properties", G262, "gpu_not_visible/device_properties.py",
    "GPU wheel, no GPU/driver: get_device_properties(0) -> OutOfRange device id 0 out of range [0, 0)")
add("gpu_not_visible", "gpu_build_no_driver", "launch_gpus", G262, {"common/dp_train.py": "train.py"},
    "GPU wheel, no GPU/driver: python -m paddle.distributed.launch --gpus 0,1 train.py",
    cmd="python -m paddle.distributed.launch --gpus 0,1 train.py", timeout_cmd=120)
add("gpu_not_visible", "gpu_build_no_driver", "glog_verbose_device_count", G262,
    "gpu_not_visible/device_count_check.py",
    "GPU wheel, no GPU/driver, GLOG_vmodule=cuda_info=3: 'GPU Driver Version can't be detected. No GPU driver!'",
    env={"GLOG_vmodule": "cuda_info=3,place=3"}, timeout_cmd=60)

# ----------------------------------------------------------------------------- api_incompatible
for variant, script in [("import_fluid", "fluid_import.py"), ("fluid_dygraph_guard", "fluid_dygraph_guard.py"),
                        ("adam_parameter_list", "adam_parameter_list.py"),
                        ("static_nn_fc_act", "static_nn_fc_act.py"),
                        ("compiled_program_with_data_parallel", "compiled_program_dp.py"),
                        ("fluid_to_variable", "fluid_to_variable.py")]:
    add("api_incompatible", "legacy_code_on_paddle3", variant, V331, f"api_incompatible/{script}",
        f"Paddle 1.x/2.x code on 3.3.1: {variant}")
add("api_incompatible", "legacy_code_on_paddle3", "import_fluid_paddle300", V300, "api_incompatible/fluid_import.py",
    "Paddle 1.x/2.x code on 3.0.0: import paddle.fluid")
add("api_incompatible", "legacy_code_on_paddle26", "import_fluid", V262, "api_incompatible/fluid_import.py",
    "Paddle 1.x code on 2.6.2: import paddle.fluid (removed in 2.6)")
add("api_incompatible", "paddle3_code_on_paddle26", "new_api", V262, "api_incompatible/paddle3_api.py",
    "Paddle 3.x-only API used on 2.6.2")

# ----------------------------------------------------------------------------- file_not_found
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("file_not_found", "missing_model_dir", f"jit_load_{tag}", venv, {"file_not_found/jit_load.py": "infer.py"},
        "paddle.jit.load on an unmounted model dir", cmd="python infer.py --model_dir /models/ocr_rec/inference")
    add("file_not_found", "missing_model_dir", f"inference_config_{tag}", venv,
        {"file_not_found/inference_config.py": "infer.py"},
        "paddle.inference.Config/create_predictor on an unmounted model dir",
        cmd="python infer.py --model_dir /models/det/inference")
    add("file_not_found", "missing_checkpoint", tag, venv, "file_not_found/load_checkpoint.py",
        "paddle.load of a checkpoint on an unmounted volume", cmd="python train.py --resume /data/output/epoch_20.pdparams")
add("file_not_found", "missing_dataset_dir", "dataset_folder", V331, "file_not_found/dataset_folder.py",
    "paddle.vision.datasets.DatasetFolder on a missing dataset dir", cmd="python train.py --data /data/imagenet/train")
add("file_not_found", "missing_dataset_dir", "image_folder", V331, {"file_not_found/image_folder.py": "predict.py"},
    "paddle.vision.datasets.ImageFolder on a missing folder", cmd="python predict.py --images /data/test_images")
add("file_not_found", "missing_entry_script", "paddle331", V331, {"file_not_found/image_folder.py": "tools/predict.py"},
    "entry script not in the image/volume (wrong working dir): python can't open file", cmd="python predict.py --images /data/test_images")
add("file_not_found", "missing_label_file", "paddle331", V331, "file_not_found/label_file.py",
    "user code opens a label list that is not mounted", cmd="python train.py --label_list /data/labels/train_list.txt")

# ----------------------------------------------------------------------------- shm_exhausted
for tag, venv in CPU_VERSIONS:
    add("shm_exhausted", "dataloader_small_shm", f"{tag}_shm64m", venv, "shm_exhausted/train_loader.py",
        "DataLoader num_workers=4, batch 32x3x512x512, /dev/shm = 64 MB (docker default)", ns={"shm": "64m"})
add("shm_exhausted", "dataloader_small_shm", "paddle331_shm8m_bs8", V331, "shm_exhausted/train_loader.py",
    "DataLoader num_workers=4, batch 8x3x512x512, /dev/shm = 8 MB", ns={"shm": "8m"},
    env={"BATCH_SIZE": "8"})
add("shm_exhausted", "dataloader_small_shm", "paddle331_shm64m_2workers", V331, "shm_exhausted/train_loader.py",
    "DataLoader num_workers=2, batch 16x3x640x640, /dev/shm = 64 MB", ns={"shm": "64m"},
    env={"BATCH_SIZE": "16", "NUM_WORKERS": "2", "IMG_SIZE": "640"})

# ----------------------------------------------------------------------------- model_version_incompatible
MV = "model_version_incompatible"
# Labelled no_failure: the run ends normally, and "Skip loading ... receives a shape" is what every fine-tune
# of a pretrained backbone with a new head prints (the issue threads settle such runs as healthy). Whether
# the job meant to skip *all* its weights is its owner's question, not the platform's.
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("no_failure", "pretrained_shape_mismatch", tag, venv,
        {"model_version_incompatible/load_pretrained.py": "train.py", "common/save_checkpoint.py": "save_checkpoint.py"},
        "set_state_dict with a checkpoint of another model config (hidden 256 vs 120): 'Skip loading' warnings, "
        "then the job goes on with random weights and ends normally",
        setup=[(venv, "python save_checkpoint.py pretrained/model.pdparams 256")])
PRED = {"model_version_incompatible/infer_predictor.py": "infer.py", "common/export_model.py": "export_model.py"}
JIT = {"model_version_incompatible/infer_jit.py": "eval.py", "common/export_model.py": "export_model.py"}
add(MV, "params_from_other_network", "predictor_paddle331", V331, PRED,
    "Paddle Inference: model.json with .pdiparams exported from another network (LeNet vs single Linear)",
    cmd="python infer.py --model_file inference/model.json",
    setup=[(V331, EXPORT), (V331, "python export_model.py other/model 64 linear && cp other/model.pdiparams inference/")])
add(MV, "params_from_other_network", "jit_load_paddle262", V262, JIT,
    "paddle.jit.load: .pdmodel with .pdiparams exported from another network (LeNet vs single Linear)",
    cmd="python eval.py",
    setup=[(V262, EXPORT), (V262, "python export_model.py other/model 64 linear && cp other/model.pdiparams inference/")])
for tag, venv, mfile in [("paddle331", V331, "model.json"), ("paddle262", V262, "model.pdmodel")]:
    add(MV, "truncated_params", f"predictor_{tag}", venv, PRED,
        "Paddle Inference with a .pdiparams cut at 20 KB (interrupted copy)",
        cmd=f"python infer.py --model_file inference/{mfile}",
        setup=[(venv, EXPORT), (venv, "head -c 20000 inference/model.pdiparams > p && mv p inference/model.pdiparams")])
    add(MV, "truncated_params", f"jit_load_{tag}", venv, JIT,
        "paddle.jit.load with a .pdiparams cut at 20 KB", cmd="python eval.py",
        setup=[(venv, EXPORT), (venv, "head -c 20000 inference/model.pdiparams > p && mv p inference/model.pdiparams")])
    add(MV, "empty_params", f"predictor_{tag}", venv, PRED,
        "Paddle Inference with an empty (0 byte) .pdiparams",
        cmd=f"python infer.py --model_file inference/{mfile}",
        setup=[(venv, EXPORT), (venv, ": > inference/model.pdiparams")])
add(MV, "pir_model_on_paddle26", "predictor", V262, PRED,
    "model.json (PIR) exported by 3.3.1 given to Paddle Inference 2.6.2",
    cmd="python infer.py --model_file inference/model.json", setup=[(V331, EXPORT)])
add(MV, "pir_model_on_paddle26", "jit_load", V262, JIT,
    "model.json (PIR) exported by 3.3.1, paddle.jit.load in 2.6.2", cmd="python eval.py", setup=[(V331, EXPORT)])
# Paddle-Lite: a model exported by Paddle 2.6.2 / 3.3.1, converted by the opt tool, run by MobileConfig
LITE = {"model_version_incompatible/infer_lite.py": "infer_lite.py", "common/export_model.py": "export_model.py"}
L212, L210 = "lite-2.12", "lite-2.10"
OPT = "paddle_lite_opt --model_file={model} --param_file=inference/model.pdiparams --optimize_out=models/lenet --valid_targets={target}"
OPT212 = (L212, "mkdir -p models && " + OPT.format(model="inference/model.pdmodel", target="x86"))
add(MV, "lite_nb_from_newer_opt", "runtime_lite210", L210, LITE,
    "a .nb converted by opt 2.12 loaded by the Paddle-Lite 2.10 runtime: opt-version warning, then "
    "Check failed in op_desc.cc (SIGABRT)",
    cmd="python infer_lite.py models/lenet.nb", setup=[(V262, EXPORT), OPT212])
add(MV, "lite_pdmodel_as_nb", "mobileconfig_lite212", L212, LITE,
    "an unconverted model.pdmodel given to MobileConfig: 'The model format cannot be recognized' (SIGABRT)",
    cmd="python infer_lite.py inference/model.pdmodel", setup=[(V262, EXPORT)])
add(MV, "lite_opt_pir_json", "opt_lite212", L212, LITE,
    "opt 2.12 on a PIR model.json exported by Paddle 3.3.1: Check failed idx >= blocks.size() (SIGABRT)",
    cmd=OPT.format(model="inference/model.json", target="x86"), setup=[(V331, EXPORT)])
add(MV, "lite_opt_op_unsupported", "x86_opt_lite210", L210, LITE,
    "opt 2.10 for x86 on a Paddle 2.6.2 model: matmul_v2 not supported on 'x86'",
    cmd=OPT.format(model="inference/model.pdmodel", target="x86"), setup=[(V262, EXPORT)])
add(MV, "lite_opt_older_than_model", "arm_opt_lite210", L210, LITE,
    "opt 2.10 for arm on a Paddle 2.6.2 model: the model loads, then Check failed in op_desc.cc (SIGABRT)",
    cmd=OPT.format(model="inference/model.pdmodel", target="arm"), setup=[(V262, EXPORT)])
add("file_not_found", "lite_model_not_mounted", "mobileconfig_lite212", L212, LITE,
    "MobileConfig on models/lenet.nb, the models volume not mounted: 'Unable to open file' (SIGABRT)",
    cmd="python infer_lite.py models/lenet.nb")
add("no_failure", "lite_inference", "lite212", L212, LITE,
    "opt 2.12 converts a Paddle 2.6.2 model, MobileConfig runs it", cmd="python infer_lite.py models/lenet.nb",
    setup=[(V262, EXPORT), OPT212])
add("no_failure", "pdmodel_from_paddle26_on_paddle3", "predictor_paddle331", V331, PRED,
    "model.pdmodel exported by 2.6.2 given to Paddle Inference 3.3.1: legacy format still loads, runs fine",
    cmd="python infer.py --model_file inference/model.pdmodel", setup=[(V262, EXPORT)])
add(MV, "pdmodel_from_paddle26_on_paddle3", "jit_load_paddle331", V331, JIT,
    "model.pdmodel exported by 2.6.2, paddle.jit.load in 3.3.1", cmd="python eval.py", setup=[(V262, EXPORT)])
add(MV, "model_from_newer_paddle3", "predictor_paddle300", V300, PRED,
    "model.json exported by 3.3.1 given to Paddle Inference 3.0.0",
    cmd="python infer.py --model_file inference/model.json", setup=[(V331, EXPORT)])

# ----------------------------------------------------------------------------- native_crash
for tag, venv in CPU_VERSIONS:
    add("native_crash", "segfault_native_helper", tag, venv, "native_crash/ctypes_segv.py",
        "NULL dereference in native code (ctypes) inside a Paddle process -> Paddle FatalError SIGSEGV handler")
add("native_crash", "segfault_native_helper", "paddle331_bash_entrypoint", V331,
    {"native_crash/ctypes_segv.py": "train.py", "native_crash/run.sh": "run.sh"},
    "same segfault, started by a bash entrypoint (bash reports the signal)", cmd="bash run.sh")
add("native_crash", "abort_in_native_lib", "paddle331", V331, "native_crash/abort.py",
    "SIGABRT (os.abort) inside a Paddle process -> FatalError `Process abort signal`")
add("native_crash", "abort_in_native_lib", "paddle262_bash_entrypoint", V262,
    {"native_crash/abort.py": "train.py", "native_crash/run.sh": "run.sh"},
    "SIGABRT inside a Paddle 2.6 process started by a bash entrypoint", cmd="bash run.sh")

# ----------------------------------------------------------------------------- disk_full
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("disk_full", "checkpoint_volume_full", tag, venv, "disk_full/save_checkpoint.py",
        "paddle.save of epoch checkpoints into a 6 MB volume", ns={"tmpfs": {"/workspace/output": "6m"}})
    add("disk_full", "model_save_volume_full", tag, venv, "disk_full/model_save.py",
        "paddle.Model.fit then Model.save into a 1 MB volume", ns={"tmpfs": {"/workspace/output": "1m"}})
add("disk_full", "predictions_volume_full", "paddle331", V331, "disk_full/write_log.py",
    "writing predictions text into a 1 MB volume", ns={"tmpfs": {"/workspace/output": "1m"}})
add("no_failure", "jit_save_volume_full", "paddle331", V331, "disk_full/jit_save.py",
    "paddle.jit.save of a 4 MB model into a 1 MB volume: 3.3.1 prints no error and exits 0 although the "
    ".pdiparams is truncated (known hard case: the log shows no failure)",
    ns={"tmpfs": {"/workspace/output": "1m"}})
add("disk_full", "jit_save_volume_full", "paddle262", V262, "disk_full/jit_save.py",
    "paddle.jit.save of a 4 MB model into a 1 MB volume -> OSError [Errno 28] No space left on device",
    ns={"tmpfs": {"/workspace/output": "1m"}})

# ----------------------------------------------------------------------------- system_lib_missing
HIDE_GL = {"hide": ["libGL.so.1"]}
HIDE_GTHREAD = {"hide": ["libgthread-2.0.so.0"]}
add("system_lib_missing", "opencv_without_libgl", "paddle331", "paddle-3.3.1-ocr",
    "system_lib_missing/ocr_preprocess.py", "opencv-python (non-headless) in an image without libGL.so.1", ns=HIDE_GL)
add("system_lib_missing", "opencv_without_libgl", "paddle262_ppocr", "paddle-2.6.2-ocr",
    {"system_lib_missing/ppocr_like.py": "tools/train.py", "system_lib_missing/ppocr_data.py": "tools/ppocr_data.py"},
    "PaddleOCR-like train entry, cv2 import without libGL.so.1",
    cmd="python tools/train.py -c configs/rec/PP-OCRv4/en_PP-OCRv4_rec.yml", ns=HIDE_GL)
add("system_lib_missing", "opencv_without_libgthread", "paddle331", "paddle-3.3.1-ocr",
    "system_lib_missing/ocr_preprocess.py", "opencv-python without libgthread-2.0.so.0 (libglib2.0-0 missing)",
    ns=HIDE_GTHREAD)
for tag, venv in [("paddle331", V331), ("paddle262", V262), ("paddle300", V300)]:
    add("system_lib_missing", "paddle_without_libgomp", tag, venv, "system_lib_missing/paddle_import.py",
        "import paddle in an image without libgomp.so.1", ns={"hide": ["libgomp.so.1"]})

# ----------------------------------------------------------------------------- python_dependency_conflict
PD = "python_dependency_conflict"
add(PD, "opencv_numpy2_abi", "paddle331", "paddle-3.3.1-ocr2", "python_dependency_conflict/ocr_preprocess.py",
    "opencv-python 4.8.1.78 (built for numpy 1.x) with numpy 2.x")
add(PD, "protobuf_too_old", "paddle331", "paddle-3.3.1-train5", "python_dependency_conflict/paddle_train.py",
    "protobuf 3.19.6 pinned by another requirement")
add(PD, "protobuf_too_old", "paddle262", "paddle-2.6.2-train5", "python_dependency_conflict/paddle_train.py",
    "protobuf 3.19.6 pinned by another requirement")
add(PD, "visualdl_old_protobuf", "paddle262", "paddle-2.6.2-train6", "python_dependency_conflict/vdl_train.py",
    "visualdl 2.2.3 (old generated _pb2) with a current protobuf")
add(PD, "pycocotools_missing", "paddle331", V331,
    {"python_dependency_conflict/ppdet_eval.py": "tools/eval.py",
     "python_dependency_conflict/coco_metric.py": "tools/coco_metric.py"},
    "PaddleDetection-like eval without pycocotools installed",
    cmd="python tools/eval.py -c configs/ppyoloe/ppyoloe_plus_crn_s_80e_coco.yml")
add(PD, "paddle_installed_no_deps", "paddle331", "paddle-3.3.1-slim", "python_dependency_conflict/paddle_train.py",
    "pip install --no-deps paddlepaddle (only numpy+protobuf added): a Paddle dependency is missing")

# ----------------------------------------------------------------------------- distributed_comm_failure
DC = "distributed_comm_failure"
DP = {"common/dp_train.py": "train.py"}
LAUNCH = "python -m paddle.distributed.launch --nnodes 2 {how} --nproc_per_node 1 train.py"
PEER_NEVER_JOINS = LAUNCH.format(how="--rank 0 --master 127.0.0.1:49178")
MASTER_UNREACHABLE = LAUNCH.format(how="--master 127.0.0.2:49179")
add(DC, "launch_peer_never_joins", "paddle331", V331, DP,
    "launch --nnodes 2 --rank 0 --master 127.0.0.1:49178: node 1 never joins, 'Waiting peer start...' "
    "until the job's `timeout 60` (SIGTERM)", cmd=PEER_NEVER_JOINS, timeout_cmd=60)
add(DC, "launch_master_unreachable", "paddle331", V331, DP,
    "launch --nnodes 2 --master 127.0.0.2:49179 (nothing listens): 'master not ready' until `timeout 60`",
    cmd=MASTER_UNREACHABLE, timeout_cmd=60)
add(DC, "launch_master_unreachable", "rank1_master_is_self_paddle331", V331, DP,
    "launch --nnodes 2 --rank 1 --master 127.0.0.1:49179 (master address is this host): launcher crashes "
    "with TypeError on an empty peer list",
    cmd=LAUNCH.format(how="--rank 1 --master 127.0.0.1:49179"), timeout_cmd=60)
TRAINER_ENV = {"PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ENDPOINTS": "127.0.0.1:49180,127.0.0.1:49181",
               "PADDLE_MASTER": "127.0.0.1:49180", "PADDLE_GLOBAL_SIZE": "2", "PADDLE_LOCAL_SIZE": "1",
               "PADDLE_DISTRI_BACKEND": "gloo"}
RANK1_ENV = {**TRAINER_ENV, "PADDLE_TRAINER_ID": "1", "PADDLE_RANK_IN_NODE": "0", "PADDLE_CURRENT_ENDPOINT": "127.0.0.1:49181"}
add(DC, "init_parallel_env_bad_endpoints", "rank0_paddle331", V331, DP,
    "init_parallel_env as trainer 0 of 2, trainer 1 never comes up; killed by the job's `timeout 90`. Not "
    "deterministic: it either hangs in TCPStore creation (C++ traceback CreateOrGetGlobalTCPStore, SIGTERM "
    "FatalError) or trains 'rank 0 of 2' alone and hangs at exit (one capture even exited 0 with no error text)",
    env={**TRAINER_ENV, "PADDLE_TRAINER_ID": "0", "PADDLE_RANK_IN_NODE": "0",
         "PADDLE_CURRENT_ENDPOINT": "127.0.0.1:49180"}, timeout_cmd=90)
add(DC, "init_parallel_env_bad_endpoints", "rank1_paddle331", V331, DP,
    "init_parallel_env as trainer 1 of 2; master 127.0.0.1:49180 never listens: 'Retry to connect' every 3 s "
    "until the job's `timeout 90` (SIGTERM FatalError)", env=RANK1_ENV, timeout_cmd=90)

# the same launches with Paddle 2.6.2 (its launcher and TCPStore word the waits differently)
add(DC, "launch_peer_never_joins", "paddle262", V262, DP,
    "launch --nnodes 2 --rank 0 --master 127.0.0.1:49178 with 2.6.2: node 1 never joins, until the job's `timeout 60`",
    cmd=PEER_NEVER_JOINS, timeout_cmd=60)
add(DC, "launch_master_unreachable", "paddle262", V262, DP,
    "launch --nnodes 2 --master 127.0.0.2:49179 (nothing listens) with 2.6.2, until `timeout 60`",
    cmd=MASTER_UNREACHABLE, timeout_cmd=60)
add(DC, "init_parallel_env_bad_endpoints", "rank1_paddle262", V262, DP,
    "init_parallel_env as trainer 1 of 2 with 2.6.2; master 127.0.0.1:49180 never listens, until `timeout 90`",
    env=RANK1_ENV, timeout_cmd=90)

# ----------------------------------------------------------------------------- code_error
# The job's own bugs (code, data, config) on a healthy environment: what must never be blamed on the platform.
CODE_ERRORS = [  # (scenario, script -> where the user keeps it, what the job does wrong, command)
    ("head_sized_for_other_input", {"code_error/shape_mismatch.py": "train.py"},
     "the job's CNN head is sized for 32x32 inputs, fed 28x28: matmul/linear shape InvalidArgument in its forward",
     "python train.py"),
    ("label_out_of_range", {"code_error/label_out_of_range.py": "train.py"},
     "a 10-class head trained on labels 0..11: cross_entropy label-range InvalidArgument after a few steps",
     "python train.py"),
    ("dataset_wrong_key", {"code_error/dataset_keyerror.py": "tools/train.py"},
     "the job's Dataset reads rec['image'] where its records say 'img': KeyError raised in a DataLoader worker",
     "python tools/train.py"),
    ("config_missing_key", {"code_error/config_key.py": "tools/train.py"},
     "the job's JSON config lacks Optimizer.beta1 that its own builder reads: KeyError in tools/train.py",
     "python tools/train.py"),
    ("int_ids_into_float_matmul", {"code_error/dtype_mismatch.py": "train.py"},
     "the job feeds int64 ids into a float32 matmul: dtype InvalidArgument / TypeError", "python train.py"),
    ("loss_nan_own_check", {"code_error/nan_loss.py": "train.py"},
     "learning rate 10 on unscaled features: the loss overflows and the job's own assert stops it", "python train.py"),
    ("postprocess_assumes_a_box", {"code_error/postprocess_index.py": "infer.py"},
     "the job's post-processing takes boxes[0] of an image with no detection: IndexError after two results",
     "python infer.py"),
]
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    for name, files, note, cmd in CODE_ERRORS:
        add("code_error", name, tag, venv, files, note, cmd=cmd)

# ----------------------------------------------------------------------------- no_failure
for tag, venv in CPU_VERSIONS:
    add("no_failure", "lenet_training", tag, venv, "no_failure/lenet_logging.py",
        "LeNet on random data, 2 epochs, ppcls-style logging, checkpoints saved")
add("no_failure", "model_fit", "paddle331", V331, "no_failure/model_fit.py", "paddle.Model.fit progress bar, 2 epochs")
add("no_failure", "model_fit", "paddle262", V262, "no_failure/model_fit.py", "paddle.Model.fit progress bar, 2 epochs")
add("no_failure", "inference_predictor", "paddle331", V331,
    {"no_failure/predictor.py": "infer.py", "common/export_model.py": "export_model.py"},
    "create_predictor on an exported model, 5 batches", cmd="python infer.py", setup=[(V331, EXPORT)])
add("no_failure", "inference_predictor", "paddle262", V262,
    {"no_failure/predictor.py": "infer.py", "common/export_model.py": "export_model.py"},
    "create_predictor on an exported model, 5 batches", cmd="python infer.py", setup=[(V262, EXPORT)])
add("no_failure", "launch_cpu_2proc", "paddle331", V331, {"common/dp_train.py": "train.py"},
    "python -m paddle.distributed.launch --nproc_per_node 2 on CPU (gloo)",
    cmd="python -m paddle.distributed.launch --nproc_per_node 2 train.py", timeout_cmd=120)
add("no_failure", "harmless_warnings", "paddle331", V331, "no_failure/warnings_run.py",
    "numpy RuntimeWarnings and DeprecationWarnings, training finishes")
add("gpu_not_visible", "inference_enable_use_gpu_cpu_build", "paddle331", V331,
    {"no_failure/enable_use_gpu.py": "infer.py", "common/export_model.py": "export_model.py"},
    "CPU wheel, Paddle Inference config.enable_use_gpu(500, 0): prints 'E ... Please use PaddlePaddle with GPU "
    "version.', then runs on CPU and exits 0 (labelled by what it prints: a GPU job on a CPU build)",
    cmd="python infer.py", setup=[(V331, EXPORT)])
add("gpu_not_visible", "inference_enable_use_gpu_cpu_build", "paddle262", V262,
    {"no_failure/enable_use_gpu.py": "infer.py", "common/export_model.py": "export_model.py"},
    "CPU wheel, Paddle Inference config.enable_use_gpu(500, 0): prints 'E ... Please use PaddlePaddle with GPU "
    "version.', then runs on CPU and exits 0 (labelled by what it prints: a GPU job on a CPU build)",
    cmd="python infer.py", setup=[(V262, EXPORT)])
add("api_incompatible", "legacy_code_on_paddle26", "compiled_program_with_data_parallel", V262,
    "api_incompatible/compiled_program_dp.py", "Paddle 2.0-2.4 code on 2.6.2: CompiledProgram.with_data_parallel")
add("api_incompatible", "legacy_code_on_paddle26", "static_nn_fc_act", V262,
    "api_incompatible/static_nn_fc_act.py", "Paddle 2.0-2.4 code on 2.6.2: static.nn.fc(act=...)")
add("api_incompatible", "legacy_code_on_paddle26", "adam_parameter_list", V262,
    "api_incompatible/adam_parameter_list.py", "Paddle 1.x code on 2.6.2: Adam(parameter_list=...)")
EXT_CACHE = {"tmpfs": {"/root/.cache/paddle_extensions": "300m"}}  # fresh JIT build on every capture
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("native_crash", "custom_op_out_of_bounds", tag, venv,
        {"native_crash/custom_op_oob.py": "train.py", "native_crash/custom_relu.cc": "custom_relu.cc"},
        "custom C++ op JIT-built with paddle.utils.cpp_extension.load writes out of bounds -> SIGSEGV "
        "with C++ traceback in CustomReluForward", ns=EXT_CACHE, timeout=600)

CUSTOM = {"model_version_incompatible/custom_gelu.cc": "custom_gelu.cc",
          "model_version_incompatible/export_custom.py": "export_custom.py"}
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add(MV, "custom_op_not_loaded", f"predictor_{tag}", venv,
        {**CUSTOM, "model_version_incompatible/serve_custom.py": "serve.py"},
        "model exported with a custom C++ op (fast_gelu), served by Paddle Inference without the op library",
        cmd="python serve.py", setup=[(venv, "HOME=/workspace/.home python export_custom.py")])
    add(MV, "custom_op_not_loaded", f"jit_load_{tag}", venv,
        {**CUSTOM, "model_version_incompatible/serve_custom_jit.py": "serve.py"},
        "model exported with a custom C++ op (fast_gelu), paddle.jit.load without the op library",
        cmd="python serve.py", setup=[(venv, "HOME=/workspace/.home python export_custom.py")])

# ----------------------------------------------------------------------------- second round
add("host_oom", "inference_batch_memory_cap", "paddle331", V331,
    {"no_failure/predictor.py": "infer.py", "common/export_model.py": "export_model.py"},
    "Paddle Inference with batch 20000 under a 1.6 GB address-space cap -> ResourceExhaustedError in onednn "
    "fused_conv2d", cmd="python infer.py", setup=[(V331, EXPORT)], prlimit_as=1_600_000_000,
    env={"BATCH_SIZE": "20000"})
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("native_crash", "double_free_in_native_lib", tag, venv, "native_crash/double_free.py",
        "native helper frees a buffer twice -> glibc 'free(): double free detected in tcache 2' + SIGABRT",
        timeout_cmd=60)
add("cuda_lib_missing", "gpu_build_no_cuda_libs", "env_check", G262, {"gpu_not_visible/env_check.py": "env_check.py"},
    "GPU wheel without CUDA/cuDNN libraries (and no GPU) on the host: get_cudnn_version() -> W dynamic_loader "
    "'The third-party dynamic library (libcudnn.so) ... is not configured correctly', exit 0; labelled by its "
    "only error line (cuDNN missing)", cmd="python env_check.py")
add("gpu_not_visible", "gpu_build_no_cuda_libs", "env_check_then_train", G262, "gpu_not_visible/env_check_then_train.py",
    "GPU wheel, no GPU/driver, no cuDNN: libcudnn.so warning first, then set_device('gpu') -> "
    "'Cannot use GPU because there is no GPU detected' (the job-ending cause)")
add("gpu_not_visible", "gpu_build_no_driver", "train_falls_back_to_cpu", G262, "no_failure/lenet_logging.py",
    "GPU image on a host without GPU/driver: 'You are using GPU version Paddle, but your CUDA device is not set "
    "properly. CPU device will be used by default.' then the whole training runs on CPU, exit 0")
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add(PD, "ocr_postprocess_missing_module", tag, venv,
        {"python_dependency_conflict/ocr_postprocess.py": "tools/infer_det.py",
         "python_dependency_conflict/db_postprocess.py": "tools/db_postprocess.py"},
        "PaddleOCR-like DB post-processing without pyclipper installed -> ModuleNotFoundError",
        cmd="python tools/infer_det.py -c configs/det/det_mv3_db.yml")
add("system_lib_missing", "opencv_without_libx11", "paddle331", "paddle-3.3.1-ocr",
    "system_lib_missing/ocr_preprocess.py", "opencv-python (GUI build) in a slim image without libX11.so.6",
    ns={"hide": ["libX11.so.6"]})
add("system_lib_missing", "paddle_without_libgomp", "paddle262_gpu", G262, "system_lib_missing/paddle_import.py",
    "GPU wheel: import paddle in an image without libgomp.so.1", ns={"hide": ["libgomp.so.1"]})
add("api_incompatible", "legacy_code_on_paddle3", "adam_parameter_list_paddle300", V300,
    "api_incompatible/adam_parameter_list.py", "Paddle 1.x code on 3.0.0: Adam(parameter_list=...)")
add("api_incompatible", "legacy_code_on_paddle3", "static_nn_fc_act_paddle300", V300,
    "api_incompatible/static_nn_fc_act.py", "Paddle 2.0-2.4 code on 3.0.0: static.nn.fc(act=...)")
add("disk_full", "checkpoint_volume_full", "paddle300", V300, "disk_full/save_checkpoint.py",
    "paddle.save of epoch checkpoints into a 6 MB volume", ns={"tmpfs": {"/workspace/output": "6m"}})
add("no_failure", "model_fit", "paddle300", V300, "no_failure/model_fit.py", "paddle.Model.fit progress bar, 2 epochs")
add("no_failure", "inference_predictor", "paddle300", V300,
    {"no_failure/predictor.py": "infer.py", "common/export_model.py": "export_model.py"},
    "create_predictor on an exported model, 5 batches", cmd="python infer.py", setup=[(V300, EXPORT)])
add("no_failure", "harmless_warnings", "paddle262", V262, "no_failure/warnings_run.py",
    "numpy RuntimeWarnings and DeprecationWarnings, training finishes")
add("no_failure", "dataloader_workers_big_shm", "paddle331_shm2g", V331, "shm_exhausted/train_loader.py",
    "same DataLoader as the shm scenarios (4 workers, 32x3x512x512) with a 2 GB /dev/shm: trains fine "
    "(hard negative for shm_exhausted)", ns={"shm": "2g"})
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("shm_exhausted", "dataloader_small_shm", f"{tag}_shm128m_multiscale", venv, "shm_exhausted/train_loader.py",
        "progressive multi-scale training (batch 8, side 192 + 32/step), 4 workers, /dev/shm = 128 MB: "
        "trains ~10 steps, then BUS error in the workers", ns={"shm": "128m"},
        env={"MULTI_SCALE": "1", "BATCH_SIZE": "8", "IMG_SIZE": "192"})


# ----------------------------------------------------------------------------- Fluid 1.8.5 (the 1.x generation)
F185 = "paddle-1.8.5-cpu"
FLUID_TRAIN = {"common/fluid_train.py": "train.py"}
FLUID_INFER = {"common/fluid_infer.py": "infer.py", "common/export_model.py": "export_model.py"}
add("no_failure", "fluid_training", "paddle185", F185, FLUID_TRAIN,
    "Fluid static-graph MLP, 2 epochs, saves an inference model (save_inference_model)")
add("gpu_not_visible", "gpu_request_cpu_build", "cuda_place_fluid185", F185, FLUID_TRAIN,
    "CPU wheel 1.8.5: fluid.CUDAPlace(0) -> E pybind.cc 'Cannot use GPU because you have installed CPU version', exit 255",
    cmd="python train.py --use_gpu")
add("code_error", "feed_shape_mismatch", "fluid185", F185, FLUID_TRAIN,
    "the job feeds 12 features to a program declared with 13: ValueError 'The fed Variable x should have ...'",
    cmd="python train.py --feat 12")
add("file_not_found", "fluid_model_not_mounted", "missing_dir_paddle185", F185, FLUID_INFER,
    "load_inference_model('models/inference_model'), the volume not mounted: ValueError There is no directory named",
    cmd="python infer.py models/inference_model")
add("file_not_found", "fluid_model_not_mounted", "empty_dir_paddle185", F185, FLUID_INFER,
    "load_inference_model on an empty mount point: FileNotFoundError .../__model__",
    cmd="python infer.py models", setup=[(F185, "mkdir -p models")])
add(MV, "model_from_newer_paddle_on_fluid", "paddle185", F185, FLUID_INFER,
    "a model exported by 2.6.2 loaded by Fluid 1.8.5: Operator flatten_contiguous_range has not been registered",
    cmd="python infer.py inference model.pdmodel model.pdiparams", setup=[(V262, EXPORT)])
add("api_incompatible", "paddle2_code_on_fluid", "paddle185", F185, "api_incompatible/paddle2_dygraph.py",
    "Paddle 2.x dygraph code (paddle.nn) run on 1.8.5: module 'paddle' has no attribute 'nn'")
add("host_oom", "feature_bank_alloc", "fluid185", F185, "host_oom/fluid_feature_bank.py",
    "fluid fill_constant of 4 TB: Error Message Summary 'Alloc ... error!' posix_memalign:12")
add("python_dependency_conflict", "protobuf_too_new", "fluid185", "paddle-1.8.5-train2", FLUID_TRAIN,
    "pip install paddlepaddle==1.8.5 today resolves protobuf 5: 'Descriptors cannot be created directly' at import")
for tag, venv in [("paddle262", V262), ("paddle331", V331)]:
    add(MV, "fluid_model_on_paddle2", f"static_load_{tag}", venv,
        {"model_version_incompatible/infer_static_dir.py": "infer.py", "common/fluid_train.py": "fluid_train.py"},
        "a Fluid 1.8.5 inference_model/ directory (__model__ + one file per parameter) given to "
        "paddle.static.load_inference_model: it looks for inference_model.pdmodel (2.6.2) / .json (3.3.1)",
        cmd="python infer.py inference_model", setup=[(F185, "python fluid_train.py")])
add("code_error", "label_out_of_range", "fluid185", F185, "code_error/fluid_classifier.py",
    "a 10-class Fluid head trained on labels 0..11: OutOfRangeError 'label value should less than ...' (Error Message Summary)",
    cmd="python train.py --label_max 12")
add("no_failure", "fluid_multiprocess_loader", "paddle185", F185, "code_error/fluid_classifier.py",
    "the same Fluid classifier with labels in range, DataLoader.from_generator(use_multiprocess=True)",
    cmd="python train.py --multiprocess")

# ----------------------------------------------------------------------------- host_oom under a container memory limit
# A memory cgroup (docker run --memory): the kernel's OOM killer SIGKILLs the biggest process, the log just
# stops (or a parent says what happened), exit 137 and OOMKilled=true in the metadata.
for tag, venv in [("paddle331", V331), ("paddle262", V262)]:
    add("host_oom", "container_memory_limit", f"grow_cache_{tag}", venv, "host_oom/grow_cache.py",
        "activations kept alive under a 1500 MB memory cgroup: OOM-killed mid-training, no error text",
        memory_cap="1500M")
add("host_oom", "dataloader_worker_oom_killed", "paddle331", V331, "host_oom/worker_cache.py",
    "DataLoader workers caching samples under a 2000 MB memory cgroup: the OOM killer takes a worker",
    memory_cap="2000M", timeout_cmd=120)
add("host_oom", "container_memory_limit", "run_sh_paddle331", V331,
    {"host_oom/grow_cache.py": "train.py", "native_crash/run.sh": "run.sh"},
    "the same job started by a bash entrypoint under a 1500 MB memory cgroup: bash reports 'Killed' and status 137",
    cmd="bash run.sh", memory_cap="1500M")
add("shm_exhausted", "dataloader_small_shm", "fluid185_shm16m", F185, "shm_exhausted/fluid_loader.py",
    "Fluid 1.8.5 dygraph DataLoader, 2 workers, use_shared_memory=True, /dev/shm 16 MB: the workers die "
    "(no Bus error printed), 'DataLoader reader thread raised an exception', 'workers exit unexpectedly', "
    "'Blocking queue is killed'", ns={"shm": "16m"}, timeout_cmd=120)
add("no_failure", "dataloader_workers_big_shm", "fluid185", F185, "shm_exhausted/fluid_loader.py",
    "the same Fluid 1.8.5 DataLoader with the machine's /dev/shm: trains", timeout_cmd=120)
add("disk_full", "model_save_volume_full", "fluid185", F185, FLUID_TRAIN,
    "Fluid 1.8.5 save_inference_model into a 4 KB volume: OSError [Errno 28] No space left on device",
    ns={"tmpfs": {"/workspace/inference_model": "4k"}})
add("native_crash", "segfault_native_helper", "fluid185", F185, "native_crash/fluid_segv.py",
    "Fluid 1.8.5 dygraph, then ctypes on NULL: Paddle 1.x's failure-signal handler (init.cc 'catches a failure "
    "signal', *** SIGSEGV ... stack trace), exit 139")
# Paddle Inference of the Fluid era: AnalysisConfig + create_paddle_predictor
FLUID_PRED = {"common/fluid_predictor.py": "infer.py", "common/fluid_train.py": "fluid_train.py",
              "common/export_model.py": "export_model.py"}
add("no_failure", "fluid_inference_predictor", "paddle185", F185, FLUID_PRED,
    "AnalysisConfig predictor on the model the Fluid job saved: runs (naive_executor skip feed/fetch lines)",
    cmd="python infer.py inference_model", setup=[(F185, "python fluid_train.py")])
add("file_not_found", "fluid_model_not_mounted", "predictor_paddle185", F185, FLUID_PRED,
    "AnalysisConfig('models/inference_model'), the volume not mounted: 'Cannot open file .../__model__' "
    "(analysis_predictor.cc, Error Message Summary)",
    cmd="python infer.py models/inference_model")
add(MV, "model_from_newer_paddle_on_fluid", "predictor_paddle185", F185, FLUID_PRED,
    "a 2.6.2 model.pdmodel/.pdiparams given to the 1.8.5 AnalysisConfig: Operator flatten_contiguous_range "
    "has not been registered",
    cmd="python infer.py inference inference/model.pdmodel inference/model.pdiparams", setup=[(V262, EXPORT)])
add("python_dependency_conflict", "numpy_too_new", "fluid185", "paddle-1.8.5-train3", FLUID_TRAIN,
    "Paddle 1.8.5 next to numpy 1.24: Paddle's own code uses np.int, AttributeError 'module numpy has no attribute int'")

# ----------------------------------------------------------------------------- host_oom in deployment
# Paddle Inference on CPU with a batch too big for the container: the OOM killer under a memory cgroup (the
# predictor's own glog lines, then nothing; or the entrypoint's "Killed"), and the allocator's own
# ResourceExhausted under an address-space cap: the "ResourceExhausted during CPU inference".
PREDICTOR = {"no_failure/predictor.py": "infer.py", "common/export_model.py": "export_model.py"}
for tag, venv, batch in [("paddle331", V331, "120000"), ("paddle262", V262, "40000")]:
    add("host_oom", "inference_memory_cgroup", tag, venv, PREDICTOR,
        f"Paddle Inference with batch {batch} under a 1500 MB memory cgroup: OOM-killed in predictor.run(), exit 137",
        cmd="python infer.py", setup=[(venv, EXPORT)], memory_cap="1500M", env={"BATCH_SIZE": batch})
add("host_oom", "inference_memory_cgroup", "run_sh_paddle262", V262,
    {"no_failure/predictor.py": "train.py", "common/export_model.py": "export_model.py", "native_crash/run.sh": "run.sh"},
    "the same predictor started by a bash entrypoint under a 1500 MB memory cgroup: bash reports 'Killed'",
    cmd="bash run.sh", setup=[(V262, EXPORT)], memory_cap="1500M", env={"BATCH_SIZE": "40000"})
add("host_oom", "inference_batch_memory_cap", "paddle262", V262, PREDICTOR,
    "Paddle Inference 2.6.2 with batch 20000 under a 1.6 GB address-space cap -> ResourceExhausted on CPU",
    cmd="python infer.py", setup=[(V262, EXPORT)], prlimit_as=1_600_000_000, env={"BATCH_SIZE": "20000"})
add("host_oom", "container_memory_limit", "grow_cache_fluid185", F185, "host_oom/fluid_grow_cache.py",
    "Fluid 1.8.5 dygraph keeping activations alive under a 1500 MB memory cgroup: OOM-killed, no error text",
    memory_cap="1500M")

# ----------------------------------------------------------------------------- third-party packages older than Paddle
# A toolkit pinned for an older Paddle breaks inside its own files: the words read like an API removal or an
# import error of the job's, the frames say it is the package (python_dependency_conflict: pin a matching pair).
add("python_dependency_conflict", "toolkit_older_than_paddle", "hf_hub_too_new_paddle331", "paddle-3.3.1-apps",
    "python_dependency_conflict/nlp_finetune.py",
    "paddlenlp 2.5.2 with the huggingface_hub pip resolves today: ImportError cannot import name "
    "'repo_type_and_id_from_hf_id' from 'huggingface_hub' inside paddlenlp")
add("python_dependency_conflict", "toolkit_older_than_paddle", "fluid_removed_paddle331", "paddle-3.3.1-apps2",
    "python_dependency_conflict/nlp_finetune.py",
    "paddlenlp 2.5.2 (its own huggingface_hub pin) on Paddle 3.3.1: its gpt/modeling.py imports paddle.fluid, "
    "ModuleNotFoundError No module named 'paddle.fluid' raised in site-packages/paddlenlp")
add("python_dependency_conflict", "opencv_numpy2_abi", "paddleocr_paddle331", "paddle-3.3.1-apps3",
    "file_not_found/ocr_service.py",
    "paddleocr 2.7.3 as pip resolves it beside Paddle 3.3.1: its opencv-python <= 4.6 was built against numpy 1.x, "
    "numpy is 2.x: 'numpy.core.multiarray failed to import' raised from paddleocr's import of cv2")
# The cluster has no route to the internet (as this capture machine: package registries only): a toolkit that
# fetches its default model on first use fails to resolve the model host. A network outside the container is no
# cause of the taxonomy: unknown (the writers of five independent probe sets all called it so; no real thread
# settles it), with the remedy a person gives it by hand (pre-stage the weights, point the tool at them).
add("unknown", "model_download_offline", "paddleocr_paddle331", "paddle-3.3.1-apps4",
    "file_not_found/ocr_service.py",
    "PaddleOCR(lang='ch') downloads ch_PP-OCRv4_det_infer.tar on first use; no DNS for paddleocr.bj.bcebos.com: "
    "requests ConnectionError (NameResolutionError, Max retries exceeded)")
