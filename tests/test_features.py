"""Per-run features: the last error (focus) and the context that tells look-alike errors apart."""
from __future__ import annotations

from pipeline.features import frame_location, run_features
from pipeline.normalize import normalize_lines


def feats(lines, meta=None):
    return run_features(normalize_lines(lines), meta or {})


def test_frame_location_tells_job_files_from_paddle_and_packages():
    assert frame_location("/usr/local/lib/python3.8/site-packages/paddle/fluid/executor.py") == "paddle"
    assert frame_location("C:\\Users\\a\\anaconda3\\lib\\site-packages\\paddle\\base\\framework.py") == "paddle"
    assert frame_location("/opt/conda/lib/python3.10/site-packages/cv2/typing/__init__.py") == "thirdparty"
    assert frame_location("/usr/lib/python3.8/threading.py") == "stdlib"
    assert frame_location("tools/train.py") == "user"
    assert frame_location("/root/PaddleDetection/ppdet/data/source/voc.py") == "user"


def test_context_names_generation_deployment_and_devices():
    lite = feats(["[F 11/28 17:52:52 ...lite/core/program.cc:356 RuntimeProgram] Check failed: (kernels.size() > 0)",
                  "Error: This model is not supported, because kernel for 'calib' is not supported by Paddle-Lite."])
    assert {"deploy_lite"} <= set(lite.context.split())
    infer = feats(["E0115 09:29:03.009744 88772 analysis_config.cc:91] Please compile with gpu to EnableGpu()"])
    assert {"deploy_infer", "no_gpu"} <= set(infer.context.split())
    fluid = feats(["paddle.fluid.core.EnforceNotMet: enforce x_mat_dims[1] == y_mat_dims[0] failed, 1 != 5",
                   "PaddlePaddle Call Stacks:"])
    assert "gen_fluid" in fluid.context.split()
    gpu = feats(["W0120 10:00:00.000000  1 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 9.0, "
                 "Driver API Version: 12.2, Runtime API Version: 11.2", "KeyError: 'x'"])
    assert {"gpu_seen", "driver_seen"} <= set(gpu.context.split())


def test_focus_is_the_error_the_run_died_of_not_earlier_warnings():
    f = feats(["W1129 10:00:00.000000  1 gpu_resources.cc:164] WARNING: device: 0. The installed Paddle is compiled "
               "with CUDNN 8.9, but CUDNN version in your machine is 8.6, which may cause serious incompatible bug.",
               "[2026/11/29 10:00:05] ppocr INFO: epoch: [1/500], global_step: 10, loss: 21.5",
               "Traceback (most recent call last):",
               '  File "tools/train.py", line 12, in <module>',
               '  File "/root/PaddleDetection/ppdet/data/source/voc.py", line 154, in load_roidb',
               "KeyError: 'rats'"])
    assert "KeyError: 'rats'" in f.focus and "CUDNN" not in f.focus
    tokens = f.context.split()
    assert {"frame_user", "no_paddle_frame", "exc_keyerror", "last_py_traceback"} <= set(tokens)
    assert "tb_truncated" not in tokens


def test_numpy_dispatch_is_no_frame_of_its_own():
    """numpy < 1.25 shows "<__array_function__ internals>" under the job's call of np.concatenate: the failing
    frame is the job's line, so a bug-type exception there is the job's (python_bug_in_job_code)."""
    from pipeline.rules import RuleSet
    lines = ["Traceback (most recent call last):",
             '  File "/data/proj/layout/losses.py", line 88, in __call__',
             '    tgt = np.concatenate([t["boxes"] for t in targets if len(t["boxes"])], axis=0)',
             '  File "<__array_function__ internals>", line 200, in concatenate',
             "ValueError: need at least one array to concatenate"]
    assert "frame_user" in feats(lines).context.split()
    verdict = RuleSet.load().match(normalize_lines(lines), {"exit_code": 1})
    assert verdict is not None and verdict.rule_id == "python_bug_in_job_code"


def test_context_tells_a_run_that_ended_well_and_a_debugger_dump_from_a_log_without_errors():
    ok = feats(["W1130 10:00:00.000000 1 tensorrt.cc:56] You are using Paddle compiled with TensorRT, but TensorRT "
                "dynamic library is not found. Ignore this if TensorRT is not needed.",
                "Predict time of ./imgs/11.jpg: 0.063s"])
    assert {"no_error", "ended_well"} <= set(ok.context.split())
    # a result line before the error it died of is no good end
    died = feats(["Predict time of ./imgs/11.jpg: 0.063s", "Traceback (most recent call last):",
                  '  File "infer.py", line 9, in <module>', "KeyError: 'boxes'"])
    assert "ended_well" not in died.context.split()
    # nor an installation check pasted after the traceback; the check alone ended well
    check = ["PaddlePaddle works well on 1 GPU.", "PaddlePaddle is installed successfully! Let's start deep learning."]
    tb = ["Traceback (most recent call last):", '  File "infer.py", line 9, in <module>', "KeyError: 'boxes'"]
    assert "ended_well" not in feats(tb + check).context.split()
    assert "ended_well" in feats(check).context.split()
    # nor in a run its exit status, or its last line, says failed
    results = ["Predict time of ./imgs/11.jpg: 0.063s", "Predict time of ./imgs/12.jpg: 0.061s"]
    assert "ended_well" not in feats(results, {"exit_code": 1}).context.split()
    assert "ended_well" not in feats([*results, "Process finished with exit code 1"]).context.split()
    assert "ended_well" in feats([*results, "Process finished with exit code 0"]).context.split()
    # nor a line typed at a prompt: the user's note on another run, a command
    rerun = "$ # same job with conf/v2.yaml on the same node: step 2000 loss 0.41 acc 0.8906"
    assert "ended_well" not in feats([*tb, rerun]).context.split()
    assert "ended_well" not in feats([*tb, "(paddle) root@node3:/work# echo training finished"]).context.split()
    assert "ended_well" in feats([*tb, "[2024-03-06 05:42:24] INFO - epoch 3 acc 0.8906"]).context.split()
    # commands typed after the run to look at the machine are not its end (a config, a listing); a `cat` of
    # the run's own log is the run, and the end is the last command's output, not the one before it
    served = ["Concurrency: 8, throughput: 95.4833 infer/sec, latency 83674 usec"]
    look = ["$ grep -A3 instance_group /serving/models/cls/config.pbtxt", "instance_group [", "  {", "    count: 2",
            "    kind: KIND_CPU"]
    assert "ended_well" in feats([*tb, *served, *look]).context.split()
    assert "ended_well" not in feats([*tb, *served, "$ python serve.py --port 8001", *look[1:]]).context.split()
    assert "ended_well" not in feats([*tb, *served, "$ python infer.py", "result: A3Q852", *look]).context.split()
    assert "ended_well" in feats(["$ cat tts.log", *tb, *served, "$ ls out | wc -l", "3120"]).context.split()
    # a closing summary that counts a few failed items and says it ended well is the good end, not the last error
    oom = ["E0412 21:40:02.118 trt] 1: Error Code 1: Cuda Runtime (out of memory)", "W0412 trt] Skipping tactic 3"]
    summary = "summary: processed 1,562,000, failed 4, wall 1h14m33s, exit 0"
    assert "ended_well" in feats([*oom, "crops 1,562,004/1,562,004 (100%)", summary]).context.split()
    assert "ended_well" not in feats([*oom, "summary: processed 1,562,000, failed 4, exit 3"]).context.split()
    assert feats(results, {"exit_code": 1}).known_failed and feats(results, {"oom_killed": True}).known_failed
    assert feats([*results, "Process finished with exit code 1"]).known_failed
    assert not feats(results, {"exit_code": 0}).known_failed and not feats(results).known_failed
    gdb = feats(["#0  0x00007f3a1c2b4e10 in paddle::framework::Tensor::mutable_data () from libpaddle.so",
                 "#1  0x00007f3a1c2b5f21 in paddle::operators::ConvOp::Run ()",
                 "    at /paddle/paddle/fluid/operators/conv_op.cc:248"])
    assert {"no_error", "native_dump"} <= set(gdb.context.split()) and "ended_well" not in gdb.context.split()


def test_a_call_stack_dump_after_the_exception_does_not_hide_it_from_the_focus():
    # Fluid 1.5 prints the exception, then its call stacks as a block of their own
    lines = ["Traceback (most recent call last):",
             '  File "train.py", line 140, in <module>',
             '  File "/usr/local/lib/python2.7/dist-packages/paddle/fluid/executor.py", line 470, in run',
             "paddle.fluid.core.EnforceNotMet: Cannot find fetch variable in scope, fetch_var_name is mean_1.tmp_0 at "
             "[/paddle/paddle/fluid/operators/fetch_op.cc:37]",
             "PaddlePaddle Call Stacks:",
             "0       0x7f1c3b2e1c3dp void paddle::platform::EnforceNotMet::Init<char const*>(char const*, char const*, int) + 365",
             "1       0x7f1c3b2e1fb7p paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, "
             "char const*, int) + 87"]
    f = feats(lines)
    assert "fetch variable" in f.focus and "PaddlePaddle Call Stacks" in f.focus
    # a dump with a message of its own (2.x's Error Message Summary) stays the whole focus
    g = feats(["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "KeyError: 'earlier'",
               "C++ Traceback (most recent call last):", "0   paddle::framework::Executor::Run()",
               "Error Message Summary:", "FatalError: `Segmentation fault` is detected by the operating system."])
    assert "Segmentation fault" in g.focus and "earlier" not in g.focus


def test_a_paste_cut_inside_a_traceback_is_marked_and_its_frames_kept():
    f = feats(["Traceback (most recent call last):",
               '  File "tools/infer.py", line 8, in <module>',
               '  File "/usr/local/lib/python3.9/site-packages/pycocotools/coco.py", line 56, in <module>'])
    tokens = f.context.split()
    assert {"tb_truncated", "frame_thirdparty", "framepkg_pycocotools"} <= set(tokens)
    assert "pycocotools/coco.py" in f.focus


def test_an_error_in_a_run_that_exited_0_was_survived():
    f = feats(["ERROR: could not reach the metrics server, retrying", "training finished"], {"exit_code": 0})
    assert "error_survived" in f.context.split() and f.exited_clean
    # the exit status unknown: its last line saying it finished is no exit status
    assert not feats(["ERROR: could not reach the metrics server, retrying", "training finished"]).exited_clean
    assert not feats(["ERROR: could not reach the metrics server"], {"exit_code": 1}).exited_clean
    assert f.record().keys() == {"doc", "focus", "context", "rules", "meta"}


def test_a_caught_oom_with_work_counters_and_a_wrapper_saying_status_0_was_survived():
    """A job that catches an OOM, goes on counting its work ("[120/240] tile") and whose wrapper says it
    finished with status 0 went on from the error: the OOM is not how it ended."""
    oom = ["ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 4.500000GB memory on GPU 0.",
           " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:86)"]
    work = [f"[{i}/240] tile_{i:04d}.tif 2048x2048 0.70s" for i in range(100, 241, 20)]
    f = feats([*oom, *work, "Class pixel ratio: water 0.081, forest 0.337", "+ echo 'job finished with status 0'",
               "job finished with status 0"])
    assert {"error_survived", "ended_well"} <= set(f.context.split()) and "ResourceExhausted" not in f.focus
    # without the counters the job is not seen going on from the OOM; a wrapper saying status 1 is no good end
    assert "ResourceExhausted" in feats([*oom, "job finished with status 0"]).focus
    failed = feats([*oom, *work, "job finished with status 1"])
    assert "ended_well" not in failed.context.split() and "ResourceExhausted" in failed.focus
    assert "ended_well" in feats(["worker exited with code 0"]).context.split()


def test_a_batch_size_probe_oom_then_loss_lines_and_a_banner_saying_exit_0_was_survived():
    """Loss printed without a colon ("ep 1 it 25/125 loss 5.1021") is progress, and a wrapper's banner
    that closes on "exit 0 =====" is a good end: the probe's OOM is not how the run ended."""
    oom = ["ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 3.375000GB memory on GPU 0.",
           " (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:95)"]
    steps = [f"[02:1{k}:02] INFO  finetune_vit.py:277  ep 1 it {k}/125 loss 5.10{k} lr 5.0e-05 ips 34.3" for k in range(1, 5)]
    end = "===== job 58213 finished Thu Sep 14 02:56:33 CST 2023, exit 0 ====="
    f = feats([*oom, *steps, end])
    assert {"error_survived", "ended_well"} <= set(f.context.split()) and "ResourceExhausted" not in f.focus
    assert "ended_well" not in feats([*oom, *steps, end.replace("exit 0", "exit 1")]).context.split()
    # an export said done, a wall-clock duration said finished
    for done in ("[finetune_det] 2024-05-30 15:46:49 INFO  export done: model.pdmodel, model.pdiparams",
                 "[finetune_det] 2024-05-30 15:46:49 INFO  finished in 2:46:08", "Done in 35.2s"):
        assert {"error_survived", "ended_well"} <= set(feats([*oom, *steps, done]).context.split()), done
    assert "ended_well" not in feats([*oom, *steps, "Done in 35.2s, exit 3"]).context.split()


def test_device_facts_compare_what_regexes_cannot():
    from pipeline.features import version_facts
    assert version_facts("Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 11.1, "
                         "Runtime API Version: 11.8") == ["driver_older_than_runtime", "cc_within_runtime"]
    assert version_facts("device: 0, CUDA Capability: 75, Driver API Version: 10.2, Runtime API Version: 10.0") \
        == ["driver_covers_runtime", "cc_within_runtime"]
    # a GPU newer than the CUDA the build was made with, and the same GPU under a CUDA that knows it
    assert version_facts("GPU Compute Capability: 12.0, Driver API Version: 12.8, Runtime API Version: 11.8") \
        == ["driver_covers_runtime", "cc_beyond_runtime"]
    assert version_facts("GPU Compute Capability: 9.0, Driver API Version: 12.6, Runtime API Version: 12.6") \
        == ["driver_covers_runtime", "cc_within_runtime"]
    assert version_facts("CUDA Capability: 80, Driver API Version: 11.2, Runtime API Version: 10.2")[1] == "cc_beyond_runtime"
    # with no runtime shown, only the generation
    assert version_facts("GPU Compute Capability: 9.0") == ["cc_new"]
    assert version_facts("CUDA Capability: 52, Driver API Version: 10.2, Runtime API Version: 10.0")[1] == "cc_old"
    assert version_facts("no device line at all") == []


def test_a_notebook_cell_reads_the_same_whatever_ipython_calls_it():
    """IPython 7 names a cell "<ipython-input-4-9c1f..>", IPython 8 "Cell In[4]": one shape, and no word
    of it ("input") that an op's "Input(X)" error also has."""
    def focus(name):
        return feats(["Traceback (most recent call last):", f'  File "{name}", line 33, in <module>',
                      "    dist.init_parallel_env()", "OSError: (External) NCCL error(2), unhandled system error."]).focus
    old, new = focus("<ipython-input-4-9c1f2e3d4b5a>"), focus("Cell In[4]")
    assert old == new and "input" not in old.lower() and "<CELL>" in old
    contexts = {feats([f'  File "{name}", line 2, in <module>', "KeyError: 'x'"]).context
                for name in ("<ipython-input-4-9c1f2e3d4b5a>", "Cell In[4]", "train.py")}
    assert len(contexts) == 1    # a notebook is context that does not decide a cause
    assert focus("train.py") != old    # a script keeps its name


def test_a_destructors_ignored_exception_and_a_zero_failure_count_are_no_error_of_the_run():
    done = ["[ocr-batch] wrote 1200 records to /mnt/outbox/ok.jsonl", "[ocr-batch] done: 1200 images, 0 failed, wall 16m22s"]
    f = feats(done)
    assert "no_error" in f.context.split() and "ended_well" in f.context.split()
    assert "last_line" in feats(["[ocr-batch] done: 1200 images, 3 failed"]).context.split()
    # a scheduler's word that the task succeeded, and not its count of pods that did
    assert "ended_well" in feats(["[scheduler] task seg-r3 state=SUCCEEDED duration=3h41m"]).context.split()
    assert "ended_well" not in feats(["Pods Statuses:  0 Active (0 Ready) / 0 Succeeded / 1 Failed"]).context.split()
    ignored = ["Exception ignored in: <function _DataLoaderIterMultiProcess.__del__ at 0x7f5a1c3e3d90>",
               "Traceback (most recent call last):",
               '  File "/usr/local/lib/python3.10/dist-packages/paddle/io/dataloader/dataloader_iter.py", line 818, in __del__',
               "    self._try_shutdown_all()",
               "TypeError: 'NoneType' object is not callable"]
    f = feats(done + ignored)
    assert "no_error" in f.context.split() and "ended_well" in f.context.split()
    raised = feats(done + ignored[1:])   # raised, not ignored: the run's last error
    assert "last_py_traceback" in raised.context.split() and "exc_typeerror" in raised.context.split()


def test_a_gpu_whose_memory_other_tenants_hold_is_a_device_fact():
    smi = "| N/A   61C    P0   138W / 150W |  {used}MiB / 23028MiB |     97%      Default |"
    err = ["OSError: (External) CUBLAS error(1).",
           "  [Hint: 'CUBLAS_STATUS_NOT_INITIALIZED'. The cuBLAS library was not initialized.]"]
    assert "gpu_mem_full" in feats([smi.format(used=22905), *err]).context.split()
    assert "gpu_mem_full" not in feats([smi.format(used=4), *err]).context.split()
    assert "gpu_mem_full" not in feats([smi.format(used=12000), *err]).context.split()


def test_an_error_the_run_went_on_from_is_not_its_focus():
    oom = ["MemoryError: (ResourceExhausted) Out of memory error on GPU 0. Cannot allocate 768.000244MB memory on GPU 0"]
    steps = [f"epoch 3 step {k}00/834 loss 0.63 lr 4.08e-07" for k in range(1, 5)]
    end = ["best dev acc=0.5613, copied to ./checkpoints/best", "saved model to ./checkpoints/best"]
    f = feats(oom + steps + end)
    assert "error_survived" in f.context.split() and "exc_memoryerror" not in f.context.split()
    assert "Out of memory" not in f.focus
    for lines in (oom + steps, oom + steps[:2] + end, steps + end + oom):   # no end word, too few steps, no steps after
        g = feats(lines)
        assert "error_survived" not in g.context.split() and "Out of memory" in g.focus, lines


def test_a_nodes_gpu_feature_discovery_labels_say_a_gpu_and_a_driver_are_there():
    labels = ["Labels:             nvidia.com/cuda.driver.major=470", "                    nvidia.com/gpu.count=8",
              "                    nvidia.com/gpu.present=true", "OSError: (External) CUDA error(35)"]
    context = feats(labels).context.split()
    assert "gpu_seen" in context and "driver_seen" in context
    context = feats(["                    nvidia.com/gpu.present=false", "OSError: (External) CUDA error(35)"]).context.split()
    assert "gpu_seen" not in context and "driver_seen" not in context
