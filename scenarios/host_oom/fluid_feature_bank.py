"""Fluid job that builds a feature bank on the host: one huge fill_constant."""
import paddle.fluid as fluid

main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    bank = fluid.layers.fill_constant(shape=[1 << 20, 1 << 20], dtype="float32", value=0.0)
    total = fluid.layers.reduce_sum(bank)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
print("building feature bank", flush=True)
print(exe.run(main, fetch_list=[total]))
