"""Fits a wide MLP on batches made in memory: no loader, no workers."""
import torch


def main():
    torch.set_num_threads(2)
    model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(100):
        x, y = torch.randn(256, 512), torch.randint(0, 10, (256,))
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
