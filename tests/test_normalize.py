"""Tests for pipeline.normalize: header families, block grouping, chunking, resumability."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline.normalize import (
    EVENT_COLUMNS,
    FAM_GLOG,
    FAM_NONE,
    FAM_OTHER,
    Normalizer,
    normalize_lines,
    parse_line,
)
from pipeline.sources import Chunk

ENV = "2026-11-29T20:06:47.500000000Z"


def chunk(lines, start=1, ts=ENV, streams=None, line_nos=None):
    n = len(lines)
    return Chunk(
        lines=list(lines),
        line_nos=list(line_nos) if line_nos is not None else list(range(start, start + n)),
        ts=list(ts) if isinstance(ts, list) else [ts] * n,
        streams=list(streams) if streams is not None else ["stderr"] * n,
        end_offsets=list(range(1, n + 1)),
    )


def run_chunks(lines, size, ts=ENV, streams=None):
    """Feed lines in chunks of `size`, return (events, n_pending per feed)."""
    n = len(lines)
    ts_list = ts if isinstance(ts, list) else [ts] * n
    streams = streams if streams is not None else ["stderr"] * n
    norm = Normalizer()
    frames, pendings = [], []
    for a in range(0, n, size):
        ev, pending = norm.feed(chunk(lines[a:a + size], start=a + 1, ts=ts_list[a:a + size],
                                      streams=streams[a:a + size]))
        frames.append(ev)
        pendings.append(pending)
    frames.append(norm.flush())
    return pd.concat(frames, ignore_index=True), pendings


def one(lines, **kw):
    df = normalize_lines(lines, **kw)
    return df


# --------------------------------------------------------------------------------------------
# Paddle-looking samples (2.x / 3.x / 1.x)
# --------------------------------------------------------------------------------------------

PY2_CUDA35 = """\
W1129 20:06:47.123456  1234 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.4, Runtime API Version: 11.8
Traceback (most recent call last):
  File "/workspace/train.py", line 12, in <module>
    paddle.set_device("gpu:0")
  File "/usr/local/lib/python3.10/dist-packages/paddle/device/__init__.py", line 329, in set_device
    place = _convert_to_place(device)
  File "/usr/local/lib/python3.10/dist-packages/paddle/device/__init__.py", line 229, in _convert_to_place
    place = core.CUDAPlace(device_id)
OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. \n\
  [Hint: 'cudaErrorInsufficientDriver'. This indicates that the installed NVIDIA CUDA driver is older than the CUDA runtime library. This is not a supported configuration.Users should install an updated NVIDIA display driver to allow the application to run.] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:66)

I1129 20:06:48.000001  1234 process_group_nccl.cc:132] ProcessGroupNCCL destruct \
""".splitlines()

PY3_PRECONDITION = """\
Traceback (most recent call last):
  File "/app/infer.py", line 8, in <module>
    import paddle
  File "/usr/local/lib/python3.10/dist-packages/paddle/__init__.py", line 30, in <module>
    from .base import core  # noqa: F401
RuntimeError: (PreconditionNotMet) The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code is libcudnn.so: cannot open shared object file: No such file or directory)
  Suggestions:
  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed correctly and its version is matched with paddlepaddle you installed.
  2. Configure third-party dynamic library environment variables as follows:
  - Linux: set LD_LIBRARY_PATH by `export LD_LIBRARY_PATH=...`
  - Windows: set PATH by `set PATH=XXX; (at /paddle/paddle/phi/backends/dynload/dynamic_loader.cc:315)
""".splitlines()

CHAINED = """\
Traceback (most recent call last):
  File "/app/reader.py", line 20, in load
    return np.load(path)
FileNotFoundError: [Errno 2] No such file or directory: '/data/train/images.npy'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/app/train.py", line 50, in <module>
    ds = reader.load("/data/train/images.npy")
  File "/app/reader.py", line 22, in load
    raise RuntimeError("dataset missing") from exc
RuntimeError: dataset missing

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/app/main.py", line 3, in <module>
    train.main()
paddle.base.core.EnforceNotMet: (NotFound) Cannot open file /data/train/images.npy, please confirm whether the file is normal.
  [Hint: Expected static_cast<bool>(fin.is_open()) == true, but received static_cast<bool>(fin.is_open()):0 != true:1.] (at /paddle/paddle/fluid/framework/io/fs.cc:44)
Killed
""".splitlines()

CPP_SEGV = """\
[2026/11/29 10:00:00] ppocr INFO: 训练开始
--------------------------------------
C++ Traceback (most recent call last):
--------------------------------------
0   paddle::framework::StandaloneExecutor::Run(std::vector<std::string, std::allocator<std::string > > const&, bool)
1   paddle::framework::InterpreterCore::Run(std::vector<std::string, std::allocator<std::string > > const&, bool)
2   phi::GPUContext::Wait() const

----------------------
Error Message Summary:
----------------------
FatalError: `Segmentation fault` is detected by the operating system.
  [TimeInfo: *** Aborted at 1764419207 (unix time) try "date -d @1764419207" if you are using GNU date ***]
  [SignalInfo: *** SIGSEGV (@0x0) received by PID 1 (TID 0x7f3c8a1b2740) from PID 0 ***]

Segmentation fault (core dumped)
""".splitlines()

NO_STACK_SEGV = """\
--------------------------------------
C++ Traceback (most recent call last):
--------------------------------------
No stack trace in paddle, may be caused by external reasons.

----------------------
Error Message Summary:
----------------------
FatalError: `Segmentation fault` is detected by the operating system.
  [TimeInfo: *** Aborted at 1764419207 (unix time) try "date -d @1764419207" if you are using GNU date ***]
  [SignalInfo: *** SIGSEGV (@0x0) received by PID 1 (TID 0x7f3c8a1b2740) from PID 0 ***]
""".splitlines()

PY2_OOM = """\
Traceback (most recent call last):
  File "tools/train.py", line 172, in <module>
    main()
  File "/usr/local/lib/python3.7/dist-packages/paddle/fluid/dygraph/varbase_patch_methods.py", line 255, in backward
    core.eager.run_backward([self], grad_tensor, retain_graph)
SystemError: \n\

--------------------------------------
C++ Traceback (most recent call last):
--------------------------------------
0   egr::Backward(std::vector<paddle::experimental::Tensor, std::allocator<paddle::experimental::Tensor> > const&, std::vector<paddle::experimental::Tensor, std::allocator<paddle::experimental::Tensor> > const&, bool)
1   paddle::memory::allocation::CUDAAllocator::AllocateImpl(unsigned long)

----------------------
Error Message Summary:
----------------------
ResourceExhaustedError: \n\

Out of memory error on GPU 0. Cannot allocate 256.000244MB memory on GPU 0, 15.772339GB memory has been allocated and available memory is only 8.000000MB.

Please check whether there is any other process using GPU 0.
1. If yes, please stop them, or start PaddlePaddle on another GPU.
2. If no, please decrease the batch size of your model. \n\
If the above ways do not solve the out of memory problem, you can try to use CUDA managed memory. The command is `export FLAGS_use_cuda_managed_memory=false`.
 (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:87)

INFO 2026-11-29 20:15:39,853 launch_utils.py:343] terminate all the procs
""".splitlines()

PADDLE18 = """\
Traceback (most recent call last):
  File "train.py", line 120, in <module>
    exe.run(fluid.default_startup_program())
  File "/usr/local/lib/python3.7/site-packages/paddle/fluid/executor.py", line 1071, in run
    six.reraise(*sys.exc_info())
paddle.fluid.core_avx.EnforceNotMet: \n\

--------------------------------------------
C++ Call Stacks (More useful to developers):
--------------------------------------------
0   std::string paddle::platform::GetTraceBackString<std::string const&>(std::string const&, char const*, int)
1   paddle::platform::EnforceNotMet::EnforceNotMet(std::string const&, char const*, int)
2   paddle::platform::CUDADeviceContext::CUDADeviceContext(paddle::platform::CUDAPlace)

------------------------------------------
Python Call Stacks (More useful to users):
------------------------------------------
  File "/usr/local/lib/python3.7/site-packages/paddle/fluid/framework.py", line 2525, in append_op
    attrs=kwargs.get("attrs", None))
  File "train.py", line 60, in build
    out = fluid.layers.conv2d(x, 32, 3)

----------------------
Error Message Summary:
----------------------
Error: cudaGetDeviceCount failed in paddle::platform::GetCUDADeviceCountImpl, error code : 35, Please see detail in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html: CUDA driver version is insufficient for CUDA runtime version at (/paddle/paddle/fluid/platform/gpu_info.cc:66)
  [operator < fill_constant > error]
""".splitlines()

PADDLE15 = """\
paddle.fluid.core_avx.EnforceNotMet: Invoke operator fill_constant error.
Python Call stacks: \n\
  File "/usr/local/lib/python3.5/dist-packages/paddle/fluid/framework.py", line 1771, in _prepend_op
    attrs=kwargs.get("attrs", None))
C++ Call stacks: \n\
Enforce failed. Expected allocating <= available, but received allocating:11829751357 > available:11816927232.
Insufficient GPU memory to allocation. at [/paddle/paddle/fluid/platform/gpu_info.cc:262]
PaddlePaddle Call Stacks: \n\
0       0x7f2c3ee8a280p void paddle::platform::EnforceNotMet::Init<std::string>(std::string, char const*, int) + 352
1       0x7f2c3ee8a5f9p paddle::platform::EnforceNotMet::EnforceNotMet(std::string const&, char const*, int) + 137
I1129 20:06:48.000001  1234 executor.cc:100] after
""".splitlines()

PADDLE16_CHECK = """\
----------------------
Error Message Summary:
----------------------
PaddleCheckError: Expected x_mat_dims[1] == y_mat_dims[0], but received x_mat_dims[1]:784 != y_mat_dims[0]:1024.
First matrix's width must be equal with second matrix's height. x_mat_dims[1] = 784, y_mat_dims[0] = 1024 at [/paddle/paddle/fluid/operators/mul_op.cc:85]
  [operator < mul > error]
done
""".splitlines()

SUMMARY_ONLY = """\
----------------------
Error Message Summary:
----------------------
InvalidArgumentError: The shape of input[0] and input[1] is expected to be equal.But received input[0]'s shape = [2, 3], input[1]'s shape = [3, 2].
  [Hint: Expected inputs_dims[0].size() == inputs_dims[i].size(), but received inputs_dims[0].size():2 != inputs_dims[i].size():3.] (at /paddle/paddle/phi/kernels/funcs/concat_funcs.h:55)
  [operator < concat > error]
[2026-11-29 20:15:40,000] [    INFO] - next
""".splitlines()

GLOG_CHECK = """\
I1129 20:06:47.000001  1234 init.cc:10] start
F1129 20:06:47.123456  1234 tensor.cc:42] Check failed: numel() * SizeOf(dtype()) <= memory_size() (1024 vs. 512) \n\
*** Check failure stack trace: ***
    @     0x7f8b4c3d2b6d  google::LogMessage::Fail()
    @     0x7f8b4c3d6b23  google::LogMessage::SendToLog()
    @     0x7f8b4c3d802e  google::LogMessageFatal::~LogMessageFatal()
*** Aborted at 1764419207 (unix time) try "date -d @1764419207" if you are using GNU date ***
PC: @                0x0 (unknown)
*** SIGABRT (@0x4d2) received by PID 1234 (TID 0x7f8b4d000740) from PID 1234; stack trace: ***
    @     0x7f8b4c000390 (unknown)
    @     0x7f8b4bc5a428 gsignal
Aborted (core dumped)
""".splitlines()

SIGSEGV = """\
*** Aborted at 1700000000 (unix time) try "date -d @1700000000" if you are using GNU date ***
PC: @                0x0 (unknown)
*** SIGSEGV (@0x0) received by PID 123 (TID 0x7f0000000700) from PID 0; stack trace: ***
    @     0x7f2e6a3a0390 (unknown)
    @     0x7f2e58d0e2a1 paddle::framework::Tensor::numel()
""".splitlines()

IN_USER_CODE = """\
Traceback (most recent call last):
  File "tools/export_model.py", line 40, in <module>
    main()
ValueError: In user code:

    File "tools/export_model.py", line 30, in main
      out = model(x)
    InvalidArgumentError: The input of Op(Conv) should be a 4-D or 5-D Tensor. But received: input's dimension is 3, input's shape is [1, 3, 224].
      [Hint: Expected in_dims.size() == 4 || in_dims.size() == 5 == true, but received in_dims.size() == 4 || in_dims.size() == 5:0 != true:1.] (at /paddle/paddle/phi/infermeta/binary.cc:423)
      [operator < conv2d > error]
""".splitlines()

ALL_SAMPLES = [PY2_CUDA35, PY3_PRECONDITION, CHAINED, CPP_SEGV, NO_STACK_SEGV, PY2_OOM, PADDLE18,
               PADDLE15, PADDLE16_CHECK, SUMMARY_ONLY, GLOG_CHECK, SIGSEGV, IN_USER_CODE]


# --------------------------------------------------------------------------------------------
# Header families
# --------------------------------------------------------------------------------------------

HEADERS = [
    # (line, expected ts with ENV, level, message, family)
    ("I1129 20:06:47.123456 12345 file.cc:42] msg here",
     "2026-11-29T20:06:47.123456", "INFO", "msg here", FAM_GLOG),
    ("W1129 20:06:47.123456  1234 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, "
     "Driver API Version: 12.2, Runtime API Version: 11.8",
     "2026-11-29T20:06:47.123456", "WARNING",
     "Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8",
     FAM_GLOG),
    ("E1129 20:06:47.123456 file.cc:42] pid-less", "2026-11-29T20:06:47.123456", "ERROR", "pid-less", FAM_GLOG),
    ("[I1129 20:06:47.123456 12345 file.cc:42] bracketed", "2026-11-29T20:06:47.123456", "INFO", "bracketed",
     FAM_GLOG),
    ("I20261129 20:06:47.123456 12345 file.cc:42] glog 0.7", "2026-11-29T20:06:47.123456", "INFO", "glog 0.7",
     FAM_GLOG),
    ("[2026/11/29 10:00:00] ppocr INFO: 训练开始", "2026-11-29T10:00:00", "INFO", "训练开始", FAM_OTHER),
    ("[2026/11/29 10:00:00] ppocr DEBUG: Architecture : ", "2026-11-29T10:00:00", "DEBUG", "Architecture :",
     FAM_OTHER),
    ("[2026-11-29 20:15:39,853] [ WARNING] x.py:733 - msg", "2026-11-29T20:15:39.853", "WARNING", "msg",
     FAM_OTHER),
    ("[2026-11-29 20:15:39,853] [    INFO] - loss: 2.345, global_step: 10", "2026-11-29T20:15:39.853", "INFO",
     "loss: 2.345, global_step: 10", FAM_OTHER),
    ("[2026-11-29 20:15:39,853] [    INFO] topology.py:269 - Total 8 pipe comm group(s) create successfully!",
     "2026-11-29T20:15:39.853", "INFO", "Total 8 pipe comm group(s) create successfully!", FAM_OTHER),
    ("2026-11-29 20:15:39,853 - INFO - msg", "2026-11-29T20:15:39.853", "INFO", "msg", FAM_OTHER),
    ("2026-11-29 20:15:39,853 - paddle.utils - ERROR - boom", "2026-11-29T20:15:39.853", "ERROR", "boom",
     FAM_OTHER),
    ("[11/29 20:15:39] ppdet.engine INFO: Epoch: [0] [  0/7329] learning_rate: 0.000100",
     "2026-11-29T20:15:39", "INFO", "Epoch: [0] [  0/7329] learning_rate: 0.000100", FAM_OTHER),
    ("INFO 2026-11-29 20:15:39,853 launch.py:123] Run the job", "2026-11-29T20:15:39.853", "INFO",
     "Run the job", FAM_OTHER),
    ("LAUNCH INFO 2026-11-29 20:15:39,853 Waiting peer start...", "2026-11-29T20:15:39.853", "INFO",
     "Waiting peer start...", FAM_OTHER),
    ("[2026-11-29 20:15:39] [INFO] msg", "2026-11-29T20:15:39", "INFO", "msg", FAM_OTHER),
    ("[2026-11-29 20:15:39] [ERROR] bad", "2026-11-29T20:15:39", "ERROR", "bad", FAM_OTHER),
    ("2026-11-29T20:06:47.123Z msg", "2026-11-29T20:06:47.123Z", None, "msg", FAM_OTHER),
    ("2026-11-29T20:06:47.123456+08:00 msg", "2026-11-29T20:06:47.123456+08:00", None, "msg", FAM_OTHER),
    ("2026-11-29 20:06:47 msg", "2026-11-29T20:06:47", None, "msg", FAM_OTHER),
    ("2026-11-29 20:06:47,001 WARNING something", "2026-11-29T20:06:47.001", "WARNING", "something", FAM_OTHER),
    ("2026-11-29 20:15:39.123 | ERROR    | app.main:run:42 - loguru", "2026-11-29T20:15:39.123", "ERROR",
     "loguru", FAM_OTHER),
    ("INFO:root:hello", ENV, "INFO", "hello", FAM_OTHER),
    ("[WARNING] plain bracket level", ENV, "WARNING", "plain bracket level", FAM_OTHER),
    ("/opt/venv/lib/python3.10/site-packages/paddle/utils/cpp_extension/extension_utils.py:686: UserWarning: "
     "No ccache found.", ENV, "WARNING", "UserWarning: No ccache found.", FAM_OTHER),
    ("Error: something failed", ENV, "ERROR", "Error: something failed", FAM_NONE),
    ("ERROR: could not find", ENV, "ERROR", "ERROR: could not find", FAM_NONE),
    ("FatalError: `Aborted` is detected", ENV, "FATAL", "FatalError: `Aborted` is detected", FAM_NONE),
    ("ModuleNotFoundError: No module named 'paddleocr'", ENV, "ERROR",
     "ModuleNotFoundError: No module named 'paddleocr'", FAM_NONE),
    ("paddle.base.core.EnforceNotMet: (NotFound) x", ENV, "ERROR", "paddle.base.core.EnforceNotMet: (NotFound) x",
     FAM_NONE),
    ("DeprecationWarning: np.bool is deprecated", ENV, "WARNING", "DeprecationWarning: np.bool is deprecated",
     FAM_NONE),
    ("Errors are counted below", ENV, None, "Errors are counted below", FAM_NONE),
    ("step 10, loss 0.234, acc 0.91", ENV, None, "step 10, loss 0.234, acc 0.91", FAM_NONE),
]


@pytest.mark.parametrize("line,ts,level,message,fam", HEADERS)
def test_header_families(line, ts, level, message, fam):
    df = one([line], ts=[ENV])
    assert len(df) == 1
    row = df.iloc[0]
    # the envelope's clock is the event's; the header's is the line's own (parse_line)
    assert (row.ts, row.level, row.message, row.kind, row.n_lines) == (ENV, level, message, "line", 1)
    # parse_line agrees with the (inlined) normalizer fast path
    p_ts, p_level, p_msg, p_fam = parse_line(line, ENV)
    assert (p_ts or ENV, p_level, p_msg.strip(), p_fam) == (ts, level, message, fam)
    # without an envelope, a header with a full date gives the event's ts; a year-less one none
    bare = one([line]).ts[0]
    assert bare == parse_line(line)[0] and (bare is None or bare == ts)


def test_year_from_envelope_or_none():
    glog = "I1129 20:06:47.123456 12345 file.cc:42] x"
    assert one([glog]).ts[0] is None                       # no envelope: no invented year
    assert parse_line(glog)[0] is None
    assert parse_line(glog, "2024-11-29T20:06:47Z")[0] == "2024-11-29T20:06:47.123456"
    # a December header with a January envelope belongs to the previous year
    assert parse_line("I1231 23:59:59.900000 1 f.cc:1] x", "2027-01-01T00:00:01Z")[0] == "2026-12-31T23:59:59.900000"
    assert one(["[11/29 20:15:39] ppdet.engine INFO: x"]).ts[0] is None
    # a full-date header gives the event's ts without an envelope, the envelope's clock with one
    assert one(["[2026/11/28 10:00:00] ppocr INFO: x"]).ts[0] == "2026-11-28T10:00:00"
    assert one(["[2026/11/28 10:00:00] ppocr INFO: x"], ts=[ENV]).ts[0] == ENV


def test_a_container_on_local_time_keeps_the_runtimes_utc_clock():
    """A job in Asia/Shanghai prints UTC+8 in its headers; CRI stamps each line in UTC. The event
    is when the runtime saw it: a run whose plain and GLOG lines mix the two clocks would otherwise
    last 8 hours longer than it did, and one that ends near midnight UTC would change weeks."""
    lines = ["W1207 07:59:58.000000 1 init.cc:1] start", "epoch 1 loss 0.3",
             "[2026-12-07 08:00:03,100] [    INFO] - saved", "I1207 08:00:04.000000 1 f.cc:1] done"]
    env = ["2026-12-06T23:59:58.100000000Z", "2026-12-07T00:00:01.000000000Z", "2026-12-07T00:00:03.200000000Z",
           "2026-12-07T00:00:04.100000000Z"]
    assert one(lines, ts=env).ts.tolist() == env
    # no header at all: the envelope timestamp
    assert one(["plain"], ts=[ENV]).ts[0] == ENV


def test_ansi_and_carriage_returns():
    df = one([
        "\x1b[32m[2026/11/29 10:00:00] ppocr INFO:\x1b[0m \x1b[1mcolored\x1b[0m text",
        "\x1b[31mError: red\x1b[0m",
        " 10%|#         | 1/10\r 50%|#####     | 5/10\r100%|##########| 10/10",
    ], ts=[ENV] * 3)
    assert df.message.tolist() == ["colored text", "Error: red", "100%|##########| 10/10"]
    assert df.level.tolist() == ["INFO", "ERROR", None]
    assert not any("\x1b" in t for t in df.text)


RELAYS = ["[1,0]<stderr>:", "[rank3]:", "(RayTrainWorker pid=4242, ip=10.0.0.3) ", "(pid=77) ",
          "[pod/train-job-0/trainer] ", "trainer-1  | ", "paddle_serving_1 | ", "> ", "> > ",
          "[2024-07-22, 03:10:49 UTC] {process_utils.py:190} INFO - ",
          "[2021-03-04 12:00:01,123] {taskinstance.py:1150} INFO - ",
          "[2024-07-22T03:10:49.123+0000] {subprocess.py:93} INFO - ", "0: ", " 7: ", "12: "]


@pytest.mark.parametrize("relay", RELAYS)
def test_relay_prefixes_go_like_an_envelope(relay):
    """mpirun --tag-output, torchrun, Ray and kubectl --prefix put a tag before every line: the
    header behind it is read and a traceback behind it is still one block, as without the tag."""
    lines = PY2_CUDA35 + ["[2026/11/29 10:00:00] ppocr INFO: after"]
    plain = one(lines, ts=[ENV] * len(lines))
    relayed = one([relay + line for line in lines], ts=[ENV] * len(lines))
    pd.testing.assert_frame_equal(relayed, plain)
    assert relayed.kind.tolist() == ["line", "py_traceback", "line", "line"]


def test_lines_like_a_relay_prefix_are_kept():
    kept = ["[2026/11/29 10:00:00] ppocr INFO: x", "(base) user@host:~$ python train.py", "[pod/x] y",
            "(pid=12)no space", "[1,0] <stderr>: spaced", ">>> import paddle", "Epoch  | loss 0.5",
            " 50%|#####     | 5/10", "12:30: compiled", "3.14: pi", "12345: five digits"]
    df = one(kept)
    assert [t.strip() for t in df.text] == [kept[0].split("INFO: ")[1], *(k.strip() for k in kept[1:])]


def test_airflow_lookalikes_keep_their_header():
    """Only "[ts] {file.py:N} LEVEL - " is Airflow's relay: other lines behind an ISO timestamp
    keep their timestamp (a relay tag is dropped with whatever time it carried)."""
    df = one(["[2024-07-22 03:10:49] {not airflow}", "[2024-07-22 03:10:49]{x.py:1} INFO - no space",
              "[2024-07-22 03:10:49,123] [    INFO] - paddlenlp line"])
    assert [ts[:19] for ts in df.ts] == ["2024-07-22T03:10:49"] * 3
    assert df.message.tolist()[0] == "{not airflow}"


def test_chinese_text_and_blank_lines():
    df = one(["[2026/11/29 10:00:00] ppocr INFO: 训练开始", "", "   ", "评估结束：精度 0.91"])
    assert df.message.tolist() == ["训练开始", "评估结束：精度 0.91"]
    assert df.line_no.tolist() == [1, 4]


def test_output_dtypes_and_empty():
    df = one(PY2_CUDA35)
    assert list(df.columns) == EVENT_COLUMNS
    assert df.line_no.dtype == np.int64 and df.n_lines.dtype == np.int64
    for col in EVENT_COLUMNS[2:]:
        assert df[col].dtype == object
    assert all(v is None or isinstance(v, str) for v in df.level)
    empty, pending = Normalizer().feed(chunk([]))
    assert pending == 0 and list(empty.columns) == EVENT_COLUMNS and empty.line_no.dtype == np.int64
    assert empty.message.dtype == object and Normalizer().flush().empty


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------

def test_python_traceback_cuda35_keeps_hint():
    df = one(PY2_CUDA35, ts=[ENV] * len(PY2_CUDA35))
    assert df.kind.tolist() == ["line", "py_traceback", "line"]
    tb = df.iloc[1]
    assert tb.line_no == 2 and tb.n_lines == 9 and tb.level == "ERROR" and tb.ts == ENV
    assert tb.message == ("OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA "
                          "runtime version.")
    assert "[Hint: 'cudaErrorInsufficientDriver'" in tb.text and tb.text.startswith("Traceback")
    assert df.message[2] == "ProcessGroupNCCL destruct"


def test_python_traceback_paddle3_precondition():
    df = one(PY3_PRECONDITION)
    assert len(df) == 1
    assert df.kind[0] == "py_traceback" and df.n_lines[0] == len(PY3_PRECONDITION)
    assert df.message[0].startswith("RuntimeError: (PreconditionNotMet) The third-party dynamic library (libcudnn.so)")
    assert "dynamic_loader.cc:315" in df.text[0]


def test_chained_tracebacks_are_one_event():
    df = one(CHAINED)
    assert df.kind.tolist() == ["py_traceback", "line"]
    assert df.n_lines[0] == len(CHAINED) - 1
    assert df.message[0].startswith("paddle.base.core.EnforceNotMet: (NotFound) Cannot open file")
    assert "During handling of the above exception" in df.text[0]
    assert "FileNotFoundError" in df.text[0]
    assert df.message[1] == "Killed"


def test_cpp_traceback_with_fatal_summary():
    df = one(CPP_SEGV)
    assert df.kind.tolist() == ["line", "cpp_traceback", "line"]
    ev = df.iloc[1]
    assert ev.message == "FatalError: `Segmentation fault` is detected by the operating system."
    assert ev.level == "FATAL" and ev.line_no == 2 and ev.n_lines == 13
    assert "[SignalInfo: *** SIGSEGV (@0x0)" in ev.text and ev.text.startswith("-----")
    assert df.message[2] == "Segmentation fault (core dumped)"
    df = one(NO_STACK_SEGV)
    assert df.kind.tolist() == ["cpp_traceback"] and df.n_lines[0] == len(NO_STACK_SEGV)
    assert df.message[0].startswith("FatalError: `Segmentation fault`")


def test_paddle2_exception_then_dump_oom():
    df = one(PY2_OOM)
    assert df.kind.tolist() == ["py_traceback", "cpp_traceback", "line"]
    assert df.message[0] == "SystemError:"
    dump = df.iloc[1]
    assert dump.line_no == 8
    # empty-bodied error line + the first body line
    assert dump.message.startswith("ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 256.000244MB")
    assert "cuda_allocator.cc:87" in dump.text and "Please check whether" in dump.text
    assert df.message[2] == "terminate all the procs" and df.level[2] == "INFO"


def test_paddle18_enforce_not_met_dump():
    df = one(PADDLE18)
    assert df.kind.tolist() == ["py_traceback", "cpp_traceback"]
    dump = df.iloc[1]
    assert dump.message.startswith("Error: cudaGetDeviceCount failed") and "error code : 35" in dump.message
    assert "Python Call Stacks (More useful to users):" in dump.text
    assert "[operator < fill_constant > error]" in dump.text
    assert dump.n_lines == len(PADDLE18) - 7


def test_paddle15_call_stacks():
    df = one(PADDLE15)
    assert df.kind.tolist() == ["line", "cpp_traceback", "line"]
    assert df.level[0] == "ERROR"
    assert df.message[1].startswith("Enforce failed. Expected allocating <= available")
    assert "Insufficient GPU memory" in df.text[1] and df.n_lines[1] == 9


def test_error_summary_blocks():
    df = one(SUMMARY_ONLY)
    assert df.kind.tolist() == ["error_summary", "line"]
    assert df.message[0].startswith("InvalidArgumentError: The shape of input[0] and input[1]")
    assert df.n_lines[0] == 6 and "[operator < concat > error]" in df.text[0]
    df = one(PADDLE16_CHECK)
    assert df.kind.tolist() == ["error_summary", "line"]
    assert df.message[0].startswith("PaddleCheckError: Expected x_mat_dims[1] == y_mat_dims[0]")
    assert "mul_op.cc:85" in df.text[0] and df.n_lines[0] == 6


def test_glog_check_failure_and_signal_dump():
    df = one(GLOG_CHECK, ts=[ENV] * len(GLOG_CHECK))
    assert df.kind.tolist() == ["line", "cpp_traceback", "line"]
    ev = df.iloc[1]
    assert ev.message == "Check failed: numel() * SizeOf(dtype()) <= memory_size() (1024 vs. 512)"
    assert ev.level == "FATAL" and ev.ts == ENV and ev.n_lines == 10
    assert "*** SIGABRT" in ev.text
    df = one(SIGSEGV)
    assert df.kind.tolist() == ["cpp_traceback"]
    assert df.message[0].startswith("*** SIGSEGV (@0x0) received by PID 123")


def test_in_user_code_uses_inner_error():
    df = one(IN_USER_CODE)
    assert df.kind.tolist() == ["py_traceback"] and df.n_lines[0] == len(IN_USER_CODE)
    assert df.message[0].startswith("InvalidArgumentError: The input of Op(Conv) should be a 4-D or 5-D Tensor")


def test_lone_glog_fatal_and_dashes_stay_lines():
    df = one(["F1129 20:06:47.123456  1234 x.cc:1] fatal alone", "-----------", "next"])
    assert df.kind.tolist() == ["line", "line", "line"]
    assert df.level[0] == "FATAL" and df.message.tolist() == ["fatal alone", "-----------", "next"]


def test_interleaved_stream_line_does_not_break_traceback():
    lines = PY2_CUDA35[1:9]
    lines = lines[:4] + ["[2026/11/29 10:00:01] ppocr INFO: epoch 1 done"] + lines[4:]
    streams = ["stderr"] * 4 + ["stdout"] + ["stderr"] * (len(lines) - 5)
    df = one(lines, streams=streams)
    assert df.kind.tolist() == ["py_traceback", "line"]
    assert df.line_no.tolist() == [1, 5]              # ordered by first line
    assert df.n_lines[0] == len(lines) - 1 and df.stream.tolist() == ["stderr", "stdout"]
    assert "epoch" not in df.text[0] and df.message[0].startswith("OSError: (External) CUDA error(35)")


def test_line_numbers_come_from_chunk():
    norm = Normalizer()
    ev, pending = norm.feed(chunk(["a", "Traceback (most recent call last):", '  File "x.py", line 1',
                                   "ValueError: x"], line_nos=[10, 12, 15, 16]))
    ev = pd.concat([ev, norm.flush()], ignore_index=True)
    assert ev.line_no.tolist() == [10, 12] and ev.n_lines.tolist() == [1, 3]


def test_block_is_bounded():
    lines = ["Traceback (most recent call last):"] + ['  File "x.py", line 1, in f'] * 1200 + ["ValueError: deep"]
    df = one(lines)
    assert df.n_lines.max() <= 500
    assert df.n_lines.sum() == len(lines)
    assert df.kind[0] == "py_traceback"
    big = ["Traceback (most recent call last):"] + ["  " + "x" * 5000] * 40 + ["ValueError: wide"]
    df = one(big)
    assert len(df.text[0]) <= 64 * 1024 + 5002


# --------------------------------------------------------------------------------------------
# Chunking: independence from chunk size, pending lines and resumability
# --------------------------------------------------------------------------------------------

def _mixed():
    lines, streams, ts = [], [], []
    for k, sample in enumerate(ALL_SAMPLES):
        for j, line in enumerate(sample):
            lines.append(line)
            streams.append("stderr")
            ts.append(f"2026-11-29T20:{k:02d}:{j % 60:02d}.000000000Z")
            if j % 5 == 2:    # interleave stdout lines everywhere, also inside blocks
                lines.append(f"[2026/11/29 10:00:{j % 60:02d}] ppocr INFO: epoch {k}/{j}")
                streams.append("stdout")
                ts.append(ts[-1])
        if k in (2, 6):       # blocks of both streams interleaved
            for line, stream in zip(TWO_STREAMS, TWO_STREAMS_STREAMS):
                lines.append(line)
                streams.append(stream)
                ts.append(ts[-1])
    return lines, streams, ts


ERR_TB = ["Traceback (most recent call last):", '  File "a.py", line 1', "ValueError: from stderr"]
OUT_TB = ["Traceback (most recent call last):", '  File "b.py", line 2', "KeyError: 'from stdout'"]
TWO_STREAMS = [ERR_TB[0], "stdout before", OUT_TB[0], ERR_TB[1], OUT_TB[1], ERR_TB[2], "I1129 20:06:47.1 1 f.cc:1] e",
               OUT_TB[2], "I1129 20:06:47.2 1 f.cc:1] o"]
TWO_STREAMS_STREAMS = ["stderr", "stdout", "stdout", "stderr", "stdout", "stderr", "stderr", "stdout", "stdout"]


def test_chunk_size_independence():
    lines, streams, ts = _mixed()
    ref, _ = run_chunks(lines, len(lines), ts=ts, streams=streams)
    for size in (1, 7, 50):
        got, _ = run_chunks(lines, size, ts=ts, streams=streams)
        pd.testing.assert_frame_equal(got, ref)
    assert ref.line_no.is_monotonic_increasing
    assert set(ref.kind) == {"line", "py_traceback", "cpp_traceback", "error_summary"}


def rows(df):
    return list(df.itertuples(index=False, name=None))


def check_resume(lines, streams, ts, size):
    """Model the nightly caller: after each feed, write the events and commit the offset before
    the pending lines (keep the previous commit when all lines are pending); a crash at any
    point followed by a restart from the commit point must give exactly the reference events."""
    ref = rows(run_chunks(lines, len(lines), ts=ts, streams=streams)[0])
    norm = Normalizer()
    done = []
    commit = 0
    for a in range(0, len(lines), size):
        ev, pending = norm.feed(chunk(lines[a:a + size], start=a + 1, ts=ts[a:a + size],
                                      streams=streams[a:a + size]))
        n = len(lines[a:a + size])
        assert 0 <= pending <= n
        if pending == n:
            assert ev.empty
        else:
            commit = a + n - pending
        done += rows(ev)
        # restart from the commit point (chunking of the rest does not matter)
        rest = rows(run_chunks_from(lines, ts, streams, commit, len(lines)))
        assert done + rest == ref, (size, a, commit)
    assert done + rows(norm.flush()) == ref


def test_pending_lines_and_resume_from_commit_point():
    lines, streams, ts = _mixed()
    for size in (3, 7):
        check_resume(lines, streams, ts, size)


def test_resume_with_blocks_of_two_streams_interleaved():
    # stderr block A closes while stdout block B (started inside A) is still open, then B closes
    # while stderr block C is open: A must not be released before B's first line is committable.
    lines = ["Traceback (most recent call last):", '  File "a.py", line 1',
             "Traceback (most recent call last):", '  File "b.py", line 2',
             "ValueError: A", "I1129 20:06:47.1 1 f.cc:1] after A",
             "Traceback (most recent call last):",
             "KeyError: 'B'", "I1129 20:06:47.2 1 f.cc:1] after B",
             '  File "c.py", line 3', "RuntimeError: C", "done"]
    streams = ["stderr", "stderr", "stdout", "stdout", "stderr", "stderr", "stderr", "stdout", "stdout",
               "stderr", "stderr", "stderr"]
    ts = [ENV] * len(lines)
    ref = run_chunks(lines, len(lines), ts=ts, streams=streams)[0]
    assert ref.message.tolist() == ["ValueError: A", "KeyError: 'B'", "after A", "RuntimeError: C",
                                    "after B", "done"]
    for size in range(1, len(lines) + 1):
        check_resume(lines, streams, ts, size)


def run_chunks_from(lines, ts, streams, start, size):
    norm = Normalizer()
    frames = []
    for a in range(start, len(lines), size):
        ev, _ = norm.feed(chunk(lines[a:a + size], start=a + 1, ts=ts[a:a + size], streams=streams[a:a + size]))
        frames.append(ev)
    frames.append(norm.flush())
    return pd.concat(frames, ignore_index=True)


def test_two_streams_with_interleaved_blocks():
    ref, _ = run_chunks(TWO_STREAMS, len(TWO_STREAMS), streams=TWO_STREAMS_STREAMS)
    assert ref.kind.tolist() == ["py_traceback", "line", "py_traceback", "line", "line"]
    assert ref.line_no.tolist() == [1, 2, 3, 7, 9]
    assert ref.message[0] == "ValueError: from stderr" and ref.message[2] == "KeyError: 'from stdout'"
    assert ref.stream.tolist() == ["stderr", "stdout", "stdout", "stderr", "stdout"]
    for size in (1, 2, 3):
        got, _ = run_chunks(TWO_STREAMS, size, streams=TWO_STREAMS_STREAMS)
        pd.testing.assert_frame_equal(got, ref)


def test_open_block_is_carried():
    norm = Normalizer()
    ev, pending = norm.feed(chunk(["hello", "Traceback (most recent call last):", '  File "a.py", line 1']))
    assert ev.message.tolist() == ["hello"] and pending == 2
    ev, pending = norm.feed(chunk(["    x()", "KeyError: 'a'"], start=4))
    assert ev.empty and pending == 2          # could still continue with "  [Hint: ...]"
    ev, pending = norm.feed(chunk(["I1129 20:06:47.123456 1 f.cc:1] after"], start=6))
    assert ev.kind.tolist() == ["py_traceback", "line"] and pending == 0
    assert ev.n_lines.tolist() == [4, 1] and ev.message[0] == "KeyError: 'a'"


def test_normalize_lines_strips_newlines():
    df = normalize_lines(["Traceback (most recent call last):\n", '  File "a.py", line 1\n', "ValueError: v\r\n"])
    assert df.message.tolist() == ["ValueError: v"] and "\n\n" not in df.text[0]


def test_frame_fallback_without_pandas_helper(monkeypatch):
    import pipeline.normalize as nz

    lines = PY2_OOM + CPP_SEGV
    fast = one(lines, ts=[ENV] * len(lines))
    monkeypatch.setattr(nz, "_object_array_builder", lambda: None)
    slow = one(lines, ts=[ENV] * len(lines))
    pd.testing.assert_frame_equal(fast, slow)
    assert [slow[c].dtype for c in EVENT_COLUMNS] == [np.int64, np.int64] + [object] * 6


def test_nccl_says_which_of_its_lines_are_info_and_keeps_its_prefix():
    info, warn = normalize_lines(["node-7:311:401 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
                                  "object file: No such file or directory",
                                  "node-7:311:409 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to "
                                  "10.0.0.2<47219> failed"]).itertuples()
    assert info.level == "INFO" and info.message.startswith("node-7:311:401 [0] NCCL INFO")
    assert warn.level is None and "NCCL WARN" in warn.message   # how NCCL reports its errors: no level to hide it
