"""``code_error`` surface forms: the job's own code, data or config is wrong.

``pipeline.simulate`` plants the bug in a code revision, a dataset version or a config;
``ctx.extra["job_bug"]`` names it (a key of ``CODE_BUGS``) and ``CODE_BUG_PHASE`` says when it strikes.
The error is raised in the job's own files or by Paddle's checks on what the job passed, never with an
environment signature.
"""
from __future__ import annotations

from pipeline.simulate_text import (
    Ctx,
    dataloader_dir,
    enforce_line,
    fatal_signal,
    frames_paddle_forward,
    frames_user,
    hint_3x_cn,
    hn_cudnn_mismatch,
    paddle_error,
    pick,
    py_tb,
    wpick,
)

# --------------------------------------------------------------------------------------------------
# code_error: the job's own code, data or config is wrong (pipeline.simulate plants the bug in a revision,
# a dataset version or a config; ctx.extra["job_bug"] names it). The error is raised in the job's own
# files or by Paddle's checks on what the job passed; no environment signature belongs here.

# when each bug strikes: a config that does not parse stops the job before it touches the GPU; a broken
# model fails on the first batch; bad samples are met somewhere in the epoch
CODE_BUG_PHASE = {
    "yaml": "import", "missing_key": "import", "unknown_key": "import", "argparse": "import",
    "shape_matmul": "first", "conv_channels": "first", "reshape": "first", "broadcast": "first", "dtype": "first",
    "loss_shape": "first", "wrong_model": "first", "num_classes": "step", "user_exception": "step",
    "label_range": "step", "label_map": "load", "parse_line": "load", "collate": "first", "illegal_address": "step",
    "embedding_ids": "step", "json_line": "load", "bad_input": "step", "spawn_guard": "first",
}

_REPO = {"ocr": "PaddleOCR", "det": "PaddleDetection"}


def _repo(c: Ctx) -> str:
    """Where the job's own code lives: a cloned PaddleOCR/PaddleDetection tree or the team's workdir."""
    return f"{c.workdir}/{_REPO[c.job]}" if c.job in _REPO else c.workdir


def _nums(c: Ctx, pairs) -> tuple:
    return pick(c.rng, pairs)


_OWN_FILES = {   # the job's own model / loss / dataset files, by job kind
    "model": {"ocr": ("ppocr/modeling/heads/rec_ctc_head.py", "ppocr/modeling/necks/rnn.py", "ppocr/modeling/backbones/rec_lcnetv3.py"),
              "det": ("ppdet/modeling/heads/ppyoloe_head.py", "ppdet/modeling/backbones/cspresnet.py", "ppdet/modeling/necks/custom_pan.py"),
              "nlp": ("model/classifier.py", "model/ernie.py", "run_finetune.py")},
    "loss": {"ocr": ("ppocr/losses/rec_ctc_loss.py", "ppocr/losses/cls_loss.py"),
             "det": ("ppdet/modeling/losses/varifocal_loss.py", "ppdet/modeling/losses/custom_ce_loss.py"),
             "nlp": ("run_finetune.py", "model/loss.py")},
    "data": {"ocr": ("ppocr/data/simple_dataset.py",), "det": ("ppdet/data/source/shelf_coco.py",),
             "nlp": ("utils/data.py", "run_finetune.py")},
}


def _own(c: Ctx, what: str, fn: str, code: str) -> list:
    """One frame in the job's own file of that role; inference jobs hit the bug inside predictor.run()."""
    if c.job in ("infer", "serving"):
        return [(f"{c.workdir}/utils/predictor.py", pick(c.rng, (64, 71)), "run", "self.predictor.run()")]
    return [(f"{_repo(c)}/{pick(c.rng, _OWN_FILES[what][c.job])}", c.rng.randrange(30, 300), fn, code)]


def _infer_like(c: Ctx) -> bool:
    return c.job in ("infer", "serving")


def _old_enforce(c: Ctx, head: str, detail: str, loc: str, fn: str, frames: list) -> None:
    """Fluid <= 1.5: 'EnforceNotMet: ... at [/paddle/...]' and the 'PaddlePaddle Call Stacks:' address list."""
    r = c.rng
    py_tb(c, frames)
    mod = pick(r, ("paddle.fluid.core.EnforceNotMet", "paddle.fluid.core_avx.EnforceNotMet"))
    stack = ["paddle::platform::EnforceNotMet::EnforceNotMet(std::__exception_ptr::exception_ptr, char const*, int)",
             fn, "paddle::framework::OperatorWithKernel::RunImpl(paddle::framework::Scope const&, boost::variant<"
             "paddle::platform::CUDAPlace, paddle::platform::CPUPlace, paddle::platform::CUDAPinnedPlace, "
             "boost::detail::variant::void_, boost::detail::variant::void_> const&) const",
             "paddle::framework::OperatorBase::Run(paddle::framework::Scope const&, boost::variant<paddle::platform::"
             "CUDAPlace, paddle::platform::CPUPlace, paddle::platform::CUDAPinnedPlace> const&)",
             "paddle::framework::Executor::RunPreparedContext(paddle::framework::ExecutorPrepareContext*, "
             "paddle::framework::Scope*, bool, bool, bool)"]
    lines = [f"{mod}: {head}", f"{detail} at [/paddle/paddle/fluid/{loc}]", "PaddlePaddle Call Stacks:"]
    lines += [f"{i:<8}{c.hexaddr()}p {f} + {r.randrange(80, 4000)}" for i, f in enumerate(stack)]
    c.em.block(lines)


def _checked(c: Ctx, msg: str, hint: str, loc: str, loc_fluid: str, op: str, frames: list, old: tuple | None = None,
             cpp_kind: str = "exec") -> str:
    """One of Paddle's InvalidArgument checks on what the job passed, in the image generation's format."""
    r = c.rng
    if old and c.gen == "1x" and c.paddle < "1.6":
        _old_enforce(c, *old, frames)
        return "enforce_callstacks"
    static = c.gen in ("1x", "20") or c.legacy_code or r.random() < 0.25   # static graphs name the operator
    tag = paddle_error(c, "InvalidArgument", [msg], hint, loc, cpp_kind, py_frames=frames, long_p=0.4,
                       loc_old=loc_fluid, op=op if static else None)
    if c.major >= 3 and c.chinese and r.random() < 0.4:
        hint_3x_cn(c, "输入数据的形状或类型与模型不匹配", "数据预处理、配置中的类别数和模型结构是否一致")
    return tag + ("_op" if static else "")


def _fw_frames(c: Ctx, user: list, paddle_tail: list) -> list:
    """Entry point, the job's own layer that makes the call, then Paddle's own frames down to the op."""
    return frames_user(c, deep=False) + user + paddle_tail


def _linear_tail(c: Ctx) -> list:
    pk, r = c.pkg, c.rng
    if c.gen in ("1x", "20"):
        return [(f"{pk}/fluid/dygraph/layers.py", pick(r, (461, 891)), "__call__", "outputs = self.forward(*inputs, **kwargs)"),
                (f"{pk}/fluid/dygraph/nn.py", pick(r, (921, 958)), "forward", "'transpose_Y', False, \"alpha\", 1)")]
    return [(f"{pk}/nn/layer/layers.py", pick(r, (1254, 1429)), "__call__", "return self.forward(*inputs, **kwargs)"),
            (f"{pk}/nn/layer/common.py", pick(r, (175, 186)), "forward", "out = F.linear("),
            (f"{pk}/nn/functional/common.py", pick(r, (1863, 2005)), "linear",
             "return _C_ops.linear(x, weight, bias)" if c.major >= 3 else "out = _C_ops.matmul(x, weight, False, False)")]


def _conv_tail(c: Ctx) -> list:
    return frames_paddle_forward(c)[-3:]


def bug_shape_matmul(c: Ctx) -> str:
    r = c.rng
    a, b = _nums(c, ((30, 512), (2048, 1024), (768, 1024), (1280, 960), (256, 512), (1, 5)))
    m = c.batch_size
    user = _own(c, "model", "forward", pick(r, ("x = self.fc(x)", "logits = self.classifier(pooled_output)",
                                                "out = self.linear(paddle.flatten(x, 1))")))
    frames = _fw_frames(c, user, [] if _infer_like(c) else _linear_tail(c))
    if c.gen == "1x" and c.paddle < "1.6" and r.random() < 0.3:
        _old_enforce(c, f"enforce x_mat_dims[1] == y_mat_dims[0] failed, {a} != {b}",
                     "First matrix's width must be equal with second matrix's height.", f"operators/mul_op.cc:{pick(r, (59, 60))}",
                     "paddle::operators::MulOp::InferShape(paddle::framework::InferShapeContext*) const", frames)
        return "mul_enforce_failed"
    old = (f"Enforce failed. Expected x_mat_dims[1] == y_mat_dims[0], but received x_mat_dims[1]:{a} != y_mat_dims[0]:{b}.",
           f"First matrix's width must be equal with second matrix's height. {a}, {b}", f"operators/mul_op.cc:{pick(r, (59, 60))}",
           "paddle::operators::MulOp::InferShape(paddle::framework::InferShapeContext*) const")
    if c.gen in ("1x", "20"):
        return "mul_" + _checked(
            c, f"After flatten the input tensor X and Y to 2-D dimensions matrix X1 and Y1, the matrix X1's width must be "
               f"equal with matrix Y1's height. But received X's shape = [{m}, {a}], X1's shape = [{m}, {a}], X1's width = "
               f"{a}; Y's shape = [{b}, 10], Y1's shape = [{b}, 10], Y1's height = {b}.",
            f"Expected x_mat_dims[1] == y_mat_dims[0], but received x_mat_dims[1]:{a} != y_mat_dims[0]:{b}.",
            "paddle/phi/infermeta/binary.cc:2010", f"paddle/fluid/operators/mul_op.cc:{pick(r, (80, 96))}", "mul", frames, old)
    return "matmul_" + _checked(
        c, f"Input(Y) has error dim. Y'dims[0] must be equal to {a}, but received Y'dims[0] is {b}.",
        f"Expected y_dims[y_ndim - 2] == x_dims[x_ndim - 1], but received y_dims[y_ndim - 2]:{b} != x_dims[x_ndim - 1]:{a}.",
        f"paddle/phi/infermeta/binary.cc:{pick(r, (2096, 2212, 2431))}", "paddle/fluid/operators/matmul_v2_op.cc:78",
        "matmul_v2", frames, cpp_kind="eager")


def bug_conv_channels(c: Ctx) -> str:
    r = c.rng
    b = 1 if c.job in ("infer", "serving") else c.batch_size
    nhwc = r.random() < 0.6          # images fed HWC where the model wants CHW
    hw = pick(r, (224, 320, 640, 608))
    if nhwc:
        cin, shape, fch, fshape = hw, [b, hw, hw, 3], 3, [pick(r, (16, 32, 64)), 3, 3, 3]
    else:
        cin, fch = _nums(c, ((6, 3), (1, 3), (4, 3), (17024, 2688), (512, 256)))
        shape, fshape = [b, cin, hw, hw], [64, fch, 3, 3]
    user = _own(c, "model", "forward", "x = self.conv1(x)")
    frames = _fw_frames(c, user, [] if _infer_like(c) else _conv_tail(c))
    shp, fsh = ", ".join(map(str, shape)), ", ".join(map(str, fshape))
    old = (f"Enforce failed. Expected input_channels == filter_dims[1] * groups, but received input_channels:{cin} != "
           f"filter_dims[1] * groups:{fch}.", "The number of input channels should be equal to filter channels * groups.",
           "operators/conv_op.cc:61", "paddle::operators::ConvOp::InferShape(paddle::framework::InferShapeContext*) const")
    hint = f"Expected input_channels == filter_dims[1] * groups, but received input_channels:{cin} != filter_dims[1] * groups:{fch}."
    if c.gen == "1x":
        msg = (f"ShapeError: The number of input channels should be equal to filter channels * groups. But received: the "
               f"input channels is [{cin}], the shape of input is [{shp}], the filter channel is [{fch}], the shape of "
               f"filter is [{fsh}],the groups is [1]")
    elif c.gen == "20" or r.random() < 0.3:
        msg = (f"The input's channels are {cin}, the input's shape is [{shp}];\nthe filter's channels are {fch}, the "
               f"filter's shape is [{fsh}];\nthe groups are 1, the data_format is NCHW.\nThe error may come from the wrong "
               "data_format setting.")
    else:
        msg = (f"The number of input's channels should be equal to filter's channels * groups for Op(Conv). But received: "
               f"the input's channels is {cin}, the input's shape is [{shp}]; the filter's channels is {fch}, the filter's "
               f"shape is [{fsh}]; the groups is 1, the data_format is NCHW. The error may come from wrong data_format setting.")
    lines = msg.split("\n")
    tag = _checked(c, lines[0], hint, f"paddle/phi/infermeta/binary.cc:{pick(r, (557, 602, 623))}",
                   f"paddle/fluid/operators/conv_op.cc:{pick(r, (94, 119))}", "conv2d", frames, old, cpp_kind="conv") \
        if len(lines) == 1 else _checked_multi(c, lines, hint, frames)
    return ("nhwc_" if nhwc else "channels_") + tag


def _checked_multi(c: Ctx, lines: list, hint: str, frames: list) -> str:
    """The multi-line conv message of Paddle 2.0-2.4 ('The input's channels are ...;' one clause per line)."""
    py_tb(c, frames)
    c.em.block([f"ValueError: (InvalidArgument) {lines[0]}"] + lines[1:] +
               [f"  [Hint: {hint}] (at ../paddle/fluid/operators/conv_op.cc:119)", "  [operator < conv2d > error]"])
    return "multiline_op"


def bug_reshape(c: Ctx) -> str:
    r = c.rng
    b = 1 if c.job in ("infer", "serving") else c.batch_size
    got, want = _nums(c, ((320, 224), (640, 608), (48, 32), (256, 224)))
    ch = pick(r, (3, 8, 16))
    in_shape = [b, ch, got, got]
    in_size = b * ch * got * got
    cap = -(ch * want * want)
    unk = int(-in_size / cap)           # Paddle divides, then checks the product
    lhs = unk * cap
    user = _own(c, "model", "forward", f"x = paddle.reshape(x, [-1, {ch}, {want}, {want}])")
    frames = _fw_frames(c, user, [(f"{c.pkg}/tensor/manipulation.py", pick(r, (3705, 4082)), "reshape",
                                   "out = _C_ops.reshape(x, shape)")] if c.gen not in ("1x", "20") and not _infer_like(c) else [])
    old = (f"Enforce failed. Expected output_shape[unk_dim_idx] * capacity == -in_size, but received output_shape[unk_dim_idx] "
           f"* capacity:{lhs} != -in_size:{-in_size}.", "Invalid shape is given.", "operators/reshape_op.cc:98",
           "paddle::operators::ReshapeOp::ValidateShape(std::vector<int, std::allocator<int> >, paddle::framework::DDim const&)")
    return "reshape_" + _checked(
        c, f"The 'shape' attribute in ReshapeOp is invalid. The input tensor X'size must be divisible by known capacity of "
           f"'shape'. But received X's shape = [{', '.join(map(str, in_shape))}], X's size = {in_size}, 'shape' is "
           f"[-1, {ch}, {want}, {want}], known capacity of 'shape' is {cap}.",
        f"Expected output_shape[unk_dim_idx] * capacity == -in_size, but received output_shape[unk_dim_idx] * capacity:{lhs} "
        f"!= -in_size:{-in_size}.", f"paddle/phi/infermeta/unary.cc:{pick(r, (1950, 2024, 2191))}",
        "paddle/fluid/operators/reshape_op.cc:210", "reshape2", frames, old)


def bug_broadcast(c: Ctx) -> str:
    r = c.rng
    a, b = _nums(c, ((56, 55), (32, 10), (1024, 512), (80, 81), (4, 3)))
    n = 1 if c.job in ("infer", "serving") else c.batch_size
    if r.random() < 0.3:      # numpy in the job's own post-processing
        py_tb(c, frames_user(c, deep=False) + [(f"{_repo(c)}/utils/postprocess.py", pick(r, (19, 44)), "decode",
                                                 "scores = logits.reshape(-1, num_classes) + prior")])
        c.em.err(f"ValueError: operands could not be broadcast together with shapes ({n},{a}) ({b},)")
        return "numpy_broadcast"
    x, y = f"[{n}, 256, 8, {a}]", f"[{n}, 256, 8, {b}]"
    user = _own(c, "model", "forward", pick(r, ("out = lateral + F.interpolate(top, scale_factor=2)", "x = x + pos_embed",
                                                "loss = (pred - target) ** 2")))
    frames = _fw_frames(c, user, [(f"{c.pkg}/tensor/math.py", pick(r, (493, 572)), "add", "return _C_ops.add(x, y)")]
                        if c.gen not in ("1x", "20") and not _infer_like(c) else [])
    return "broadcast_" + _checked(
        c, f"Broadcast dimension mismatch. Operands could not be broadcast together with the shape of X = {x} and the shape "
           f"of Y = {y}. Received [{a}] in X is not equal to [{b}] in Y at i:3.",
        "Expected x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1 == true, but received "
        "x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1:0 != true:1.",
        f"paddle/phi/kernels/funcs/common_shape.h:{pick(r, (84, 86))}",
        "paddle/fluid/operators/elementwise/elementwise_op_function.h:160", pick(r, ("elementwise_add", "elementwise_sub")),
        frames)


def bug_dtype(c: Ctx) -> str:
    r, em = c.rng, c.em
    want, held = pick(r, (("float", "double"), ("float", "long"), ("long", "int")))
    np_name = {"float": "float32", "double": "float64", "long": "int64", "int": "int32"}
    infer = _infer_like(c)
    user = [(f"{c.workdir}/utils/predictor.py", pick(r, (58, 64)), "run", "input_tensor.copy_from_cpu(np.array(batch))")] \
        if infer else _own(c, "loss", "forward", "loss = self.loss_fn(preds, paddle.to_tensor(batch[1]))")
    frames = frames_user(c, deep=infer) + user
    if c.gen == "1x":
        py_tb(c, frames)
        head = pick(r, ("PaddleCheckError: ", "paddle.fluid.core_avx.EnforceNotMet: ", "C++ Call stacks:\n"))
        em.block((head + f"Tensor holds the wrong type, it holds {held}, but desires to be {want} at "
                  "[/paddle/paddle/fluid/framework/tensor_impl.h:30]").split("\n") +
                 ["PaddlePaddle Call Stacks:", pick(r, ("Windows not support stack backtrace yet.",
                                                        f"0       {c.hexaddr()}p paddle::platform::EnforceNotMet::EnforceNotMet("
                                                        "std::__exception_ptr::exception_ptr, char const*, int) + 486"))])
        return "wrong_type_1x"
    if not infer and r.random() < 0.35:     # the static-graph dtype check in Python
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/base/data_feeder.py" if c.fw == "base" else
                                                 f"{c.pkg}/fluid/data_feeder.py", pick(r, (80, 142)), "check_dtype",
                                                 "raise TypeError(")])
        em.err(f"TypeError: The data type of 'label' in cross_entropy must be int64, but received "
               f"{pick(r, ('float32', 'float64', 'int32'))}. ")
        return "check_dtype"
    return "retrieve_type_" + _checked(
        c, f"The type of data we are trying to retrieve ({np_name[want]}) does not match the type of data "
           f"({np_name[held]}) currently contained in the container.", None,
        f"paddle/phi/core/dense_tensor.cc:{pick(r, (171, 180))}", "paddle/fluid/framework/tensor_impl.h:33",
        "feed", frames)


def bug_loss_shape(c: Ctx) -> str:
    r = c.rng
    seq = pick(c.rng, (300, 128, 512))
    user = [(f"{c.workdir}/run_finetune.py", r.randrange(100, 300), "compute_loss", "loss = F.cross_entropy(logits, labels)"),
            (f"{c.pkg}/nn/functional/loss.py", pick(r, (2741, 2866)), "cross_entropy", "_, out = _C_ops.cross_entropy_with_softmax(")]
    frames = frames_user(c) + user
    msg = "Input(Logits) and Input(Label) should in same shape in dimensions except axis."
    hint = f"Expected logits_dims[i] == labels_dims[i], but received logits_dims[i]:{seq} != labels_dims[i]:1."
    if r.random() < 0.4:      # printed on one line, as 2.3 does
        py_tb(c, frames)
        c.em.err(f"ValueError: (InvalidArgument) {msg}[Hint: {hint}] (at /paddle/paddle/fluid/operators/"
                 f"softmax_with_cross_entropy_op.cc:{pick(r, (164, 181))})")
        return "logits_label_oneline"
    return "logits_label_" + _checked(c, msg, hint, f"paddle/phi/infermeta/binary.cc:{pick(r, (1050, 1128))}",
                                      "paddle/fluid/operators/softmax_with_cross_entropy_op.cc:164",
                                      "softmax_with_cross_entropy", frames)


_CUDA_700 = ("'cudaErrorIllegalAddress'. The device encountered a load or store instruction on an invalid memory address. "
             "This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To "
             "continue using CUDA, the process must be terminated and relaunched.")
_CUDA_719 = ("'cudaErrorLaunchFailure'. An exception occurred on the device while executing a kernel. Common causes include "
             "dereferencing an invalid device pointer and accessing out of bounds shared memory. Less common cases can be "
             "system specific - more information about these cases can be found in the system specific user guide. This "
             "leaves the process in an inconsistent state and any further CUDA work will return the same error. To "
             "continue using CUDA, the process must be terminated and relaunched.")


def _classes(c: Ctx) -> tuple[int, int]:
    """(num_classes the model has, the label the bad sample carries)."""
    n = pick(c.rng, (2, 3, 10, 80, 1000, 5))
    return n, n + c.rng.randrange(0, 3)


def bug_label_range(c: Ctx) -> str:
    r, em = c.rng, c.em
    n, lab = _classes(c)
    loss_fr = _own(c, "loss", "forward", "loss = F.cross_entropy(logit, label, ignore_index=self.ignore_index)")
    v = wpick(r, [(2 if c.major >= 2 else 0, "target_bound"), (1.5 if c.major >= 2 else 0, "gpu_assert"),
                  (1.5 if c.gen == "1x" else 0.3, "label_enforce"), (1, "job_assert")])
    if v == "target_bound":
        py_tb(c, frames_user(c) + loss_fr + [(f"{c.pkg}/nn/functional/loss.py", pick(r, (2671, 2749)), "cross_entropy",
                                               "raise ValueError(")])
        em.err(f"ValueError: Target {lab} is out of upper bound.")
    elif v == "gpu_assert":
        for _ in range(r.randrange(1, 4)):
            em.err(f"Error: ../paddle/phi/kernels/gpu/cross_entropy_kernel.cu:{pick(r, (285, 310))} Assertion "
                   "`labels[idx_lbl] >= 0 && labels[idx_lbl] < d || labels[idx_lbl] == ignore_index` failed. The value "
                   f"of label expected >= 0 and < {n}, or == -100, but got {lab}. Please check label value.")
        paddle_error(c, "External", ["CUDA error(719), unspecified launch failure. "], _CUDA_719,
                     f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}", "conv",
                     py_frames=frames_user(c) + loss_fr)
    elif v == "label_enforce":
        paddle_error(c, "InvalidArgument", [f"Variable value (label) of OP(fluid.layers.cross_entropy) expected >= 0 and < "
                                            f"{n}, but got {lab}. Please check label value."],
                     f"Expected label_value < class_num, but received label_value:{lab} >= class_num:{n}.",
                     "paddle/phi/kernels/cpu/cross_entropy_kernel.cc:58", "exec", py_frames=frames_user(c) + loss_fr,
                     loc_old="paddle/fluid/operators/math/cross_entropy.cc:40", op="cross_entropy2")
    else:    # the job's own sanity check on its data
        py_tb(c, frames_user(c) + _own(c, "data", "__getitem__", "assert label < self.num_classes, f\"label value should "
                                       "be less than num_classes ({self.num_classes}), got {label}\""))
        em.err(f"AssertionError: label value should be less than num_classes ({n}), got {lab}")
    return f"{c.gen}_{v}"


def bug_label_map(c: Ctx) -> str:
    r, em = c.rng, c.em
    repo = _repo(c)
    if r.random() < 0.6 or c.job != "det":     # a class in the annotations that the label list lacks
        cname = pick(r, ("'rats'", "'bbox'", "'person '", "'shelf_gap'", "'Price_Tag'"))
        py_tb(c, [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
                  (f"{repo}/tools/train.py", pick(r, (136, 168)), "main", "run(FLAGS, cfg)"),
                  (f"{repo}/tools/train.py", pick(r, (102, 123)), "run", "trainer = Trainer(cfg, mode='train')"),
                  (f"{repo}/ppdet/engine/trainer.py", pick(r, (63, 94)), "__init__", "self.loader = create('{}Reader'"
                   ".format(capital_mode))(self.dataset, cfg.worker_num)"),
                  (f"{repo}/ppdet/data/reader.py", pick(r, (162, 165)), "__call__", "self.dataset.parse_dataset()"),
                  (f"{repo}/ppdet/data/source/voc.py", pick(r, (136, 154)), "parse_dataset", "gt_class[i][0] = cname2cid[cname]")])
        em.err(f"KeyError: {cname}")
        return "voc_cname2cid"
    n = pick(r, (3, 6, 79))
    py_tb(c, frames_user(c, deep=False) + [(f"{repo}/ppdet/engine/trainer.py", pick(r, (740, 811)), "evaluate",
                                            "self._eval_with_loader(self.loader)"),
                                           (f"{repo}/ppdet/metrics/json_results.py", pick(r, (32, 41)), "get_det_res",
                                            "category_id = label_to_cat_id_map[int(num_id)]")])
    em.err(f"KeyError: {n}")
    return "label_to_cat_id"


def bug_embedding_ids(c: Ctx) -> str:
    r, em = c.rng, c.em
    rows = pick(r, (18000, 40000, 283925, 30522))
    bad = rows + r.randrange(1, 400)
    fr = frames_user(c) + [(f"{c.workdir}/model/ernie.py", r.randrange(40, 300), "forward", "emb_out = self.word_emb(src_ids)")]
    api = "fluid.layers.embedding" if c.gen in ("1x", "20") else "paddle.nn.functional.embedding"
    msg = f"Variable value (input) of OP({api}) expected >= 0 and < {rows}, but got {bad}. Please check input value."
    if c.gen != "1x" and r.random() < 0.5:      # on the GPU the kernel asserts, then CUDA reports the bad access
        for _ in range(r.randrange(1, 4)):
            em.err(f"Error: ../paddle/phi/kernels/gpu/embedding_kernel.cu:{pick(r, (41, 48))} Assertion `id < N` failed. {msg}")
        paddle_error(c, "External", ["CUDA error(700), an illegal memory access was encountered. "], _CUDA_700,
                     f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}", "conv", py_frames=fr)
        return f"{c.gen}_embedding_gpu_assert"
    paddle_error(c, "InvalidArgument", [msg], f"Expected ids[i] < row_number, but received ids[i]:{bad} >= row_number:{rows}.",
                 "paddle/phi/kernels/cpu/embedding_kernel.cc:" + str(pick(r, (68, 74))), "exec", py_frames=fr,
                 loc_old="paddle/fluid/operators/lookup_table_op.h:94")
    return f"{c.gen}_embedding_ids"


def bug_illegal_address(c: Ctx) -> str:
    """Out-of-range labels on the GPU: often nothing but CUDA error 700/719 says what went wrong."""
    r = c.rng
    n, lab = _classes(c)
    if r.random() < 0.4:
        c.em.err(f"Error: ../paddle/phi/kernels/gpu/cross_entropy_kernel.cu:{pick(r, (285, 310))} Assertion "
                 "`labels[idx_lbl] >= 0 && labels[idx_lbl] < d || labels[idx_lbl] == ignore_index` failed. The value of "
                 f"label expected >= 0 and < {n}, or == -100, but got {lab}. Please check label value.")
    fr = frames_user(c) + _own(c, "loss", "forward", "loss = paddle.nn.functional.softmax_with_cross_entropy(logits, label)")
    if c.gen in ("1x", "20"):
        paddle_error(c, "External", ["Cuda error(719), unspecified launch failure."], None,
                     "paddle/phi/backends/gpu/gpu_info.cc:394", "conv", py_frames=fr, loc_old="paddle/fluid/platform/gpu_info.cc:394")
        return f"{c.gen}_cuda719"
    e700 = r.random() < 0.6
    paddle_error(c, "External", ["CUDA error(700), an illegal memory access was encountered. " if e700 else
                                 "CUDA error(719), unspecified launch failure. "], _CUDA_700 if e700 else _CUDA_719,
                 f"paddle/phi/backends/gpu/cuda/cuda_info.cc:{pick(r, (259, 272))}" if r.random() < 0.5 else
                 f"paddle/phi/backends/gpu/gpu_context.cc:{pick(r, (595, 621))}", "conv", py_frames=fr)
    return f"{c.gen}_cuda{'700' if e700 else '719'}"


def _user_exception_site(c: Ctx) -> tuple:
    """(file in the job's own tree, function, line of code, exception line) for a bug in the job's own code."""
    repo, wd = _repo(c), c.workdir
    sites = {
        "ocr": ((f"{repo}/ppocr/postprocess/rec_postprocess.py", "decode",
                 "char_list = [self.character[int(text_id)] for text_id in text_index[batch_idx][selection]]",
                 "IndexError: list index out of range"),
                (f"{repo}/ppocr/data/imaug/label_ops.py", "encode", "text_list.append(self.dict[char])", "KeyError: '丶'"),
                (f"{repo}/tools/program.py", "train", "eval_class.reset()", "AttributeError: 'NoneType' object has no attribute 'reset'")),
        "det": ((f"{repo}/ppdet/data/transform/operators.py", "apply", "x1, y1, x2, y2 = sample['gt_bbox'][i]",
                 "ValueError: too many values to unpack (expected 4)"),
                (f"{repo}/ppdet/modeling/heads/shelf_head.py", "forward", "feat = feats[self.level]",
                 "IndexError: list index out of range"),
                (f"{repo}/ppdet/engine/callbacks.py", "on_step_end", "loss = logs['loss'].numpy()",
                 "AttributeError: 'float' object has no attribute 'numpy'")),
        "nlp": ((f"{wd}/run_finetune.py", "convert_example", "label = example['label']", "KeyError: 'label'"),
                (f"{wd}/utils/metrics.py", "compute_metrics", "preds = np.argmax(p.predictions, axis=1)",
                 "numpy.exceptions.AxisError: axis 1 is out of bounds for array of dimension 1" if int(c.python.split(".")[1]) >= 9
                 else "numpy.AxisError: axis 1 is out of bounds for array of dimension 1"),
                (f"{wd}/run_finetune.py", "main", "train_ds = load_dataset(read_custom, data_path=data_args.train_path, lazy=False)",
                 "NameError: name 'read_custom' is not defined"),
                (f"{wd}/utils/data.py", "collate", "input_ids = [ex['input_ids'] + [pad] * (max_len - len(ex)) for ex in batch]",
                 "TypeError: can only concatenate list (not \"int\") to list")),
        "infer": ((f"{wd}/utils/preprocess.py", "normalize", "img = (img / 255.0 - self.mean) / self.std",
                   "TypeError: unsupported operand type(s) for /: 'NoneType' and 'float'"),
                  (f"{wd}/infer.py", "postprocess", "label = id2label[int(idx)]", "KeyError: 1000"),
                  (f"{wd}/utils/predictor.py", "run", "self.inputs[name].copy_from_cpu(batch[name])", "KeyError: 'im_shape'")),
        "serving": ((f"{wd}/web_service.py", "init_op", "self.char_dict = load_dict(self.config['dict_path'])",
                     "KeyError: 'dict_path'"),
                    (f"{wd}/web_service.py", "preprocess", "data = base64.b64decode(input_dict['image'].encode('utf8'))",
                     "UnboundLocalError: local variable 'input_dict' referenced before assignment")),
    }
    return pick(c.rng, sites.get(c.job, sites["infer"]))


def bug_user_exception(c: Ctx) -> str:
    r = c.rng
    if r.random() < 0.12:   # the job's own function calls itself without end
        path, fn = pick(r, ((f"{c.workdir}/utils/config.py", "merge"), (f"{c.workdir}/models/builder.py", "build"),
                            (f"{c.workdir}/utils/tree.py", "walk")))
        line = r.randrange(20, 200)
        py_tb(c, frames_user(c) + [(path, line, fn, f"return {fn}(cfg, parent)")] * 3)
        c.em.err("  [Previous line repeated 996 more times]", "RecursionError: maximum recursion depth exceeded"
                 + pick(r, ("", " in comparison", " while calling a Python object")))
        return f"RecursionError_{fn}"
    if r.random() < 0.1:    # two of the job's own modules import each other (a refactor moved a helper)
        pkg, name = pick(r, (("models", "build_model"), ("utils", "load_config"), ("data", "build_dataset")))
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/{pkg}/__init__.py", r.randrange(2, 12), "<module>",
                                                 f"from .{pick(r, ('builder', 'common', 'loader'))} import *"),
                                                (f"{c.workdir}/{pkg}/{pick(r, ('builder', 'common', 'loader'))}.py",
                                                 r.randrange(2, 12), "<module>", f"from {pkg} import {name}")])
        c.em.err(f"ImportError: cannot import name '{name}' from partially initialized module '{pkg}' (most likely due "
                 f"to a circular import) ({c.workdir}/{pkg}/__init__.py)")
        return "circular_import"
    if r.random() < 0.1:    # the dataset joins its root onto label paths that already carry it
        root = pick(r, ("/mnt/data/flowers/images", "/data/coco/train2017", "./train_data/icdar2015/text_localization",
                        "/workspace/datasets/rec/train"))
        img = f"{root}/{pick(r, ('image_', 'img_', ''))}{r.randrange(10, 99999):05d}.jpg"
        py_tb(c, frames_user(c) + [(f"{c.workdir}/{pick(r, ('data/dataset.py', 'datasets/folder.py', 'utils/io.py'))}",
                                    r.randrange(30, 200), "__getitem__", "with open(os.path.join(self.root, path), 'rb') as f:")])
        c.em.err(f"FileNotFoundError: [Errno 2] No such file or directory: '{root}/{img}'")
        return "path_joined_twice"
    path, fn, code, exc = _user_exception_site(c)
    py_tb(c, frames_user(c) + [(path, r.randrange(20, 400), fn, code)])
    c.em.err(exc)
    return f"{exc.split(':')[0].rsplit('.', 1)[-1]}_{fn}"


def bug_parse_line(c: Ctx) -> str:
    """PaddleOCR's SimpleDataSet logs every label line it cannot split, retries another one, and gives up."""
    r, em = c.rng, c.em
    ds = f"{_repo(c)}/ppocr/data/simple_dataset.py"
    blank = r.random() < 0.35
    texts = ("的所有变迁，能够替", "闽龙渔08281", "q22741T2", "或系统的测试[1]", "收款人：", "合计金额")
    for _ in range(r.randrange(3, 12)):
        line = "" if blank else f"train_images/{r.randrange(100000):06d}.jpg {pick(r, texts)}"   # a space, not a tab
        em.block([f"[{em.ts_slash()}] ppocr ERROR: When parsing line {line}", ", error happened with msg: Traceback "
                  "(most recent call last):", f'  File "{ds}", line {pick(r, (128, 150))}, in __getitem__',
                  "    label = substr[1]", "IndexError: list index out of range"], "stdout")
        em.adv(r.uniform(0.01, 0.5))
    loop = [(f"{_repo(c)}/tools/program.py", pick(r, (262, 284)), "train", "for idx, batch in enumerate(train_dataloader):"),
            (f"{dataloader_dir(c)}/dataloader_iter.py", pick(r, (217, 235)), "_thread_loop", "batch = self._dataset_fetcher.fetch(indices,"),
            (f"{dataloader_dir(c)}/fetcher.py", pick(r, (121, 134)), "fetch", "data.append(self.dataset[idx])")]
    py_tb(c, frames_user(c, deep=False) + loop + [(ds, pick(r, (162, 171)), "__getitem__", "return self.__getitem__(rnd_idx)")] * 3)
    em.err("RecursionError: maximum recursion depth exceeded while calling a Python object")
    return "parse_line_blank" if blank else "parse_line_no_tab"




def bug_collate(c: Ctx) -> str:
    r, em = c.rng, c.em
    dl, pyv = dataloader_dir(c), c.python.split(".")[1]
    stack = [(f"{dl}/fetcher.py", pick(r, (121, 134, 138)), "fetch", "data = self.collate_fn(data)"),
             (f"{dl}/collate.py", 77, "default_collate_fn", "return [default_collate_fn(fields) for fields in zip(*batch)]"),
             (f"{dl}/collate.py", 77, "<listcomp>", "return [default_collate_fn(fields) for fields in zip(*batch)]"),
             (f"{dl}/collate.py", 58, "default_collate_fn", "batch = np.stack(batch, axis=0)"),
             ("<__array_function__ internals>", 180, "stack", ""),
             (f"{c.site}/numpy/core/shape_base.py", 426, "stack", "raise ValueError('all input arrays must have the same shape')")]
    err = pick(r, ("ValueError: all input arrays must have the same shape",
                   "ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape "
                   "after 1 dimensions. The detected shape was (%d,) + inhomogeneous part." % c.batch_size))
    if "inhomogeneous" in err:          # raised by np.array on ragged fields, not by np.stack
        stack = stack[:3] + [(f"{dl}/collate.py", pick(r, (60, 66)), "default_collate_fn", "return np.array(batch)")]
    if c.num_workers == 0 or r.random() < 0.3:
        em.err(f"Exception in thread Thread-{r.randrange(1, 4)}:")
        py_tb(c, [(f"/usr/lib/python3.{pyv}/threading.py", 926, "_bootstrap_inner", "self.run()"),
                  (f"/usr/lib/python3.{pyv}/threading.py", 870, "run", "self._target(*self._args, **self._kwargs)"),
                  (f"{dl}/dataloader_iter.py", pick(r, (217, 218, 235)), "_thread_loop", "batch = self._dataset_fetcher.fetch(indices,")]
              + stack)
        em.err(err)
        py_tb(c, frames_user(c) + [(f"{dl}/dataloader_iter.py", pick(r, (825, 830)), "__next__",
                                    "data = self._reader.read_next_list()")])
        em.block(["SystemError: (Fatal) Blocking queue is killed because the data reader raises an exception.",
                  "  [Hint: Expected killed_ != true, but received killed_:1 == true:1.] (at "
                  "/paddle/paddle/fluid/operators/reader/blocking_queue.h:166)", ""])
        return "collate_thread"
    wid = r.randrange(max(1, c.num_workers))
    py_tb(c, frames_user(c) + [(f"{dl}/dataloader_iter.py", pick(r, (825, 830)), "__next__", "data = self._get_data()"),
                               (f"{dl}/dataloader_iter.py", pick(r, (718, 745)), "_get_data", "data.reraise()"),
                               (f"{dl}/worker.py", pick(r, (169, 175)), "reraise", "raise self.exc_type(msg)")])
    inner = [f'  File "{f}", line {ln}, in {fn}' + (f"\n    {code}" if code else "") for f, ln, fn, code in
             [(f"{dl}/worker.py", pick(r, (352, 372)), "_worker_loop", "batch = fetcher.fetch(indices)")] + stack]
    em.block([f"{err.split(':')[0]}: DataLoader worker({wid}) caught {err.split(':')[0]} with message:",
              "Traceback (most recent call last):"] + "\n".join(inner).split("\n") + [err])
    return "collate_worker"


def bug_spawn_guard(c: Ctx) -> str:
    """A script that starts DataLoader workers without the ``if __name__ == '__main__':`` guard where workers are
    spawned (Windows, macOS, a start method set to spawn or forkserver): each child re-runs the script and dies."""
    r, em = c.rng, c.em
    where = wpick(r, [(1.0, "linux"), (1.0, "win"), (0.5, "mac")])
    if where == "win":
        lib, script, sep = r"C:\Users\dev\miniconda3\envs\pd\lib", r"D:\work\train.py", "\\"
    elif where == "mac":
        lib, script, sep = "/opt/homebrew/Caskroom/miniconda/base/lib/python3.10", "/Users/dev/work/train.py", "/"
    else:
        lib, script, sep = f"/usr/lib/python{c.python}", f"{_repo(c)}/tools/train.py", "/"
    mp = f"{lib}{sep}multiprocessing{sep}spawn.py"
    py_tb(c, [("<string>", 1, "<module>", ""), (mp, 116, "spawn_main", "exitcode = _main(fd, parent_sentinel)"),
              (mp, 125, "_main", "prepare(preparation_data)"),
              (script, r.randrange(30, 90), "<module>", "for batch_id, data in enumerate(train_loader()):"),
              (mp, 134, "_check_not_main", "raise RuntimeError('''")])
    em.block(["RuntimeError: ", "        An attempt has been made to start a new process before the",
              "        current process has finished its bootstrapping phase.", "",
              "        This probably means that you are not using fork to start your",
              "        child processes and you have forgotten to use the proper idiom",
              "        in the main module:", "", "            if __name__ == '__main__':",
              "                freeze_support()", "                ..."])
    if r.random() < 0.6:
        pids = ", ".join(str(r.randrange(2000, 30000)) for _ in range(max(1, c.num_workers)))
        em.err(f"RuntimeError: DataLoader {max(1, c.num_workers)} workers exit unexpectedly, pids: {pids}")
    return f"spawn_{where}"


def bug_json_line(c: Ctx) -> str:
    r = c.rng
    py_v = c.python.split(".")[1]
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/run_finetune.py", r.randrange(40, 120), "read_custom",
                                             "example = json.loads(line)"),
                                            (f"/usr/lib/python3.{py_v}/json/__init__.py", 346, "loads", "return _default_decoder.decode(s)"),
                                            (f"/usr/lib/python3.{py_v}/json/decoder.py", 337, "decode",
                                             "obj, end = self.raw_decode(s, idx=_w(s, 0))")])
    c.em.err(pick(r, (f"json.decoder.JSONDecodeError: Expecting ',' delimiter: line 1 column {r.randrange(20, 900)} "
                      f"(char {r.randrange(20, 900)})", "json.decoder.JSONDecodeError: Unterminated string starting at: "
                      f"line 1 column {r.randrange(20, 300)} (char {r.randrange(20, 300)})")))
    return "json_line"


def bug_bad_input(c: Ctx) -> str:
    r = c.rng
    fr = frames_user(c) + [(f"{c.workdir}/utils/preprocess.py", r.randrange(20, 90), "resize",
                            "img = cv2.resize(img, (self.w, self.h))")]
    if r.random() < 0.3:    # a static-graph program checks what the job feeds it (Fluid: "feeded")
        fed = "feeded" if c.gen == "1x" else "fed"
        py_tb(c, frames_user(c, deep=False) + [(f"{c.pkg}/{c.fw}/executor.py", pick(r, (1400, 1571, 1649)), "run",
                                                 "return self._run_impl(")])
        name, hw = pick(r, (("image", 224), ("x", 640), ("img", 320)))
        if r.random() < 0.7:
            c.em.err(f"ValueError: The {fed} Variable '{name}' should have dimensions = 4, shape = (-1, 3, {hw}, {hw}), "
                     f"but received {fed} shape [1, {hw}, {hw}, 3] on each device")
            return "feed_shape"
        c.em.err(f"ValueError: The data type of {fed} Variable '{name}' must be 'float32', but received 'uint8'")
        return "feed_dtype"
    if c.job in ("infer", "serving") and c.major >= 2 and r.random() < 0.25:
        # the app asks the predictor for an input its model does not have (another export's name)
        name = pick(r, ("x", "image", "inputs", "input_ids", "im_shape"))
        if r.random() < 0.5:
            paddle_error(c, "PreconditionNotMet", [f"The variable named {name} is not found in the scope of the executor."],
                         "scope->FindVar(name) should not be null.",
                         f"paddle/fluid/inference/api/analysis_predictor.cc:{pick(r, (2118, 2297, 2412))}", "exec",
                         py_frames=frames_user(c, deep=False) + [(f"{c.workdir}/infer.py", r.randrange(30, 90), "predict",
                                                                  f'input_handle = self.predictor.get_input_handle("{name}")')])
        else:
            c.em.err("terminate called after throwing an instance of 'phi::enforce::EnforceNotMet'", "  what():  ", "",
                     "--------------------------------------", "C++ Traceback (most recent call last):",
                     "--------------------------------------", "0   paddle_infer::Predictor::GetInputHandle(std::string const&)",
                     "1   paddle::AnalysisPredictor::GetInputTensor(std::string const&)", "",
                     "----------------------", "Error Message Summary:", "----------------------",
                     *enforce_line(c, "PreconditionNotMet: ", f"The variable named {name} is not found in the scope of the "
                                   "executor.", "scope->FindVar(name) should not be null.",
                                   f"/paddle/paddle/fluid/inference/api/analysis_predictor.cc:{pick(r, (2118, 2297))}"),
                     "Aborted (core dumped)")
            return "input_name+sigabrt"   # a C++ app: the uncaught exception aborts it (134)
        return "input_name"
    py_tb(c, fr)
    if r.random() < 0.5:
        c.em.err("cv2.error: OpenCV(4.8.0) /io/opencv/modules/imgproc/src/resize.cpp:4062: error: (-215:Assertion failed) "
                 "!ssize.empty() in function 'resize'")
        return "cv2_empty_image"
    c.em.err("AttributeError: 'NoneType' object has no attribute 'shape'")
    return "imread_none"


def _cfg(c: Ctx) -> str:
    return c.extra.get("config") or {"ocr": "configs/rec/PP-OCRv4/ch_PP-OCRv4_rec.yml", "det": "configs/ppyoloe/ppyoloe_plus_crn_l_80e_coco.yml",
                                     "serving": "config.yml", "nlp": "./config/finetune_args.json"}.get(c.job, "config.yml")


def _load_config_frames(c: Ctx) -> list:
    repo, r = _repo(c), c.rng
    if c.job == "ocr":
        return [(f"{repo}/tools/train.py", pick(r, (227, 250)), "<module>", "config, device, logger, vdl_writer = "
                 "program.preprocess(is_train=True)"),
                (f"{repo}/tools/program.py", pick(r, (673, 690)), "preprocess", "config = load_config(FLAGS.config)"),
                (f"{repo}/tools/program.py", pick(r, (79, 85)), "load_config", "config = yaml.load(open(file_path, 'rb'), Loader=yaml.Loader)")]
    if c.job == "det":
        return [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
                (f"{repo}/tools/train.py", pick(r, (134, 150)), "main", "cfg = load_config(FLAGS.config)"),
                (f"{repo}/ppdet/core/workspace.py", pick(r, (93, 103)), "load_config", "cfg = merge_config(yaml.load(f, Loader=yaml.Loader), cfg)")]
    return [(f"{c.workdir}/web_service.py", 98, "<module>", 'ocr_service.prepare_pipeline_config("' + _cfg(c) + '")'),
            (f"{c.site}/paddle_serving_server/web_service.py", 71, "prepare_pipeline_config", "conf_dict = yaml.load(f, Loader=yaml.FullLoader)")]


def _ppdet_trainer_frames(c: Ctx) -> list:
    repo, r = _repo(c), c.rng
    return [(f"{repo}/tools/train.py", pick(r, (172, 212)), "<module>", "main()"),
            (f"{repo}/tools/train.py", pick(r, (168, 208)), "main", "run(FLAGS, cfg)"),
            (f"{repo}/tools/train.py", pick(r, (110, 120)), "run", "trainer = Trainer(cfg, mode='train')"),
            (f"{repo}/ppdet/engine/trainer.py", pick(r, (71, 96)), "__init__", "self.model = create(cfg.architecture)")]


def bug_yaml(c: Ctx) -> str:
    r, cfg = c.rng, _cfg(c)
    yml = f"{c.site}/yaml"
    py_tb(c, _load_config_frames(c) + [(f"{yml}/__init__.py", 81, "load", "return loader.get_single_data()"),
                                       (f"{yml}/constructor.py", 49, "get_single_data", "node = self.get_single_node()"),
                                       (f"{yml}/composer.py", 36, "get_single_node", "document = self.compose_document()")])
    line, col = r.randrange(5, 120), r.randrange(1, 30)
    v = r.randrange(3)
    c.em.block([["yaml.scanner.ScannerError: mapping values are not allowed here", f'  in "{cfg}", line {line}, column {col}'],
                ["yaml.parser.ParserError: while parsing a block mapping", f'  in "{cfg}", line {line - 3}, column 3',
                 "expected <block end>, but found '<block mapping start>'", f'  in "{cfg}", line {line}, column 5'],
                ["yaml.scanner.ScannerError: while scanning for the next token", "found character '\\t' that cannot start any token",
                 f'  in "{cfg}", line {line}, column 1']][v])
    return ("scanner", "parser", "tab")[v]


def bug_missing_key(c: Ctx) -> str:
    r, repo = c.rng, _repo(c)
    if c.job == "ocr":
        py_tb(c, _load_config_frames(c)[:2] + [(f"{repo}/tools/program.py", pick(r, (690, 702)), "preprocess",
                                                "use_gpu = config['Global'].get('use_gpu', False)")])
        c.em.err("KeyError: 'Global'")
        return "keyerror_global"
    if c.job == "det":
        py_tb(c, _ppdet_trainer_frames(c) + [(f"{repo}/ppdet/core/workspace.py", pick(r, (76, 81)), "__getattr__",
                                                "raise AttributeError(\"object has no attribute '{}'\".format(key))")])
        c.em.err("AttributeError: object has no attribute 'TrainReader'")
        return "attrdict_trainreader"
    if c.job == "nlp":
        py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/run_finetune.py", r.randrange(200, 300), "main",
                                                 "label_list = data_args.config['label_list']")])
        c.em.err("KeyError: 'label_list'")
        return "keyerror_label_list"
    py_tb(c, frames_user(c, deep=False) + [(f"{c.workdir}/web_service.py", r.randrange(20, 60), "init_op",
                                             "self.det_model_dir = self.conf['det_model_dir']")])
    c.em.err("KeyError: 'det_model_dir'")
    return "keyerror_model_dir"


_PPOCR_HEADS = ("'DBHead', 'PSEHead', 'FCEHead', 'EASTHead', 'SASTHead', 'CTCHead', 'ClsHead', 'AttentionHead', 'SRNHead', "
                "'PGHead', 'Transformer', 'TableAttentionHead', 'SARHead', 'AsterHead', 'SDMGRHead', 'PRENHead', "
                "'MultiHead', 'ABINetHead', 'TableMasterHead', 'SPINAttentionHead', 'VLHead', 'SLAHead', "
                "'RobustScannerHead', 'CT_Head', 'RFLHead', 'DRRGHead', 'CANHead', 'SATRNHead', 'PFHeadLocal', 'ParseQHead'")


def bug_unknown_key(c: Ctx) -> str:
    r, repo = c.rng, _repo(c)
    if c.job == "nlp":
        py_tb(c, frames_user(c, deep=False) + [
            (f"{c.workdir}/run_finetune.py", r.randrange(200, 300), "main", "model_args, data_args, training_args = "
             "parser.parse_json_file(json_file=os.path.abspath(sys.argv[1]))"),
            (f"{c.site}/paddlenlp/trainer/argparser.py", pick(r, (243, 266)), "parse_json_file",
             'raise ValueError(f"Some keys are not used by the PdArgumentParser: {sorted(unused_keys)}")')])
        c.em.err(f"ValueError: Some keys are not used by the PdArgumentParser: {pick(r, (['learing_rate'], ['num_train_epoch', 'warmup'], ['per_device_batch_size']))}")
        return "pdargumentparser"
    if c.job == "ocr":
        py_tb(c, [(f"{repo}/tools/train.py", pick(r, (227, 250)), "<module>", "main(config, device, logger, vdl_writer)"),
                  (f"{repo}/tools/train.py", pick(r, (99, 121)), "main", "model = build_model(config['Architecture'])"),
                  (f"{repo}/ppocr/modeling/architectures/__init__.py", 32, "build_model", "arch = BaseModel(config)"),
                  (f"{repo}/ppocr/modeling/architectures/base_model.py", 73, "__init__", "self.head = build_head(config[\"Head\"])"),
                  (f"{repo}/ppocr/modeling/heads/__init__.py", pick(r, (88, 102)), "build_head", "assert module_name in support_dict, Exception(")])
        c.em.err(f"AssertionError: head only support [{_PPOCR_HEADS}]")
        return "ppocr_build_head"
    py_tb(c, _ppdet_trainer_frames(c) + [(f"{repo}/ppdet/core/workspace.py", pick(r, (229, 244)), "create",
                                            'assert name in global_config, "the module {} is not registered".format(name)')])
    c.em.err(f"AssertionError: the module {pick(r, ('PPYOLOEHeadX', 'CSPResNett', 'YOLOv3Loss_'))} is not registered")
    return "ppdet_not_registered"


def bug_argparse(c: Ctx) -> str:
    c.em.err("usage: infer.py [-h] --model_dir MODEL_DIR [--batch_size BATCH_SIZE] [--use_gpu USE_GPU] [--threshold THRESHOLD]",
             "infer.py: error: unrecognized arguments: --bacth_size 8")
    return "argparse"


def bug_num_classes(c: Ctx) -> str:
    """A config whose num_classes does not match the labels: the loss or the metric trips over it."""
    if c.job == "det" and c.rng.random() < 0.5:
        return "num_classes_" + bug_label_map(c)
    return "num_classes_" + bug_label_range(c)


def bug_wrong_model(c: Ctx) -> str:
    """--model_dir points at another model (a detection model for recognition): shapes do not fit."""
    return "wrong_model_" + bug_broadcast(c)


CODE_BUGS = {
    "shape_matmul": bug_shape_matmul, "conv_channels": bug_conv_channels, "reshape": bug_reshape,
    "broadcast": bug_broadcast, "dtype": bug_dtype, "loss_shape": bug_loss_shape, "label_range": bug_label_range,
    "label_map": bug_label_map, "embedding_ids": bug_embedding_ids, "illegal_address": bug_illegal_address,
    "user_exception": bug_user_exception, "parse_line": bug_parse_line, "collate": bug_collate, "json_line": bug_json_line,
    "bad_input": bug_bad_input, "yaml": bug_yaml, "missing_key": bug_missing_key, "unknown_key": bug_unknown_key,
    "argparse": bug_argparse, "num_classes": bug_num_classes, "wrong_model": bug_wrong_model,
    "spawn_guard": bug_spawn_guard,
}
# bugs a job of each kind can show when the fleet model did not name one (rendering outside pipeline.simulate)
_DEFAULT_BUGS = {"ocr": ("shape_matmul", "conv_channels", "parse_line", "label_range", "yaml", "user_exception", "spawn_guard"),
                 "det": ("conv_channels", "label_map", "collate", "broadcast", "unknown_key", "user_exception"),
                 "nlp": ("shape_matmul", "loss_shape", "embedding_ids", "unknown_key", "user_exception"),
                 "infer": ("dtype", "conv_channels", "bad_input", "user_exception"),
                 "serving": ("user_exception", "missing_key")}


def _sigabrt_after(c: Ctx) -> None:
    """The C++ exception was not caught: Paddle's signal handler prints the abort (it is not the cause)."""
    em, r = c.em, c.rng
    if c.gen == "1x":
        t = em.unix()
        for msg in ("Warning: PaddlePaddle catches a failure signal, it may not work properly",
                    "You could check whether you killed PaddlePaddle thread/process accidentally or report the case to PaddlePaddle",
                    "The detail failure signal is:", "", f'*** Aborted at {t} (unix time) try "date -d @{t}" if you are using GNU date ***',
                    "PC: @                0x0 (unknown)",
                    f"*** SIGABRT (@0x{r.randrange(16**4):x}) received by PID {em.pid} (TID {c.hexaddr()}) from PID {em.pid}; stack trace: ***"):
            em.glog("W", f"init.cc:{pick(r, (209, 217, 226))}", msg)
        for f in ("(unknown)", "__GI_raise", "__GI_abort", "__gnu_cxx::__verbose_terminate_handler()", "(unknown)"):
            em.glog("W", "init.cc:217", f"    @     {c.hexaddr()} {f}")
        em.err(c.shell("Aborted (core dumped)"))
        return
    fatal_signal(c, "SIGABRT", "Process abort signal", ["paddle::AnalysisPredictor::ZeroCopyRun(bool)"] if c.job in ("infer", "serving") else None)
    if r.random() < 0.5:
        em.err(c.shell("Aborted (core dumped)"))


def e_code_error(c: Ctx) -> str:
    r = c.rng
    bug = c.extra.get("job_bug") or pick(r, _DEFAULT_BUGS.get(c.job, _DEFAULT_BUGS["infer"]))
    early = CODE_BUG_PHASE.get(bug) == "import"
    warned = not early and r.random() < 0.12
    if warned:          # a harmless warning printed as the first conv runs, right before the job's own error
        hn_cudnn_mismatch(c)
    v = f"{bug}.{CODE_BUGS[bug](c)}"
    if not early and bug in ("embedding_ids", "shape_matmul", "conv_channels", "reshape") and "gpu_assert" not in v \
            and r.random() < 0.2:
        _sigabrt_after(c)
        v += "+sigabrt"
    return v + ("+cudnn_warning" if warned else "")


