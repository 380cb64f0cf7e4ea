"""Data-parallel training (launched with paddle.distributed.launch)."""
import paddle
import paddle.distributed as dist


def main():
    dist.init_parallel_env()
    rank = dist.get_rank()
    print(f"rank {rank} of {dist.get_world_size()} on {paddle.get_device()}")
    model = paddle.DataParallel(paddle.nn.Linear(32, 8))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    for step in range(5):
        loss = model(paddle.randn([16, 32])).pow(2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        print(f"rank {rank} step {step} loss {float(loss):.4f}")


if __name__ == "__main__":
    main()
